"""Physics answers in words, shared by `tower check`, the lab and the pictures' legends: directions on the table, what
the weakest tilt does, and how a falling build starts to fall.

Pure functions over the JSON form of the statics verdict (`StaticsResult.to_json(detail=True)`, with `failure`
from physics.failure). Nothing is judged here: the words only say what the judge's answer holds, so the command
line, the lab and the picture cannot tell different stories about one build.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: The eight directions on the table, every 45 degrees from +x counter-clockwise (seen from above: +x is right,
#: +y the back, as the front camera of the viewer looks at a build).
DIRECTIONS = ("the right (+x)", "the back-right (+x, +y)", "the back (+y)", "the back-left (-x, +y)",
              "the left (-x)", "the front-left (-x, -y)", "the front (-y)", "the front-right (+x, -y)")
#: A block's centre moving sideways by less than this share of its speed falls straight down (no direction named).
SIDEWAYS_SHARE = 0.25
#: How each block starts to move, as verbs for one block and for several (the keys are physics.failure's modes,
#: plus "move": carried sideways without turning or slipping, riding on what moves under it).
HOW = {"tip": ("tips over", "tip over"), "tip-and-slide": ("tips over and slips", "tip over and slip"),
       "slide": ("slides", "slide"), "move": ("moves", "move"), "drop": ("drops", "drop")}
#: What the weakest table tilt does to a standing build, by its failure mode (infinitive, third person).
TILT = {"tip": ("tip it over", "tips it over"), "slide": ("make it slide", "makes it slide"),
        "tip-and-slide": ("tip it over, partly sliding,", "tips it over, partly sliding,")}


def direction_words(dx: float, dy: float) -> str:
    """A horizontal direction as a person says it: the nearest of the eight in DIRECTIONS."""
    sector = round(math.degrees(math.atan2(dy, dx)) / 45) % 8
    return DIRECTIONS[sector]


def tilt_words(statics: dict[str, Any], third_person: bool = False) -> str:
    """What the weakest table tilt does to a standing build: "tip it over" or "make it slide" (the failure mode
    of the critical LP's dual, physics.failure); "tips it over" ... with `third_person`."""
    mode = (statics.get("failure") or {}).get("mode", "tip")
    return TILT.get(mode, TILT["tip"])[1 if third_person else 0]


def name(box_id: str) -> str:
    """A box id as a person reads it: figures by their colour."""
    return f"the {box_id.split('-')[1]} figure" if box_id.startswith("figure-") else box_id


def names(ids: Sequence[str], most: int = 8) -> str:
    """Ids as a list a person reads: "a", "a and b", "a, b and c", the rest counted beyond `most`."""
    out = [name(i) for i in ids[:most]]
    if len(ids) > most:
        return ", ".join(out) + f" and {len(ids) - most} more"
    if len(out) < 2:
        return "".join(out)
    return ", ".join(out[:-1]) + f" and {out[-1]}"


def block_motion(motion: dict[str, Any], slipping: set[str]) -> tuple[str, str]:
    """How one block of a `failure` starts to move: (how, where). how: "tip" (it turns), "tip-and-slide" (it turns
    and slips on what it rests on), "slide" (it slips sideways without turning), "move" (carried sideways without
    turning or slipping), "drop" (straight down); where: the direction of its centre's sideways motion in words
    ("" when it falls straight down). `slipping`: the blocks that slip on what they rest on (failure's
    `slides_on`)."""
    vx, vy, vz = motion["velocity"]
    sideways = math.hypot(vx, vy)
    where = direction_words(vx, vy) if sideways > SIDEWAYS_SHARE * math.sqrt(sideways ** 2 + vz ** 2) else ""
    slips = motion["block"] in slipping
    if motion.get("axis_point") is not None:
        return ("tip-and-slide" if slips else "tip"), where
    if where:
        return ("slide" if slips else "move"), where
    return "drop", ""


def fall_groups(failure: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """The moving blocks of a `failure` grouped by how they start to move and where (block_motion): (how, where,
    ids), the group of the fastest block first, each group's blocks fastest first (failure's order)."""
    slipping = {upper for upper, _ in failure.get("slides_on") or ()}
    groups: dict[tuple[str, str], list[str]] = {}
    for m in failure.get("blocks") or ():
        groups.setdefault(block_motion(m, slipping), []).append(m["block"])
    return [(how, where, ids) for (how, where), ids in groups.items()]


def fall_words(failure: dict[str, Any], most_groups: int = 4, most_names: int = 8) -> str:
    """How a falling build starts to fall, group by group: "cL2 and cL1 tip over toward the right (+x); cR2 and
    cR1 tip over toward the left (-x); key drops straight down, slipping on cL2 and cR2"."""
    return "; ".join(fall_parts(failure, most_groups, most_names))


def fall_parts(failure: dict[str, Any], most_groups: int = 4, most_names: int = 8) -> list[str]:
    """fall_words' parts, one a group (at most `most_groups`, then how many more blocks move)."""
    slides_on = [tuple(p) for p in failure.get("slides_on") or ()]
    parts = []
    groups = fall_groups(failure)
    for how, where, ids in groups[:most_groups]:
        part = f"{names(ids, most_names)} {HOW[how][0 if len(ids) == 1 else 1]}"
        if where:
            part += f" toward {where}"
        elif how == "drop":
            part += " straight down"
            # a block slipping down between others: say on what (the neighbours' own words do not)
            on = list(dict.fromkeys(lower for upper, lower in slides_on if upper in ids))
            part += f", slipping on {names(on, most_names)}" if on else ""
        parts.append(part)
    rest = sum(len(ids) for _, _, ids in groups[most_groups:])
    if rest:
        parts.append(f"{rest} more block{'s' if rest > 1 else ''} move{'s' if rest == 1 else ''} as well")
    return parts


def fall_summary(failure: dict[str, Any]) -> str:
    """Which blocks start to move and how, counted (a picture's legend, beside the words naming them): "this block
    tips over", "these 5 blocks: 4 tip over, 1 drops"."""
    groups = fall_groups(failure)
    n = sum(len(ids) for _, _, ids in groups)
    if n == 1:
        return f"this block {HOW[groups[0][0]][0]}"
    counts: dict[str, int] = {}
    for how, _, ids in groups:
        counts[how] = counts.get(how, 0) + len(ids)
    if len(counts) == 1:
        return f"these {n} blocks {HOW[next(iter(counts))][1]}"
    return f"these {n} blocks: " + ", ".join(f"{k} {HOW[how][0 if k == 1 else 1]}" for how, k in counts.items())
