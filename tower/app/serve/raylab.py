"""The lab's heavy physics on a Ray cluster (`tower serve --ray ADDRESS`, docs/serve.md, "Heavy physics on Ray").

Only where a job runs changes: the lab's heavy lane keeps its line in the server (round-robin by client, one job
per client, `lab_queue`), and each of its places is a `RayPool` whose jobs are Ray tasks of one CPU each instead
of a local worker process. A task runs under the same budget, `lab_cpu_seconds` of CPU time enforced by the
kernel in the Ray worker (`workers.run_budgeted`: RLIMIT_CPU; a task over it ends its worker, which the lane reports
as 413 `lab-cpu-seconds`), at the lowest priority (nice 19), and is cancelled when its client hangs up. The lane
has as many places as the cluster has CPUs (at least `lab_workers`), so adding nodes adds lab capacity.
"""

from __future__ import annotations

import os
from typing import Any

from tower.app.serve.workers import OverBudget, run_budgeted

_niced = False


def _ray_job(cpu_seconds: float, fn: Any, args: tuple) -> Any:
    """In a Ray worker: `fn(*args)` at nice 19 within `cpu_seconds` of CPU time."""
    global _niced
    if not _niced:
        os.nice(19)
        _niced = True
    return run_budgeted(cpu_seconds, fn, args)


class RayPool:
    """One place of the heavy lane whose job runs as a Ray task: the part of `WorkerPool` the lane uses."""

    running = False  # nothing of it idles on this machine: the lane's sweep has nothing to stop

    def __init__(self, ray: Any, remote: Any) -> None:
        self.ray, self.remote = ray, remote

    def call(self, fn: Any, *args: Any, cpu_seconds: float, gone: Any = None) -> Any:
        """`fn(*args)` as a Ray task, waited for in the calling thread: OverBudget past `cpu_seconds`;
        ConnectionResetError (the task cancelled) once `gone()` turns true."""
        ray = self.ray
        ref = self.remote.remote(cpu_seconds, fn, args)
        while True:
            ready, _ = ray.wait([ref], timeout=0.5)
            if ready:
                break
            if gone is not None and gone():
                ray.cancel(ref, force=True)
                raise ConnectionResetError("the client went away; its job was stopped")
        try:
            return ray.get(ref)
        except ray.exceptions.WorkerCrashedError:  # the kernel ended the worker at its CPU budget
            raise OverBudget(f"over {cpu_seconds:g} CPU seconds") from None
        except ray.exceptions.RayTaskError as exc:  # the job's own error (a bad build): raised as itself
            cause = getattr(exc, "cause", None)
            raise (cause if isinstance(cause, Exception) else exc) from None

    def close(self) -> None:
        """Nothing to stop here (Ray's workers are Ray's)."""

    def pids(self) -> list[int]:
        return []


class RayLab:
    """The connection to Ray of one server: `pools(n)` gives the heavy lane's places; `close` leaves Ray (and
    stops a local Ray started for this server)."""

    def __init__(self, address: str) -> None:
        from tower.app.runners import RayRunner

        self.runner = RayRunner(address or None, None)  # the batch commands' way to start or join Ray
        ray = self.ray = self.runner._ray
        self.cpus = int(ray.cluster_resources().get("CPU", 1))
        self.name = self.runner.name
        self.remote = ray.remote(num_cpus=1, max_retries=0)(_ray_job)  # not retried: it would die again

    def pools(self, at_least: int) -> list[RayPool]:
        return [RayPool(self.ray, self.remote) for _ in range(max(at_least, self.cpus))]

    def close(self) -> None:
        self.runner.close()
