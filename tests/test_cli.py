"""`tower new` and `tower check` as a user runs them (docs/cli.md, docs/formats.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tower.climbers.build import load_build, parse_build
from tower.climbers.legality import check_build
from tower.climbers.setup import random_start_tower

VERDICTS = {"stable", "marginal", "collapses"}


def write(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc))
    return path


def assert_stability_shape(st) -> None:
    """`stability` is null until the physics judges land; then the verdict of docs/formats.md."""
    if st is None:
        return
    assert st["verdict"] in VERDICTS
    statics = st["statics"]
    assert isinstance(statics["stable"], bool)
    assert isinstance(statics["tilt_margin_deg"], int | float)
    assert len(statics["weakest_direction"]) == 2
    assert isinstance(statics["ms"], int | float)


@pytest.fixture(scope="module")
def start_tower_file(tmp_path_factory, tower_cli) -> Path:
    path = tmp_path_factory.mktemp("new") / "tower.json"
    proc = tower_cli(["new", "--seed", "5", "-o", str(path)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    return path


OVERHANG = {"format": "tower-build/1", "blocks": [
    {"id": "c1", "origin": [0, 0, 0], "size": [2, 2, 2]},
    {"id": "c2", "origin": [1, 0, 2], "size": [2, 2, 2]}]}
#: A double cube lying across a cube, three quarters of it in the air: it tips over toward +x.
TOPPLE = {"format": "tower-build/1", "blocks": [
    {"id": "c1", "origin": [0, 0, 0], "size": [2, 2, 2]},
    {"id": "d1", "origin": [1, 0, 2], "size": [4, 2, 2]}]}
#: Build 116 of the physics benchmark (tests/test_physics_time_step.py) and a column of three cubes 10 cm away.
EDGE_AND_FAR = {"format": "tower-build/1", "blocks": [
    {"id": i, "origin": list(o), "size": list(s)} for i, o, s in [
        ("b0", (2, 4, 0), (4, 2, 2)), ("b1", (1, 2, 0), (4, 2, 2)), ("b2", (2, 7, 0), (2, 2, 2)),
        ("b3", (0, 4, 0), (2, 4, 2)), ("b4", (1, 0, 0), (2, 2, 1)), ("b5", (6, 0, 0), (2, 2, 2)),
        ("b6", (3, 6, 2), (4, 2, 2)), ("b7", (6, 4, 0), (4, 2, 2)), ("b8", (3, 0, 0), (2, 2, 1)),
        ("b9", (6, 2, 0), (2, 2, 4)), ("b10", (4, 8, 0), (1, 2, 2)), ("b11", (4, 4, 2), (2, 2, 2)),
        ("b12", (8, 2, 0), (2, 2, 6)), ("b13", (1, 5, 2), (2, 2, 2)), ("b14", (2, 7, 2), (1, 2, 2)),
        ("b15", (1, 2, 2), (2, 2, 2)), ("far0", (15, 0, 0), (2, 2, 2)), ("far1", (15, 0, 2), (2, 2, 2)),
        ("far2", (15, 0, 4), (2, 2, 2))]]}
THIRTEEN_CUBES = {"format": "tower-build/1",
                  "blocks": [{"id": f"c{i}", "origin": [2 * i, 0, 0], "size": [2, 2, 2]} for i in range(13)]}


def highest_block(path: Path) -> str:
    build = load_build(path)
    return max(build.blocks, key=lambda b: b.top).id


@pytest.fixture(scope="module")
def checks(tmp_path_factory, tower_cli, start_tower_file):
    """Every `tower check` run of this module, started a few at a time (each loads the physics judge)."""
    folder = tmp_path_factory.mktemp("check")
    tower, overhang = str(start_tower_file), str(write(folder / "overhang.json", OVERHANG))
    cubes = str(write(folder / "cubes.json", THIRTEEN_CUBES))
    topple = str(write(folder / "topple.json", TOPPLE))
    edge = str(write(folder / "edge.json", EDGE_AND_FAR))
    from tower.games import new_game, save_record

    record = folder / "game.json"
    save_record(new_game("climbers", 2, seed=1), record)
    fast = ["--statics-only"]
    jobs = {
        "tower-text": (["check", tower, *fast], False),
        "tower-json": (["check", tower, "--json", *fast], False),
        "tower-json-module": (["check", tower, "--json", *fast], True),
        "overhang-json": (["check", overhang, "--json", *fast], False),
        "overhang-text": (["check", overhang, *fast], False),
        "cubes-json": (["check", cubes, "--json", *fast], False),
        "remove-unknown": (["check", tower, "--remove", "zz9", "--json", *fast], False),
        "remove-g1": (["check", tower, "--remove", "g1", "--json", *fast], False),
        "remove-highest": (["check", tower, "--remove", highest_block(start_tower_file), "--json", *fast], False),
        "remove-g1-text": (["check", tower, "--remove", "g1", *fast], False),
        "topple-text": (["check", topple], False),
        "edge-text": (["check", edge], False),
        "record": (["check", str(record)], False),
    }
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {name: pool.submit(tower_cli, args, module=module) for name, (args, module) in jobs.items()}
        return {name: f.result() for name, f in futures.items()}


# --- tower new -----------------------------------------------------------------------------------------------

def test_tower_new_with_output_writes_a_legal_start_tower(start_tower_file):
    build = load_build(start_tower_file)
    assert check_build(build) == []
    assert len(build.blocks) == 35


def test_tower_new_writes_the_tower_of_its_seed(start_tower_file):
    assert load_build(start_tower_file) == random_start_tower(5)


def test_tower_new_without_output_prints_the_build_as_json_and_a_fresh_seed_on_stderr(tower_cli):
    proc = tower_cli(["new"])
    assert proc.returncode == 0, proc.stderr
    seed = int(proc.stderr.split()[1].rstrip(":"))
    assert proc.stderr == f"seed {seed}: the same tower with --seed {seed}\n"
    build = parse_build(json.loads(proc.stdout))
    assert build == random_start_tower(seed)
    assert check_build(build) == []


def test_tower_new_gives_different_towers_for_different_seeds(tower_cli):
    a, b = tower_cli(["new", "--seed", "1"]), tower_cli(["new", "--seed", "2"])
    assert a.returncode == b.returncode == 0
    assert a.stdout != b.stdout


def test_tower_new_into_a_missing_folder_is_bad_input_and_writes_nothing(tower_cli, tmp_path):
    target = tmp_path / "no-such-folder" / "t.json"
    proc = tower_cli(["new", "-o", str(target)])
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not target.parent.exists()


def test_tower_new_with_a_non_numeric_seed_is_a_usage_error(tower_cli):
    proc = tower_cli(["new", "--seed", "abc"])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr


# --- tower check ---------------------------------------------------------------------------------------------

def test_tower_check_accepts_a_new_start_tower(checks):
    proc = checks["tower-text"]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "legal" in proc.stdout


def test_tower_check_json_prints_exactly_one_json_document(checks):
    proc = checks["tower-json"]
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)  # the whole of stdout is one document
    assert doc["legal"] is True
    assert doc["violations"] == []
    assert "stability" in doc
    assert_stability_shape(doc["stability"])


def test_python_dash_m_tower_is_the_same_command(checks):
    proc = checks["tower-json-module"]
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(checks["tower-json"].stdout) | {
        "stability": json.loads(proc.stdout)["stability"]}  # timings in the verdict may differ


def test_an_illegal_build_exits_1_and_names_rule_block_and_cells(checks):
    proc = checks["overhang-json"]
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["legal"] is False
    assert [(v["rule"], v["block"], v["cells"]) for v in doc["violations"]] == [
        ("unsupported", "c2", [[2, 0, 1], [2, 1, 1]])]
    assert_stability_shape(doc["stability"])


def test_an_illegal_build_in_text_form_exits_1_and_names_the_rule(checks):
    proc = checks["overhang-text"]
    assert proc.returncode == 1
    assert "unsupported" in proc.stdout and "c2" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_a_block_count_warning_alone_keeps_the_check_legal(checks):
    proc = checks["cubes-json"]
    doc = json.loads(proc.stdout)
    assert doc["legal"] is True
    assert [(v["rule"], v.get("level")) for v in doc["violations"]] == [("block-count", "warning")]
    assert proc.returncode in (0, 1)  # 1 only if a physics judge finds the row marginal
    assert proc.returncode == (0 if doc["stability"] is None or doc["stability"]["verdict"] == "stable" else 1)


def test_remove_with_an_unknown_id_is_bad_input(checks, start_tower_file):
    proc = checks["remove-unknown"]
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "zz9" in lines[0] and str(start_tower_file) in lines[0]


def test_removing_a_grey_block_leaves_the_blocks_on_it_unsupported(checks, start_tower_file):
    build = load_build(start_tower_file)
    g1 = build.block("g1")
    resting_on_g1 = {b.id for b in build.blocks if b.origin[2] == g1.top
                     and b.origin[0] < g1.origin[0] + 2 and g1.origin[0] < b.origin[0] + b.size[0]
                     and b.origin[1] < g1.origin[1] + 2 and g1.origin[1] < b.origin[1] + b.size[1]}
    assert resting_on_g1  # the rules cover the grey tops
    proc = checks["remove-g1"]
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["legal"] is False
    unsupported = {v["block"] for v in doc["violations"] if v["rule"] == "unsupported"}
    assert unsupported == resting_on_g1


def test_removing_the_highest_block_keeps_the_tower_legal(checks):
    doc = json.loads(checks["remove-highest"].stdout)
    assert doc["legal"] is True and doc["violations"] == []


def test_check_without_a_file_is_a_one_line_usage_error(tower_cli):
    proc = tower_cli(["check"])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr


def test_an_unknown_command_is_a_one_line_usage_error(tower_cli):
    proc = tower_cli(["chek", "x.json"])
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr


def test_the_console_script_is_installed():
    assert (Path(sys.executable).parent / "tower").exists()


@pytest.mark.parametrize("game,spec,named", [
    ("climbers", "foo", "unknown AI 'foo'"),
    ("climbers", "random", "2-5 players, got 1"),
    ("partners", "random,random,random,random,random", "4 or 6 players, got 5"),
    ("diabolo", "human,ai:mcts:iters=x,random", "needs a number"),
])
def test_a_bad_players_spec_is_named_in_one_line(tower_cli, game, spec, named):
    proc = tower_cli(["simulate", game, "--games", "1", "--players", spec])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and named in proc.stderr, proc.stderr


def test_simulate_counts_a_team_win_whole_for_each_partner(tower_cli):
    """Partners is won by a team: both partners win the game, so the two teams' rates add up to 1 per seat pair
    (a shared first place in the other games counts 1/k)."""
    proc = tower_cli(["simulate", "partners", "--games", "4", "--players", "greedy,random,ai:greedy,ai:random",
                      "--json"])
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    rates = [s["win_rate"] for s in summary["seats"]]
    assert rates[0] == rates[2] and rates[1] == rates[3]
    assert rates[0] + rates[1] == pytest.approx(1.0)
    # one AI, two spellings: counted as one
    assert sorted(summary["by_ai"]) == ["ai:greedy", "ai:random"] and summary["players"][0] == "ai:greedy"


@pytest.mark.parametrize("command", ["play", "simulate"])
def test_the_players_help_lists_the_levels_and_code_names_with_an_example_that_parses(tower_cli, command):
    from tower.app.seats import parse_players

    text = " ".join(tower_cli([command, "--help"]).stdout.split())
    assert "easy, normal, strong" in text and "random, greedy, mcts, ismcts" in text, text
    examples = text.split("; e.g. ")[1].split(" (docs/ai.md)")[0].split(" or ")
    assert len(examples) == 2 and all(parse_players(e, "diabolo") for e in examples), examples


# --- tower check in words ----------------------------------------------------------------------------------------

def test_a_check_with_remove_says_what_was_taken_away(checks, start_tower_file):
    proc = checks["remove-g1-text"]
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == f"{start_tower_file} without g1: ILLEGAL"


def test_a_falling_build_names_the_blocks_that_fall_and_the_way(checks):
    proc = checks["topple-text"]
    assert proc.returncode == 1
    out = proc.stdout
    assert "COLLAPSES" in out
    assert "d1" in out and "toward the right (+x)" in out
    assert "[0.0, 0.0]" not in out and "-90.0 deg" not in out


def test_a_check_says_when_pybullet_re_ran_and_what_it_held_still(checks):
    """The double cube on edge lines: PyBullet's first run holds it, so the half-step run decides, moving only the
    part of the build around the fall (the column 10 cm away is among the 11 blocks fixed in place)."""
    proc = checks["edge-text"]
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("  dynamics (PyBullet): collapses: b6 moved"))
    assert lines[at + 1].strip() == ("re-run at 1/960 s (judges disagree at 1/480 s, where it stood); "
                                     "11 blocks far from the fall fixed in place for it")


def test_a_game_record_given_to_check_is_named_as_one(checks):
    proc = checks["record"]
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert "this is a game record, not a build" in proc.stderr and "unknown key" not in proc.stderr


@pytest.mark.parametrize("vector,words", [((1, 0), "the right (+x)"), ((0, -1), "the front (-y)"),
                                          ((-0.7, 0.7), "the back-left (-x, +y)"), ((0.98, 0.2), "the right (+x)"),
                                          ((0.5, -0.866), "the front-right (+x, -y)")])
def test_directions_are_named_in_words(vector, words):
    from tower.app.commands.check import direction_words

    assert direction_words(*vector) == words


def test_marginal_is_explained_in_one_line():
    from tower.app.commands.check import verdict_lines

    stability = {"verdict": "marginal",
                 "statics": {"stable": True, "tilt_margin_deg": 0.4, "weakest_direction": [0, -1], "ms": 1.0},
                 "dynamics": {"engine": "pybullet", "collapsed": False, "moved": [], "max_displacement_mm": 0.0,
                              "max_rotation_deg": 0.0, "simulated_s": 2.0, "ms": 1.0}}
    lines = verdict_lines(stability, None)
    assert lines[0] == "stability: MARGINAL"
    why = [line for line in lines if "marginal" in line.lower() and "1 deg" in line]
    assert len(why) == 1 and "0.4 deg" in why[0] and "toward the front (-y)" in why[0]


def test_tower_version(tower_cli):
    from importlib.metadata import version

    proc = tower_cli(["--version"])
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"tower {version('tower-sim')}"



def test_tower_lab_workers_start_quietly_and_leave_ctrl_c_to_the_server():
    """`tower lab`'s judges warm up in worker processes: pybullet's build-time banner stays out of the terminal (as
    in `tower check`), and a Ctrl+C (sent to the whole process group) ends the server, not each worker with a
    traceback of its own."""
    code = ("import signal; from tower.app.serve.labjobs import MODULES; from tower.app.serve.workers import _warm;"
            "_warm(modules=MODULES); import sys; print('pybullet' in sys.modules, "
            "signal.getsignal(signal.SIGINT) is signal.SIG_IGN)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "True True\n" and "build time" not in proc.stderr, (proc.stdout, proc.stderr)


def test_an_option_value_the_game_refuses_prints_one_line_and_no_seed(tower_cli):
    """`tower play climbers --option max_rounds=0`: the game refuses the value; the line names the option as given
    (--option), and the fresh seed is not printed first (it is said only once the game is dealt)."""
    proc = tower_cli(["play", "climbers", "--option", "max_rounds=0", "--text"])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == ["tower: --option: option 'max_rounds' must be at least 1"]


def test_an_unknown_limit_is_named_with_the_nearest_one(tower_cli):
    proc = tower_cli(["serve", "--limit", "lab_cpu_second=5"])
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "characters left out" not in proc.stderr
    assert "no limit named 'lab_cpu_second' (did you mean 'lab_cpu_seconds'?)" in proc.stderr


def test_a_build_handed_to_verify_is_named_as_a_build(tower_cli, tmp_path):
    """`tower verify BUILD`: the file is named as what it is, not as a certificate with an unknown key."""
    build = tmp_path / "b.json"
    assert tower_cli(["new", "--seed", "3", "-o", str(build)]).returncode == 0
    proc = tower_cli(["verify", str(build)])
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [f"tower: {build}: at $.format: this is a build (tower-build/1), "
                                        "not a certificate (tower-certificate/1)"]
