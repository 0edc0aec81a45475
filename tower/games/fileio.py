"""Atomic writing, which every saver shares (reading is `tower.games.reader`'s)."""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` via a temp file in the same folder and a rename: never a half-written file.

    A symlink is written through (the link stays); a device, pipe or socket is refused, as the rename would
    put a plain file in its place.
    """
    p = Path(os.path.realpath(path))
    if p.exists() and not p.is_file() and not p.is_dir():
        raise OSError(errno.EINVAL, "not a regular file (a device, pipe or socket)", str(path))
    tmp = None
    try:
        fd, tmp = _create_temp(p)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException as exc:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        if isinstance(exc, OSError) and exc.errno is not None:
            # name the file that was asked for, not the temp file beside it
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise


def _create_temp(target: Path) -> tuple[int, str]:
    """A new temp file beside `target`, with the permissions a plain save would give it: the target's own if it
    exists, else the umask's (tempfile.mkstemp would make every saved file private to its owner)."""
    mode = stat.S_IMODE(target.stat().st_mode) if target.is_file() else 0o666
    for _ in range(100):
        tmp = target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            continue
        if target.is_file():
            os.fchmod(fd, mode)  # the umask applied at creation may have narrowed it
        return fd, str(tmp)
    raise FileExistsError(errno.EEXIST, "no free temp file name", str(target))


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
