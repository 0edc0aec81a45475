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

    if args.edit:
        return _edit(args, stability)
    from viewer.view import check_gltf_name, view_file

    if args.gltf:
        check_gltf_name(args.gltf)
    explain = [name for name, on in (("forces", args.forces), ("removal-map", args.removal_map)) if on]
    for path, what in view_file(args.file, screenshot=args.screenshot, gltf=args.gltf, html=args.html,
                                physics=stability, remove=args.remove, fall=args.fall, explain=explain):
        print(f"wrote {path}: {what}", file=sys.stderr)
    return EXIT_OK


def _edit(args, stability) -> int:
    """`--edit`: the lab in the window, on the build in FILE (w saves it back there)."""
    from tower.app.lab.controller import LabController
    from tower.climbers.build import read_build
    from tower.games.errors import BadInput, IllegalMove
    from viewer.lab_window import lab_window

    if args.screenshot or args.gltf or args.html or args.remove or args.fall:
        raise BadInput("--edit opens the window; it does not write --screenshot, --gltf or --html (nor take "
                       "--remove or --fall)", "")
    build = read_build(args.file)
    try:
        ctl = LabController(build, rules=args.rules, physics=stability, opens="--rules flag")
    except IllegalMove as exc:  # checked as the lab checks a file opened in it (the rule set chosen)
        raise BadInput(f"the lab refuses it ({args.rules} rules): {exc.rule}: {exc.message}", "",
                       args.file) from None
    return lab_window(ctl, save_path=args.file)
