"""Batches on Ray (docs/batch.md), on a local Ray of 2 CPUs: the same per-game results and summaries as alone or
on the local pool, a killed worker retried by Ray with nothing lost, a running cluster joined at its address, and
no Ray process left behind. Skipped where the optional extra `cluster` is not installed."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from tower.app.batch import GameBatch, play_indexed, summarise
from tower.app.batchrun import BatchStopped, run_batch, run_items
from tower.app.cli import main
from tower.app.runners import RayRunner
from tower.app.sweep import judge_indexed, random_items

pytest.importorskip("ray")

CLIMBERS = GameBatch("climbers", ("ai:greedy", "ai:greedy", "ai:random"), 4)
DIABOLO = GameBatch("diabolo", ("ai:greedy", "ai:random", "ai:greedy"), 11)


#: Every process this test process starts inherits this mark in its environment, Ray's servers and workers too,
#: so that Ray processes of other runs on the machine (another pytest worker, someone's benchmark) are not ours.
MARK = f"TOWER_TEST_RAY={os.getpid()}-{time.time_ns()}"
os.environ["TOWER_TEST_RAY"] = MARK.partition("=")[2]


def ray_processes() -> set[int]:
    """Every Ray process started from this test process: its servers (run from the ray package) and its workers
    (`ray::...`), known by the mark in their environment."""
    found = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read()
                if not (cmd.startswith(b"ray::") or b"/site-packages/ray/" in cmd):
                    continue
                env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
            except OSError:
                continue
            if MARK.encode() in env:
                found.add(int(pid))
    return found


def wait_gone(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while (left := pids & ray_processes()) and time.monotonic() < deadline:
        time.sleep(0.25)
    return left


def outcome(r: dict) -> dict:
    return {k: v for k, v in r.items() if k != "ms"}


def without_timing(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("seconds", "games_per_s", "builds_per_s")}


def test_simulate_on_a_local_ray_started_for_the_run_leaves_nothing_behind(tmp_path, tower_cli):
    before = ray_processes()
    out = tmp_path / "games.jsonl"
    proc = tower_cli(["simulate", "diabolo", "--games", "40", "--players", ",".join(DIABOLO.seats),
                      "--seed", str(DIABOLO.seed), "--ray", "--jobs", "2", "--out", str(out), "--json"])
    assert proc.returncode == 0, proc.stderr
    assert not wait_gone(ray_processes() - before, 30), "Ray processes outlived the run"
    alone = [play_indexed(DIABOLO.item(i)) for i in range(40)]
    lines = [json.loads(t) for t in out.read_text().splitlines()[1:]]
    assert {r["index"]: outcome(r) for r in lines} == {r["index"]: outcome(r) for r in alone}
    assert without_timing(json.loads(proc.stdout)) == \
        without_timing(summarise("diabolo", list(DIABOLO.seats), alone, 1.0))


@pytest.fixture(scope="module")
def cluster():
    """A local Ray of 2 CPUs in this process, started as `--ray` starts one; stopped, with all its processes,
    at the end of the module."""
    before = ray_processes()
    runner = RayRunner("", 2)
    import ray

    yield ray.get_runtime_context().gcs_address
    started = ray_processes() - before
    runner.close()
    assert not wait_gone(started, 30), "Ray processes outlived ray.shutdown()"


def test_ray_gives_each_game_the_result_it_gets_alone_in_any_order(cluster):
    items = [DIABOLO.item(i) for i in range(30)]
    random.Random(5).shuffle(items)
    on_ray = [r for chunk in run_items(RayRunner(cluster, None), play_indexed, items) for r in chunk]
    alone = [play_indexed(DIABOLO.item(i)) for i in range(30)]
    assert {r["index"]: outcome(r) for r in on_ray} == {r["index"]: outcome(r) for r in alone}
    assert without_timing(summarise("diabolo", list(DIABOLO.seats), on_ray, 1.0)) == \
        without_timing(summarise("diabolo", list(DIABOLO.seats), alone, 2.0))


def our_busy_worker() -> int | None:
    """A worker process of this test's Ray that is running a chunk (Ray names the process after its task)."""
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
            raylet = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
            driver = int(open(f"/proc/{raylet}/stat").read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if cmd.startswith(b"ray::run_chunk") and driver == me:
            return int(pid)
    return None


def test_a_worker_killed_mid_game_is_retried_by_ray_and_nothing_is_lost(cluster, tmp_path):
    out = tmp_path / "games.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "tower", "simulate", "climbers", "--games", "4", "--players",
                             ",".join(CLIMBERS.seats), "--seed", str(CLIMBERS.seed), "--ray", cluster, "--out",
                             str(out), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and proc.poll() is None and time.monotonic() < deadline:
        killed = our_busy_worker()
        if killed is not None:
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    stdout, stderr = proc.communicate(timeout=300)
    assert killed is not None, "no worker was caught running a game"
    assert proc.returncode == 0, stderr
    summary = json.loads(stdout)  # Ray's notice of the lost worker went to stderr, not into the document
    lines = [json.loads(t) for t in out.read_text().splitlines()[1:]]
    assert sorted(r["index"] for r in lines) == list(range(4))  # each game once: none lost, none twice
    alone = [play_indexed(CLIMBERS.item(i)) for i in range(4)]
    assert {r["index"]: outcome(r) for r in lines} == {r["index"]: outcome(r) for r in alone}
    assert without_timing(summary) == without_timing(summarise("climbers", list(CLIMBERS.seats), alone, 1.0))


def test_simulate_joins_a_running_cluster_at_its_address_and_resumes_there(cluster, tmp_path, tower_cli):
    out = tmp_path / "games.jsonl"
    args = ["simulate", "diabolo", "--games", "30", "--players", ",".join(DIABOLO.seats), "--seed",
            str(DIABOLO.seed), "--ray", cluster]
    first = tower_cli([*args, "--out", str(out), "--json"])
    assert first.returncode == 0, first.stderr
    # cut the file back to a run stopped after 12 games, then continue it on the cluster
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:13]))
    resumed = tower_cli([*args, "--resume", str(out), "--json"])
    assert resumed.returncode == 0, resumed.stderr
    after = [json.loads(t) for t in out.read_text().splitlines()[1:]]
    assert sorted(r["index"] for r in after) == list(range(30))
    assert without_timing(json.loads(resumed.stdout)) == without_timing(json.loads(first.stdout))
    alone = [play_indexed(DIABOLO.item(i)) for i in range(30)]
    assert without_timing(json.loads(first.stdout)) == \
        without_timing(summarise("diabolo", list(DIABOLO.seats), alone, 1.0))


def test_sweep_on_ray_judges_each_build_as_alone(cluster, capsys):
    assert main(["sweep", "--random", "6", "--seed", "3", "--kind", "boxes", "--statics-only", "--ray", cluster,
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    alone = [judge_indexed(it) for it in random_items(6, 3, ("boxes",), True)]
    assert summary["verdicts"] == {v: sum(r["verdict"] == v for r in alone) for v in ("stable", "marginal",
                                                                                        "collapses")}
    assert summary["tilt_margin_deg"]["min"] == min(r["tilt_margin_deg"] for r in alone)


def test_a_task_that_fails_stops_the_run_with_its_results_kept(cluster):
    items = [DIABOLO.item(0), (1, ("no-such-game", ["ai:random"] * 3, 1, {}))]
    with pytest.raises(BatchStopped) as err:
        run_batch(play_indexed, items, total=2, jobs=None, ray=cluster, log=None, what="t", unit="game", quiet=True)
    assert "no-such-game" in str(err.value)
