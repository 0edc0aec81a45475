"""`tower schema [NAME]`: the JSON Schema (draft 2020-12) of a file format or a `--json` output, as shipped."""

from __future__ import annotations

import sys

from tower.app.output import EXIT_OK
from tower.schemas import FORMATS, schema, schema_text


def run(args) -> int:
    if args.name is None:
        for name, fmt in FORMATS.items():
            print(f"{name:16} {fmt:18} {schema(name)['title'].partition(': ')[2]}")
        return EXIT_OK
    sys.stdout.write(schema_text(args.name))
    return EXIT_OK
