"""`tower serve` as stock tools meet it, with nothing of ours in between: schemathesis's own command line
(`schemathesis run URL/api/openapi.json --checks all`, no hooks, no configuration file) against a `tower serve`
started by its own command line on 127.0.0.1. Every check it has must pass: no 5xx, every answer as the document
says, what the document calls invalid refused, what it calls valid accepted (or refused by the rules, 409, or 404
for an id that does not exist), 405 with `Allow` for a method the document does not list.

tests/test_serve_openapi.py runs the same checks through schemathesis's Python API with real game ids and legal
moves put into half of the requests, which reaches further into the referee; this test holds the document to
what a stranger's run of the tool sees.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

#: Generated requests per operation and phase: the run stays near a minute on the 2-core test machine.
EXAMPLES = 10
#: The server's limits for one busy client (the run sends a few thousand requests a minute from 127.0.0.1).
ROOMY = ["requests_per_second=100000", "request_burst=1000000", "games_per_minute=100000", "game_burst=100000",
         "running_games_per_client=100000", "labs_per_minute=100000", "lab_burst=100000", "labs_per_client=100000",
         "hints_per_minute=100000"]


def _schemathesis() -> str:
    found = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or shutil.which("schemathesis")
    if found is None:
        pytest.skip("schemathesis is not installed (the test extra)")
    return found


def test_stock_schemathesis_passes_every_check_against_tower_serve(tmp_path):
    tool = _schemathesis()
    limits = [arg for setting in ROOMY for arg in ("--limit", setting)]
    log_path = tmp_path / "server.log"  # a file, not a pipe: a log nobody reads cannot stall the server
    with log_path.open("w") as log_file:
        server = subprocess.Popen([sys.executable, "-m", "tower", "serve", "--db", str(tmp_path / "games.sqlite"),
                                   "--port", "0", "--ai-pause", "0", "--workers", "1", *limits],
                                  stdout=subprocess.PIPE, stderr=log_file, text=True)
    try:
        line = server.stdout.readline()
        assert "lobby is at http://127.0.0.1:" in line, line
        url = line.split("lobby is at ")[1].split("/ ")[0]
        run = subprocess.run([tool, "run", f"{url}/api/openapi.json", "--checks", "all", "--max-examples",
                              str(EXAMPLES), "--generation-deterministic", "--no-color", "--request-timeout", "60"],
                             capture_output=True, text=True, timeout=420, cwd=tmp_path)
        summary = run.stdout[run.stdout.find("SUMMARY"):] if "SUMMARY" in run.stdout else run.stdout[-3000:]
        assert run.returncode == 0, summary + run.stdout[:6000] + run.stderr[-2000:]
        assert "passed" in summary and "failures" not in summary.lower().split("test cases")[-1], summary
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server.stdout.close()
    log = log_path.read_text()
    assert "Traceback" not in log, log[-3000:]  # whatever it was sent, the server's log holds no traceback
