"""`tower view`: show a build or a game record, or write a picture or an export without a window."""

from __future__ import annotations

import sys

from tower.app.output import EXIT_OK, check_output_path
from tower.games.errors import BadInput


def run(args) -> int:
    for opt in ("screenshot", "gltf", "html"):
        check_output_path(getattr(args, opt), f"--{opt}")
    if args.fall and not args.gltf:
        raise BadInput("--fall animates the glTF export: give --gltf FILE.glb (or .gltf) too", "")
    from tower.app import stability
    from viewer.view import check_gltf_name, view_file

    if args.gltf:
        check_gltf_name(args.gltf)
    explain = [name for name, on in (("forces", args.forces), ("removal-map", args.removal_map)) if on]
    for path, what in view_file(args.file, screenshot=args.screenshot, gltf=args.gltf, html=args.html,
                                physics=stability, remove=args.remove, fall=args.fall, explain=explain):
        print(f"wrote {path}: {what}", file=sys.stderr)
    return EXIT_OK
