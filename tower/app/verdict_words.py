"""A stability verdict in words, as `tower check` prints it and the lab shows it: how a build falls, why a
MARGINAL is one, each judge's answer."""

from __future__ import annotations

import math
from typing import Any

from viewer.physics_words import direction_words, fall_words, names, tilt_words

__all__ = ["direction_words", "fall_line", "lean", "rerun_lines", "verdict_lines"]

#: A fall direction shorter than this (grid units) is no direction: the weight sits over its support.
MIN_LEAN = 0.25


def lean(build, ids: list[str]) -> tuple[float, float] | None:
    """Which way the blocks `ids` lean off what holds them up: from the middle of the cells they stand on to their
    centre of mass, seen from above. (0, 0) when nothing is under them at all; None without such blocks."""
    mine = [b for b in build.blocks if b.id in ids]
    if not mine:
        return None
    others = [b for b in build.blocks if b.id not in ids]
    weight = sum(math.prod(b.size) for b in mine)
    com = [sum((b.origin[k] + b.size[k] / 2) * math.prod(b.size) for b in mine) / weight for k in (0, 1)]
    held = []
    for b in mine:
        z = b.origin[2]
        for x in range(b.origin[0], b.origin[0] + b.size[0]):
            for y in range(b.origin[1], b.origin[1] + b.size[1]):
                if z == 0 or any(o.top == z and o.origin[0] <= x < o.origin[0] + o.size[0]
                                 and o.origin[1] <= y < o.origin[1] + o.size[1] for o in others):
                    held.append((x + 0.5, y + 0.5))
    if not held:
        return (0.0, 0.0)
    return (com[0] - sum(c[0] for c in held) / len(held), com[1] - sum(c[1] for c in held) / len(held))


def fall_line(statics: dict[str, Any], build) -> str:
    """How a falling build starts to fall, from the statics judge's `failure` (which blocks move, how and where
    each group goes; viewer.physics_words), or from its `mechanism` and the build's shape where there is none."""
    tail = "; no tilt of the table would hold it" if not any(statics.get("weakest_direction") or ()) else ""
    failure = statics.get("failure") or {}
    if failure.get("blocks"):
        ids = [m["block"] for m in failure["blocks"]]
        if failure["mode"] == "drop" and build is not None and \
                lean(build, [i for i in ids if not i.startswith("figure-")]) == (0.0, 0.0):
            return f"falls: nothing holds up {names(ids)}: {'it drops' if len(ids) == 1 else 'they drop'}"
        return f"falls: {fall_words(failure)}{tail}"
    mechanism = statics.get("mechanism") or []
    who = names(mechanism) if mechanism else "the build"
    s = "s" if len(mechanism) == 1 else ""
    if tail == "":
        return f"falls: {who} tip{s} over toward {direction_words(*statics['weakest_direction'])}"
    way = lean(build, [i for i in mechanism if not i.startswith("figure-")]) if build is not None else None
    if way == (0.0, 0.0):
        return f"falls: nothing holds up {who}: {'it drops' if len(mechanism) == 1 else 'they drop'}"
    if way is not None and math.hypot(*way) >= MIN_LEAN:
        return f"falls: {who} tip{s} over toward {direction_words(*way)}{tail}"
    return f"falls: {who}{tail}"


def verdict_lines(st: dict[str, Any], build) -> list[str]:
    """The stability part of `tower check`'s text: the verdict, why a MARGINAL is one, each judge's answer."""
    s, d = st["statics"], st.get("dynamics")
    sim = {"mujoco": "MuJoCo"}.get((d or {}).get("engine"), "PyBullet")
    lines = [f"stability: {st['verdict'].upper()}"]
    margin = s["tilt_margin_deg"]
    toward = direction_words(*s["weakest_direction"]) if any(s["weakest_direction"]) else ""
    if st["verdict"] == "marginal":
        if (s.get("friction") or {}).get("verdict") == "marginal":
            lines.append("  marginal: it needs nearly all the friction it has, and neither friction model decides")
        elif s["stable"] and (d is None or not d["collapsed"]):
            does = tilt_words(s, third_person=True)
            lines.append(f"  marginal: it stands, but a table tilted by only {margin:.1f} deg {does} toward "
                         f"{toward} (stable needs at least 1 deg)")
        elif s["stable"]:
            lines.append(f"  marginal: the judges disagree: the statics LP finds it standing, the {sim} "
                         "simulation sees it move")
        else:
            lines.append("  marginal: the judges disagree: the statics LP finds no way for it to stand, yet it stayed up in "
                         f"the {sim} simulation")
    friction = s.get("friction") or {}
    if friction.get("verdict") == "marginal":
        lines.append(f"  statics  (LP):       undecided: the {friction['inner']['model']} does not hold it at mu "
                     f"{friction['mu']:g}, the {friction['outer']['model']} does, {s['ms']:.0f} ms")
    elif s["stable"]:
        lines.append(f"  statics  (LP):       stands; a table tilted by {margin:.1f} deg would {tilt_words(s)} toward "
                     f"{toward}, {s['ms']:.0f} ms")
        if friction.get("verdict") == "stands":
            lines.append(f"{'':<23}held by the {friction['inner']['model']} (the 4-sided ones do not hold it)")
    else:
        lines.append(f"  statics  (LP):       {fall_line(s, build)}, {s['ms']:.0f} ms")
    if d:
        moved = names(d["moved"])
        state = (f"collapses: {moved} moved" if d["collapsed"] else "stands") + \
            f" (at most {d['max_displacement_mm']:.1f} mm, {d['max_rotation_deg']:.1f} deg)"
        label = f"dynamics ({sim}):"
        lines.append(f"  {label:<21}{state} in {d['simulated_s']:.2f} s simulated, {d['ms']:.0f} ms")
        lines.extend(rerun_lines(d.get("settings") or {}))
    return lines


def rerun_lines(settings: dict[str, Any]) -> list[str]:
    """Why and how PyBullet's answer comes from a re-run at half the time step (physics.verdict), if it does."""
    if not settings.get("recheck"):
        return []
    first = settings["first_run"]
    line = (f"{'':<23}re-run at 1/{1 / settings['time_step_s']:.0f} s ({settings['recheck']} at "
            f"1/{1 / first['time_step_s']:.0f} s, where it {'moved' if first['collapsed'] else 'stood'})")
    held = settings.get("fixed_boxes")
    return [line + (f"; {held} blocks far from the fall fixed in place for it" if held else "")]
