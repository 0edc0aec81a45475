"""The removal map's PyBullet runs.

The runs themselves (`simulate`) share one PyBullet client per process (emptied between runs: the same results
as a fresh client), and go to a small pool of forked processes when there are several runs and more than one
CPU: pybullet holds the GIL while it steps, so threads would not run side by side.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Collection, Sequence

from physics.dynamics import DynamicsResult, _import_pybullet, connect, disconnect
from physics.model import Box
from physics.statics import StaticsResult
from physics.units import DEFAULT_MU

#: Simulate on this many processes at most (forked; 1: in this process). The map's runs are independent.
PROCESSES = 2
#: ... and only when there are at least this many runs (forking and collecting cost a few ms).
PARALLEL_MIN_RUNS = 2

#: One simulation of the map: the build without a box, its statics answer, the ids held immovable.
Job = tuple[Sequence[Box], StaticsResult, Collection[str]]

_client: int | None = None  # this process's PyBullet client while `simulate` runs
_settings: tuple[float, float] = (DEFAULT_MU, 2.0)


def _run(job: Job) -> DynamicsResult:
    from physics.verdict import judge_dynamics_checked  # noqa: PLC0415 - verdict imports dynamics, not this

    boxes, statics, fixed = job
    mu, seconds = _settings
    return judge_dynamics_checked(boxes, statics, mu=mu, seconds=seconds, fixed=fixed, client=_client)


def _start_worker(mu: float, seconds: float) -> None:
    global _client, _settings
    _client, _settings = connect(), (mu, seconds)


def _processes(runs: int) -> int:
    if runs < PARALLEL_MIN_RUNS or PROCESSES < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(PROCESSES, cpus, runs))


def simulate(jobs: Sequence[Job], mu: float = DEFAULT_MU, seconds: float = 2.0,
             processes: int | None = None) -> list[DynamicsResult]:
    """`judge_dynamics_checked` of each job, in order (module docstring: one client per process, a pool of forked
    processes when it pays). `processes`: force a count (1: here, serially); default `PROCESSES` where useful."""
    global _client, _settings
    jobs = list(jobs)
    if not jobs:
        return []
    n = _processes(len(jobs)) if processes is None else max(1, min(processes, len(jobs)))
    if n == 1:
        saved = _client, _settings
        _start_worker(mu, seconds)
        try:
            return [_run(job) for job in jobs]
        finally:
            disconnect(_client)
            _client, _settings = saved
    _import_pybullet()  # once, before the fork, rather than in each worker
    pool = multiprocessing.get_context("fork").Pool(n, initializer=_start_worker, initargs=(mu, seconds))
    try:
        out = pool.map(_run, jobs, chunksize=1)
        pool.close()  # the workers finish and exit
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()  # waited for either way: no process is left behind
    return out
