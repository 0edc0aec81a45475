"""AI seats and hints think in a pool of worker processes, never in the server's own process.

A search holds a core for its whole time budget; in the server process it would hold the interpreter too and
every other table would wait. A worker gets the position as `to_json()`, rebuilds it, thinks, and answers the
move's text; the server checks that move like any other before applying it.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import re
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from tower.games.errors import BadInput

#: Longest search budget an AI seat or a hint may ask for (seconds), and the most iterations: a table must not
#: hold a worker for minutes.
MAX_AI_SECONDS = 10.0
MAX_AI_ITERATIONS = 50_000
#: The AI players the lobby offers: the levels by name, then code names for experts (any other spec within the
#: limits is accepted too).
LEVEL_CHOICES = ("ai:easy", "ai:normal", "ai:strong")
AGENT_CHOICES = (*LEVEL_CHOICES, "ai:random", "ai:greedy", "ai:mcts:time=1", "ai:mcts:time=3")
HINT_AI = "ai:greedy"  # instant, and it sees the position the way the asking seat does (see `choose`)


#: The grammar of an AI seat on this server: a known AI, then settings of known names with short numbers. Nothing
#: else: a seat's spec is shown to every player of the game, so it must not carry free text.
AI_SPEC = re.compile(r"ai:(?:easy|normal|strong|random|greedy|(?:mcts|ismcts)(?::(?:time=\d{1,2}(?:\.\d{1,3})?|iters=\d{1,6}|"
                     r"c=\d(?:\.\d{1,3})?|rollout=\d{1,4})(?:,(?:time=\d{1,2}(?:\.\d{1,3})?|iters=\d{1,6}|"
                     r"c=\d(?:\.\d{1,3})?|rollout=\d{1,4})){0,3})?)")


def check_ai_spec(spec: str) -> str:
    """An AI seat's spec (`ai:greedy`, `ai:mcts:time=1`, ...) as the server accepts it (`AI_SPEC`, then the
    time and iteration bounds); BadInput otherwise."""
    from tower.app.serve.limits import clip

    if not isinstance(spec, str) or len(spec) > 64 or not AI_SPEC.fullmatch(spec):
        raise BadInput(f"a seat is 'human' or an AI: a level (ai:easy, ai:normal, ai:strong) or ai:random, "
                       f"ai:greedy, ai:mcts or ai:ismcts with time=, iters=, c=, rollout=, got {clip(spec, 40)}", "")
    _, _, settings = spec.removeprefix("ai:").partition(":")
    for part in filter(None, settings.split(",")):
        key, _, value = part.partition("=")
        if key == "time" and not 0 < float(value) <= MAX_AI_SECONDS:
            raise BadInput(f"{spec!r}: time must be more than 0 and at most {MAX_AI_SECONDS:g} s on this server", "")
        if key == "iters" and not 0 < int(value) <= MAX_AI_ITERATIONS:
            raise BadInput(f"{spec!r}: iters must be 1 to {MAX_AI_ITERATIONS} on this server", "")
    return spec


def choose(game: str, state_json: dict[str, Any], spec: str, seed: int, observer: int | None = None) -> str:
    """The text of the move the AI `spec` chooses in the position `state_json`.

    With `observer` (a hint), the AI thinks on a copy in which everything that seat cannot see is re-dealt, so
    the hint knows no more than the seat asking for it."""
    from tower.app.stability import statics_stands
    from tower.games.ai import make_agent
    from tower.games.registry import game_class

    cls = game_class(game)
    state = cls.from_json(state_json)
    if cls.construction:
        state.judge = statics_stands
    rng = random.Random(seed)
    if observer is not None:
        state = state.determinize(observer, rng)
    return str(make_agent(spec, seed=seed).choose(state))


def _warm(life: Any = None, nice: int = 0, modules: tuple[str, ...] = ()) -> int:
    """Run once in each worker as it starts: watch the server's life line (`life`, see `life_line`), lower the
    worker's priority by `nice`, and import the games and the scenes (and `modules`) so the first real job is
    quick. Ctrl+C reaches the whole process group: a worker ignores it (no traceback of its own); the server
    stops its workers when it stops."""
    import importlib

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if life is not None:
        _watch_life(life)
    if nice:
        try:
            os.nice(nice)
        except OSError:  # not allowed here: the worker keeps its priority
            pass
    import tower.games.ai  # noqa: F401
    import viewer.games  # noqa: F401
    import viewer.scene_json  # noqa: F401
    from tower.games.registry import game_class, game_names

    for name in game_names():
        game_class(name)
    for module in modules:  # "package.module", or "package.module:function" to call once imported
        name, _, call = module.partition(":")
        loaded = importlib.import_module(name)
        if call:
            getattr(loaded, call)()
    return len(game_names())


_life: tuple[int, Any] | None = None  # (pid, (reader, writer)) of this process's life line


def life_line() -> Any:
    """The read end of this process's life line: a pipe whose write end only this process holds and never writes
    to. A worker given the read end sees its end of file the moment this process is gone (killed with SIGKILL,
    crashed), reaped or not: a zombie holds no file. (Asking `kill(pid, 0)` succeeds on a zombie.)"""
    global _life
    if _life is None or _life[0] != os.getpid():
        _life = (os.getpid(), multiprocessing.Pipe(duplex=False))
    return _life[1][0]


def _watch_life(life: Any) -> None:
    """Exit this worker when the server's life line ends: a pool's workers would otherwise wait for work forever,
    and keep the forkserver and the resource tracker alive with them."""
    import threading

    def watch() -> None:
        while True:
            try:
                life.recv_bytes()
            except (EOFError, OSError):
                os._exit(0)

    threading.Thread(target=watch, name="tower-life-line", daemon=True).start()


#: The numerical libraries' thread pools, one thread each in the workers (unless the operator set them): a worker
#: does one job, and OpenBLAS's threads spinning for a core on a busy two-core machine made one least-squares
#: solve of a lab verdict's detail 1.6-3.3 s instead of 0.4-0.8 s (the lab's edits at p95 2 s with nobody else
#: asking).
MATH_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_thread_math() -> None:
    """Set MATH_THREADS to 1 where unset, before the first worker (and its forkserver) starts: they read them as
    they load numpy."""
    for name in MATH_THREADS:
        os.environ.setdefault(name, "1")


class OverBudget(Exception):
    """A job used up its CPU time (`WorkerPool.call(cpu_seconds=...)`): the kernel stopped its worker."""


def run_budgeted(seconds: float, fn: Any, args: tuple) -> Any:
    """In a worker: `fn(*args)` with `seconds` more CPU time for this process (RLIMIT_CPU, whole seconds, every
    thread counted); past it the kernel ends the process with SIGXCPU, whatever it is doing (C code included)."""
    import math
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(used.ru_utime + used.ru_stime + max(seconds, 0.001))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a worker stopped for its budget leaves no core file
    resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
    try:
        return fn(*args)
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


class WorkerPool:
    """Worker processes for work that must not hold the server's process: AI moves and hints (`choose`), the
    scenes of the pages (`table.render_messages`), replays, the lab's physics. A pool broken by a dead worker is
    replaced on the next call. Each worker exits by itself when the server's process dies (`life_line`)."""

    def __init__(self, workers: int | None = None, nice: int = 0, modules: tuple[str, ...] = ()) -> None:
        """`nice`: how much lower the workers' priority is than the server's (background work such as AI searches
        and replays yields the cores to the answers of moves); `modules`: imported by each worker as it starts."""
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.nice = nice
        self.modules = modules
        self._pool: ProcessPoolExecutor | None = None
        self.busy = 0  # jobs of `run` in flight
        self.last = 0.0  # when the last job of `run` ended (monotonic clock)

    def close_if_idle(self, seconds: float) -> bool:
        """Stop the workers if no job ran for `seconds` (their memory goes back to the system; the next job starts
        them again, in about a second). Whether they were stopped."""
        if self._pool is None or self.busy or time.monotonic() - self.last < seconds:
            return False
        self.close()
        return True

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            one_thread_math()
            # forkserver: workers start from a clean process, not from this one with its threads and sockets
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_warm,
                                             initargs=(life_line(), self.nice, self.modules))
        return self._pool

    def start(self) -> None:
        """Start the workers now rather than at the first job."""
        for _ in range(self.workers):
            self._executor().submit(_warm)

    async def run(self, fn, *args: Any) -> Any:
        """`fn(*args)` in a worker; a pool broken by a dead worker is replaced and the call tried again."""
        import asyncio

        loop = asyncio.get_running_loop()
        self.busy += 1
        try:
            for attempt in range(2):
                try:
                    return await loop.run_in_executor(self._executor(), fn, *args)
                except BrokenProcessPool:
                    self._pool = None
                    if attempt:
                        raise
            raise AssertionError("unreachable")
        finally:
            self.busy -= 1
            self.last = time.monotonic()

    def call(self, fn, *args: Any, cpu_seconds: float, gone: Any = None) -> Any:
        """`fn(*args)` in the worker of a one-worker pool, waited for in the calling thread, with `cpu_seconds` of
        CPU time (`run_budgeted`). Past it the worker is stopped and OverBudget raised; the next call starts a new
        worker. Not tried again: a job that killed its worker would kill the next one too. If `gone()` turns true
        meanwhile (nobody waits for the answer any more), the worker is stopped and ConnectionResetError raised."""
        pool = self._executor()
        future = pool.submit(run_budgeted, cpu_seconds, fn, args)
        procs = list((pool._processes or {}).values())
        try:
            while True:
                try:
                    return future.result(timeout=None if gone is None else 0.5)
                except TimeoutError:
                    if gone():
                        self.close()
                        raise ConnectionResetError("the client went away; its job was stopped") from None
        except BrokenProcessPool:
            if self._pool is pool:
                self._pool = None
            for proc in procs:
                proc.join(5)
            if any(proc.exitcode in (-signal.SIGXCPU, -signal.SIGKILL) for proc in procs):
                raise OverBudget(f"over {cpu_seconds:g} CPU seconds") from None
            raise

    async def choose(self, *args: Any) -> str:
        """The move text an AI chooses (`choose(*args)`), in a worker."""
        return await self.run(choose, *args)

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests)."""
        return [p.pid for p in (self._pool._processes or {}).values()] if self._pool is not None else []

    @property
    def running(self) -> bool:
        """Whether the pool's workers are started (a closed or never used pool has none)."""
        return self._pool is not None

    def close(self) -> None:
        """Stop the workers now: a search still running is ended (its game is saved move by move anyway)."""
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        procs = list((pool._processes or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        for proc in procs:
            proc.join(5)
