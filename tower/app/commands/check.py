"""`tower check`: legality rule by rule, then the stability verdict of both judges, in words."""

from __future__ import annotations

from typing import Any

from tower.app.output import EXIT_FOUND, EXIT_OK, check_output_path, print_json
from tower.app.verdict_words import direction_words, lean, verdict_lines  # noqa: F401 - direction_words: tests
from tower.climbers.build import read_build
from tower.games.errors import BadInput, unknown_id

CHECK_FORMAT = "tower-check/1"  # the `format` of the --json document, naming its schema (`tower schema tower-check`)


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
    friction = getattr(verdict, "statics", None) and getattr(verdict.statics, "friction", None)
    if stability is not None and friction is not None:  # the friction models that decided (physics.friction_models)
        stability["statics"]["friction"] = friction.to_json()
    return {"format": CHECK_FORMAT, "legal": is_legal(violations), "violations": [v.to_json() for v in violations],
            "stability": stability}


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
