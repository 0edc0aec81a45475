"""Benchmarks for the exports and checks that take tower-sim into other tools (issue 25): the glTF of a build, the
glTF of a fall, and a build file checked against its JSON Schema.

Run: python benchmarks/bench_tools.py [--runs R]

Figures printed (medians over R runs), each beside the reference timed in the same run: one statics verdict of the
35-block start tower (`judge_build(..., statics_only=True)`), so the ratios carry across machines:
- the GLB of the 35-block start tower from its scene (nodes, meshes, buffer; no rendering), and its size;
- `tower view FILE --remove ID --gltf fall.glb` without the command's start-up: PyBullet's recorded fall of the
  tower without its most loaded grey block, and the animated GLB;
- loading the tower's build file (`load_build`: JSON, the schema check, the rules' checks), and the schema check
  alone;
- the schema check (`validate`) of the start tower and of a 2,000-block slab (25 x 40 cubes, two layers: the
  largest build the schema allows), by the compiled check that answers valid documents (tower/schemas/fast.py)
  and by the `jsonschema` path it spares them;
- reading the 2,000-block slab's file text by the strict reader (tower/games/reader.py) and by `json.loads`
  alone, and `tower check` refusing a file of a million blocks (44 MB: over the reader's byte cap) as a whole
  command;
- `tower check FILE` on the start tower as a whole command (subprocess, `.pyc` files used), and whether it
  imported `jsonschema` (`python -X importtime`): it should not, the file being valid.
The machine's load average is printed with the figures: on a shared 2-core machine, compare runs made together.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tower.app import stability
from tower.climbers.build import build_to_json, load_build, save_build
from tower.climbers.setup import random_start_tower
from tower.schemas import fast_check, validate, validator
from viewer.gltf import gltf_file_bytes
from viewer.view import build_view_scene


def load() -> str:
    return "load average " + " ".join(f"{v:.1f}" for v in os.getloadavg())


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def slab_doc(nx: int = 25, ny: int = 40, layers: int = 2) -> dict:
    """A build file of nx * ny columns of `layers` cubes (bench_statics_scale.py's slab)."""
    return {"format": "tower-build/1",
            "blocks": [{"id": f"s{x}_{y}_{z}", "origin": [2 * x, 2 * y, 2 * z], "size": [2, 2, 2]}
                       for z in range(layers) for x in range(nx) for y in range(ny)]}


def schema_figures(doc: dict, what: str, runs: int, reference: float) -> None:
    """validate() of `doc` (the compiled check, as the loaders run it) beside the jsonschema path it replaces."""
    assert fast_check("tower-build")(doc) and validator("tower-build").is_valid(doc)
    fast = median_ms(lambda: validate(doc, "tower-build"), runs)
    slow = median_ms(lambda: next(iter(validator("tower-build").iter_errors(doc)), None), max(3, runs // 2))
    print(f"validate(), {what:40s} compiled {fast:8.2f} ms  ({fast / reference:.3f} x reference)")
    print(f"  the same by jsonschema {'':34s}{slow:8.1f} ms  ({slow / reference:.2f} x reference, "
          f"{slow / fast:.0f} x the compiled check)")


def reader_figures(folder: Path, runs: int, reference: float) -> None:
    """The strict reader (tower/games/reader.py) beside Python's own JSON reader on the 2,000-block slab, and a
    file of a million blocks (44 MB) refused by `tower check` as a whole command."""
    from tower.games.reader import parse_text

    raw = json.dumps(slab_doc()).encode()
    ours = median_ms(lambda: parse_text(raw), runs)
    plain = median_ms(lambda: json.loads(raw), runs)
    print(f"reading the 2,000-block slab ({len(raw) / 1024:.0f} KiB): the strict reader {ours:8.1f} ms  "
          f"({ours / reference:.2f} x reference; json.loads alone {plain:.1f} ms)")
    huge = folder / "million.json"
    huge.write_bytes(b'{"format": "tower-build/1", "blocks": [' +
                     b'{"id": "b", "origin": [0, 0, 0], "size": [2, 2, 2]},' * 10**6 + b"{}]}")
    times = []
    for _ in range(max(3, runs // 2)):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "tower", "check", str(huge)], capture_output=True, text=True)
        times.append((time.perf_counter() - start) * 1000)
        assert proc.returncode == 2, proc.stderr
    took = statistics.median(times)
    print(f"tower check of a million blocks ({huge.stat().st_size / 2**20:.0f} MiB), refused, whole command "
          f"{took:6.0f} ms  ({took / reference:.1f} x reference)")
    huge.unlink()


def whole_command(path: Path, runs: int) -> tuple[float, bool]:
    """`tower check PATH` as a subprocess (median ms; .pyc files written and used), and whether it imported
    jsonschema."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cmd = [sys.executable, "-m", "tower", "check", str(path)]
    subprocess.run(cmd, env=env, capture_output=True, check=False)  # writes the .pyc files
    seconds = median_ms(lambda: subprocess.run(cmd, env=env, capture_output=True, check=False), runs)
    imports = subprocess.run([sys.executable, "-X", "importtime", *cmd[1:]], env=env, capture_output=True,
                             text=True, check=False).stderr
    return seconds, any(line.rstrip().endswith("| jsonschema") for line in imports.splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    build = random_start_tower(4)
    scene = build_view_scene(build)
    doc = build_to_json(build)
    folder = Path(tempfile.mkdtemp())
    path = folder / "tower.json"
    save_build(build, path)
    stability.judge_build(build, statics_only=True)  # warm: imports, HiGHS
    gltf_file_bytes(scene, "t.glb")
    validate(doc, "tower-build")
    print(load())
    reference = median_ms(lambda: stability.judge_build(build, statics_only=True), args.runs)
    print(f"reference: statics verdict of the 35-block start tower      {reference:8.1f} ms")
    glb = median_ms(lambda: gltf_file_bytes(scene, "t.glb"), args.runs)
    size = len(gltf_file_bytes(scene, "t.glb"))
    print(f"GLB of the start tower (35 nodes, {size / 1024:.0f} KiB)                 {glb:8.1f} ms  "
          f"({glb / reference:.2f} x reference)")
    without = build.without({"g1"})

    def fall() -> bytes:
        trajectory = stability.fall(without).trajectory
        return gltf_file_bytes(build_view_scene(without), "fall.glb", trajectory)

    fall_ms = median_ms(fall, max(3, args.runs // 2))
    frames = len(stability.fall(without).trajectory)
    print(f"fall without g1: PyBullet run ({frames} frames) + animated GLB    {fall_ms:8.1f} ms  "
          f"({fall_ms / reference:.2f} x reference)")
    loading = median_ms(lambda: load_build(path), args.runs)
    schema_only = median_ms(lambda: validate(json.loads(path.read_text()), "tower-build"), args.runs)
    print(f"load_build of the tower's file (schema + rules' checks)      {loading:8.1f} ms  "
          f"({loading / reference:.2f} x reference)")
    print(f"  of which the JSON Schema check (JSON reading included)     {schema_only:8.1f} ms")
    schema_figures(doc, "35-block start tower", args.runs, reference)
    schema_figures(slab_doc(), "2,000-block slab", args.runs, reference)
    reader_figures(folder, args.runs, reference)
    command, imported = whole_command(path, max(5, args.runs // 2))
    print(f"tower check FILE (start tower), whole command               {command:8.0f} ms  "
          f"({command / reference:.1f} x reference); imported jsonschema: {'yes' if imported else 'no'}")
    print(load())


if __name__ == "__main__":
    main()
