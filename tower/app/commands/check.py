"""`tower check`: legality rule by rule, then the stability verdict of both judges."""

from __future__ import annotations

from typing import Any

from tower.app.output import EXIT_FOUND, EXIT_OK, print_json
from tower.games.errors import BadInput


def check_document(build, statics_only: bool) -> dict[str, Any]:
    """The `tower check --json` document of a build (docs/formats.md)."""
    from tower.climbers.legality import check_build, is_legal

    violations = check_build(build)
    doc: dict[str, Any] = {"legal": is_legal(violations), "violations": [v.to_json() for v in violations]}
    try:
        from tower.app.stability import judge_build

        doc["stability"] = judge_build(build, statics_only=statics_only).to_json()
    except (ImportError, AttributeError):  # physics not available: legality alone
        doc["stability"] = None
    return doc


def _print_check(path: str, doc: dict[str, Any]) -> None:
    print(f"{path}: {'legal' if doc['legal'] else 'ILLEGAL'}")
    for v in doc["violations"]:
        level = v.get("level", "error")
        cells = " ".join(str(tuple(c)) for c in v["cells"][:6]) + (" ..." if len(v["cells"]) > 6 else "")
        print(f"  {level:7} {v['rule']:22} {v['message']}" + (f"  cells {cells}" if cells else ""))
    st = doc.get("stability")
    if not st:
        return
    print(f"stability: {st['verdict'].upper()}")
    s = st["statics"]
    print(f"  statics  (LP):       {'stands' if s['stable'] else 'falls'}, tilt margin {s['tilt_margin_deg']:.1f} deg"
          f" toward {s['weakest_direction']}, {s['ms']:.0f} ms")
    d = st.get("dynamics")
    if d:
        moved = ", ".join(d["moved"][:8]) + (" ..." if len(d["moved"]) > 8 else "")
        print(f"  dynamics (PyBullet): {'collapses' if d['collapsed'] else 'stands'}, max displacement "
              f"{d['max_displacement_mm']:.1f} mm, max rotation {d['max_rotation_deg']:.1f} deg over "
              f"{d['simulated_s']:.2f} s simulated, {d['ms']:.0f} ms" + (f"; moved: {moved}" if moved else ""))


def run(args) -> int:
    from tower.climbers.build import load_build

    build = load_build(args.file)
    known = {b.id for b in build.blocks}
    for block_id in args.remove:
        if block_id not in known:
            raise BadInput(f"--remove {block_id}: no block with that id", "", args.file)
    build = build.without(set(args.remove))
    doc = check_document(build, args.statics_only)
    if args.json:
        print_json(doc)
    else:
        _print_check(args.file, doc)
    stable = doc["stability"] is None or doc["stability"]["verdict"] == "stable"
    return EXIT_OK if doc["legal"] and stable else EXIT_FOUND
