"""The removal map's PyBullet runs, on forked processes.

The runs are handed over as they become known (`Runs.submit`): the map starts a removal's run as soon as the
statics search has its answer, and goes on with the other removals' LPs meanwhile. Every process has one PyBullet
client, emptied between runs: the same results as a fresh client. Processes, not threads: pybullet holds the GIL
while it steps. The workers only simulate; they are forked before the search starts its threads.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Hashable
from typing import Any

from physics.dynamics import _import_pybullet, connect, disconnect
from physics.lp import cpus

#: Work on this many processes at most (forked; 1: in this process). The map's runs are independent.
PROCESSES = 2

#: A piece of work: its argument and a PyBullet client to run in (this process's).
Work = Callable[[Any, int], Any]

_work: Work | None = None  # in a worker process: what it applies
_client: int | None = None  # in a worker process: its PyBullet client


def _start_worker(work: Work) -> None:
    global _work, _client
    _work, _client = work, connect()


def _apply(arg: Any) -> Any:
    assert _work is not None and _client is not None
    return _work(arg, _client)


def default_processes() -> int:
    """PROCESSES where there are as many CPUs and fork is available, else 1."""
    if PROCESSES < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(PROCESSES, cpus()))


class Runs:
    """`work(arg, client)` for each submitted argument, on a pool of forked processes (started at the first
    submission) or, with one process, here at once. `results()` waits for all of them; use it as a context manager
    so that the pool is closed, and its workers waited for, whatever happens (no process is left behind).

    The work function reaches the workers through fork, not pickling: it may be a closure over the build."""

    def __init__(self, work: Work, processes: int | None = None) -> None:
        self.work = work
        self.processes = default_processes() if processes is None else max(1, processes)
        self.pool: Any = None
        self.client: int | None = None
        self.pending: dict[Hashable, Any] = {}
        self.done: dict[Hashable, Any] = {}

    def start(self) -> None:
        """Fork the workers now (else at the first submission): before the caller starts threads of its own."""
        if self.processes > 1 and self.pool is None:
            _import_pybullet()  # once, before the fork, rather than in each worker
            self.pool = multiprocessing.get_context("fork").Pool(self.processes, initializer=_start_worker,
                                                                 initargs=(self.work,))

    def submit(self, key: Hashable, arg: Any) -> None:
        """Start work(arg) (here: do it now), its result to be found under `key`."""
        if self.processes == 1:
            if self.client is None:
                self.client = connect()
            self.done[key] = self.work(arg, self.client)
            return
        self.start()
        self.pending[key] = self.pool.apply_async(_apply, (arg,))

    def results(self) -> dict[Hashable, Any]:
        """Every submission's result by its key."""
        for key, handle in self.pending.items():
            self.done[key] = handle.get()
        self.pending.clear()
        self.close()
        return self.done

    def close(self, failed: bool = False) -> None:
        if self.pool is not None:
            if failed:
                self.pool.terminate()
            else:
                self.pool.close()  # the workers finish and exit
            self.pool.join()
            self.pool = None
        if self.client is not None:
            disconnect(self.client)
            self.client = None

    def __enter__(self) -> Runs:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        self.close(failed=kind is not None)
