"""Fuzz run: many generated hostile inputs through every loader, counting clean errors, accepted inputs and crashes.

Run: python benchmarks/bench_fuzz.py [--inputs N] [--seed S] [--only NAME ...]

The inputs come from `tests/hostile.py` (the same generators the hypothesis tests draw from), through a seeded
`random.Random`: damaged documents (a wrong type at any JSON path, keys dropped or added, wrong format versions,
NaN/Infinity, huge and deeply nested values), damaged file bytes (truncated, corrupted, invalid UTF-8, BOM, nesting
200,000 deep) and damaged move texts and move JSON forms. Loaders:

- build-doc / build-file: `tower.climbers.build.parse_build` on a document, `load_build` on a file;
- record-doc / record-file: `tower.games.replay` on a document, `load_record` on a file;
- GAME-text / GAME-json: the game's `Move.parse(text, state)` / `Move.from_json(data)`, and a parsed move is then
  applied to a copy of a mid-game state (it applies or raises IllegalMove).

Figures printed per loader: inputs, clean errors (BadInput, or IllegalMove on applying a parsed move: those are
also counted under `(illegal)`), accepted inputs, crashes (any other exception, or a clean error whose message is
not one line: must be 0; the first few are listed), inputs per second and the slowest single input (both timing
the loader only, not the making of its input).
Exit status 1 if anything crashed.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hostile import (  # noqa: E402
    RandomSource,
    build_samples,
    game_samples,
    hostile_bytes,
    move_json,
    move_text,
    mutate,
)

from tower.climbers.build import load_build, parse_build  # noqa: E402
from tower.games import game_names, load_record, replay  # noqa: E402
from tower.games.errors import BadInput, IllegalMove  # noqa: E402

CLEAN_ERRORS = (BadInput, IllegalMove)


Make = Callable[[RandomSource], Any]  # one generated input
Load = Callable[[Any], Any]  # that input through the loader (raises whatever the loader raises)


def _apply(state, move) -> None:
    state.clone().apply(move)


def loaders(folder: Path) -> dict[str, tuple[Make, Load]]:
    """name -> (make an input, run it through the loader); only the second is timed."""
    builds = build_samples()
    samples = {g: game_samples(g) for g in game_names()}
    records = [s.record for s in samples.values()]

    def file_of(docs: list[Any], name: str) -> Make:
        def make(src: RandomSource) -> Path:
            path = folder / name
            path.write_bytes(hostile_bytes(src, src.pick(docs)))
            return path
        return make

    out: dict[str, tuple[Make, Load]] = {
        "build-doc": (lambda src: mutate(src, src.pick(builds)), parse_build),
        "build-file": (file_of(builds, "build.json"), load_build),
        "record-doc": (lambda src: mutate(src, src.pick(records)), replay),
        "record-file": (file_of(records, "record.json"), load_record),
    }
    for game, s in samples.items():
        mtype = s.states[0].move_type

        def text(src: RandomSource, s=s) -> tuple[Any, str]:
            return src.pick(s.states), move_text(src, s.vocab)

        def form(src: RandomSource, s=s) -> tuple[Any, Any]:
            return src.pick(s.states), move_json(src, s.vocab, s.move_json)

        out[f"{game}-text"] = (text, lambda given, mtype=mtype: _apply(given[0], mtype.parse(given[1], given[0])))
        out[f"{game}-json"] = (form, lambda given, mtype=mtype: _apply(given[0], mtype.from_json(given[1])))
    return out


def run(name: str, make: Make, load: Load, inputs: int, seed: int) -> dict:
    counts: Counter[str] = Counter()
    crashes: list[str] = []
    slowest = busy = 0.0
    for i in range(inputs):
        given = make(RandomSource(random.Random(f"{seed}:{name}:{i}")))
        t = time.perf_counter()
        try:
            load(given)
            counts["accepted"] += 1
        except CLEAN_ERRORS as exc:
            if len(str(exc).splitlines()) != 1:  # the CLI prints it as its one line
                counts["crash"] += 1
                if len(crashes) < 3:
                    crashes.append(f"input {i}: {type(exc).__name__} message is not one line: {str(exc)[:120]!r}")
            else:
                counts["clean"] += 1
                counts["illegal"] += isinstance(exc, IllegalMove)
        except Exception as exc:  # noqa: BLE001 - counting crashes is the point
            counts["crash"] += 1
            if len(crashes) < 3:
                frame = traceback.extract_tb(exc.__traceback__)[-1]
                crashes.append(f"input {i}: {type(exc).__name__}: {str(exc)[:120]} "
                               f"({Path(frame.filename).name}:{frame.lineno})")
        took = time.perf_counter() - t
        busy += took
        slowest = max(slowest, took)
    return {"name": name, "inputs": inputs, **{k: counts[k] for k in ("clean", "illegal", "accepted", "crash")},
            "per_s": inputs / busy, "slowest_s": slowest, "crashes": crashes}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--inputs", type=int, default=10_000, help="generated inputs per loader (default 10000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="run only these loaders (names as printed)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as folder:
        table = loaders(Path(folder))
        names = [n for n in table if not args.only or n in args.only]
        print(f"{'loader':22} {'inputs':>7} {'clean':>7} {'(illegal)':>9} {'accepted':>8} {'crashes':>7} {'inputs/s':>9} "
              f"{'slowest':>8}")
        total_crashes = 0
        for name in names:
            r = run(name, *table[name], args.inputs, args.seed)
            total_crashes += r["crash"]
            print(f"{name:22} {r['inputs']:7} {r['clean']:7} {r['illegal']:9} {r['accepted']:8} {r['crash']:7} "
                  f"{r['per_s']:9.0f} {r['slowest_s']:7.2f}s", flush=True)
            for line in r["crashes"]:
                print(f"    CRASH {line}", flush=True)
        leftovers = os.listdir(folder)
    print(f"crashes in all: {total_crashes}" + (f"; files left behind: {leftovers}" if set(leftovers) - {
        "build.json", "record.json"} else ""))
    return 1 if total_crashes else 0


if __name__ == "__main__":
    sys.exit(main())
