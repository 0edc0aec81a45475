"""Glue between builds and the physics judges: a build becomes plain boxes with real sizes and masses.

Lives beside the CLI (it is wiring, not rules): `physics` is imported only when a judge is asked for.
"""

from __future__ import annotations

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


def judge_build(build: Build, statics_only: bool = False) -> Any:
    """The physics verdict (`physics.Verdict`) of a build."""
    import physics

    return physics.judge(build_boxes(build), statics_only=statics_only)


def statics_stands(build: Build, moved: str | None = None) -> bool:
    """The `physical` support option's test: does the statics judge say the construction stands? `moved` names
    the block just placed (checked first: where most candidate placements fail)."""
    import physics

    return physics.stands(build_boxes(build), first=moved)


def use_physical_support() -> None:
    """Hand the statics judge to The Climbers for its `support=physical` option. The rules code cannot import
    physics itself, so whoever wires the layers together (the CLI, a script) calls this once."""
    from tower.climbers.game import ClimbersState

    configure_game(ClimbersState)


def configure_game(cls: type) -> None:
    """`tower.games.registry.on_load` step: The Climbers gets the judge when the registry first hands it out, so
    commands that make no game never import it."""
    if getattr(cls, "name", None) == "climbers":
        cls.support_judge = staticmethod(statics_stands)  # type: ignore[attr-defined]
