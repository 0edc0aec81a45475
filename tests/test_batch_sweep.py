"""`tower sweep` (docs/batch.md): verdict counts, the tilt-margin distribution, the builds the two judges disagree
on written out for `tower view`, the margin histogram, and bad input refused before any judging."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tower.app.batchrun import item_seed
from tower.app.stability import judge_build
from tower.app.sweep import judge_indexed, make_build, random_items
from tower.climbers.build import load_build, save_build
from tower.climbers.legality import check_build, is_legal
from tower.climbers.setup import random_start_tower

#: Random stacks (kind `boxes`, seed 7) on which the statics judge and PyBullet disagreed when this was written:
#: each falls by the LP on a level table but does not move in the simulation.
DISAGREEING = (59, 72)


def test_a_random_sweep_counts_verdicts_and_reports_the_margin_distribution(tmp_path, tower_cli):
    out, plot = tmp_path / "sweep.jsonl", tmp_path / "margins.png"
    proc = tower_cli(["sweep", "--random", "6", "--seed", "2", "--kind", "start,played,boxes", "--statics-only",
                      "--jobs", "2", "--out", str(out), "--plot", str(plot), "--json"])
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    lines = [json.loads(t) for t in out.read_text().splitlines()[1:]]
    assert sorted(r["index"] for r in lines) == list(range(6))
    # each build is the one its (seed, index) names, judged as if alone
    alone = {r["index"]: r for r in map(judge_indexed, random_items(6, 2, ("start", "played", "boxes"), True))}
    for r in lines:
        assert {k: v for k, v in r.items() if k != "ms"} == {k: v for k, v in alone[r["index"]].items() if k != "ms"}
    assert [r["kind"] for r in sorted(lines, key=lambda r: r["index"])] == ["start", "played", "boxes"] * 2
    assert all(r["legal"] for r in lines if r["kind"] != "boxes")  # start towers and positions of play are legal
    assert sum(summary["verdicts"].values()) == summary["builds"] == 6
    assert summary["verdicts"] == {v: sum(r["verdict"] == v for r in lines) for v in ("stable", "marginal",
                                                                                        "collapses")}
    margins = sorted(r["tilt_margin_deg"] for r in lines)
    m = summary["tilt_margin_deg"]
    assert m["min"] == margins[0] and m["max"] == margins[-1]
    assert m["p50"] == pytest.approx(float(np.median(margins)), abs=1e-3)
    assert summary["lowest"]["tilt_margin_deg"] == margins[0]
    assert summary["judged_by_both"] == 0 and summary["disagreements"] == []  # statics only
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_start_tower_builds_are_the_towers_tower_new_makes():
    spec = random_items(1, 5, ("start",), False)[0][1]
    assert make_build(spec) == random_start_tower(item_seed(5, 0))


def test_a_folder_sweep_writes_each_disagreement_as_a_build_file_for_tower_view(tmp_path, tower_cli):
    folder = tmp_path / "builds"
    (folder / "stacks").mkdir(parents=True)
    save_build(random_start_tower(3), folder / "start.json")
    for i in DISAGREEING:
        save_build(make_build({"kind": "boxes", "seed": item_seed(7, i)}), folder / "stacks" / f"s{i}.json")
    (folder / "notes.txt").write_text("not a build: ignored")
    out_dir = tmp_path / "disagree"
    proc = tower_cli(["sweep", str(folder), "--disagreements", str(out_dir), "--json"])
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["builds"] == summary["judged_by_both"] == 3
    # the oracle: both judges asked directly
    expected = set()
    for path in sorted(folder.rglob("*.json")):
        v = judge_build(load_build(path))
        if v.statics.stable == v.dynamics.collapsed:
            expected.add(path.relative_to(folder).as_posix())
    assert {d["name"] for d in summary["disagreements"]} == expected
    assert summary["judges_agree"] == 3 - len(expected)
    for name in expected:
        written = out_dir / (name.removesuffix(".json").replace("/", "__") + ".json")
        assert str(written) in summary["disagreement_files"]
        assert load_build(written) == load_build(folder / name)
    if not expected:
        pytest.skip("the judges now agree on every candidate build: the writing of disagreements was not exercised")
    shot = tmp_path / "shot.png"
    view = tower_cli(["view", summary["disagreement_files"][0], "--screenshot", str(shot)])
    assert view.returncode == 0, view.stderr
    assert shot.stat().st_size > 0


def test_a_broken_build_file_stops_the_sweep_before_any_judging(tmp_path, tower_cli):
    folder = tmp_path / "builds"
    folder.mkdir()
    save_build(random_start_tower(1), folder / "a.json")
    (folder / "b.json").write_text('{"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 2]}]}')
    out = tmp_path / "sweep.jsonl"
    proc = tower_cli(["sweep", str(folder), "--out", str(out), "--disagreements", str(tmp_path / "d")])
    assert proc.returncode == 2
    assert proc.stdout == ""
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and str(folder / "b.json") in line and "$.blocks[0].size" in line, line
    assert not out.exists() and not (tmp_path / "d").exists()


@pytest.mark.parametrize("args, named", [
    ([], "give a FOLDER of build files or --random N"),
    (["{folder}", "--random", "3"], "give a FOLDER of build files or --random N"),
    (["--random", "0"], "--random must be at least 1"),
    (["--random", "3", "--kind", "start,towers"], "unknown kind 'towers'"),
    (["{missing}"], "no such folder"),
    (["{empty}"], "no build files"),
    (["--random", "3", "--disagreements", "{missing}/d"], "does not exist"),
    (["--random", "3", "--statics-only", "--resume", "{run}"], "statics_only false, the command asks for true"),
])
def test_bad_sweep_arguments_are_one_line_and_exit_2(tmp_path, tower_cli, args, named):
    (tmp_path / "empty").mkdir()
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps({"format": "tower-batch/1", "command": "sweep",
                               "source": {"random": ["start", "played"], "seed": 0}, "statics_only": False}) + "\n")
    names = {"folder": tmp_path / "empty", "missing": tmp_path / "missing", "empty": tmp_path / "empty", "run": run}
    proc = tower_cli(["sweep", *[a.format(**names) for a in args]])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and named in proc.stderr, proc.stderr


def test_played_builds_are_legal_positions(tmp_path):
    for i in range(3):
        build = make_build({"kind": "played", "seed": item_seed(11, i)})
        assert is_legal(check_build(build))
        assert build.figures  # a position of a game: the figures stand on it


def test_the_margin_histogram_is_drawn(tmp_path):
    from tower.app.plots import plot_margins

    results = [{"tilt_margin_deg": m, "verdict": v} for m, v in
               [(-90.0, "collapses"), (-3.0, "marginal"), (0.5, "marginal"), (12.0, "stable"), (14.0, "stable")]]
    path = tmp_path / "m.png"
    plot_margins(results, str(path), "five builds")
    import imageio.v3 as iio

    img = iio.imread(path)
    assert img.shape[0] == 450 and img.shape[1] == 800
    # the three verdict colours are drawn
    for hex_colour in ("#2e7d32", "#f9a825", "#c62828"):
        rgb = np.array([int(hex_colour[i: i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(img[..., :3].astype(int) - rgb).sum(axis=-1) < 10).any(), hex_colour

