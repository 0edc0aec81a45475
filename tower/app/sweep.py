"""Sweeps of stability verdicts (`tower sweep`): which builds, judging one, and the statistics of many.

A build is either generated from (seed, index) - a random start tower, a position of a random Climbers game, or a
random stack of game blocks - or read from a folder by the driver and handed to the worker whole (a worker on
another machine cannot read the driver's files).
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from tower.app.batchrun import item_seed
from tower.climbers.build import Build, build_to_json, load_build, parse_build
from tower.games.errors import BadInput

#: The kinds of random build: start towers, positions reached by random play, and random stacks of the game's
#: blocks dropped with overhangs and bridges (often not legal: where the two judges are most often at odds).
KINDS = ("start", "played", "boxes")
#: Random play for a `played` build lasts 1 to this many moves (a game of random players lasts about 20-60).
MAX_PLAYED_MOVES = 60
#: Blocks in a `boxes` build (as in the judges-agree benchmark).
BOXES_BLOCKS = (2, 40)
#: Margin percentiles printed and reported.
PERCENTILES = (1, 5, 25, 50, 75, 95)
SWEEP_FORMAT = "tower-sweep/1"  # the `format` of the `tower sweep --json` document, naming its schema


def parse_kinds(text: str) -> tuple[str, ...]:
    kinds = tuple(k.strip() for k in text.split(","))
    for k in kinds:
        if k not in KINDS:
            raise BadInput(f"--kind: unknown kind {k!r} (one or more of: {', '.join(KINDS)})", "")
    return kinds


def random_items(n: int, seed: int, kinds: tuple[str, ...], statics_only: bool) -> list[tuple[int, dict, bool]]:
    """Build i of a random sweep: kind kinds[i mod k], generated from item_seed(seed, i)."""
    return [(i, {"name": f"{kinds[i % len(kinds)]}-{i}", "kind": kinds[i % len(kinds)],
                 "seed": item_seed(seed, i)}, statics_only) for i in range(n)]


def folder_files(folder: str) -> list[Path]:
    """The build files (*.json) of a folder and its subfolders, sorted: the order fixes each build's index."""
    root = Path(folder)
    if not root.is_dir():
        raise BadInput("no such folder" if not root.exists() else "not a folder", "", folder)
    files = sorted(p for p in root.rglob("*.json") if p.is_file())
    if not files:
        raise BadInput("no build files (*.json) in this folder", "", folder)
    return files


def folder_items(folder: str, files: list[Path], statics_only: bool) -> list[tuple[int, dict, bool]]:
    """Every file read and checked by the driver first: a broken one stops the sweep before any judging."""
    root = Path(folder)
    return [(i, {"name": p.relative_to(root).as_posix(), "kind": "file", "build": build_to_json(load_build(p))},
             statics_only) for i, p in enumerate(files)]


def make_build(spec: dict[str, Any]) -> Build:
    """The build an item names: generated from its kind and seed, or the one it carries."""
    if "build" in spec:
        return parse_build(spec["build"])
    rng = random.Random(spec["seed"])
    if spec["kind"] == "start":
        from tower.climbers.setup import random_start_tower

        return random_start_tower(spec["seed"])
    if spec["kind"] == "played":
        return _played(rng)
    return _boxes(rng)


def _played(rng: random.Random) -> Build:
    """The position after 1..MAX_PLAYED_MOVES random moves of a game on a construction (every move legal, so
    the build is too)."""
    from tower.games import game_class, game_names, new_game

    game = next(n for n in game_names() if game_class(n).construction)
    state = new_game(game, rng.choice(game_class(game).allowed_players()), rng.getrandbits(32))
    for _ in range(rng.randint(1, MAX_PLAYED_MOVES)):
        if state.is_over:
            break
        state.apply(state.random_move(rng))
    return state.to_build()  # type: ignore[attr-defined]


def _boxes(rng: random.Random) -> Build:
    from physics.builds import random_build
    from physics.units import UNIT_M

    boxes = random_build(rng, rng.randint(*BOXES_BLOCKS))
    return parse_build({"format": "tower-build/1", "blocks": [
        {"id": b.id, "origin": [round(v / UNIT_M) for v in b.lo], "size": [round(v / UNIT_M) for v in b.size]}
        for b in boxes]})


def judge_indexed(item: tuple[int, dict[str, Any], bool]) -> dict[str, Any]:
    """The task a worker runs: legality and both judges' verdict of build `index`. A build the judges disagree
    on comes back whole, to be written out for `tower view`."""
    from tower.app.stability import judge_build
    from tower.climbers.legality import check_build, is_legal

    index, spec, statics_only = item
    start = time.perf_counter()
    build = make_build(spec)
    verdict = judge_build(build, statics_only=statics_only)
    statics, dynamics = verdict.statics, verdict.dynamics
    disagree = dynamics is not None and statics.stable == dynamics.collapsed
    out = {"index": index, "name": spec["name"], "kind": spec["kind"], "blocks": len(build.blocks),
           "legal": is_legal(check_build(build)), "verdict": verdict.verdict, "statics_stable": statics.stable,
           "tilt_margin_deg": round(statics.tilt_margin_deg, 3),
           "dynamics_collapsed": None if dynamics is None else dynamics.collapsed,
           "max_displacement_mm": None if dynamics is None else round(dynamics.max_displacement_mm, 2),
           "disagree": disagree}
    if "seed" in spec:
        out["seed"] = spec["seed"]
    if disagree:
        out["build"] = build_to_json(build)
    out["ms"] = round((time.perf_counter() - start) * 1000, 1)
    return out


def summarise_sweep(results: list[dict[str, Any]], elapsed: float, played: int) -> dict[str, Any]:
    """Verdict counts, the margin distribution (min, percentiles, max; the lowest build named) and the builds the
    judges disagree on. Computed in index order: the same whatever order the builds finished in."""
    results = sorted(results, key=lambda r: r["index"])
    margins = np.array([r["tilt_margin_deg"] for r in results], dtype=float)
    lowest = min(results, key=lambda r: (r["tilt_margin_deg"], r["index"]))
    judged_twice = [r for r in results if r["dynamics_collapsed"] is not None]
    return {
        "format": SWEEP_FORMAT, "builds": len(results), "seconds": elapsed, "builds_per_s": played / elapsed if elapsed else 0.0,
        "verdicts": {v: sum(r["verdict"] == v for r in results) for v in ("stable", "marginal", "collapses")},
        "legal": sum(r["legal"] for r in results),
        "tilt_margin_deg": {"min": float(margins.min()),
                            **{f"p{p}": round(float(np.percentile(margins, p)), 3) for p in PERCENTILES},
                            "max": float(margins.max()), "mean": round(float(margins.mean()), 3)},
        "lowest": {"name": lowest["name"], "tilt_margin_deg": lowest["tilt_margin_deg"]},
        "judged_by_both": len(judged_twice),
        "judges_agree": sum(not r["disagree"] for r in judged_twice),
        "disagreements": [{k: r[k] for k in ("index", "name", "statics_stable", "tilt_margin_deg",
                                             "dynamics_collapsed", "max_displacement_mm")}
                          for r in results if r["disagree"]],
    }


def disagreement_file(folder: Path, name: str) -> Path:
    """Where a disagreement's build is written: its name, folders flattened, as a build file."""
    return folder / (name.removesuffix(".json").replace("/", "__") + ".json")
