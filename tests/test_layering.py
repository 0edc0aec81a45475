"""docs/architecture.md: the rules packages stay pure and light; imports go downwards only."""

from __future__ import annotations

import subprocess
import sys

import pytest

RULES = "import tower, tower.games, tower.climbers.build, tower.climbers.legality, tower.climbers.setup, tower.climbers.game, tower.games.ai, " \
        "cardgames.diabolo, cardgames.partners, cardgames.seventh_heaven"


def imported_after(code: str) -> set[str]:
    probe = f"{code}; import sys; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return {name.split(".")[0] for name in out.split()} | set(out.split())


def test_the_rules_import_no_physics_rendering_or_interop_and_no_heavy_scipy_parts():
    loaded = imported_after(RULES)
    for heavy in ("pybullet", "pyvista", "vtk", "vtkmodules", "trimesh", "physics", "viewer", "pyspiel",
                  "pettingzoo", "scipy.ndimage", "scipy.optimize"):
        assert heavy not in loaded, f"importing the rules loaded {heavy}"


@pytest.mark.parametrize("package", ["physics"])
def test_physics_knows_no_game_rules(package):
    loaded = imported_after(f"import {package}")
    assert not {"tower", "cardgames", "viewer", "pybullet"} & loaded  # pybullet only when a dynamics judge runs
