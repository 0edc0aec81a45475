"""`tower verify FILE`: check a statics verdict's certificate (tower-certificate/1) with numpy alone.

Exit 0 verified, 1 refuted (the check that failed and where), 2 bad input (one line). The checks are those of
physics.verifier, which shares no code with the judge that wrote the certificate (docs/physics.md,
"Certificates")."""

from __future__ import annotations

from tower.app.output import EXIT_FOUND, EXIT_OK
from tower.games.errors import BadInput

#: Box positions, sizes and masses of a certificate and a build agree to this (relative: metres, kilograms).
SAME_BUILD_TOL = 1e-9


def _bad(message: str, source: str) -> BadInput:
    where, _, what = message.partition(": ")
    return BadInput(what, where, source) if where.startswith("$") else BadInput(message, "", source)


def different_build(doc: dict, build_file: str) -> str | None:
    """Why the certificate's boxes are not those of the build in `build_file` (None: they are)."""
    from tower.app.stability import build_boxes
    from tower.climbers.build import read_build

    boxes = build_boxes(read_build(build_file))
    mine = {b["id"]: b for b in doc["boxes"]}
    if set(mine) != {b.id for b in boxes}:
        extra = sorted(set(mine) ^ {b.id for b in boxes})
        return f"the certificate's blocks are not the build's (differ: {', '.join(extra[:5])})"
    for b in boxes:
        c = mine[b.id]
        got = [*c["lo"], *c["size"], c["mass_kg"]]
        want = [*b.lo, *b.size, b.mass]
        if any(abs(g - w) > SAME_BUILD_TOL * max(1.0, abs(w)) for g, w in zip(got, want, strict=True)):
            return f"block {b.id} is not where (or what) it is in {build_file}"
    return None


def run(args) -> int:
    from tower.games.reader import read_json
    from tower.schemas import validate

    doc = read_json(args.file)
    try:
        validate(doc, "tower-certificate")
    except BadInput as exc:
        raise exc.in_source(args.file) from None
    from physics.verifier import BadCertificate, verify

    try:
        report = verify(doc)
    except BadCertificate as exc:
        raise _bad(str(exc), args.file) from None
    print("\n".join(report.lines()))
    if args.build:
        why = different_build(doc, args.build)
        print(f"refuted: {why}" if why else f"the certificate is about {args.build}")
        if why:
            return EXIT_FOUND
    return EXIT_OK if report.ok else EXIT_FOUND
