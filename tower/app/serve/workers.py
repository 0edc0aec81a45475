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


def _warm(parent: int | None = None, nice: int = 0) -> int:
    """Run once in each worker as it starts: watch the server's process (`parent`), lower the worker's priority
    by `nice`, and import the games and the scenes so the first real job is quick."""
    if parent is not None:
        _watch_parent(parent)
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
    return len(game_names())


def _watch_parent(parent: int, every: float = 0.5) -> None:
    """Exit this worker when the server's process is gone (killed with SIGKILL, crashed): a pool's workers would
    otherwise wait for work forever, and keep the forkserver and the resource tracker alive with them."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(every)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:  # the pid now belongs to another user's process: ours is gone
                os._exit(0)

    threading.Thread(target=watch, name="tower-parent-watch", daemon=True).start()


class WorkerPool:
    """Worker processes for work that must not hold the server's process: AI moves and hints (`choose`), the
    scenes of the pages (`table.render_messages`). A pool broken by a dead worker is replaced on the next call.
    Each worker exits by itself when the server's process dies (`_watch_parent`)."""

    def __init__(self, workers: int | None = None, nice: int = 0) -> None:
        """`nice`: how much lower the workers' priority is than the server's (background work such as AI searches
        and replays yields the cores to the answers of moves)."""
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.nice = nice
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # forkserver: workers start from a clean process, not from this one with its threads and sockets
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_warm,
                                             initargs=(os.getpid(), self.nice))
        return self._pool

    def start(self) -> None:
        """Start the workers now rather than at the first job."""
        for _ in range(self.workers):
            self._executor().submit(_warm)

    async def run(self, fn, *args: Any) -> Any:
        """`fn(*args)` in a worker; a pool broken by a dead worker is replaced and the call tried again."""
        import asyncio

        loop = asyncio.get_running_loop()
        for attempt in range(2):
            try:
                return await loop.run_in_executor(self._executor(), fn, *args)
            except BrokenProcessPool:
                self._pool = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def choose(self, *args: Any) -> str:
        """The move text an AI chooses (`choose(*args)`), in a worker."""
        return await self.run(choose, *args)

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests)."""
        return [p.pid for p in (self._pool._processes or {}).values()] if self._pool is not None else []

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
