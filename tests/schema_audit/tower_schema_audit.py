"""Every file the test suite makes the project write is checked against its JSON Schema.

The project writes every file through one atomic writer: a temp file renamed into place (docs/formats.md). An
audit hook sees each rename (`os.replace` raises the `os.rename` audit event); a renamed-into-place `.json` whose
`format` names a schema of `tower.schemas` is validated. In the pytest process the conftest checks after each
test; in the subprocesses the tests start (`tower ...`), `sitecustomize` installs the hook and the files are
checked at exit, any problem appended to the file named by TOWER_SCHEMA_AUDIT for the conftest to report. Each
file is also put to both of `tower.schemas`' checks, the compiled yes/no one and `jsonschema`, which must agree.
"""

from __future__ import annotations

import atexit
import json
import os
import sys

ENV = "TOWER_SCHEMA_AUDIT"
_written: list[str] = []


def _hook(event: str, args: tuple) -> None:
    if event == "os.rename" and len(args) >= 2:
        dst = args[1]
        if isinstance(dst, bytes):
            dst = os.fsdecode(dst)
        if isinstance(dst, str | os.PathLike) and os.fspath(dst).endswith(".json"):
            _written.append(os.path.abspath(os.fspath(dst)))


def install() -> None:
    """Start watching renames in this process (once)."""
    if not getattr(sys, "_tower_schema_audit", False):
        sys._tower_schema_audit = True  # type: ignore[attr-defined]
        sys.addaudithook(_hook)


def take() -> list[str]:
    """The .json files renamed into place since the last call."""
    out = list(dict.fromkeys(_written))
    _written.clear()
    return out


def problems(paths: list[str]) -> list[str]:
    """One line per written file that names a schema's format and breaks that schema."""
    found = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            continue  # gone again, or no JSON document at all: nothing that claims a format
        fmt = doc.get("format") if isinstance(doc, dict) else None
        from tower.schemas import FORMATS, problem

        if fmt in FORMATS.values():
            bad = problem(doc, fmt) or disagreement(doc, fmt)
            if bad is not None:
                found.append(f"{path}: {fmt}: {bad}")
        elif fmt is not None:  # a document naming a format no schema describes
            found.append(f"{path}: format {str(fmt)[:60]!r} names no schema of tower/schemas")
    return found


def disagreement(doc: object, fmt: str) -> str | None:
    """None when the compiled check (tower/schemas/fast.py) and `jsonschema` give `doc` the same verdict."""
    from tower.schemas import fast_check, schema_name, validator

    key = schema_name(fmt)
    fast, slow = fast_check(key)(doc), validator(key).is_valid(doc)
    return None if fast == slow else f"the compiled schema check says valid={fast}, jsonschema valid={slow}"


def _at_exit() -> None:
    paths = take()
    if not paths:
        return
    lines = problems(paths)
    if lines:
        with open(os.environ[ENV], "a", encoding="utf-8") as fh:
            fh.write("".join(line.replace("\n", " ") + "\n" for line in lines))


def install_from_env() -> None:
    """In a subprocess of the test suite: watch, and report at exit."""
    if os.environ.get(ENV):
        install()
        atexit.register(_at_exit)
