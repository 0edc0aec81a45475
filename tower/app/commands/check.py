"""`tower check`: legality rule by rule, then the stability verdict of both judges, in words."""

from __future__ import annotations

import math
from typing import Any

from tower.app.output import EXIT_FOUND, EXIT_OK, check_output_path, print_json
from tower.games.errors import BadInput, unknown_id
from viewer.physics_words import direction_words, fall_words, names, tilt_words

RECORD_FORMAT = "game-record/1"
CHECK_FORMAT = "tower-check/1"  # the `format` of the --json document, naming its schema (`tower schema tower-check`)
#: A fall direction shorter than this (grid units) is no direction: the weight sits over its support.
MIN_LEAN = 0.25


def read_build(path: str):
    """The build in `path`; a game record handed over instead is named as one (not "unknown key 'game'")."""
    from tower.games.fileio import read_json

    try:
        return build_document(read_json(path))
    except BadInput as exc:
        raise exc if exc.source else exc.in_source(path) from None


def build_document(doc: Any):
    """A `tower-build/1` document as a build, worded as `tower check` words a bad file (the lab's uploads too): a
    game record is named as one, not as a build with an unknown key."""
    from tower.climbers.build import parse_build

    if isinstance(doc, dict) and doc.get("format") == RECORD_FORMAT:
        raise BadInput("this is a game record, not a build: `tower replay FILE` steps through it, "
                       "`tower view FILE` shows where it ended", "$.format")
    return parse_build(doc)


def judge(build, statics_only: bool, engine: str = "pybullet") -> Any:
    """The physics verdict (`physics.Verdict`), or None when the physics judges are not installed."""
    try:
        from tower.app.stability import judge_build
    except (ImportError, AttributeError):  # physics not available: legality alone
        return None
    if engine != "pybullet" and not statics_only:
        import importlib.util

        if importlib.util.find_spec(engine) is None:
            raise BadInput(f"--judge {engine} needs the optional extra: pip install 'tower-sim[{engine}]'", "")
    try:
        return judge_build(build, statics_only=statics_only, engine=engine)
    except (ImportError, AttributeError):
        return None


def check_document(build, statics_only: bool, verdict: Any = "judge") -> dict[str, Any]:
    """The `tower check --json` document of a build (docs/formats.md); `verdict` if already judged."""
    from tower.climbers.legality import check_build, is_legal

    violations = check_build(build)
    if verdict == "judge":
        verdict = judge(build, statics_only)
    stability = None if verdict is None else verdict.to_json()
    if stability is not None and verdict.statics.failure is not None:  # how it starts to fail (physics.failure)
        stability["statics"]["failure"] = verdict.statics.failure.to_json()
    return {"format": CHECK_FORMAT, "legal": is_legal(violations), "violations": [v.to_json() for v in violations],
            "stability": stability}


# --- the verdict in words ------------------------------------------------------------------------------------

def lean(build, ids: list[str]) -> tuple[float, float] | None:
    """Which way the blocks `ids` lean off what holds them up: from the middle of the cells they stand on to their
    centre of mass, seen from above. (0, 0) when nothing is under them at all; None without such blocks."""
    mine = [b for b in build.blocks if b.id in ids]
    if not mine:
        return None
    others = [b for b in build.blocks if b.id not in ids]
    weight = sum(math.prod(b.size) for b in mine)
    com = [sum((b.origin[k] + b.size[k] / 2) * math.prod(b.size) for b in mine) / weight for k in (0, 1)]
    held = []
    for b in mine:
        z = b.origin[2]
        for x in range(b.origin[0], b.origin[0] + b.size[0]):
            for y in range(b.origin[1], b.origin[1] + b.size[1]):
                if z == 0 or any(o.top == z and o.origin[0] <= x < o.origin[0] + o.size[0]
                                 and o.origin[1] <= y < o.origin[1] + o.size[1] for o in others):
                    held.append((x + 0.5, y + 0.5))
    if not held:
        return (0.0, 0.0)
    return (com[0] - sum(c[0] for c in held) / len(held), com[1] - sum(c[1] for c in held) / len(held))


def fall_line(statics: dict[str, Any], build) -> str:
    """How a falling build starts to fall, from the statics judge's `failure` (which blocks move, how and where
    each group goes; viewer.physics_words), or from its `mechanism` and the build's shape where there is none."""
    tail = "; no tilt of the table would hold it" if not any(statics.get("weakest_direction") or ()) else ""
    failure = statics.get("failure") or {}
    if failure.get("blocks"):
        ids = [m["block"] for m in failure["blocks"]]
        if failure["mode"] == "drop" and build is not None and \
                lean(build, [i for i in ids if not i.startswith("figure-")]) == (0.0, 0.0):
            return f"falls: nothing holds up {names(ids)}: {'it drops' if len(ids) == 1 else 'they drop'}"
        return f"falls: {fall_words(failure)}{tail}"
    mechanism = statics.get("mechanism") or []
    who = names(mechanism) if mechanism else "the build"
    s = "s" if len(mechanism) == 1 else ""
    if tail == "":
        return f"falls: {who} tip{s} over toward {direction_words(*statics['weakest_direction'])}"
    way = lean(build, [i for i in mechanism if not i.startswith("figure-")]) if build is not None else None
    if way == (0.0, 0.0):
        return f"falls: nothing holds up {who}: {'it drops' if len(mechanism) == 1 else 'they drop'}"
    if way is not None and math.hypot(*way) >= MIN_LEAN:
        return f"falls: {who} tip{s} over toward {direction_words(*way)}{tail}"
    return f"falls: {who}{tail}"


def verdict_lines(st: dict[str, Any], build) -> list[str]:
    """The stability part of `tower check`'s text: the verdict, why a MARGINAL is one, each judge's answer."""
    s, d = st["statics"], st.get("dynamics")
    sim = {"mujoco": "MuJoCo"}.get((d or {}).get("engine"), "PyBullet")
    lines = [f"stability: {st['verdict'].upper()}"]
    margin = s["tilt_margin_deg"]
    toward = direction_words(*s["weakest_direction"]) if any(s["weakest_direction"]) else ""
    if st["verdict"] == "marginal":
        if s["stable"] and (d is None or not d["collapsed"]):
            does = tilt_words(s, third_person=True)
            lines.append(f"  marginal: it stands, but a table tilted by only {margin:.1f} deg {does} toward "
                         f"{toward} (stable needs at least 1 deg)")
        elif s["stable"]:
            lines.append(f"  marginal: the judges disagree: the statics LP finds it standing, the {sim} "
                         "simulation sees it move")
        else:
            lines.append("  marginal: the judges disagree: the statics LP finds no way for it to stand, yet it stayed up in "
                         f"the {sim} simulation")
    if s["stable"]:
        lines.append(f"  statics  (LP):       stands; a table tilted by {margin:.1f} deg would {tilt_words(s)} toward "
                     f"{toward}, {s['ms']:.0f} ms")
    else:
        lines.append(f"  statics  (LP):       {fall_line(s, build)}, {s['ms']:.0f} ms")
    if d:
        moved = names(d["moved"])
        state = (f"collapses: {moved} moved" if d["collapsed"] else "stands") + \
            f" (at most {d['max_displacement_mm']:.1f} mm, {d['max_rotation_deg']:.1f} deg)"
        label = f"dynamics ({sim}):"
        lines.append(f"  {label:<21}{state} in {d['simulated_s']:.2f} s simulated, {d['ms']:.0f} ms")
        lines.extend(rerun_lines(d.get("settings") or {}))
    return lines


def rerun_lines(settings: dict[str, Any]) -> list[str]:
    """Why and how PyBullet's answer comes from a re-run at half the time step (physics.verdict), if it does."""
    if not settings.get("recheck"):
        return []
    first = settings["first_run"]
    line = (f"{'':<23}re-run at 1/{1 / settings['time_step_s']:.0f} s ({settings['recheck']} at "
            f"1/{1 / first['time_step_s']:.0f} s, where it {'moved' if first['collapsed'] else 'stood'})")
    held = settings.get("fixed_boxes")
    return [line + (f"; {held} blocks far from the fall fixed in place for it" if held else "")]


def _print_check(title: str, doc: dict[str, Any], detail: dict[str, Any] | None, build) -> None:
    print(f"{title}: {'legal' if doc['legal'] else 'ILLEGAL'}")
    for v in doc["violations"]:
        level = v.get("level", "error")
        cells = " ".join(str(tuple(c)) for c in v["cells"][:6]) + (" ..." if len(v["cells"]) > 6 else "")
        print(f"  {level:7} {v['rule']:22} {v['message']}" + (f"  cells {cells}" if cells else ""))
    if detail:
        print("\n".join(verdict_lines(detail, build)))


def explanations(build, args) -> dict[str, Any]:
    """The parts asked for by --forces, --removal-map and --push, as JSON-able dicts (keys `forces`,
    `removal_map`, `push`)."""
    from tower.app import explain

    out: dict[str, Any] = {}
    push = None
    if getattr(args, "push", None):
        push = explain.parse_push(args.push, {b.id for b in build.blocks}, args.file)
    if not (getattr(args, "forces", False) or getattr(args, "removal_map", False) or push):
        return out
    try:
        from tower.app import stability
    except ImportError:  # pragma: no cover - physics not installed
        raise BadInput("--forces, --removal-map and --push need the physics judges (numpy, scipy)", "") from None
    if args.forces:
        out["forces"] = stability.forces(build).to_json(witnesses=getattr(args, "witnesses", False))
    if args.removal_map:
        out["removal_map"] = stability.removal(build, args.statics_only, progress=True).to_json()
    if push:
        out["push"] = [r.to_json() for r in stability.push(build, *push)]
    return out


def write_certificate(build, statics: Any, path: str, quiet: bool) -> None:
    """Write the statics verdict's proof to `path` (atomically); where none can be had (neither friction model
    decides) say so on stderr and write nothing."""
    import sys

    from physics.certificate import NoCertificate
    from tower.app.stability import certificate
    from tower.games.fileio import atomic_write_text

    try:
        cert = certificate(build, statics)
    except NoCertificate as exc:
        print(f"tower: no certificate written: {exc}", file=sys.stderr)
        return
    import json

    atomic_write_text(path, json.dumps(cert) + "\n")
    if not quiet:
        print(f"certificate: {path} (claim: {cert['claim']}; `tower verify {path}` checks it)")


def run(args) -> int:
    build = read_build(args.file)
    known = {b.id for b in build.blocks}
    for block_id in args.remove:
        if block_id not in known:
            raise BadInput(f"--remove {block_id}: {unknown_id('block', block_id, known)}", "", args.file)
    build = build.without(set(args.remove))
    if getattr(args, "witnesses", False) and not (args.forces and args.json):
        raise BadInput("--witnesses adds the force distributions to the --forces --json document: give both", "")
    if getattr(args, "push", None):  # a bad --push is refused before any judging
        from tower.app.explain import parse_push

        parse_push(args.push, {b.id for b in build.blocks}, args.file)
    out = check_output_path(getattr(args, "certificate", None), "--certificate")
    verdict = judge(build, args.statics_only, getattr(args, "judge", "pybullet"))
    if out is not None and verdict is None:
        raise BadInput("--certificate needs the physics judges (numpy, scipy)", "")
    doc = check_document(build, args.statics_only, verdict)
    extra = explanations(build, args)
    if args.json:
        print_json(doc | extra)
    else:
        from tower.app import explain

        title = args.file + (f" without {', '.join(args.remove)}" if args.remove else "")
        _print_check(title, doc, None if verdict is None else verdict.to_json(detail=True), build)
        if "forces" in extra:
            print("\n".join(explain.forces_lines(extra["forces"])))
        if "removal_map" in extra:
            print("\n".join(explain.removal_lines(extra["removal_map"], lambda gone, ids: lean(
                build.without({gone}), [i for i in ids if not i.startswith("figure-")]) == (0.0, 0.0))))
        if "push" in extra:
            print("\n".join(explain.push_lines(extra["push"], len(build.blocks))))
    if out is not None:
        write_certificate(build, verdict.statics, str(out), quiet=args.json)
    stable = doc["stability"] is None or doc["stability"]["verdict"] == "stable"
    return EXIT_OK if doc["legal"] and stable else EXIT_FOUND
