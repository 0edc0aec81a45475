"""The combined stability verdict: statics (LP) and dynamics (PyBullet) judged together."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from physics.contacts import find_contacts
from physics.dynamics import REDUCED_RECHECK_MAX_BOXES, TIME_STEP_S, DynamicsResult, judge_dynamics
from physics.lp import cpus
from physics.model import Box
from physics.moving_part import held_still
from physics.statics import COM_INSET_M, StaticsResult, judge_statics
from physics.threads import side_by_side
from physics.units import DEFAULT_MU

#: A build that stands with less tilt margin than this (degrees) is `marginal`: a table bumped or a block placed a
#: millimetre off can tip it (docs/formats.md).
STABLE_MARGIN_DEG = 1.0

STABLE, MARGINAL, COLLAPSES = "stable", "marginal", "collapses"
#: PyBullet's verdict is re-run at half its time step when the statics margin is closer to zero than this (either
#: way) or the judges disagree: there a step's worth of numerical error can decide (docs/physics.md).
RECHECK_MARGIN_DEG = 1.0


def combine(statics: StaticsResult, dynamics: DynamicsResult | None) -> str:
    """The verdict rule: `stable` when both judges say it stands and the tilt margin is >= 1 degree, `collapses` when
    both say it falls, `marginal` otherwise. Without dynamics (statics only) the statics judge decides alone:
    stands with margin >= 1 degree -> stable, falls -> collapses, stands with less margin -> marginal. A statics
    verdict neither friction model decides (StaticsResult.undecided) is marginal whatever the simulation says."""
    if statics.undecided:
        return MARGINAL
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


def needs_recheck(statics: StaticsResult, dynamics: DynamicsResult) -> str:
    """Why a PyBullet verdict is re-run at half the time step ("" when it is not): the judges disagree, or the
    statics margin is within RECHECK_MARGIN_DEG of zero either way (a balance Bullet's step can tip)."""
    if statics.stable == dynamics.collapsed:
        return "judges disagree"
    if abs(statics.tilt_margin_deg) < RECHECK_MARGIN_DEG:
        return "small statics margin"
    return ""


#: The half-step re-run of a build statics finds falling simulates only the part that can take part in the
#: statics failure (physics.moving_part), the rest held immovable. It asks one question, "do the blocks statics
#: sees fall really fall?", and the rest of the build stands in both judges (the first run already simulated all
#: of it). Measured on the 551 builds and on the 60 removal re-runs of start towers 0-9 (docs/physics.md,
#: "A focused re-run"): the same agreement with the statics judge and with MuJoCo as the whole-build re-run, at
#: about a third of its cost.
RECHECK_FOCUSED = True


#: A block the statics failure motion (physics.failure: how the blocks start to move) moves at least this fraction
#: of the fastest block's speed takes part in the fall, and the focused re-run moves it too. The LP's mechanism
#: alone can miss such blocks: in a falling corbel bridge it named the two top-but-one courses, and the re-run held
#: the courses under them still although they tip with them (issue 43).
FOCUS_MIN_SPEED = 0.1


def recheck_held_still(boxes: Sequence[Box], statics: StaticsResult) -> list[str]:
    """Ids of the boxes the half-step re-run holds immovable: outside the moving part (physics.moving_part) of the
    statics mechanism and of the blocks its failure motion moves (FOCUS_MIN_SPEED) when statics finds the build
    falling; none when it stands (no mechanism to focus on)."""
    if not RECHECK_FOCUSED or statics.stable or not statics.mechanism:
        return []
    index = {b.id: k for k, b in enumerate(boxes)}
    seeds = set(statics.mechanism)
    failure = statics.failure
    if failure is not None and failure.motions:
        fastest = max(math.hypot(*m.velocity) for m in failure.motions)
        seeds |= {m.block for m in failure.motions if math.hypot(*m.velocity) >= FOCUS_MIN_SPEED * fastest}
    return held_still(boxes, find_contacts(boxes), [index[m] for m in seeds if m in index])


def judge_dynamics_checked(boxes: Sequence[Box], statics: StaticsResult, mu: float = DEFAULT_MU,
                           seconds: float = 2.0, fixed: Collection[str] = (),
                           client: int | None = None, first: DynamicsResult | None = None) -> DynamicsResult:
    """The PyBullet verdict at TIME_STEP_S, re-run at half the step where `needs_recheck` says so, as multibodies
    on builds of up to REDUCED_RECHECK_MAX_BOXES boxes (physics.dynamics) and focused on the statics mechanism
    where statics finds the build falling (RECHECK_FOCUSED); the finer run's answer counts, and its settings
    record the first run (docs/physics.md, "Time-step artefacts").
    `fixed`: boxes simulated as immovable in both runs (then the re-run holds just these), `client`: a PyBullet
    client to reuse (judge_dynamics); `first`: the first run, when it has been made already."""
    boxes = list(boxes)
    if first is None:
        first = judge_dynamics(boxes, mu=mu, seconds=seconds, fixed=fixed, client=client)
    reason = needs_recheck(statics, first)
    if not reason:
        return first
    still = fixed or recheck_held_still(boxes, statics)
    fine = judge_dynamics(boxes, mu=mu, seconds=seconds, time_step=TIME_STEP_S / 2, fixed=still, client=client,
                          reduced=len(boxes) <= REDUCED_RECHECK_MAX_BOXES)
    settings = dict(fine.settings, recheck=reason, first_run={"time_step_s": TIME_STEP_S,
                                                              "collapsed": first.collapsed, "ms": round(first.ms, 1)})
    return replace(fine, ms=first.ms + fine.ms, settings=settings)


#: The dynamics engines `judge` can use: PyBullet (default) or MuJoCo (the optional extra `mujoco`).
ENGINES = ("pybullet", "mujoco")


def judge(boxes: Sequence[Box], statics_only: bool = False, mu: float = DEFAULT_MU, seconds: float = 2.0,
          com_inset: float = COM_INSET_M, engine: str = "pybullet") -> Verdict:
    """Judge a build with the statics LP and (unless statics_only) a simulation, and combine the answers.
    engine: "pybullet" (with the half-step re-run) or "mujoco" (physics.mujoco_judge; ImportError without it)."""
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r}: use one of {', '.join(ENGINES)}")
    boxes = list(boxes)
    if statics_only:
        statics = judge_statics(boxes, mu=mu, com_inset=com_inset)
        dynamics = None
    elif engine == "mujoco":
        from physics.mujoco_judge import judge_mujoco  # noqa: PLC0415 - optional

        statics = judge_statics(boxes, mu=mu, com_inset=com_inset)
        dynamics = judge_mujoco(boxes, mu=mu, seconds=seconds)
    else:
        statics, first = _statics_beside(boxes, mu, com_inset,
                                         lambda: judge_dynamics(boxes, mu=mu, seconds=seconds))
        dynamics = judge_dynamics_checked(boxes, statics, mu=mu, seconds=seconds, first=first)
    return Verdict(combine(statics, dynamics), statics, dynamics)


def _statics_beside(boxes: list[Box], mu: float, com_inset: float,
                    simulate: Callable[[], DynamicsResult]) -> tuple[StaticsResult, DynamicsResult]:
    """The statics verdict and PyBullet's first run, side by side where there are two CPUs: the first run does not
    need the statics answer (only the re-run does), HiGHS releases the GIL while it solves, and pybullet gives it
    back between steps. Both answers are what they are when made one after the other (the judges share nothing);
    the start tower's verdict costs the larger of the two instead of their sum."""
    if cpus() < 2:
        return judge_statics(boxes, mu=mu, com_inset=com_inset), simulate()
    return side_by_side(lambda: judge_statics(boxes, mu=mu, com_inset=com_inset), simulate, "statics")
