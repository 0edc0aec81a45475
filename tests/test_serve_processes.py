"""No process outlives `tower serve`: its worker processes (AI seats, hints, scenes, replays), the forkserver they
start from and multiprocessing's resource tracker all end when the server ends, be it killed with SIGKILL or
stopped as the tests stop it (a test run leaves no process behind)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tower.app.serve.client import Client

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


def descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                parents[int(name)] = int(Path(f"/proc/{name}/stat").read_text().rpartition(")")[2].split()[1])
            except OSError:
                continue
    out, frontier = set(), [root]
    while frontier:
        p = frontier.pop()
        kids = {c for c, pp in parents.items() if pp == p} - out
        out |= kids
        frontier += kids
    return out


def alive(pids: set[int]) -> set[int]:
    """The pids still running (a zombie counts as gone)."""
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def wait_gone(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive(pids)


def test_a_server_killed_with_sigkill_leaves_no_worker_behind_even_unreaped(tmp_path):
    """The workers notice the server's end by their life line's end of file: a killed server left unreaped (a
    zombie, which `kill(pid, 0)` still finds) takes its workers with it all the same."""
    proc = subprocess.Popen([sys.executable, "-m", "tower", "serve", "--db", str(tmp_path / "g.sqlite"), "--port", "0",
                             "--ai-pause", "0", "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        line = proc.stdout.readline()
        assert "lobby is at" in line, line
        api = Client(line.split("lobby is at ")[1].split("/ ")[0], timeout=30)
        api.create("diabolo", seats=["ai:mcts:time=0.3"] * 3)  # the AI pool starts
        game = api.create("diabolo", seats=["human"] * 3)
        to_move = api.state(game["id"], game["seats"][0]["token"])["to_move"]
        api.hint(game["id"], game["seats"][to_move]["token"])  # the hints' worker
        assert api.request("POST", "/api/lab", {"start": "random"})[0] == 201  # the lab's quick worker
        deadline = time.monotonic() + 30
        while len(descendants(proc.pid)) < 6 and time.monotonic() < deadline:
            time.sleep(0.1)
        kids = descendants(proc.pid)
        assert len(kids) >= 6, kids  # forkserver, resource tracker, AI, hint, scene and lab workers
        proc.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while proc.pid in alive({proc.pid}) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert Path(f"/proc/{proc.pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"  # not reaped
        assert wait_gone(kids, 10.0) == set()
    finally:
        proc.kill()
        proc.wait(10)


def test_a_stopped_test_server_leaves_no_process_when_its_python_exits(tmp_path):
    script = textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_serve_processes import descendants
        from tower.app.serve.client import Client
        from tower.app.serve.run import ServerThread

        with ServerThread({str(tmp_path / "g.sqlite")!r}, ai_pause=0, workers=1) as srv:
            api = Client(srv.url, timeout=30)
            api.create("diabolo", seats=["ai:random"] * 3)
            game = api.create("diabolo", seats=["human"] * 3)
            to_move = api.state(game["id"], game["seats"][0]["token"])["to_move"]
            api.hint(game["id"], game["seats"][to_move]["token"])
            time.sleep(0.5)
            print(" ".join(map(str, descendants(os.getpid()))), flush=True)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.returncode == 0, out.stderr[-2000:]
    kids = {int(p) for p in out.stdout.split()}
    assert len(kids) >= 4, out.stdout
    assert wait_gone(kids, 10.0) == set()
