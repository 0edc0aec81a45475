"""The combined stability verdict: statics (LP) and dynamics (PyBullet) judged together."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from physics.dynamics import DynamicsResult, judge_dynamics
from physics.model import Box
from physics.statics import COM_INSET_M, StaticsResult, judge_statics
from physics.units import DEFAULT_MU

#: A build that stands with less tilt margin than this (degrees) is `marginal`: a table bumped or a block placed a
#: millimetre off can tip it (docs/formats.md).
STABLE_MARGIN_DEG = 1.0

STABLE, MARGINAL, COLLAPSES = "stable", "marginal", "collapses"


def combine(statics: StaticsResult, dynamics: DynamicsResult | None) -> str:
    """The verdict rule: `stable` when both judges say it stands and the tilt margin is >= 1 degree, `collapses` when
    both say it falls, `marginal` otherwise. Without dynamics (statics only) the statics judge decides alone:
    stands with margin >= 1 degree -> stable, falls -> collapses, stands with less margin -> marginal."""
    stands = [statics.stable] + ([] if dynamics is None else [not dynamics.collapsed])
    if all(stands) and statics.tilt_margin_deg >= STABLE_MARGIN_DEG:
        return STABLE
    if not any(stands):
        return COLLAPSES
    return MARGINAL


@dataclass(frozen=True)
class Verdict:
    """Both judges' answers and the combined verdict."""

    verdict: str
    statics: StaticsResult
    dynamics: DynamicsResult | None

    @property
    def stands(self) -> bool:
        return self.verdict == STABLE

    def to_json(self, detail: bool = False) -> dict:
        """The `stability` object of docs/formats.md; `dynamics` is null when only statics was asked for."""
        return {"verdict": self.verdict, "statics": self.statics.to_json(detail),
                "dynamics": None if self.dynamics is None else self.dynamics.to_json(detail)}


def judge(boxes: Sequence[Box], statics_only: bool = False, mu: float = DEFAULT_MU, seconds: float = 2.0,
          com_inset: float = COM_INSET_M) -> Verdict:
    """Judge a build with the statics LP and (unless statics_only) a PyBullet run, and combine the answers."""
    boxes = list(boxes)
    statics = judge_statics(boxes, mu=mu, com_inset=com_inset)
    dynamics = None if statics_only else judge_dynamics(boxes, mu=mu, seconds=seconds)
    return Verdict(combine(statics, dynamics), statics, dynamics)
