"""`tower view`: show a build or a game record, or write a picture or an export without a window."""

from __future__ import annotations

import sys

from tower.app.output import EXIT_OK, check_output_path


def run(args) -> int:
    for opt in ("screenshot", "gltf", "html"):
        check_output_path(getattr(args, opt), f"--{opt}")
    from tower.app import stability
    from viewer.view import view_file

    explain = [name for name, on in (("forces", args.forces), ("removal-map", args.removal_map)) if on]
    for path, what in view_file(args.file, screenshot=args.screenshot, gltf=args.gltf, html=args.html,
                                physics=stability, explain=explain):
        print(f"wrote {path}: {what}", file=sys.stderr)
    return EXIT_OK
