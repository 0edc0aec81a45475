"""A batch's results file (`--out`, `--resume`): JSON lines, a header line naming the run, then one line a result
in the order they arrived, each carrying its `index`.

Lines are flushed as they are written (a killed driver loses nothing the OS has) and fsynced in batches (a lost
machine loses at most FSYNC_EVERY_S seconds). Resuming reads what is there, drops a last line cut off by a kill,
and appends what is missing.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, TextIO

from tower.app.output import check_output_path
from tower.games.errors import BadInput
from tower.games.reader import parse_text

FORMAT = "tower-batch/1"
#: fsync after this many lines or seconds, whichever comes first: one fsync a line would cost more than a
#: Diabolo game; a crash of the machine loses at most this much (a crash of the driver loses nothing).
FSYNC_EVERY_LINES = 500
FSYNC_EVERY_S = 2.0


class ResultLog:
    """The results file of one run. Make it with `create` (`--out`) or `resume` (`--resume`), then `open`,
    `append` results, `close`. `done` holds the results already in the file, by index."""

    def __init__(self, path: Path, header: dict[str, Any], done: dict[int, dict[str, Any]], keep_bytes: int | None):
        self.path = path
        self.header = header
        self.done = done
        self._keep_bytes = keep_bytes  # None: a new file; else the length of the file's whole lines
        self._fh: TextIO | None = None
        self._unsynced = 0
        self._synced_at = 0.0

    @classmethod
    def create(cls, path: str, header: dict[str, Any], flag: str = "--out") -> ResultLog:
        """A new results file; one that already holds results is refused (it is continued with --resume)."""
        p = check_output_path(path, flag)
        assert p is not None
        if p.exists() and p.stat().st_size > 0:
            raise BadInput(f"{flag}: already exists; continue that run with --resume, or choose another name", "",
                           path)
        return cls(p, header, {}, None)

    @classmethod
    def resume(cls, path: str, header: dict[str, Any], flag: str = "--resume") -> ResultLog:
        """The results file of an interrupted run of the same command: its header must match `header`."""
        p = Path(path)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raise BadInput(f"{flag}: no such file", "", path) from None
        except IsADirectoryError:
            raise BadInput(f"{flag}: is a directory, not a file", "", path) from None
        except OSError as exc:
            raise BadInput(f"{flag}: cannot read: {exc.strerror}", "", path) from None
        whole = raw[: raw.rfind(b"\n") + 1]  # a last line without its newline was cut off by a kill: dropped
        lines = whole.split(b"\n")[:-1]
        if not lines:
            raise BadInput(f"{flag}: empty: not a {FORMAT} results file", "", path)
        first = _line(lines[0], 1, path)
        if not isinstance(first, dict) or first.get("format") != FORMAT:
            raise BadInput(f"{flag}: not a {FORMAT} results file (line 1 is not its header)", "", path)
        _check(first, None, 1, path)
        for key, value in header.items():
            if first.get(key) != value:
                raise BadInput(f"{flag}: this file is a run with {key} {_show(first.get(key))}, the command asks "
                               f"for {_show(value)}; repeat the first command's arguments", "", path)
        done: dict[int, dict[str, Any]] = {}
        kind = f"{first['command']}Result"  # simulateResult or sweepResult (tower/schemas/tower-batch-1.schema.json)
        for number, text in enumerate(lines[1:], start=2):
            doc = _line(text, number, path)
            _check(doc, kind, number, path)
            done.setdefault(doc["index"], doc)
        return cls(p, header, done, len(whole))

    def open(self) -> None:
        if self._keep_bytes is None:
            self._fh = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 (kept open for the run)
            self._fh.write(json.dumps({"format": FORMAT, **self.header}) + "\n")
        else:
            os.truncate(self.path, self._keep_bytes)
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        self._sync()

    def append(self, results: list[dict[str, Any]]) -> None:
        """Write results as they arrive: each line whole, flushed now, fsynced in batches."""
        assert self._fh is not None, "open() first"
        self._fh.write("".join(json.dumps(r) + "\n" for r in results))
        self._fh.flush()
        self._unsynced += len(results)
        if self._unsynced >= FSYNC_EVERY_LINES or time.monotonic() - self._synced_at >= FSYNC_EVERY_S:
            self._sync()

    def close(self) -> None:
        if self._fh is not None:
            self._sync()
            self._fh.close()
            self._fh = None

    def _sync(self) -> None:
        assert self._fh is not None
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._unsynced = 0
        self._synced_at = time.monotonic()


def _line(text: bytes, number: int, path: str) -> Any:
    try:
        return parse_text(text)
    except BadInput as exc:
        raise BadInput(f"line {number}: {exc.what}", exc.where, path) from None


def _check(doc: Any, part: str | None, number: int, path: str) -> None:
    """Line `number` against the tower-batch/1 schema: the header (`part` None) or a result line."""
    from tower.schemas import problem

    bad = problem(doc, FORMAT, part)
    if bad is not None:
        raise BadInput(f"line {number}, {bad.where}: {bad.what}", "", path)


def _show(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value)
