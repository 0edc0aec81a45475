"""Batches on this machine (docs/batch.md): per-game seeds from (seed, index), the same results whatever runs the
games and in whatever order they finish, results streamed to `--out` and continued by `--resume` after Ctrl-C or a
killed driver, `tower sweep`, the plots, the progress bar, and `--ray` without Ray installed."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tower.app.batch import GameBatch, play_indexed, summarise, wilson
from tower.app.batchrun import BatchStopped, ChunkPlan, item_seed, run_batch, run_items
from tower.app.resultlog import FORMAT, ResultLog
from tower.app.runners import InProcess, LocalPool
from tower.games.errors import BadInput

#: A batch whose games take about a second each here: long enough to stop a run in the middle.
CLIMBERS = ["simulate", "climbers", "--games", "6", "--players", "greedy,greedy,random", "--seed", "4"]
PYTHON = sys.executable


def outcome(r: dict) -> dict:
    """A game's result without its timing."""
    return {k: v for k, v in r.items() if k != "ms"}


def without_timing(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("seconds", "games_per_s", "builds_per_s")}


def result_lines(path: Path) -> tuple[dict, list[dict]]:
    lines = [json.loads(t) for t in path.read_text().splitlines()]
    return lines[0], lines[1:]


# --- seeds and order -------------------------------------------------------------------------------------------

def test_each_game_is_seeded_from_the_run_seed_and_its_index():
    seeds = {(s, i): item_seed(s, i) for s in range(-3, 20) for i in range(200)}
    assert len(set(seeds.values())) == len(seeds)  # neighbouring runs share no game (seed + index would)
    assert all(0 <= v < 2**48 for v in seeds.values())  # exact in any JSON reader
    batch = GameBatch("diabolo", ("ai:greedy",) * 4, 7)
    assert batch.item(5)[1][2] == item_seed(7, 5)


def test_game_seeds_do_not_depend_on_the_process():
    """Workers are other processes (other machines on Ray): the seed must not come from Python's salted hash."""
    code = "from tower.app.batchrun import item_seed; print([item_seed(3, i) for i in range(5)])"
    seen = {subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": h}).stdout for h in ("1", "2")}
    assert seen == {str([item_seed(3, i) for i in range(5)]) + "\n"}


def test_the_local_pool_gives_each_game_the_result_it_gets_alone_in_any_order():
    batch = GameBatch("diabolo", ("ai:greedy", "ai:random", "ai:greedy"), 11)
    items = [batch.item(i) for i in range(24)]
    alone = {r["index"]: outcome(r) for r in map(play_indexed, items)}
    shuffled = items[:]
    random.Random(1).shuffle(shuffled)
    pool = LocalPool(2)
    try:
        pooled = [r for chunk in run_items(pool, play_indexed, shuffled) for r in chunk]
    finally:
        pool.close()
    assert {r["index"]: outcome(r) for r in pooled} == alone
    seats = list(batch.seats)
    assert without_timing(summarise("diabolo", seats, pooled, 1.0)) == \
        without_timing(summarise("diabolo", seats, list(map(play_indexed, reversed(items))), 2.0))


def test_chunks_grow_to_about_a_second_of_work_but_stay_spread_over_the_workers():
    plan = ChunkPlan(workers=2)
    assert plan.size(200) == 1  # cost unknown yet
    plan.observe(4, 0.08)  # 20 ms an item
    assert plan.size(200) == 25  # 200 left / (2 workers * 4): the last chunks must still spread
    assert plan.size(10_000) == 50  # about TARGET_TASK_S
    plan = ChunkPlan(workers=2)
    plan.observe(2, 30.0)  # long games: one a task
    assert plan.size(20) == 1


def test_win_rate_intervals_are_wilson_intervals():
    """Reference values of the 95 % Wilson score interval (z = 1.96)."""
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    lo, hi = wilson(500, 1000)
    assert hi - lo == pytest.approx(2 * 1.96 * (0.25 / 1000) ** 0.5, rel=0.01)  # the normal interval, large n


# --- results file, interruption, resume ------------------------------------------------------------------------

def test_out_streams_one_line_a_game_after_a_header_naming_the_run(tmp_path, tower_cli):
    out = tmp_path / "games.jsonl"
    proc = tower_cli(["simulate", "diabolo", "--games", "30", "--jobs", "2", "--seed", "3", "--out", str(out),
                      "--json"])
    assert proc.returncode == 0, proc.stderr
    header, lines = result_lines(out)
    assert header == {"format": FORMAT, "command": "simulate", "game": "diabolo", "players": ["ai:greedy"] * 4,
                      "seed": 3, "options": {}}
    assert sorted(r["index"] for r in lines) == list(range(30))
    assert all(r["seed"] == item_seed(3, r["index"]) for r in lines)
    summary = json.loads(proc.stdout)
    assert summary["games"] == 30
    assert without_timing(summary) == without_timing(summarise("diabolo", ["ai:greedy"] * 4, lines, 1.0))


def pool_children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(")")[-1].split()[0] != "Z"


def run_until(cmd: list[str], out: Path, lines: int, sig: int) -> tuple[subprocess.CompletedProcess, list[int]]:
    """Start `tower ...`, wait until `out` holds `lines` lines, then send `sig` to the driver; the finished
    process and the driver's child processes at that moment."""
    # Ctrl-C as a terminal sends it, even where this test runs in the background (which ignores SIGINT, and a
    # child inherits that)
    code = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "sys.argv = ['tower', *sys.argv[1:]]; runpy.run_module('tower', run_name='__main__')")
    proc = subprocess.Popen([PYTHON, "-c", code, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.read_text().count("\n") >= lines:
            break
        time.sleep(0.05)
    assert proc.poll() is None, f"the run ended before it could be stopped: {proc.stderr.read()}"
    children = pool_children(proc.pid)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)  # the workers hold the pipes too: they must end as well
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), children


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, tower_cli) -> tuple[dict, dict[int, dict]]:
    out = tmp_path_factory.mktemp("whole") / "games.jsonl"
    proc = tower_cli([*CLIMBERS, "--jobs", "2", "--out", str(out), "--json"])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), {r["index"]: outcome(r) for r in result_lines(out)[1]}


def test_ctrl_c_keeps_every_finished_game_and_resume_plays_only_the_rest(tmp_path, tower_cli, uninterrupted):
    out = tmp_path / "games.jsonl"
    stopped, _ = run_until([*CLIMBERS, "--jobs", "2", "--out", str(out)], out, 3, signal.SIGINT)
    assert stopped.returncode == 130
    assert stopped.stderr.strip().splitlines()[-1] == \
        f"tower: simulate: interrupted; the results so far are in {out}: continue with --resume {out}"
    before = result_lines(out)[1]
    assert 2 <= len(before) < 6
    resumed = tower_cli([*CLIMBERS, "--jobs", "2", "--resume", str(out), "--json"])
    assert resumed.returncode == 0, resumed.stderr
    after = result_lines(out)[1]
    assert after[: len(before)] == before  # nothing replayed or rewritten
    assert sorted(r["index"] for r in after) == list(range(6))  # nothing lost, nothing twice
    assert {r["index"]: outcome(r) for r in after} == uninterrupted[1]
    assert without_timing(json.loads(resumed.stdout)) == without_timing(uninterrupted[0])


def test_a_killed_driver_loses_nothing_and_its_cut_last_line_is_played_again(tmp_path, tower_cli, uninterrupted):
    out = tmp_path / "games.jsonl"
    killed, workers = run_until([*CLIMBERS, "--jobs", "2", "--out", str(out)], out, 2, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    assert len(workers) >= 2  # the pool's workers (and its resource tracker)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(alive(w) for w in workers):
        time.sleep(0.2)
    assert not [w for w in workers if alive(w)], "pool workers outlived their killed driver"
    kept = result_lines(out)[1]
    # a kill in the middle of a write leaves half a line: it is not a result, and is replayed
    with out.open("a") as fh:
        fh.write('{"index": 5, "seed": 12, "winn')
    resumed = tower_cli([*CLIMBERS, "--jobs", "2", "--resume", str(out), "--json"])
    assert resumed.returncode == 0, resumed.stderr
    after = result_lines(out)[1]
    assert after[: len(kept)] == kept
    assert {r["index"]: outcome(r) for r in after} == uninterrupted[1]
    assert without_timing(json.loads(resumed.stdout)) == without_timing(uninterrupted[0])


def test_resume_reads_whole_lines_only_and_appends_after_them(tmp_path):
    path = tmp_path / "r.jsonl"
    header = {"command": "simulate", "game": "diabolo", "seed": 1}
    def result(index: int, length: int) -> str:  # a whole result line (tower schema tower-batch: simulateResult)
        return json.dumps({"index": index, "seed": index, "winners": [0], "shares": [1.0, 0.0], "scores": [1, 0],
                           "length": length}) + "\n"

    path.write_text(json.dumps({"format": FORMAT, **header}) + "\n" + result(2, 9) + result(0, 8)
                    + result(1, 7)[:20])
    log = ResultLog.resume(str(path), header)
    assert sorted(log.done) == [0, 2]
    log.open()
    log.append([json.loads(result(1, 7))])
    log.close()
    assert [json.loads(t)["index"] for t in path.read_text().splitlines()[1:]] == [2, 0, 1]


@pytest.mark.parametrize("content, named", [
    ("", "empty"),
    ('{"format": "game-record/1"}\n', "not a tower-batch/1 results file"),
    (json.dumps({"format": FORMAT, "command": "simulate", "seed": 2}) + "\n", "seed 2, the command asks for 1"),
    (json.dumps({"format": FORMAT, "command": "simulate", "seed": 1}) + "\n[1, 2]\n", "line 2"),
    (json.dumps({"format": FORMAT, "command": "simulate", "seed": 1}) + "\n{oops\n", "line 2: not valid JSON"),
])
def test_a_file_that_is_not_this_run_is_refused_for_resume(tmp_path, content, named):
    path = tmp_path / "r.jsonl"
    path.write_text(content)
    with pytest.raises(BadInput) as err:
        ResultLog.resume(str(path), {"command": "simulate", "seed": 1})
    assert named in str(err.value) and str(path) in str(err.value)
    assert path.read_text() == content


@pytest.mark.parametrize("extra, named", [
    (["--resume", "{other}"], "the command asks for 9"),
    (["--out", "{other}"], "already exists; continue that run with --resume"),
    (["--out", "{missing}/x.jsonl"], "does not exist"),
    (["--out", "{new}", "--resume", "{other}"], "--out and --resume: give one"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--plot", "{missing}/p.png"], "does not exist"),
])
def test_bad_batch_flags_are_one_line_and_exit_2(tmp_path, tower_cli, extra, named):
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"format": FORMAT, "command": "simulate", "game": "diabolo",
                                 "players": ["ai:greedy"] * 4, "seed": 0, "options": {}}) + "\n")
    names = {"other": other, "missing": tmp_path / "missing", "new": tmp_path / "new.jsonl"}
    args = [a.format(**names) for a in extra]
    proc = tower_cli(["simulate", "diabolo", "--games", "3", "--seed", "9", *args])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and named in proc.stderr, proc.stderr
    assert not (tmp_path / "new.jsonl").exists()
    assert other.read_text().count("\n") == 1


# --- Ray asked for but absent, never loaded unasked --------------------------------------------------------------

def run_main_in_python(args: list[str], before: str = "") -> subprocess.CompletedProcess:
    code = (f"import sys\n{before}\nfrom tower.app.cli import main\nrc = main({args!r})\n"
            "print('RAY-LOADED' if sys.modules.get('ray') else 'NO-RAY', file=sys.stderr)\nsys.exit(rc)\n")
    return subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=120)


def test_ray_without_the_cluster_extra_is_one_line_and_exit_2(tmp_path):
    out = tmp_path / "games.jsonl"
    # sys.modules['ray'] = None makes `import ray` fail as it does where Ray is not installed
    proc = run_main_in_python(["simulate", "diabolo", "--games", "2", "--ray", "--out", str(out)],
                              before="sys.modules['ray'] = None")
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line != "NO-RAY" and "local Ray" not in line]
    assert lines == ["tower: --ray needs Ray: pip install 'tower-sim[cluster]'"]
    assert not out.exists()


def test_without_ray_flag_ray_is_never_imported(tmp_path):
    proc = run_main_in_python(["simulate", "diabolo", "--games", "4", "--jobs", "2", "--json"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "NO-RAY"
    proc = run_main_in_python(["sweep", "--random", "2", "--kind", "boxes", "--statics-only", "--json"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "NO-RAY"


# --- progress --------------------------------------------------------------------------------------------------

class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_shows_done_total_rate_and_time_left(monkeypatch):
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    batch = GameBatch("diabolo", ("ai:random",) * 3, 0)
    results, _ = run_batch(play_indexed, [batch.item(i) for i in range(5)], total=5, jobs=1, ray=None, log=None,
                           what="diabolo", unit="game", quiet=False)
    assert len(results) == 5
    text = err.getvalue()
    assert "diabolo: 5 games to run on this process" in text
    final = text.replace("\r", "\n").strip().splitlines()[-1]
    assert final.startswith("diabolo: 100%") and "5/5" in final and "game/s" in final
    assert "<00:00" in final  # elapsed<left
    run_batch(play_indexed, [batch.item(0)], total=1, jobs=1, ray=None, log=None, what="diabolo", unit="game",
              quiet=False)
    assert "diabolo: 1 game to run on this process" in err.getvalue()


def test_run_items_on_one_process_runs_each_item_once():
    seen = [r["index"] for chunk in run_items(InProcess(), play_indexed,
                                              [GameBatch("diabolo", ("ai:random",) * 3, 0).item(i) for i in range(7)])
            for r in chunk]
    assert sorted(seen) == list(range(7))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_task_that_fails_stops_the_run_naming_the_error(jobs, tmp_path):
    batch = GameBatch("diabolo", ("ai:random",) * 3, 0)
    log = ResultLog.create(str(tmp_path / "r.jsonl"), batch.header())
    items = [batch.item(0), (1, ("no-such-game", ["ai:random"] * 3, 1, {}))]
    with pytest.raises(BatchStopped) as err:
        run_batch(play_indexed, items, total=2, jobs=jobs, ray=None, log=log, what="t", unit="game", quiet=True)
    assert "no-such-game" in str(err.value)
    # what finished before is in the file, whole
    kept = [json.loads(t)["index"] for t in (tmp_path / "r.jsonl").read_text().splitlines()[1:]]
    assert kept in ([], [0])


def test_resume_with_more_games_extends_the_run_as_if_asked_for_at_first(tmp_path, tower_cli):
    out = tmp_path / "games.jsonl"
    base = ["simulate", "diabolo", "--players", "greedy,random,random", "--seed", "5"]
    assert tower_cli([*base, "--games", "8", "--out", str(out), "--json"]).returncode == 0
    extended = tower_cli([*base, "--games", "16", "--resume", str(out), "--json"])
    whole = tower_cli([*base, "--games", "16", "--json"])
    assert extended.returncode == whole.returncode == 0, extended.stderr + whole.stderr
    assert sorted(r["index"] for r in result_lines(out)[1]) == list(range(16))
    assert without_timing(json.loads(extended.stdout)) == without_timing(json.loads(whole.stdout))


def test_the_simulate_plot_draws_win_shares_with_intervals_and_game_lengths(tmp_path):
    import imageio.v3 as iio
    import numpy as np

    from tower.app.plots import plot_games

    batch = GameBatch("diabolo", ("ai:greedy", "ai:random", "ai:random"), 2)
    results = [play_indexed(batch.item(i)) for i in range(6)]
    summary = summarise("diabolo", list(batch.seats), results, 1.0)
    path = tmp_path / "games.png"
    plot_games(summary, results, str(path))
    img = iio.imread(path)[..., :3].astype(int)
    assert img.shape[:2] == (420, 1300)
    near = lambda rgb: (np.abs(img - np.array(rgb)).sum(axis=-1) < 12)  # noqa: E731
    assert near((0x5c, 0x6b, 0xc0)).sum() > 500  # the win-share bars
    assert near((0x78, 0x90, 0x9c)).sum() > 500  # the length histogram
    assert near((0, 0, 0)).sum() > 200  # axes, labels and the interval whiskers


def test_plot_without_matplotlib_is_one_line_and_exit_2(tmp_path):
    png = tmp_path / "p.png"
    proc = run_main_in_python(["simulate", "diabolo", "--games", "2", "--plot", str(png)],
                              before="sys.modules['matplotlib'] = None")
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[0] == "tower: --plot needs matplotlib: pip install matplotlib"
    assert not png.exists()
