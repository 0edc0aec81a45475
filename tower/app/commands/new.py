"""`tower new`: a random legal start tower of The Climbers as a tower-build/1 file."""

from __future__ import annotations

import sys

from tower.app.output import EXIT_OK, check_output_path, seed_or_fresh


def run(args) -> int:
    from tower.climbers.build import dumps_build, save_build
    from tower.climbers.setup import random_start_tower

    out = check_output_path(args.output, "output")
    seed = seed_or_fresh(args.seed, "the same tower", sys.stderr)  # stdout may be the build itself
    build = random_start_tower(seed)
    if out is None:
        sys.stdout.write(dumps_build(build))
    else:
        save_build(build, out)
        print(f"wrote {out}: start tower, seed {seed}, {len(build.blocks)} blocks", file=sys.stderr)
    return EXIT_OK
