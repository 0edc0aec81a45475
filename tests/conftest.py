"""Shared fixtures: running the `tower` command as a user would, the `slow` marker of pyproject.toml, and the
JSON Schema audit: every file the suite makes the project write, and every `--json` document `tower_cli` gets,
must conform to the schema its `format` names (tower/schemas)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

AUDIT_DIR = Path(__file__).resolve().parent / "schema_audit"
sys.path.insert(0, str(AUDIT_DIR))
import tower_schema_audit  # noqa: E402

VENV_BIN = Path(sys.executable).parent
TOWER = VENV_BIN / "tower"


def pytest_collection_modifyitems(config, items):
    """Tests marked `slow` run only with TOWER_SLOW=1 (as pyproject.toml's marker description says)."""
    if os.environ.get("TOWER_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: set TOWER_SLOW=1 to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


#: Commands whose `--json` document names its schema.
JSON_OUTPUTS = {"check", "simulate", "sweep"}


def run_tower(args: list[str], cwd: Path | None = None, module: bool = False, timeout: float = 120):
    cmd = [sys.executable, "-m", "tower", *args] if module or not TOWER.exists() else [str(TOWER), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=timeout)
    if args and args[0] in JSON_OUTPUTS and "--json" in args and proc.returncode in (0, 1) and proc.stdout:
        assert_conforms(json.loads(proc.stdout))
    return proc


def assert_conforms(doc) -> None:
    """`doc` names its schema in `format` and conforms to it."""
    from tower.schemas import FORMATS, problem

    assert isinstance(doc, dict) and doc.get("format") in FORMATS.values(), f"no known format: {str(doc)[:200]}"
    bad = problem(doc, doc["format"]) or tower_schema_audit.disagreement(doc, doc["format"])
    assert bad is None, f"{doc['format']}: {bad}"


def pytest_configure(config):
    """Subprocesses (`tower ...`) check what they write at exit and report to one log; this process checks after
    each test (see the autouse fixture below)."""
    log = Path(tempfile.gettempdir()) / f"tower-schema-audit-{os.getpid()}.log"
    log.write_text("")
    os.environ[tower_schema_audit.ENV] = str(log)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(AUDIT_DIR), *filter(None, [os.environ.get("PYTHONPATH")])])
    tower_schema_audit.install()


def pytest_unconfigure(config):
    Path(os.environ.get(tower_schema_audit.ENV, "")).unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def _written_files_conform_to_their_schemas():
    log = Path(os.environ[tower_schema_audit.ENV])
    before = log.stat().st_size if log.exists() else 0
    tower_schema_audit.take()
    yield
    found = tower_schema_audit.problems(tower_schema_audit.take())
    if log.exists():
        with log.open(encoding="utf-8") as fh:
            fh.seek(before)
            found += fh.read().splitlines()
    assert not found, "files written that break their JSON Schema:\n" + "\n".join(found)


@pytest.fixture(scope="session")
def tower_cli():
    """`tower_cli(args...)` runs the installed `tower` command in a subprocess (CompletedProcess, text)."""
    return run_tower


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium (Debian's, driven by Playwright) per test module; the browser test modules call
    `browser_support.require_browser()` first, so this runs only where both are installed."""
    from playwright.sync_api import sync_playwright

    from tests.browser_support import ARGS, CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def _close_browser_pages(request):
    """Each browser test's pages are closed when it ends: an open page keeps its WebSocket feed, and the feeds of
    one client are capped (`websockets_per_client`), so pages left open by earlier tests of a module would make a
    later test's page wait for a feed it cannot get."""
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()


@pytest.fixture(scope="session")
def pg_cluster():
    """A throwaway PostgreSQL cluster (tests/pg_support.py), started when a test first asks for it."""
    from pg_support import Cluster

    cluster = Cluster()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def serve_db(request, tmp_path_factory):
    """A fresh database for `tower serve`, of each kind: an SQLite file and a PostgreSQL database (the server's
    core tests run on both)."""
    if request.param == "sqlite":
        return str(tmp_path_factory.mktemp("serve") / "games.sqlite")
    return request.getfixturevalue("pg_cluster").database()
