"""What every command shares about its output: exit statuses, JSON on stdout, output paths checked up front."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tower.games.errors import BadInput

#: 0 success (for `check`: legal and stable); 1 the check found the build illegal, marginal or collapsing;
#: 2 bad input or usage (one line on stderr, no traceback, no half-written file).
EXIT_OK, EXIT_FOUND, EXIT_BAD = 0, 1, 2


def print_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(doc, indent=1) + "\n")


#: a seed drawn for a run that was given none is below this: short enough to type back after --seed
FRESH_SEEDS = 1_000_000


def seed_or_fresh(seed: int | None, again: str, stream: Any = None) -> int:
    """`--seed` as given, or (none given) a fresh one from the system's secure generator, printed on `stream`
    (default stdout) so the run can be had again: "seed 123456: replay with --seed 123456" (`again`: "replay")."""
    if seed is not None:
        from tower.games.records import MAX_SEED

        if not 0 <= seed <= MAX_SEED:
            raise BadInput(f"--seed {seed}: a seed is a whole number from 0 to {MAX_SEED} (2^31 - 1)"[:200], "")
        return seed
    import secrets

    seed = secrets.randbelow(FRESH_SEEDS)
    print(f"seed {seed}: {again} with --seed {seed}", file=stream or sys.stdout, flush=True)
    return seed


def check_output_path(path: str | None, what: str) -> Path | None:
    """Refuse an output path whose folder does not exist, before any work is done."""
    if path is None:
        return None
    p = Path(path)
    if not p.parent.exists() if str(p.parent) else False:
        raise BadInput(f"{what}: folder {str(p.parent)!r} does not exist", "", path)
    if p.is_dir():
        raise BadInput(f"{what}: is a directory", "", path)
    if p.exists() and not p.is_file():
        raise BadInput(f"{what}: not a regular file (a device, pipe or socket)", "", path)
    return p
