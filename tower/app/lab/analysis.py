"""What the lab shows about one build after each edit: the legality problems, the statics verdict and tilt margin
with the weakest direction, all as JSON and in words (for screen readers and tests).

The physics is handed in (`physics`: an object with `judge_build(build, statics_only)` and `fall(build,
seconds)`, as `tower.app.stability` is), so this module imports no judge itself. The verdict is the statics
judge's, exactly what `tower check --statics-only` says of the same build; the PyBullet judge runs when the user
drops the build (`drop`), and with it the verdict is `tower check`'s.
"""

from __future__ import annotations

import math
from typing import Any

from tower.app.verdict_words import fall_line
from tower.climbers.build import Build
from tower.climbers.legality import Violation, is_legal
from viewer.physics_words import direction_words, tilt_words

#: Frames per second of a drop's trajectory sent to the page (the page interpolates between them).
DROP_FPS = 15
DROP_SECONDS = 2.0


def verdict_words(stability: dict[str, Any] | None, build: Build) -> list[str]:
    """The verdict as a person reads it: stands or falls, the tilt margin and which way it is weakest."""
    if stability is None:
        return ["stability: the table is empty" if not build.blocks else "stability: not available"]
    s = stability["statics"]
    if s["stable"]:
        dx, dy = s["weakest_direction"]
        toward = f" toward {direction_words(dx, dy)}" if math.hypot(dx, dy) > 0 else ""
        return [f"stability: {stability['verdict'].upper()}: it stands; a table tilted by "
                f"{s['tilt_margin_deg']:.1f} deg would {tilt_words(s)}{toward}"]
    return [f"stability: {stability['verdict'].upper()}: {fall_line(s, build)}"]


def problem_words(violations: list[Violation], rules: str) -> list[str]:
    if rules == "free":
        head = "free building: the game's build rules are not checked"
        return [head] + [f"  {v.rule}: {v.message}" for v in violations[:6]]
    if not violations:
        return ["legal: no rule broken"]
    errors = [v for v in violations if v.level == "error"]
    warnings = [v for v in violations if v.level != "error"]
    # a warning (more blocks than the box holds) is said as one, never counted as a problem
    noted = f"{len(warnings)} warning{'s' if len(warnings) != 1 else ''}"
    problems = f"{len(errors)} problem{'' if len(errors) == 1 else 's'}"
    out = [f"ILLEGAL: {problems}" + (f", {noted}" if warnings else "") if errors
           else f"legal ({noted})"]
    out += [f"  {v.rule}: {v.message}" for v in errors[:6]]
    out += [f"  warning: {v.rule}: {v.message}" for v in warnings[:2]]
    if len(errors) > 6:
        out.append(f"  ... {len(errors) - 6} more")
    return out


def judge(build: Build, physics: Any) -> dict[str, Any] | None:
    """The statics verdict (`physics.Verdict.to_json(detail=True)`), None for an empty table or without physics."""
    if physics is None or not build.blocks:
        return None
    return physics.judge_build(build, statics_only=True).to_json(detail=True)


def analyse(build: Build, violations: list[Violation], rules: str, stability: dict[str, Any] | None) -> dict[str, Any]:
    """Everything the lab shows after an edit, as JSON: `legal`, `violations`, `stability` (`judge`'s answer),
    `words`."""
    words = [f"{len(build.blocks)} blocks, {len(build.figures)} figures, {len(build.stones)} stones"]
    words += problem_words(violations, rules)
    words += verdict_words(stability, build)
    return {"legal": is_legal(violations), "violations": [v.to_json() for v in violations],
            "stability": stability, "words": words}


def drop(build: Build, physics: Any, unit_m: float, seconds: float = DROP_SECONDS) -> dict[str, Any]:
    """PyBullet's run of the build: frames of every block's pose in grid units ({"t", "poses": {id: [centre,
    quaternion xyzw]}}), at DROP_FPS, the blocks that moved, and the combined verdict of both judges (what
    `tower check` says)."""
    result = physics.fall(build, seconds=seconds)
    frames = result.trajectory or []
    step = max(1, round(len(frames) / max(frames[-1]["t"], 1e-9) / DROP_FPS)) if len(frames) > 1 else 1
    kept = frames[::step]
    if frames and kept[-1] is not frames[-1]:
        kept.append(frames[-1])
    out = [{"t": round(f["t"], 4),
            "poses": {k: [[round(c / unit_m, 4) for c in p[0]], [round(q, 5) for q in p[1]]]
                      for k, p in f["poses"].items() if not k.startswith("figure-")}} for f in kept]
    verdict = physics.judge_build(build).to_json()
    moved = [m for m in result.moved if not m.startswith("figure-")]
    words = (f"dropped: {', '.join(moved[:8])}{' and more' if len(moved) > 8 else ''} moved" if moved
             else "dropped: nothing moved") + f"; tower check says {verdict['verdict'].upper()}"
    return {"frames": out, "moved": moved, "collapsed": result.collapsed, "stability": verdict, "words": words}
