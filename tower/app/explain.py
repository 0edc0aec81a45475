"""Why a build stands, in words: contact forces, the removal map and the push test (`tower check --forces`,
`--removal-map`, `--push BLOCK[:DIR]`). The numbers come from physics (forces, removal, push); this module only
parses the options and says the answers as a person reads them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tower.games.errors import BadInput, unknown_id

#: The push directions `--push BLOCK:DIR` takes, and the words for them (seen from the front of the build).
PUSH_DIRECTIONS = ("+x", "-x", "+y", "-y")
PUSH_WORDS = {"+x": "toward the right (+x)", "-x": "toward the left (-x)", "+y": "toward the back (+y)",
              "-y": "toward the front (-y)"}
#: Contacts listed per heading in the text form (the JSON carries all).
SHOWN = 5
#: A push that moves at least this share of the blocks first moves the whole build (on the table).
WHOLE_BUILD = 0.9


def parse_push(text: str, block_ids: set[str], source: str) -> tuple[str, tuple[str, ...]]:
    """`BLOCK` or `BLOCK:DIR` -> (block, directions); BadInput names what is wrong."""
    block, colon, direction = text.partition(":")
    if block not in block_ids:
        raise BadInput(f"--push {text}: {unknown_id('block', block, block_ids)}", "", source)
    if colon and direction not in PUSH_DIRECTIONS:
        raise BadInput(f"--push {text}: direction {direction!r} is not one of {', '.join(PUSH_DIRECTIONS)}", "",
                       source)
    return block, (direction,) if direction else PUSH_DIRECTIONS


def _who(box_id: str) -> str:
    return f"the {box_id.split('-')[1]} figure" if box_id.startswith("figure-") else box_id


def _list(ids: list[str], most: int = 8) -> str:
    names = [_who(i) for i in ids]
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def _carrier(a: str) -> str:
    return "the table" if a == "table" else _who(a)


def _side(c: dict[str, Any]) -> bool:
    """A contact between two side faces: its normal is horizontal (it carries no weight straight down)."""
    return abs(c["normal"][2]) < 0.5


def _between(c: dict[str, Any], lower_first: bool = True) -> str:
    """A contact named by its normal: "the table under c0" / "c2 on c1" for one face on another, "c2 against the
    side of g1" for two side faces (a side contact is no stacking)."""
    if _side(c):
        return f"{_who(c['a'])} against the side of {_who(c['b'])}"
    return f"{_carrier(c['a'])} under {_who(c['b'])}" if lower_first else f"{_who(c['b'])} on {_carrier(c['a'])}"


def _carries(c: dict[str, Any]) -> str:
    """What a contact does in a distribution: "the table carries c0", "c2 pushes against g1"."""
    if _side(c):
        return f"{_who(c['a'])} pushes against {_who(c['b'])}"
    return f"{_carrier(c['a'])} carries {_who(c['b'])}"


#: Wood on wood, for the friction line (docs/physics.md, "Units and materials").
WOOD_MU = "wood on wood is about 0.3-0.5"
CARRIES = {"determinate": "are determinate: they carry the same force in every distribution",
           "must-carry": "must carry some force in every distribution",
           "may-carry-nothing": "may carry nothing: some distribution leaves them unloaded"}


CARRIES_ONE = {"determinate": "is determinate: it carries the same force in every distribution",
               "must-carry": "must carry some force in every distribution",
               "may-carry-nothing": "may carry nothing: some distribution leaves it unloaded"}


def _count(k: int, what: str) -> str:
    return f"{k} {what}" + ("" if k == 1 else "s")


def _n(v: float) -> str:
    return f"{v:.3f} N"


def friction_line(least: dict[str, Any] | None, mu: float, stands: bool, example_slips: bool = False) -> str:
    """The least friction coefficient in words; `example_slips`: the example distribution shown after it uses
    friction (then said to be its own choice, where the build needs none)."""
    if least is None:
        return ""
    if least["least_mu"] is None:
        return f"friction: no friction coefficient up to {least['too_small_mu']:g} would hold it up"
    if least["least_mu"] == 0:
        return ("friction: the build needs none: it stands with no friction at all (any friction coefficient from 0)"
                + ("; the friction the example below uses is that distribution's own choice" if example_slips else ""))
    if not stands:
        return (f"friction: it would stand with a friction coefficient from {least['least_mu']:.2f} "
                f"(it has mu = {mu}; {WOOD_MU})")
    return f"friction: it stands with any friction coefficient from {least['least_mu']:.2f}; {WOOD_MU}"


def forces_lines(doc: dict[str, Any]) -> list[str]:
    """`--forces` in words: what every admissible distribution has in common (the bounds: which contacts must carry
    the build, determinate or not), the friction the build needs, then the minimum-norm distribution as one
    example."""
    if not doc["stands"]:
        lines = ["forces: none: no distribution of contact forces holds this build up (it falls)"]
        line = friction_line(doc.get("least_mu"), doc["mu"], False)
        return lines + ([f"  {line}"] if line else [])
    contacts = doc["contacts"]
    lines = [f"forces: {_count(len(contacts), 'contact')} carr{'ies' if len(contacts) == 1 else 'y'} "
             f"{_n(doc['weight_n'])}"]
    bounded = [c for c in contacts if "bounds" in c]
    if bounded:
        lines.append(f"  in every distribution that balances all blocks (compression only, friction within "
                     f"mu = {doc['mu']}):")
        for kind in ("determinate", "must-carry", "may-carry-nothing"):
            count = sum(1 for c in bounded if c["bounds"]["carries"] == kind)
            if count:
                lines.append(f"    {count} {CARRIES[kind] if count > 1 else CARRIES_ONE[kind]}")
        must = sorted((c for c in bounded if c["bounds"]["carries"] != "may-carry-nothing"),
                      key=lambda c: -c["bounds"]["normal_n"][0])[:SHOWN]
        if must:
            lines.append("  must carry the most (least normal force, and the most it may carry):")
            for c in must:
                lo, hi = c["bounds"]["normal_n"]
                span = f"exactly {_n(lo)}" if c["bounds"]["carries"] == "determinate" else \
                    f"at least {_n(lo)}, at most {_n(hi)}"
                lines.append(f"    {_between(c)}: {span}")
        line = friction_line(doc.get("least_mu"), doc["mu"], True, any(c["friction_use"] > 0.005 for c in contacts))
        if line:
            lines.append(f"  {line}")
        critical = [c for c in bounded if c["bounds"]["friction_critical"]]
        if critical:
            lines.append(f"  friction-critical (every distribution uses {100 * doc['friction_critical_at']:.0f} % or "
                         "more of the friction there):")
            lines += [f"    {_between(c, lower_first=False)}" for c in critical[:SHOWN]]
        elif doc.get("least_mu") is not None:
            lines.append(f"  friction-critical: none (no contact needs {100 * doc['friction_critical_at']:.0f} % of "
                         "its friction in every distribution)")
        lines.append("  one example, the minimum-norm distribution (one of many; the bounds above hold for all):")
    else:
        lines.append("  the minimum-norm distribution (one of many possible where blocks rest on several supports):")
    lines.append("    most loaded:")
    for c in sorted(contacts, key=lambda c: -c["normal_n"])[:SHOWN]:
        lines.append(f"      {_carries(c)} with {_n(c['normal_n'])}, "
                     f"{c['edge_distance_m'] * 1000:.1f} mm from the contact's edge")
    used = sorted((c for c in contacts if c["normal_n"] > 0 and c["friction_use"] > 0.005),
                  key=lambda c: -c["friction_use"])[:SHOWN]
    if used:
        need = (doc.get("least_mu") or {}).get("least_mu")
        needs = "" if need is None else "; the build needs none" if need == 0 else \
            f"; the build needs only mu >= {need:.2f}"
        lines.append(f"    most friction used (of what mu = {doc['mu']} allows): this distribution's own choice{needs}")
        for c in used:
            lines.append(f"      {_between(c, lower_first=False)}: {_n(c['friction_n'])} of friction under "
                         f"{_n(c['normal_n'])}, {100 * c['friction_use']:.0f} %")
    else:
        lines.append("    no friction used: every block is held by normal forces alone")
    return lines


def removal_lines(doc: dict[str, Any], hanging: Callable[[str, list[str]], bool] | None = None) -> list[str]:
    """`--removal-map` in words: safe blocks, risky ones, the ones that bring others down, with counts.
    `hanging(removed, ids)`: whether, once `removed` is gone, no face of another block is under the blocks `ids`
    (then only side-face friction and zero-area edge contacts can hold them, which the statics model leaves out:
    said so where PyBullet holds them up)."""
    blocks = {e["block"]: e for e in doc["blocks"]}
    classes = doc["classes"]
    judges = "statics" if doc["dynamics"] == "none" else "statics, PyBullet where statics sees a fall or < 1 deg"
    lines = [f"removal map ({judges}; {doc['ms']:.0f} ms):"]
    safe = classes["safe"]
    lines.append(f"  safe to take ({len(safe)}): " + (", ".join(safe) if safe else "none"))
    risky = classes["risky"]
    lines.append(f"  risky ({len(risky)})" + (":" if risky else ": none"))
    for b in risky:
        e = blocks[b]
        dyn = e.get("dynamics")
        if e["tilt_margin_deg"] >= 0 and (dyn is None or not dyn["collapsed"]):
            why = f"stands with only {e['tilt_margin_deg']:.1f} deg of tilt to spare"
        elif e["tilt_margin_deg"] >= 0:
            why = "the judges disagree: statics finds it standing, PyBullet sees " + _list(dyn["moved"]) + " move"
        elif e["falls"] and hanging is not None and hanging(b, e["falls"]):
            them = "it" if len(e["falls"]) == 1 else "them"
            why = (f"the judges disagree: nothing is left under {_list(e['falls'])}; PyBullet holds {them} up by "
                   "side faces and edges alone (friction, edge-on-edge contacts), which the statics judge does not "
                   "count")
        else:
            falls = e["falls"] or ["the build"]
            why = (f"the judges disagree: statics sees {_list(falls)} fall, PyBullet sees "
                   f"{'it' if len(falls) == 1 else 'them'} stay up")
        lines.append(f"    {b}: {why}")
    down = classes["brings-down"]
    lines.append(f"  brings others down ({len(down)})" + (":" if down else ": none"))
    for b in down:
        falls = blocks[b]["falls"]
        lines.append(f"    {b}: " + (_list(falls) + (" falls" if len(falls) == 1 else " fall") if falls
                                     else "the build falls"))
    return lines


def push_lines(results: list[dict[str, Any]], blocks: int | None = None) -> list[str]:
    """`--push` in words: per direction the force, and what happens. `blocks`: how many the build has (then a
    push that moves nearly all of them is said to move the whole build)."""
    if not results:
        return []
    lines = [f"push test on {results[0]['block']} (horizontal, at the middle of the face pushed):"]
    for r in results:
        where = PUSH_WORDS.get(r["direction"], r["direction"])
        if r["mode"] == "falls":
            lines.append(f"  {where}: 0 N: the build falls without a push")
            continue
        if r["mode"] == "holds":
            lines.append(f"  {where}: holds beyond {r['force_n']:.1f} N")
            continue
        movers = r["moves_first"]
        verb = "slide" if r["mode"] == "slide" else "tip"
        s = "s" if len(movers) == 1 else ""
        weight = f"  {where}: {r['force_n']:.3f} N (the weight of {r['force_n'] / 9.81 * 1000:.0f} g)"
        if blocks is not None and len(movers) >= WHOLE_BUILD * blocks:
            lines.append(f"{weight}: the whole build {verb}s on the table ({len(movers)} of {blocks} blocks)")
        else:
            lines.append(f"{weight}: {_list(movers, 6)} {verb}{s} first")
    return lines
