"""Removal map: for every block, what happens to the build without it ("which blocks can I take away?").

Per block the answer is the verdict of `judge(remove(boxes, [block]))`, found more cheaply than that:

- Contacts are searched once; the build without a block keeps all other contacts unchanged, so they are
  filtered and re-indexed, never searched again.
- The build splits into independent pieces (blocks connected through contacts other than the table). Their
  equilibrium equations share no unknowns, so the build stands iff every piece does, and its tilt margin is the
  smallest of the pieces' margins (the survivable loads are the intersection of the pieces' sets, whose ray
  lengths are the minimum of theirs). Removing a block changes only its own piece: the other pieces are judged
  once and reused; a block that touches nothing but the table is a piece of its own, and its removal needs no
  LP at all.
- The statics judge decides first; the PyBullet judge runs only where statics finds the build falling or
  marginal (dynamics="doubtful", the default), everywhere (dynamics="all": exactly `judge` per block), or
  nowhere ("none": exactly `judge(..., statics_only=True)` per block). Where statics finds a margin of 1 degree
  or more, both judges agree on > 99 % of builds (docs/physics.md), so "doubtful" skips the expensive runs
  where they would almost surely confirm.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from physics.contacts import TABLE, Contact, find_contacts
from physics.dynamics import DynamicsResult
from physics.model import Box
from physics.statics import COM_INSET_M, StaticsResult, judge_statics
from physics.units import DEFAULT_MU
from physics.verdict import COLLAPSES, MARGINAL, STABLE, combine, judge_dynamics_checked

#: The map's words for the combined verdicts, and the class of a block by the verdict without it.
VERDICT_WORDS = {STABLE: "stands", MARGINAL: "marginal", COLLAPSES: "falls"}
CLASSES = {STABLE: "safe", MARGINAL: "risky", COLLAPSES: "brings-down"}
DYNAMICS_MODES = ("doubtful", "all", "none")


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
    how: str = "statics"  # "statics", "statics+dynamics", or "no LP: touches only the table"

    def to_json(self) -> dict:
        return {"block": self.block, "verdict": self.verdict, "class": self.klass,
                "tilt_margin_deg": round(self.tilt_margin_deg, 2) + 0.0, "falls": list(self.falls),
                "weakest_direction": [round(v, 4) + 0.0 for v in self.statics.weakest_direction],
                "dynamics": None if self.dynamics is None else self.dynamics.to_json(), "how": self.how}


@dataclass(frozen=True)
class RemovalMap:
    """Per block of the build, what its removal does; `ms`, `statics_ms`, `dynamics_ms` the time spent."""

    entries: tuple[RemovalEntry, ...]
    dynamics: str
    ms: float = 0.0
    statics_ms: float = 0.0
    dynamics_ms: float = 0.0
    lp_judges: int = 0
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
                "dynamics_ms": round(self.dynamics_ms, 1), "lp_judges": self.lp_judges,
                "dynamics_runs": self.dynamics_runs}


def pieces(n: int, contacts: Sequence[Contact]) -> list[list[int]]:
    """The build's independent pieces: box indices connected through contacts between boxes (not the table),
    each sorted, in the order of their first box."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for c in contacts:
        if c.a != TABLE:
            ra, rb = find(c.a), find(c.b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _sub_contacts(contacts: Sequence[Contact], keep: Sequence[int]) -> list[Contact]:
    """The contacts among the boxes `keep` (indices into the full build), re-indexed to positions in `keep`."""
    pos = {i: k for k, i in enumerate(keep)}
    out = []
    for c in contacts:
        if c.b in pos and (c.a == TABLE or c.a in pos):
            out.append(Contact(TABLE if c.a == TABLE else pos[c.a], pos[c.b], c.axis, c.plane, c.rect))
    return out


def _merge(results: Sequence[StaticsResult]) -> StaticsResult:
    """The statics answer of a build made of independent standing pieces: all stand, the smallest margin."""
    if not results:
        return StaticsResult(True, 90.0, (1.0, 0.0), 0.0, (90.0, 90.0))
    weakest = min(results, key=lambda r: r.tilt_margin_deg)
    lo = min(r.margin_bounds_deg[0] for r in results)
    return StaticsResult(True, weakest.tilt_margin_deg, weakest.weakest_direction, sum(r.ms for r in results),
                         (lo, weakest.margin_bounds_deg[1]), weakest.mechanism, sum(r.lps for r in results),
                         sum(r.contacts for r in results))


def removal_map(boxes: Sequence[Box], mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M,
                dynamics: str = "doubtful", seconds: float = 2.0,
                only: Sequence[str] | None = None) -> RemovalMap:
    """Per box, the verdict of the build without it (module docstring); entries in the build's order.
    `only`: the ids to map (e.g. the blocks but not the figures); all boxes when None."""
    if dynamics not in DYNAMICS_MODES:
        raise ValueError(f"dynamics={dynamics!r}: use one of {', '.join(DYNAMICS_MODES)}")
    t0 = time.perf_counter()
    boxes = list(boxes)
    n = len(boxes)
    wanted = set(range(n)) if only is None else {k for k, b in enumerate(boxes) if b.id in set(only)}
    contacts = find_contacts(boxes)
    parts = pieces(n, contacts)
    piece_of = {i: k for k, part in enumerate(parts) for i in part}
    statics_s = 0.0
    lp_judges = 0

    def judge_part(members: Sequence[int]) -> StaticsResult:
        nonlocal lp_judges
        lp_judges += 1
        return judge_statics([boxes[i] for i in members], mu=mu, com_inset=com_inset,
                             contacts=_sub_contacts(contacts, members))

    whole: dict[int, StaticsResult] = {}  # each piece judged as it is, on first need
    results: list[tuple[int, StaticsResult, str]] = []
    for i in sorted(wanted):
        ts = time.perf_counter()
        k = piece_of[i]
        rest_of_piece = [j for j in parts[k] if j != i]
        others = [q for q in range(len(parts)) if q != k]
        for q in others:
            if q not in whole:
                whole[q] = judge_part(parts[q])
        if any(not whole[q].stable for q in others):
            # something else falls anyway: the falling build is judged as a whole, as `judge` would
            rest = [j for j in range(n) if j != i]
            res = judge_part(rest)
            how = "statics"
        else:
            split = _split(rest_of_piece, contacts) if rest_of_piece else []
            sub = [judge_part(p) for p in split]
            if not others and len(split) == 1:  # the rest is one piece: judged as a whole already
                res, how = sub[0], "statics"
            elif all(r.stable for r in sub):
                res = _merge([whole[q] for q in others] + sub)
                how = "statics" if rest_of_piece else "no LP: touches only the table"
            else:  # the piece falls without the block: the whole rest judged at once (its falling mode)
                res = judge_part([j for j in range(n) if j != i])
                how = "statics"
        statics_s += time.perf_counter() - ts
        results.append((i, res, how))

    dyn_s = 0.0
    runs = 0
    entries = []
    for i, res, how in results:
        rest = [b for j, b in enumerate(boxes) if j != i]
        verdict = combine(res, None)
        dyn = None
        if dynamics == "all" or (dynamics == "doubtful" and verdict != STABLE):
            td = time.perf_counter()
            dyn = judge_dynamics_checked(rest, res, mu=mu, seconds=seconds)
            dyn_s += time.perf_counter() - td
            runs += 1
            verdict = combine(res, dyn)
            how = "statics+dynamics"
        if verdict == STABLE:
            falls: tuple[str, ...] = ()
        elif dyn is not None and dyn.collapsed:
            falls = dyn.moved
        elif not res.stable:
            falls = res.mechanism
        else:
            falls = ()
        entries.append(RemovalEntry(boxes[i].id, VERDICT_WORDS[verdict], CLASSES[verdict], res.tilt_margin_deg,
                                    falls, res, dyn, how))
    return RemovalMap(tuple(entries), dynamics, (time.perf_counter() - t0) * 1000, statics_s * 1000, dyn_s * 1000,
                      lp_judges, runs, {"pieces": len(parts)})


def _split(members: Sequence[int], contacts: Sequence[Contact]) -> list[list[int]]:
    """`members` (indices of the full build) split into the pieces they form among themselves."""
    sub = _sub_contacts(contacts, members)
    return [[members[k] for k in part] for part in pieces(len(members), sub)]
