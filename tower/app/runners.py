"""Where a batch's tasks run: in this process, a local process pool (`--jobs J`), or Ray (`--ray [ADDRESS]`).

Each runner takes chunks of work items (`submit`) and hands back finished chunks in the order they finish
(`wait`). Ray is imported only by `RayRunner`: without `--ray` it is never loaded, and without the optional extra
`cluster` asking for it is one clear line.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing as mp
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from tower.games.errors import BadInput

#: Ray retries a task whose worker process or node died this many times (Ray's own `max_retries`); an exception
#: raised by the task itself is a bug or bad input and is not retried.
RAY_TASK_RETRIES = 3
#: How often a pool worker checks that its driver is still there.
ORPHAN_CHECK_S = 0.5
#: How long a cluster's head may take to accept a connection before `--ray ADDRESS` is refused.
CONNECT_TIMEOUT_S = 5.0

Task = Callable[[Any], dict[str, Any]]
Done = tuple[list[dict[str, Any]], float]  # a chunk's results and the seconds its worker spent on them


class TaskFailed(RuntimeError):
    """A chunk could not be finished (an exception in a task, a worker lost beyond Ray's retries, a broken
    pool); the results that arrived before are kept."""


def run_chunk(fn: Task, items: list[Any]) -> Done:
    """What a worker runs: `fn` on each item of a chunk, and the time it took."""
    start = time.perf_counter()
    return [fn(item) for item in items], time.perf_counter() - start


class InProcess:
    """No workers: each chunk runs when it is submitted (`--jobs 1`)."""

    name = "this process"
    workers = 1

    def __init__(self) -> None:
        self._done: dict[int, Done] = {}
        self._next = 0

    def submit(self, fn: Task, chunk: list[Any]) -> int:
        self._next += 1
        self._done[self._next] = run_chunk(fn, chunk)
        return self._next

    def wait(self, handles: list[Any]) -> list[tuple[Any, Done]]:
        return [(h, self._done.pop(h)) for h in handles]

    def close(self) -> None:
        pass


def _start_worker(driver: int) -> None:
    """A pool worker's set-up: Ctrl-C reaches the whole process group, but the driver stops the workers itself
    (no traceback from each); and a worker ends when its driver is gone (killed: the pool's queues never
    close, so a worker would wait for work for ever)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == driver:
            time.sleep(ORPHAN_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="driver-watch", daemon=True).start()


class LocalPool:
    """`jobs` worker processes on this machine (spawned: no state shared with the driver). A worker that dies
    breaks the pool: the run stops with its results kept, to be continued with --resume."""

    def __init__(self, jobs: int) -> None:
        self.workers = jobs
        self.name = f"a local pool of {jobs} processes"
        self._pool = cf.ProcessPoolExecutor(jobs, mp_context=mp.get_context("spawn"), initializer=_start_worker,
                                            initargs=(os.getpid(),))

    def submit(self, fn: Task, chunk: list[Any]) -> cf.Future:
        return self._pool.submit(run_chunk, fn, chunk)

    def wait(self, handles: list[Any]) -> list[tuple[Any, Done]]:
        done, _ = cf.wait(handles, return_when=cf.FIRST_COMPLETED)
        try:
            return [(f, f.result()) for f in done]
        except cf.process.BrokenProcessPool:
            raise TaskFailed("a worker process of the local pool died") from None

    def close(self) -> None:
        # a stopped run (Ctrl-C, a failure) must not wait for the games still running: end the workers now
        for proc in list(getattr(self._pool, "_processes", {}).values()):
            if proc.is_alive():
                proc.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)


def _loopback(address: str | None) -> bool:
    """No address (a Ray started for the run) or a Ray on this machine's loopback address."""
    host = (address or "").removeprefix("ray://").rpartition(":")[0].strip("[]")
    return address in (None, "", "local") or host in ("localhost", "::1") or host.startswith("127.")


def _check_reachable(address: str) -> None:
    """Something must answer at HOST:PORT: Ray itself retries an unreachable address for minutes."""
    if address == "auto":  # Ray looks up the cluster started on this machine by `ray start`
        return
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not host or not port.isdigit():
        raise BadInput(f"--ray {address}: expected HOST:PORT (the head node's address, e.g. 10.0.0.5:6379)", "")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise BadInput(f"--ray {address}: nothing answers there ({exc.strerror or exc})", "") from None


def _import_ray(loopback: bool) -> Any:
    if loopback:
        # A Ray started for one run serves this machine only: its servers listen on the loopback address, and a
        # driver joining a loopback Ray must look for it there (Ray reads this switch when it is imported; it is
        # how Ray keeps a single-machine instance off the network).
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError as exc:
        if (exc.name or "").split(".")[0] != "ray":
            raise
        raise BadInput("--ray needs Ray: pip install 'tower-sim[cluster]'", "") from None
    return ray


class RayRunner:
    """Chunks as Ray tasks: on the cluster at `address`, or on a local Ray started for the run (stopped again by
    `close`). A Ray already initialised in this process (a notebook, the tests) is used as it is.

    A task whose worker process or node dies is retried by Ray (RAY_TASK_RETRIES); worker output is not
    forwarded, so `--json` keeps stdout to its one document.
    """

    def __init__(self, address: str | None, jobs: int | None) -> None:
        local = address in (None, "", "local")
        ray = self._ray = _import_ray(_loopback(address))
        self._started = False
        if not ray.is_initialized():
            if not local:
                _check_reachable(address)  # type: ignore[arg-type]
            quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
            try:
                if local:  # "local": a new instance even where `ray start` left one running
                    ray.init(address="local", num_cpus=jobs or os.cpu_count() or 1, include_dashboard=False,
                             **quiet)
                else:
                    ray.init(address=address, **quiet)
            except Exception as exc:  # Ray's errors for a bad address or a missing part (ray[client]) vary
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise BadInput(f"--ray {address or ''}: cannot start or reach Ray: {first}".replace("  ", " "),
                               "") from None
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, min(cpus, jobs) if jobs else cpus)
        where = "a local Ray" if local and self._started else f"Ray at {ray.get_runtime_context().gcs_address}"
        self.name = f"{where} ({cpus} CPUs)"
        self._remote = ray.remote(max_retries=RAY_TASK_RETRIES, retry_exceptions=False)(run_chunk)

    def submit(self, fn: Task, chunk: list[Any]) -> Any:
        return self._remote.remote(fn, chunk)

    def wait(self, handles: list[Any]) -> list[tuple[Any, Done]]:
        ray = self._ray
        ready, _ = ray.wait(handles, num_returns=1)
        out = []
        for ref in ready:
            try:
                out.append((ref, ray.get(ref)))
            except ray.exceptions.RayTaskError as exc:
                cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                raise TaskFailed(f"{type(cause).__name__}: {cause}") from None
            except ray.exceptions.RayError as exc:  # worker or node lost beyond the retries, object lost
                raise TaskFailed(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
        return out

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False


def open_runner(jobs: int | None, ray: str | None) -> InProcess | LocalPool | RayRunner:
    """The runner a command's `--jobs` / `--ray` ask for. `ray` is None without `--ray`, "" for a local Ray."""
    if ray is not None:
        return RayRunner(ray, jobs)
    if not jobs or jobs == 1:
        return InProcess()
    return LocalPool(jobs)
