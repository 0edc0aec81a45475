"""Shared fixtures: running the `tower` command as a user would, and the `slow` marker of pyproject.toml."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def run_tower(args: list[str], cwd: Path | None = None, module: bool = False, timeout: float = 120):
    cmd = [sys.executable, "-m", "tower", *args] if module or not TOWER.exists() else [str(TOWER), *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="session")
def tower_cli():
    """`tower_cli(args...)` runs the installed `tower` command in a subprocess (CompletedProcess, text)."""
    return run_tower
