"""`tower serve --ray`: the lab's heavy physics as tasks on Ray (docs/serve.md, "Heavy physics on Ray"), here on a
local Ray started for the server: the same answers as the local workers give, the fair line still the server's,
the CPU budget still enforced (a job over `lab_cpu_seconds` is 413 `lab-cpu-seconds`), no local heavy worker
started, and Ray stopped with the server. Skipped where the optional extra `cluster` is not installed."""

from __future__ import annotations

import time

import pytest
from serve_support import ROOMY
from test_batch_ray import ray_processes
from test_serve_isolation import column
from test_serve_lab import Api

from tower.app.serve.raylab import RayPool
from tower.app.serve.run import ServerThread

pytest.importorskip("ray")


def ray_own(pids: set[int]) -> set[int]:
    """Of `pids`, Ray's own processes (not another test's forkserver, whose path may name Ray's packages)."""
    out = set()
    for pid in pids:
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if b"multiprocessing" not in cmd:
            out.add(pid)
    return out


def gone_within(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while (left := ray_own(pids)) and time.monotonic() < deadline:
        time.sleep(0.25)
    return left


def test_the_labs_heavy_jobs_run_as_ray_tasks_under_the_same_budget(tmp_path):
    from dataclasses import replace

    from tower.app import stability
    from tower.app.serve.lab import LABS_KEY
    from tower.climbers.build import parse_build

    before = ray_processes()
    limits = replace(ROOMY, lab_cpu_seconds=1.0, lab_quick_blocks=4)
    with ServerThread(str(tmp_path / "g.sqlite"), ai_pause=0, workers=1, limits=limits, ray="") as srv:
        jobs = srv.runner.app[LABS_KEY].jobs
        assert jobs.heavy.pools and all(isinstance(p, RayPool) for p in jobs.heavy.pools)
        assert len(jobs.heavy.pools) >= srv.server.ray.cpus  # a place per CPU of the cluster
        api = Api(srv.url)
        small = column(6)
        status, lab = api.call("POST", "/api/lab", {"build": small, "rules": "free"})
        assert status == 201
        status, removal = api.call("GET", f"/api/lab/{lab['id']}/removal")
        assert status == 200
        here = stability.removal(parse_build(small), statics_only=True).to_json()  # what the local workers say
        assert removal["removal"]["blocks"] == here["blocks"]
        assert jobs.heavy.jobs >= 2 and jobs.heavy.pids() == []  # the verdict of 6 blocks and the map: on Ray
        status, lab = api.call("POST", "/api/lab", {"build": column(200), "rules": "free"})
        status, refused = api.call("GET", f"/api/lab/{lab['id']}/removal")  # minutes of CPU: stopped at 1 s
        assert status == 413 and refused["rule"] == "lab-cpu-seconds"
        status, removal = api.call("GET", f"/api/lab/{lab['id']}/removal")  # known too big: refused at once
        assert status == 413
        ours = ray_own(ray_processes() - before)  # the local Ray's processes
    assert ours and not gone_within(ours, 60)  # stopped with the server
