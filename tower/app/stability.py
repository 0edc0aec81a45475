"""Glue between builds and the physics judges: a build becomes plain boxes with real sizes and masses.

Part of the application (it is wiring, not rules): `physics` is imported only when a judge is asked for. The
module itself is what the viewer receives as its `viewer.Physics` (judge_build, fall); `statics_stands` is the
judge The Climbers' `support=physical` option consults (`GameState.judge`).
"""

from __future__ import annotations

import sys
from typing import Any

from tower.climbers.build import Build

#: A figure as a small solid on its cell: a 1.2 x 1.2 cm footprint, as tall as the eye height plus a head.
FIGURE_FOOTPRINT_UNITS = 0.6
FIGURE_HEIGHT_UNITS = 1.25


def build_boxes(build: Build) -> list[Any]:
    """The blocks (and figures, as small solids of their own mass) as `physics.Box`es in metres."""
    from physics import Box
    from physics.units import FIGURE_MASS_KG, UNIT_M, grid_box

    boxes = [grid_box(b.id, b.origin, b.size) for b in build.blocks]
    inset = (1 - FIGURE_FOOTPRINT_UNITS) / 2
    for i, f in enumerate(build.figures):
        x, y, z = f.cell
        boxes.append(Box(f"figure-{f.colour}-{i}", ((x + inset) * UNIT_M, (y + inset) * UNIT_M, z * UNIT_M),
                         (FIGURE_FOOTPRINT_UNITS * UNIT_M, FIGURE_FOOTPRINT_UNITS * UNIT_M,
                          FIGURE_HEIGHT_UNITS * UNIT_M), FIGURE_MASS_KG))
    return boxes


def judge_build(build: Build, statics_only: bool = False, engine: str = "pybullet") -> Any:
    """The physics verdict (`physics.Verdict`) of a build; `engine` the dynamics judge (pybullet or mujoco)."""
    import physics

    return physics.judge(build_boxes(build), statics_only=statics_only, engine=engine)


def statics_stands(build: Build, moved: str | None = None) -> bool:
    """The `physical` support option's test: does the statics judge say the construction stands? `moved` names
    the block just placed (checked first: where most candidate placements fail)."""
    import physics

    return physics.stands(build_boxes(build), first=moved)


def fall(build: Build, seconds: float = 2.0) -> Any:
    """The dynamics judge's run of a build with the trajectory recorded (what-if and collapse animations)."""
    import physics

    return physics.judge_dynamics(build_boxes(build), seconds=seconds, record_trajectory=True)


def certificate(build: Build, statics: Any) -> dict[str, Any]:
    """The proof of a statics verdict (`physics.StaticsResult` of this build) as a tower-certificate/1 document;
    physics.certificate.NoCertificate when neither friction model decides."""
    from physics.certificate import certificate as proof

    return proof(build_boxes(build), result=statics)


# --- explanations: forces, removal map, push test (physics.forces / removal / push) ---------------------------

def forces(build: Build) -> Any:
    """The contact forces of a build (`physics.ContactForces`): the minimum-norm distribution as one example, the
    bounds of every contact's force over all admissible distributions and the friction the build needs."""
    import physics

    return physics.contact_forces(build_boxes(build), bounds=True)


def removal(build: Build, statics_only: bool = False, progress: bool = False, found: Any = None) -> Any:
    """The removal map (`physics.RemovalMap`) of a build's blocks (figures stay where they are). `progress`: a bar
    on stderr, one step per removal whose statics answer is known, shown only when stderr is a terminal (tqdm).
    `found(entry)`: each block's `physics.RemovalEntry` as soon as it is known (the lab draws the map with it)."""
    import physics

    if not progress:
        return physics.removal_map(build_boxes(build), dynamics="none" if statics_only else "doubtful",
                                   only=[b.id for b in build.blocks], found=found)
    from tqdm import tqdm

    bar = tqdm(total=len(build.blocks), desc="removal map", unit="block", file=sys.stderr, disable=None,
               leave=False, smoothing=0.1)

    def step(done: int, total: int) -> None:
        bar.update(done - bar.n)
        if done == total and not statics_only:
            bar.set_description("removal map: simulating the doubtful removals")

    try:
        return physics.removal_map(build_boxes(build), dynamics="none" if statics_only else "doubtful",
                                   only=[b.id for b in build.blocks], progress=step, found=found)
    finally:
        bar.close()


def push(build: Build, block: str, directions: tuple[str, ...]) -> list[Any]:
    """The push test (`physics.PushResult`s) on one block, in each direction, weakest first."""
    import physics

    return physics.push_all(build_boxes(build), block, directions)
