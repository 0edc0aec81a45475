"""The npm packages some tests run with node (the Khronos glTF-Validator, ajv), in the project-local `.tools/`
folder (not committed; `.ci/run` installs them): one installer for all of them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1] / ".tools"
NODE = shutil.which("node")
NPM = shutil.which("npm")


def node_modules(folder: str, package: str, spec: str | None = None) -> Path:
    """The node_modules of `.tools/FOLDER` holding `package`, installed from npm (as `spec`, e.g. a pinned
    version) if missing; the test is skipped without node or npm."""
    if NODE is None:
        pytest.skip("node is not installed (.ci/run installs nodejs and npm)")
    prefix = TOOLS / folder
    modules = prefix / "node_modules"
    if not (modules / package).is_dir():
        if NPM is None:
            pytest.skip("npm is not installed (.ci/run installs it)")
        proc = subprocess.run([NPM, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", spec or package],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    return modules
