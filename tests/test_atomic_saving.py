"""Saving is atomic (docs/formats.md): a save interrupted mid-write leaves the previous file intact.

Every saver goes through `tower.games.fileio.atomic_write_bytes`: builds (`tower new -o`, `save_build`), game records
(`save_record`) and pictures (`viewer.pictures.save_png`, the GIF of `tower replay --gif`). The interruption is
simulated in-process (the write fails half-way: disk full) and for real (a process killed half-way through its
write, by Ctrl-C and by SIGKILL).
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tower.app.cli import main
from tower.climbers.build import load_build, save_build
from tower.climbers.setup import random_start_tower
from tower.games import fileio, load_record, new_game, save_record


def _played(game: str = "diabolo", moves: int = 5):
    state = new_game(game, None, 3)
    for _ in range(moves):
        state.apply(state.legal_moves()[0])
    return state


class _HalfWriter:
    """A file that writes the first half of what it is given, then fails like a full disk."""

    def __init__(self, fh) -> None:
        self.fh = fh

    def write(self, data: bytes) -> int:
        self.fh.write(data[: len(data) // 2])
        self.fh.flush()
        raise OSError(28, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.fh.close()


def _fail_half_way(monkeypatch) -> None:
    real = os.fdopen
    monkeypatch.setattr(fileio.os, "fdopen", lambda fd, *a, **k: _HalfWriter(real(fd, *a, **k)))


def _only(folder: Path, *names: str) -> None:
    assert sorted(p.name for p in folder.iterdir()) == sorted(names), "a temp file was left behind"


# --- in-process: the write fails half-way ----------------------------------------------------------------------

def test_tower_new_failing_mid_write_keeps_the_old_build_and_says_so_in_one_line(tmp_path, capsys, monkeypatch):
    path = tmp_path / "tower.json"
    save_build(random_start_tower(1), path)
    before = path.read_bytes()
    _fail_half_way(monkeypatch)
    assert main(["new", "--seed", "2", "-o", str(path)]) == 2
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "No space left" in err and "Traceback" not in err
    assert path.read_bytes() == before and load_build(path) == random_start_tower(1)
    _only(tmp_path, "tower.json")


def test_a_record_save_failing_mid_write_keeps_the_old_record(tmp_path, monkeypatch):
    path = tmp_path / "game.json"
    old = _played(moves=2)
    save_record(old, path)
    before = path.read_bytes()
    _fail_half_way(monkeypatch)
    with pytest.raises(OSError) as info:
        save_record(_played(moves=6), path)
    assert info.value.filename == str(path), "the error names the file asked for, not the temp file"
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert load_record(path).to_json() == old.to_json()
    _only(tmp_path, "game.json")


def test_a_picture_export_failing_mid_write_keeps_the_old_picture(tmp_path, monkeypatch):
    np = pytest.importorskip("numpy")
    pytest.importorskip("imageio")
    from viewer.pictures import save_png

    path = tmp_path / "shot.png"
    save_png(np.zeros((8, 8, 3), np.uint8), path)
    before = path.read_bytes()
    _fail_half_way(monkeypatch)
    with pytest.raises(OSError):
        save_png(np.full((8, 8, 3), 200, np.uint8), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    _only(tmp_path, "shot.png")


# --- what a save replaces ----------------------------------------------------------------------------------------

def test_saving_through_a_symlink_updates_its_target_and_keeps_the_link(tmp_path):
    target, link = tmp_path / "real.json", tmp_path / "link.json"
    link.symlink_to(target)
    save_build(random_start_tower(1), link)
    assert link.is_symlink() and load_build(target) == random_start_tower(1)
    save_build(random_start_tower(2), link)
    assert link.is_symlink() and load_build(target) == random_start_tower(2)
    _only(tmp_path, "real.json", "link.json")


def test_saving_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    path = tmp_path / "game.json"
    save_record(_played(moves=1), path)
    os.chmod(path, 0o640)
    save_record(_played(moves=3), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_new_file_gets_the_usual_permissions_not_private_ones(tmp_path):
    old = os.umask(0o022)
    try:
        save_record(_played(moves=1), tmp_path / "game.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "game.json").stat().st_mode) == 0o644


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_or_device_is_refused_not_replaced_by_a_plain_file(tmp_path, capsys):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert main(["new", "-o", str(pipe)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(pipe) in err and "not a regular file" in err
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    _only(tmp_path, "pipe")


# --- for real: a process killed half-way through its write ------------------------------------------------------

# Run in a child: the write stops half-way and the child says so, then waits to be killed.
CHILD = textwrap.dedent("""
    import os, signal, sys, time
    # Ctrl-C as a terminal delivers it, even when this test run was started in the background of a
    # non-interactive shell (which starts its children with SIGINT ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from tower.games import fileio
    real = os.fdopen

    class Slow:
        def __init__(self, fh): self.fh = fh
        def write(self, data):
            self.fh.write(data[: len(data) // 2]); self.fh.flush()
            print("half", flush=True); time.sleep(60)
        def __getattr__(self, name): return getattr(self.fh, name)
        def __enter__(self): return self
        def __exit__(self, *exc): self.fh.close()

    fileio.os.fdopen = lambda fd, *a, **k: Slow(real(fd, *a, **k))
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "build":
        from tower.app.cli import main
        sys.exit(main(["new", "--seed", "2", "-o", path]))
    if kind == "record":
        from tower.games import new_game, save_record
        state = new_game("partners", 4, 9)
        for _ in range(20):
            state.apply(state.legal_moves()[0])
        save_record(state, path)
    if kind == "picture":
        import numpy as np
        from viewer.pictures import save_png
        save_png(np.full((64, 64, 3), 200, np.uint8), path)
""")


def _write_old(kind: str, path: Path) -> bytes:
    if kind == "build":
        save_build(random_start_tower(1), path)
    elif kind == "record":
        save_record(_played("partners", 3), path)
    else:
        from viewer.pictures import save_png

        np = pytest.importorskip("numpy")
        save_png(np.zeros((64, 64, 3), np.uint8), path)
    return path.read_bytes()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "sigkill"])
@pytest.mark.parametrize("kind", ["build", "record", "picture"])
def test_a_save_killed_half_way_leaves_the_previous_file_intact(tmp_path, kind, sig):
    if kind == "picture":
        pytest.importorskip("imageio")
    path = tmp_path / ("shot.png" if kind == "picture" else f"{kind}.json")
    before = _write_old(kind, path)
    child = subprocess.Popen([sys.executable, "-c", CHILD, kind, str(path)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "half", child.stderr.read()
        child.send_signal(sig)
        _, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode != 0
    assert path.read_bytes() == before, "the previous file changed"
    if kind == "build":
        load_build(path)
    elif kind == "record":
        load_record(path)
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p != path)
    if sig == signal.SIGINT:
        assert leftovers == [], "Ctrl-C leaves no temp file"
        if kind == "build":  # through the command line: one line, no traceback
            assert err.strip() == "tower: interrupted" and child.returncode == 130
    else:
        # SIGKILL allows no clean-up: at most the hidden temp file of the aborted save stays
        assert all(n.startswith(f".{path.name}.") and n.endswith(".tmp") for n in leftovers), leftovers
