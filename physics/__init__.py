"""Stability judges over plain axis-aligned boxes: statics (LP) and dynamics (PyBullet). No game rules here.

    from physics import Box, judge
    from physics.units import grid_box
    judge([grid_box("a", (0, 0, 0), (2, 2, 2))]).to_json()

Explanations of a verdict (physics.forces, physics.removal, physics.push): contact_forces(boxes),
removal_map(boxes), push_margin(boxes, block, direction).

pybullet is imported only when the dynamics judge runs.
"""

from physics.dynamics import DynamicsResult, judge_dynamics
from physics.forces import ContactForce, ContactForces, contact_forces
from physics.model import Box, remove
from physics.push import PushResult, push_all, push_margin
from physics.removal import RemovalEntry, RemovalMap, removal_map
from physics.statics import COM_INSET_M, StaticsResult, judge_statics, stands
from physics.units import DEFAULT_MU, FIGURE_MASS_KG, UNIT_M, WOOD_DENSITY, grid_box
from physics.verdict import COLLAPSES, MARGINAL, STABLE, STABLE_MARGIN_DEG, Verdict, combine, judge

__all__ = [
    "Box", "remove", "judge_statics", "stands", "StaticsResult", "judge_dynamics", "DynamicsResult", "judge", "Verdict",
    "combine", "grid_box", "UNIT_M", "WOOD_DENSITY", "DEFAULT_MU", "FIGURE_MASS_KG", "COM_INSET_M",
    "STABLE_MARGIN_DEG", "STABLE", "MARGINAL", "COLLAPSES", "contact_forces", "ContactForces", "ContactForce",
    "removal_map", "RemovalMap", "RemovalEntry", "push_margin", "push_all", "PushResult",
]
