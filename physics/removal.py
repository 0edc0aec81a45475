"""Removal map: for every block, what happens to the build without it ("which blocks can I take away?").

Per block the answer is the verdict of `judge(remove(boxes, [block]))`, found more cheaply than that:

- Contacts are searched once: the build without a block keeps every other contact, re-indexed.
- Statics: the tilt LPs of the whole build are set up once, and each removal only fixes the removed box's
  force columns at zero and its equilibrium rows at 0 = 0, re-solving from the previous optimal basis
  (physics.removal_lp). A removal after which a virtual-work test already shows something dropping, or whose
  rays show the rest falling, goes to `judge_statics` itself (its rescue and failure-mode LPs).
- The PyBullet judge runs only where statics finds the build falling or marginal (dynamics="doubtful", the
  default), everywhere (dynamics="all": exactly `judge` per block), or nowhere ("none": exactly
  `judge(..., statics_only=True)` per block). Where statics finds a margin of 1 degree or more, both judges agree
  on > 99 % of builds (docs/physics.md), so "doubtful" skips the expensive runs where they would almost surely
  confirm.
- Those runs share one PyBullet client per process and are spread over two processes where there are two CPUs
  (physics.removal_sim.Runs). Each starts as soon as its removal's statics answer is known (the falling ones
  first), so the simulations run beside the rest of the LP search. The runs are bit for bit the runs `judge`
  makes, whose half-step re-run already simulates only
  the part that can fall (physics.verdict.RECHECK_FOCUSED). With simulation="moving-part" the first run is focused
  too (physics.moving_part, seeded also with the blocks that touched the removed one): less work, but on knife-edge
  removals (Bullet holding a block by side-face friction that statics leaves out) its verdict can differ from
  `judge`'s, so it is not the default (docs/physics.md, "Removal map").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from physics.contacts import TABLE, Contact, find_contacts, resting_on
from physics.dynamics import DynamicsResult
from physics.model import Box
from physics.moving_part import held_still
from physics.removal_lp import ANSWER_PART, rest_contacts, statics_without_each
from physics.removal_sim import Runs
from physics.statics import COM_INSET_M, StaticsResult
from physics.units import DEFAULT_MU
from physics.verdict import COLLAPSES, MARGINAL, STABLE, combine, judge_dynamics_checked

#: The map's words for the combined verdicts, and the class of a block by the verdict without it.
VERDICT_WORDS = {STABLE: "stands", MARGINAL: "marginal", COLLAPSES: "falls"}
CLASSES = {STABLE: "safe", MARGINAL: "risky", COLLAPSES: "brings-down"}
DYNAMICS_MODES = ("doubtful", "all", "none")
#: What PyBullet simulates per removal: the whole build without the block, exactly as `judge` does (the default),
#: or only the part that can move (physics.moving_part: faster, but not always `judge`'s verdict; docs/physics.md).
SIMULATIONS = ("whole", "moving-part")


@dataclass(frozen=True)
class RemovalEntry:
    """The build without `block`: its verdict (stands / marginal / falls), class (safe / risky / brings-down),
    the statics tilt margin left (degrees, signed as in StaticsResult) and the blocks that would fall."""

    block: str
    verdict: str
    klass: str
    tilt_margin_deg: float
    falls: tuple[str, ...]
    statics: StaticsResult
    dynamics: DynamicsResult | None = None
    how: str = "statics"  # "statics" or "statics+dynamics"

    def to_json(self) -> dict:
        return {"block": self.block, "verdict": self.verdict, "class": self.klass,
                "tilt_margin_deg": round(self.tilt_margin_deg, 2) + 0.0, "falls": list(self.falls),
                "weakest_direction": [round(v, 4) + 0.0 for v in self.statics.weakest_direction],
                "dynamics": None if self.dynamics is None else self.dynamics.to_json(), "how": self.how}


@dataclass(frozen=True)
class RemovalMap:
    """Per block of the build, what its removal does; `ms` the time spent, `statics_ms` of it in the statics search
    (the PyBullet runs start beside it, each as soon as its removal's answer is known), `dynamics_ms` waiting for
    the runs after the search."""

    entries: tuple[RemovalEntry, ...]
    dynamics: str
    ms: float = 0.0
    statics_ms: float = 0.0
    dynamics_ms: float = 0.0
    cold_judges: int = 0
    dynamics_runs: int = 0
    extra: dict = field(default_factory=dict)

    def by_class(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {k: [] for k in CLASSES.values()}
        for e in self.entries:
            out[e.klass].append(e.block)
        return out

    def entry(self, block: str) -> RemovalEntry:
        for e in self.entries:
            if e.block == block:
                return e
        raise KeyError(block)

    def to_json(self) -> dict:
        return {"dynamics": self.dynamics, "classes": self.by_class(), "blocks": [e.to_json() for e in self.entries],
                "ms": round(self.ms, 1), "statics_ms": round(self.statics_ms, 1),
                "dynamics_ms": round(self.dynamics_ms, 1), "cold_judges": self.cold_judges,
                "dynamics_runs": self.dynamics_runs}


def fixed_part(boxes: Sequence[Box], contacts: Sequence[Contact], drop: int, res: StaticsResult) -> list[str]:
    """Ids of the boxes of the build without boxes[drop] that its "moving-part" simulation holds immovable
    (physics.moving_part): none when statics sees it standing (its margin is small: no mechanism to start from)."""
    if res.stable or not res.mechanism:
        return []
    rest = [b for j, b in enumerate(boxes) if j != drop]
    index = {b.id: k for k, b in enumerate(rest)}
    seeds = [index[m] for m in res.mechanism if m in index]
    seeds += [c.b - (c.b > drop) for c in contacts if c.a == drop and c.axis == 2]
    return held_still(rest, rest_contacts(contacts, len(boxes), drop), seeds)


def falling_blocks(boxes: Sequence[Box], contacts: Sequence[Contact], drop: int,
                   mechanism: Sequence[str]) -> tuple[str, ...]:
    """The blocks that fall once boxes[drop] is gone, in statics: the judge's mechanism, then every block whose
    supports (the blocks it rests on) are all gone or falling, lowest first. The mechanism alone can leave those
    out: the least unbalance of a stack whose bottom block is gone is all on the block that rested on it, while the
    blocks on top drop with it."""
    index = {b.id: k for k, b in enumerate(boxes)}
    gone = {drop} | {index[m] for m in mechanism if m in index}
    under = resting_on(contacts)
    out = list(mechanism)
    for k in sorted(under, key=lambda k: boxes[k].lo[2]):
        if k not in gone and TABLE not in under[k] and under[k] <= gone:
            gone.add(k)
            out.append(boxes[k].id)
    return tuple(out)


def _entry(boxes: Sequence[Box], contacts: Sequence[Contact], i: int, res: StaticsResult,
           dyn: DynamicsResult | None) -> RemovalEntry:
    """The map's entry for the build without boxes[i], from its statics answer and its PyBullet run (if any)."""
    verdict = combine(res, dyn)
    if verdict == STABLE:
        falls: tuple[str, ...] = ()
    elif dyn is not None and dyn.collapsed:
        falls = dyn.moved
    elif not res.stable:
        falls = falling_blocks(boxes, contacts, i, res.mechanism)
    else:
        falls = ()
    return RemovalEntry(boxes[i].id, VERDICT_WORDS[verdict], CLASSES[verdict], res.tilt_margin_deg, falls, res, dyn,
                        "statics" if dyn is None else "statics+dynamics")


def removal_map(boxes: Sequence[Box], mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M,
                dynamics: str = "doubtful", seconds: float = 2.0,
                only: Sequence[str] | None = None, simulation: str = "whole",
                processes: int | None = None,
                progress: Callable[[int, int], None] | None = None,
                found: Callable[[RemovalEntry], None] | None = None) -> RemovalMap:
    """Per box, the verdict of the build without it (module docstring); entries in the build's order.
    `only`: the ids to map (e.g. the blocks but not the figures); all boxes when None. `simulation`: one of
    SIMULATIONS. `processes`: how many processes run the simulations (physics.removal_sim.Runs) and, on large
    builds, judge the removals (physics.removal_lp.judged_one_by_one); default 2 where there are 2 CPUs.
    `progress(done, total)`: called in this thread each time a removal's statics answer is known. `found(entry)`:
    called in this thread with each block's entry as soon as it is known (with dynamics="none" as its statics answer
    comes, the lab's map drawn block by block; otherwise once its PyBullet run, if any, is in)."""
    if dynamics not in DYNAMICS_MODES:
        raise ValueError(f"dynamics={dynamics!r}: use one of {', '.join(DYNAMICS_MODES)}")
    if simulation not in SIMULATIONS:
        raise ValueError(f"simulation={simulation!r}: use one of {', '.join(SIMULATIONS)}")
    t0 = time.perf_counter()
    boxes = list(boxes)
    n = len(boxes)
    wanted = sorted(set(range(n)) if only is None else {k for k, b in enumerate(boxes) if b.id in set(only)})
    contacts = find_contacts(boxes)

    done = [0]

    def told(i: int, res: StaticsResult) -> None:
        done[0] += 1
        if found is not None and dynamics == "none":
            found(_entry(boxes, contacts, i, res, None))
        if progress is not None:
            progress(done[0], len(wanted))

    def doubtful(res: StaticsResult) -> bool:
        return dynamics == "all" or (dynamics == "doubtful" and combine(res, None) != STABLE)

    def work(arg: tuple[int, StaticsResult], client: int) -> DynamicsResult:
        """PyBullet's judge of the build without box i, given its statics answer."""
        i, res = arg
        rest = [b for j, b in enumerate(boxes) if j != i]
        fixed = fixed_part(boxes, contacts, i, res) if simulation == "moving-part" else ()
        return judge_dynamics_checked(rest, res, mu=mu, seconds=seconds, fixed=fixed, client=client)

    ts = time.perf_counter()
    if dynamics == "none":
        statics, lp_info = statics_without_each(boxes, contacts, mu, com_inset, wanted, answered=told,
                                                processes=processes, part_size=ANSWER_PART)
        statics_s, dyn_s = time.perf_counter() - ts, 0.0
        sims: dict = {}
    else:
        with Runs(work, processes) as runs:
            runs.start()  # the workers are forked before the search starts its threads
            # each doubtful removal's PyBullet run starts as soon as its statics answer is known, while the search
            # goes on with the others (the falling ones, the long runs, are answered first)
            def answered(i: int, res: StaticsResult) -> None:
                if doubtful(res):
                    runs.submit(i, (i, res))
                told(i, res)

            statics, lp_info = statics_without_each(boxes, contacts, mu, com_inset, wanted, answered=answered,
                                                    processes=processes)
            statics_s = time.perf_counter() - ts
            td = time.perf_counter()
            sims = runs.results()
            dyn_s = time.perf_counter() - td
    results = [(i, statics[i], sims.get(i)) for i in wanted]
    runs_made = sum(dyn is not None for _, _, dyn in results)
    entries = [_entry(boxes, contacts, i, res, dyn) for i, res, dyn in results]
    if found is not None and dynamics != "none":
        for e in entries:
            found(e)
    return RemovalMap(tuple(entries), dynamics, (time.perf_counter() - t0) * 1000, statics_s * 1000, dyn_s * 1000,
                      lp_info["cold"], runs_made, {"warm_lps": lp_info["warm_lps"], "warm": lp_info["warm"],
                                              "simulation": simulation,
                                              "one_by_one": lp_info.get("one_by_one", False),
                                              "mirrored": lp_info.get("mirrored", 0)})

