"""The part of a build that can move once a block is gone: what the removal map simulates in PyBullet.

The map runs PyBullet only where statics says the build without a block falls (or stands by less than a degree).
Statics also names the blocks that fall (its failure mechanism); the rest of the build stands without them. So the
simulation needs as moving bodies only

- the seeds: the blocks statics sees fall, and the blocks that touched the removed one (they lost a support or a
  side contact),
- everything resting on them, directly or through other blocks (it goes where they go),
- a buffer around that: every block within BUFFER_M of it, touching faces and edges included (what a falling
  block leans on, pushes or is held by through side-face friction, the one effect statics leaves out);

every other block is an immovable obstacle (mass 0). A run stops as soon as any block has moved 10 mm or turned
10 degrees, so nothing farther than the buffer can be reached before the verdict is in; and a block statics sees
standing with everything around it standing has nothing to fall for. tests/test_removal_sim.py checks, on start
towers and random builds, that the reduced simulation gives the full one's verdicts.

The runs themselves (`simulate`) share one PyBullet client per process (emptied between runs: the same results
as a fresh client), and go to a small pool of forked processes when there are several runs and more than one
CPU: pybullet holds the GIL while it steps, so threads would not run side by side.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Collection, Iterable, Sequence

import numpy as np

from physics.contacts import TABLE, Contact
from physics.dynamics import DynamicsResult, _import_pybullet, connect, disconnect
from physics.model import Box
from physics.statics import StaticsResult
from physics.units import DEFAULT_MU

#: Blocks closer than this (metres) to a moving block move too: more than a collapse's 10 mm, so anything a
#: falling block can touch before the run stops is simulated.
BUFFER_M = 0.012


def moving_part(boxes: Sequence[Box], contacts: Iterable[Contact], seeds: Iterable[int]) -> set[int]:
    """Indices of the boxes to simulate as moving bodies (module docstring); `contacts` those of `boxes`."""
    n = len(boxes)
    above: list[list[int]] = [[] for _ in range(n)]
    for c in contacts:
        if c.axis == 2 and c.a != TABLE:
            above[c.a].append(c.b)
    part: set[int] = set()
    todo = [i for i in seeds if 0 <= i < n]
    while todo:  # the seeds and what rests on them
        i = todo.pop()
        if i not in part:
            part.add(i)
            todo.extend(above[i])
    if not part:
        return part
    lo = np.array([b.lo for b in boxes], dtype=float)
    hi = lo + np.array([b.size for b in boxes], dtype=float)
    core = sorted(part)
    # gap between two boxes' extents along each axis (0 when they overlap or touch), the distance its norm
    gap = np.maximum(0.0, np.maximum(lo[None, core, :] - hi[:, None, :], lo[:, None, :] - hi[None, core, :]))
    near = np.flatnonzero((np.sqrt((gap ** 2).sum(axis=2)) <= BUFFER_M).any(axis=1))
    return part | {int(i) for i in near}


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
