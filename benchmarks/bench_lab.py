"""The tower lab's speed (docs/lab.md, docs/benchmarks.md), through its HTTP API on a server on 127.0.0.1.

- an edit of the 35-block start tower to the updated verdict: the answer of POST /api/lab/ID/edits (the edit
  checked by the rules, the statics verdict and tilt margin, the scene to draw), p50 and p95 over the edits;
  target p95 <= 150 ms;
- the removal map of that tower (GET .../removal, statics): target <= 1 s;
- the drop (POST .../drop: PyBullet's trajectory and both judges' verdict): target <= 2 s;
- a 200-block free build (the server's block cap): the same edit, p50 and p95;
- where the block in hand would be refused (POST .../refusals: every place the pointer may offer it, each that
  touches the build checked as its edit would be, the bare table's judged once per shape; asked once per edit and
  block in hand, so the ghost can say it before the click): a cube and a double cube (three ways to lie) on the
  start tower, its top block moved, a grey block (three ways) over the whole table (and the answer's size); on
  the 200-block build (at the block cap) a cube, its bottom block moved, and a double cube once one block is
  deleted (199 blocks: each place touching the build is a full rules check of ~200 blocks);
- with --browser: the page stays responsive while the server computes: frames per second of an orbiting camera
  in headless Chromium (software GL) during the start tower's removal map; target >= 30;
- with --cold: a freshly started server each run (its lab workers as they come up with it): the first answers
  of a new lab of a 6-block build (its verdict, its contact forces, a push test) and of the start tower (a push
  test), asked the moment the server listens, then the same asked again after an edit (warm); target: the first
  forces answer within 2 start-tower verdicts.

Each figure is printed beside a reference timed in the same run: one statics verdict of the start tower
(`tower.app.stability.judge_build(..., statics_only=True)`), so the ratio carries across machines. Medians over
--runs runs, and the load average (other jobs share the cores).

    python benchmarks/bench_lab.py [--runs 3] [--edits 40] [--browser] [--cold]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tower.app import stability  # noqa: E402
from tower.app.serve.limits import Limits  # noqa: E402
from tower.app.serve.run import ServerThread  # noqa: E402
from tower.climbers.build import build_to_json  # noqa: E402
from tower.climbers.setup import random_start_tower  # noqa: E402

ROOMY = Limits(request_burst=1_000_000, requests_per_second=100_000.0)


def call(conn: http.client.HTTPConnection, method: str, path: str, body=None) -> tuple[float, dict]:
    t0 = time.perf_counter()
    conn.request(method, path, body=None if body is None else json.dumps(body),
                 headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = json.loads(resp.read())
    ms = (time.perf_counter() - t0) * 1000
    if resp.status >= 300:
        raise SystemExit(f"{method} {path}: {resp.status} {data}")
    return ms, data


def big_build(n: int = 200) -> dict:
    """n cubes in stacks of 8 on a grid with gaps: a free build as large as the lab allows."""
    blocks = []
    for i in range(n):
        stack, level = divmod(i, 8)
        x, y = 3 * (stack % 5) - 8, 3 * (stack // 5) - 8
        blocks.append({"id": f"c{i}", "origin": [x, y, 2 * level], "size": [2, 2, 2]})
    return {"format": "tower-build/1", "blocks": blocks}


def edits(conn, lab_id: str, block: dict, count: int) -> list[float]:
    """Move `block` one unit sideways and back, `count` times: each an edit answered with the new verdict."""
    x, y, z = block["origin"]
    times = []
    for k in range(count):
        ms, state = call(conn, "POST", f"/api/lab/{lab_id}/edits",
                         {"op": "move", "block": block["id"], "origin": [x + (k % 2), y, z]})
        assert state["analysis"]["stability"] is not None
        times.append(ms)
    return times


def hand(kind: str, build: dict, block: dict | None = None) -> dict:
    """The body of a refusals request for a new block of `kind` (or `block` moved), over the area the lab's page
    offers: the build's bounds and 12 columns round them."""
    from tower.app.lab.controller import LabController
    from viewer.scene import face_names

    blocks = build["blocks"]
    lo = [min([0] + [b["origin"][i] for b in blocks]) - 12 for i in (0, 1)]
    hi = [max([2] + [b["origin"][i] + b["size"][i] for b in blocks]) + 12 for i in (0, 1)]
    area = [max(-100, min(100, v)) for v in (lo[0], lo[1], hi[0], hi[1])]
    if block is not None:
        faces = [block["faces"][f] for f in ("+x", "-x", "+y", "-y", "+z", "-z")]
        return {"block": block["id"], "shapes": [{"size": block["size"], "top": faces[4], "faces": faces}],
                "area": area}
    ctl = LabController()
    top = "grey" if kind == "grey" else "red"
    shapes = [{"size": list(size), "top": top, "faces": list(face_names(ctl.ghost(kind, size, top, (0, 0, 0))))}
              for size in ctl.sizes(kind)]
    return {"block": "new", "kind": kind, "shapes": shapes, "area": area}


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def one_run(url: str, count: int) -> dict[str, float]:
    start = random_start_tower(0)
    ref = []
    for _ in range(5):
        t0 = time.perf_counter()
        stability.judge_build(start, statics_only=True)
        ref.append((time.perf_counter() - t0) * 1000)
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
    _, lab = call(conn, "POST", "/api/lab", {"build": build_to_json(start), "rules": "flag"})
    top = max(lab["build"]["blocks"], key=lambda b: b["origin"][2] + b["size"][2])
    tower = edits(conn, lab["id"], top, count)
    refusals = {}
    table = {**hand("grey", lab["build"]), "area": [-100, -100, 100, 100]}
    for key, body in (("refuse_cube", hand("cube", lab["build"])), ("refuse_double", hand("double-cube", lab["build"])),
                      ("refuse_move", hand("", lab["build"], top)), ("refuse_table", table)):
        refusals[key], answer = call(conn, "POST", f"/api/lab/{lab['id']}/refusals", body)
    refusals["table_kb"] = len(json.dumps(answer)) / 1000
    removal, _ = call(conn, "GET", f"/api/lab/{lab['id']}/removal")
    drop, _ = call(conn, "POST", f"/api/lab/{lab['id']}/drop")
    _, big = call(conn, "POST", "/api/lab", {"build": big_build(), "rules": "free"})
    top = max(big["build"]["blocks"], key=lambda b: b["origin"][2])
    large = edits(conn, big["id"], top, max(5, count // 4))
    _, now = call(conn, "GET", f"/api/lab/{big['id']}")
    refusals["refuse_big"], _ = call(conn, "POST", f"/api/lab/{big['id']}/refusals", hand("cube", now["build"]))
    bottom = next(b for b in now["build"]["blocks"] if b["id"] == "c0")  # seven cubes stand on it
    refusals["refuse_big_move"], answer = call(conn, "POST", f"/api/lab/{big['id']}/refusals",
                                               hand("", now["build"], bottom))
    refusals["big_move_kb"] = len(json.dumps(answer)) / 1000
    _, now = call(conn, "POST", f"/api/lab/{big['id']}/edits", {"op": "delete", "block": top["id"]})
    refusals["refuse_big_double"], _ = call(conn, "POST", f"/api/lab/{big['id']}/refusals",
                                            hand("double-cube", now["build"]))
    conn.close()
    return {"reference_ms": statistics.median(ref), "edit_p50": statistics.median(tower), "edit_p95": p95(tower),
            "removal_ms": removal, "drop_ms": drop, "big_p50": statistics.median(large), "big_p95": p95(large),
            **refusals}


SIX = {"format": "tower-build/1", "blocks": [
    {"id": "a", "origin": [0, 0, 0], "size": [2, 2, 2]}, {"id": "b", "origin": [2, 0, 0], "size": [2, 2, 2]},
    {"id": "c", "origin": [0, 0, 2], "size": [4, 2, 2]}, {"id": "d", "origin": [1, 0, 4], "size": [2, 2, 2]},
    {"id": "e", "origin": [0, 2, 0], "size": [2, 2, 4]}, {"id": "f", "origin": [0, 2, 4], "size": [2, 2, 1]}]}


def reference_ms() -> float:
    start = random_start_tower(0)
    ref = []
    for _ in range(5):
        t0 = time.perf_counter()
        stability.judge_build(start, statics_only=True)
        ref.append((time.perf_counter() - t0) * 1000)
    return statistics.median(ref)


def cold_run(pause: float = 0.0) -> dict[str, float]:
    """A fresh server: a new lab's first answers, asked `pause` seconds after it listens (0: at once; a person
    opening the lab page takes a few), then again after an edit."""
    ref = reference_ms()  # before the server starts: its workers' start-up is not in the yardstick
    with tempfile.TemporaryDirectory() as tmp, ServerThread(os.path.join(tmp, "lab.sqlite"), workers=1,
                                                            limits=ROOMY) as srv:
        time.sleep(pause)
        parts = urlsplit(srv.url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
        out = {"reference_ms": ref}
        out["cold_create_ms"], lab = call(conn, "POST", "/api/lab", {"build": SIX, "rules": "flag"})
        out["cold_forces_ms"], _ = call(conn, "GET", f"/api/lab/{lab['id']}/forces")
        out["cold_push_ms"], _ = call(conn, "POST", f"/api/lab/{lab['id']}/push", {"block": "d", "direction": "+x"})
        start = build_to_json(random_start_tower(0))
        _, tower = call(conn, "POST", "/api/lab", {"build": start, "rules": "flag"})
        top = max(tower["build"]["blocks"], key=lambda b: b["origin"][2] + b["size"][2])
        out["cold_tower_push_ms"], _ = call(conn, "POST", f"/api/lab/{tower['id']}/push",
                                            {"block": top["id"], "direction": "+x"})
        # warm: the same questions about a build changed by an edit (answers are kept per build)
        out["warm_edit_ms"], _ = call(conn, "POST", f"/api/lab/{lab['id']}/edits",
                                      {"op": "move", "block": "f", "origin": [0, 3, 4]})
        out["warm_forces_ms"], _ = call(conn, "GET", f"/api/lab/{lab['id']}/forces")
        out["warm_push_ms"], _ = call(conn, "POST", f"/api/lab/{lab['id']}/push", {"block": "d", "direction": "+x"})
        conn.close()
    return out


#: Seconds after the server listens at which the second series asks: about the time a person takes to open the
#: lab page of a server just started.
PERSON_PAUSE = 5.0


def cold_main(runs: int) -> None:
    got = []
    for r in range(runs):
        got.append(cold_run())
        later = cold_run(PERSON_PAUSE)
        got[-1].update({f"{k}_later": v for k, v in later.items() if k.startswith("cold_")})
        print(f"run {r + 1}: " + ", ".join(f"{k} {v:.0f}" for k, v in got[-1].items()), flush=True)
    med = {k: statistics.median(run[k] for run in got) for k in got[0]}
    ref = med["reference_ms"]
    print(f"\nfresh servers, medians over {runs} runs (load average {open('/proc/loadavg').read().split()[0]} at "
          "the end):")
    print(f"  reference: one statics verdict of the 35-block start tower   {ref:7.0f} ms")
    rows = [("first answer: a new lab of a 6-block build (its verdict)", "cold_create_ms", None),
            ("first answer: its contact forces", "cold_forces_ms", 2),
            ("first answer: its push test", "cold_push_ms", None),
            ("first answer: a push test of the start tower", "cold_tower_push_ms", None),
            (f"asked {PERSON_PAUSE:g} s after the server listens: the new lab", "cold_create_ms_later", None),
            ("... its contact forces", "cold_forces_ms_later", 2),
            ("... its push test", "cold_push_ms_later", None),
            ("... a push test of the start tower", "cold_tower_push_ms_later", None),
            ("warm: an edit of the 6-block build -> verdict", "warm_edit_ms", None),
            ("warm: its contact forces", "warm_forces_ms", None),
            ("warm: its push test", "warm_push_ms", None)]
    for label, key, target in rows:
        goal = f"  (target <= {target} x reference)" if target else ""
        print(f"  {label:<58} {med[key]:7.0f} ms  = {med[key] / ref:5.1f} x reference{goal}")


ORBIT = """async () => {
  const lab = window.towerLab, v = lab.view, target = v.controls.target;
  const pending = fetch(`/api/lab/${lab.id}/overlays?show=removal`).then((r) => r.json());
  let done = false, frames = 0;
  pending.then(() => { done = true; });
  const t0 = performance.now();
  await new Promise((resolve) => {
    const step = () => {
      const p = v.camera.position, a = 0.02, x = p.x - target.x, y = p.y - target.y;
      p.x = target.x + x * Math.cos(a) - y * Math.sin(a);
      p.y = target.y + x * Math.sin(a) + y * Math.cos(a);
      v.camera.lookAt(target);
      v.render();
      frames += 1;
      if (done && performance.now() - t0 > 1000) resolve(); else requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  const seconds = (performance.now() - t0) / 1000;
  return { fps: frames / seconds, seconds };
}"""


def browser_fps(url: str) -> dict[str, float]:
    """Frames per second of an orbiting camera on the lab page while the server computes a removal map."""
    import shutil

    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
    out = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            for k in range(2):  # a fresh lab each time: the removal map is computed anew
                _, lab = call(conn, "POST", "/api/lab", {"start": "random", "seed": k, "rules": "flag"})
                page = b.new_context(viewport={"width": 1200, "height": 760}).new_page()
                page.goto(url + lab["url"])
                page.wait_for_selector("body[data-ready='true']", timeout=60_000)
                got = page.evaluate(ORBIT)
                out[f"fps_{k}"] = got["fps"]
                out[f"compute_s_{k}"] = got["seconds"]
                page.context.close()
        finally:
            b.close()
    return {"fps": statistics.median([out["fps_0"], out["fps_1"]]),
            "busy_s": statistics.median([out["compute_s_0"], out["compute_s_1"]])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--browser", action="store_true", help="also the page's frame rate while the server computes")
    ap.add_argument("--cold", action="store_true", help="a fresh server each run: a new lab's first answers")
    args = ap.parse_args()
    if args.cold:
        cold_main(args.runs)
        return
    runs = []
    with tempfile.TemporaryDirectory() as tmp, ServerThread(os.path.join(tmp, "lab.sqlite"), workers=1,
                                                            limits=ROOMY) as srv:
        for r in range(args.runs):
            runs.append(one_run(srv.url, args.edits))
            print(f"run {r + 1}: " + ", ".join(f"{k} {v:.0f}" for k, v in runs[-1].items()), flush=True)
        fps = browser_fps(srv.url) if args.browser else None
    med = {k: statistics.median(run[k] for run in runs) for k in runs[0]}
    ref = med["reference_ms"]
    print(f"\nmedians over {args.runs} runs (load average {open('/proc/loadavg').read().split()[0]} at the end):")
    print(f"  reference: one statics verdict of the 35-block start tower   {ref:7.0f} ms")
    rows = [("edit of the start tower -> verdict, p50", "edit_p50", None),
            ("edit of the start tower -> verdict, p95", "edit_p95", 150),
            ("removal map of the start tower (statics)", "removal_ms", 1000),
            ("drop: PyBullet trajectory + both judges", "drop_ms", 2000),
            ("edit of a 200-block free build, p50", "big_p50", None),
            ("edit of a 200-block free build, p95", "big_p95", None),
            ("refusals of a cube in hand, start tower", "refuse_cube", None),
            ("refusals of a double cube (3 ways to lie), start tower", "refuse_double", None),
            ("refusals of the start tower's top block moved", "refuse_move", None),
            (f"refusals of a grey block, whole table, start tower ({med['table_kb']:.1f} kB)", "refuse_table", None),
            ("refusals of a cube in hand, 200-block free build (cap)", "refuse_big", None),
            (f"refusals of its bottom block moved ({med['big_move_kb']:.1f} kB)", "refuse_big_move", None),
            ("refusals of a double cube, 199-block free build", "refuse_big_double", None)]
    for label, key, target in rows:
        goal = f"  (target <= {target} ms)" if target else ""
        print(f"  {label:<58} {med[key]:7.0f} ms  = {med[key] / ref:5.1f} x reference{goal}")
    if fps:
        print(f"  page orbiting while the server computes a removal map ({fps['busy_s']:.1f} s)  "
              f"{fps['fps']:5.1f} frames/s  (target >= 30)")


if __name__ == "__main__":
    main()
