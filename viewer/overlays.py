"""Physics overlays on a scene: contact forces, the removal map, the weakest tilt direction, push arrows.

Pure functions: each takes a `Scene` and the JSON form of a physics answer (`ContactForces.to_json()`,
`RemovalMap.to_json()`, the statics verdict, `PushResult.to_json()`), and returns the scene with arrows, block
tints and legend entries added. Nothing is judged here; the application hands the answers over. The physics
works in metres, the scene in grid units (METRES_PER_UNIT).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from viewer.physics_words import fall_summary, tilt_words
from viewer.scene import Scene, SceneArrow, SceneLabel, SceneLegendEntry

#: One grid unit in metres (the build format's 2 cm grid).
METRES_PER_UNIT = 0.02
#: The longest force arrow, in grid units (the largest contact force of the build is drawn this long).
FORCE_ARROW_MAX = 3.0
#: Force arrows shorter than this (grid units) are left out: they would be dots hiding the picture.
FORCE_ARROW_MIN = 0.12
#: Friction-critical contacts (physics.friction_need) are drawn at least this long (grid units), whatever their force.
CRITICAL_MIN = 0.9
#: Blocks are drawn this opaque under the force overlay, so arrows inside the tower show through.
FORCE_BLOCK_OPACITY = 0.4
#: The minimum-norm example's arrows are this thin (grid units), drawn this far aside of their point of
#: application (+x, or +z on side contacts) so that the bounds' arrows do not hide them.
EXAMPLE_RADIUS, EXAMPLE_ASIDE = 0.035, 0.3
#: What a contact may carry beyond what it must: a thin shaft (grid units) around which the certain part is thick.
POSSIBLE_RADIUS = 0.04
#: Shares of the build's weight a block carries from above from which it is shaded heavy / medium / light; below
#: LOAD_FLOOR it stays white. Absolute shares, not shares of the most loaded block: in an interlocked build (a
#: pyramid, a wall in running bond) the load can take many paths and no block *must* carry much; scaled to the
#: largest such load, a few hundredths of a newton (the millimetre inset's leftovers) came out dark and read as the
#: load path (docs/physics.md, "Reading the shading").
LOAD_HEAVY, LOAD_MEDIUM, LOAD_FLOOR = 0.25, 0.10, 0.02
CLASS_TEXT = {"safe": "safe to take", "risky": "risky (marginal)", "brings-down": "brings others down"}


def _grid(p: Sequence[float]) -> tuple[float, float, float]:
    return (p[0] / METRES_PER_UNIT, p[1] / METRES_PER_UNIT, p[2] / METRES_PER_UNIT)


def nice_step(x: float) -> float:
    """The largest of 1, 2, 5 times a power of ten not above x (a round number for a scale arrow)."""
    if x <= 0:
        return 1.0
    e = math.floor(math.log10(x))
    for m in (5, 2, 1):
        if m * 10 ** e <= x:
            return m * 10 ** e
    return 10 ** e


def with_forces(scene: Scene, forces: dict[str, Any]) -> Scene:
    """The contact forces. With their bounds (`ContactForces.to_json()` of `contact_forces(..., bounds=True)`): per
    contact, from the contact's centre into the block it pushes, a dark arrow as long as the force it carries in
    every distribution (the least normal force: what is certain) inside a pale one as long as the most it may
    carry (what is possible); the minimum-norm distribution, one example, as a thin arrow ending at its point of
    application; friction-critical contacts in the warning colour; blocks shaded by the load they must carry from
    above. Without bounds: each contact's minimum-norm resultant, centred on its point of application. A scale
    arrow of a round number of newtons stands in front of the build; blocks go translucent."""
    if not forces.get("stands"):
        legend = [SceneLegendEntry("brings-down", "forces: none hold this build up (it falls)")]
        return replace(scene, legend=scene.legend + legend)
    contacts = forces["contacts"]
    if contacts and all("bounds" in c for c in contacts):
        return _with_bounds(scene, forces)
    biggest = max((math.hypot(*c["force"]) for c in contacts), default=0.0)
    if biggest <= 0:
        return scene
    per_newton = FORCE_ARROW_MAX / biggest  # grid units per newton
    arrows = []
    for c in contacts:
        f = c["force"]
        size = math.hypot(*f) * per_newton
        if size < FORCE_ARROW_MIN:
            continue
        p = _grid(c["point"])
        u = [v / math.hypot(*f) for v in f]
        half = size / 2
        # centred on the contact point: half the arrow in each block, so neither hides it completely
        tail = (p[0] - u[0] * half, p[1] - u[1] * half, p[2] - u[2] * half)
        head = (p[0] + u[0] * half, p[1] + u[1] * half, p[2] + u[2] * half)
        arrows.append(SceneArrow(tail, head, "force", "force", _radius(size)))
    scale, label = _scale_arrow(scene, biggest, per_newton)
    legend = [SceneLegendEntry("force", f"contact forces (minimum-norm, one of many distributions): the arrow in "
                                        f"front is {label.text}; largest {biggest:.2f} N")]
    carried: dict[str, float] = {}
    for c in contacts:
        if c["a"] != "table" and c["normal"][2] > 0.5:
            carried[c["a"]] = carried.get(c["a"], 0.0) + c["normal_n"]
    blocks, shades = _shade(scene, carried, forces["weight_n"], certain=False)
    return replace(scene, blocks=blocks, arrows=scene.arrows + arrows + [scale], labels=scene.labels + [label],
                   legend=scene.legend + legend + shades,
                   block_opacity=min(scene.block_opacity, FORCE_BLOCK_OPACITY))


def _radius(size: float) -> float:
    return 0.05 + 0.08 * math.sqrt(max(size, 0.0) / FORCE_ARROW_MAX)


def _scale_arrow(scene: Scene, biggest: float, per_newton: float) -> tuple[SceneArrow, SceneLabel]:
    """A round number of newtons as an arrow on the table in front of the build, and its label."""
    step = nice_step(biggest)
    bx = scene.bounds()
    x0, y0 = bx[0], bx[2] - 2.5
    scale_len = step * per_newton
    arrow = SceneArrow((x0, y0, 0.05), (x0 + scale_len, y0, 0.05), "force", "scale", _radius(scale_len))
    return arrow, SceneLabel((x0 + scale_len / 2, y0 - 0.8, 0.05), f"{step:g} N")


def _shade(scene: Scene, carried: dict[str, float], weight: float,
           certain: bool) -> tuple[list, list[SceneLegendEntry]]:
    """Blocks tinted by the load from above they carry (`carried`, newtons) as a share of the build's `weight`
    (LOAD_HEAVY, LOAD_MEDIUM, LOAD_FLOOR); `certain`: the loads are what every distribution carries (the least
    normal forces), else one distribution's. The legend names the shades in use and what white means."""
    bins = ((LOAD_HEAVY, "load-heavy", f">= {LOAD_HEAVY:.0%}"),
            (LOAD_MEDIUM, "load-medium", f"{LOAD_MEDIUM:.0%}-{LOAD_HEAVY:.0%}"),
            (LOAD_FLOOR, "load-light", f"{LOAD_FLOOR:.0%}-{LOAD_MEDIUM:.0%}"))

    def shade(block_id: str) -> str:
        share = carried.get(block_id, 0.0) / weight if weight > 0 else 0.0
        return next((name for floor, name, _ in bins if share >= floor), "load-none")

    blocks = [replace(b, tint=shade(b.id)) for b in scene.blocks]
    used = {b.tint for b in blocks}
    verb = "must carry" if certain else "carries"
    whole = f"the weight ({weight:.2f} N)"
    if not used - {"load-none"}:
        text = (f"white: no block must carry {LOAD_FLOOR:.0%} of {whole}: the load can take many paths" if certain
                else f"white: no block carries {LOAD_FLOOR:.0%} of {whole} in this example")
        return blocks, [SceneLegendEntry("load-none", text)]
    legend = []
    for _, name, span in bins:
        if name in used:
            where = "in every distribution" if certain else "in this example"
            legend.append(SceneLegendEntry(name, f"{verb} {span} of it" if legend else
                                           f"{verb} {span} of {whole} from above, {where}"))
    legend.append(SceneLegendEntry("load-none", f"white: under {LOAD_FLOOR:.0%}"
                                                + (": the load can go round it" if certain else "")))
    return blocks, legend


def _centre(rect: Sequence[float]) -> tuple[float, float, float]:
    """The middle of a contact rectangle (x0, x1, y0, y1, z0, z1), grid units."""
    return _grid(((rect[0] + rect[1]) / 2, (rect[2] + rect[3]) / 2, (rect[4] + rect[5]) / 2))


def _with_bounds(scene: Scene, forces: dict[str, Any]) -> Scene:
    """with_forces for contacts carrying their bounds (see there)."""
    contacts = forces["contacts"]
    biggest = max((c["bounds"]["normal_n"][1] for c in contacts), default=0.0)
    biggest = max(biggest, max((math.hypot(*c["force"]) for c in contacts), default=0.0))
    if biggest <= 0:
        return scene
    per_newton = FORCE_ARROW_MAX / biggest
    arrows: list[SceneArrow] = []
    counts = {"determinate": 0, "must-carry": 0, "may-carry-nothing": 0}
    critical = 0
    for c in contacts:
        b = c["bounds"]
        lo, hi = b["normal_n"]
        counts[b["carries"]] += 1
        n = c["normal"]
        p = _centre(c["rect"])
        crit = b["friction_critical"]
        critical += crit
        short, long_ = lo * per_newton, hi * per_newton
        if crit:  # however small, a contact that needs nearly all its friction must be seen
            short, long_ = max(short, CRITICAL_MIN), max(long_, CRITICAL_MIN)
        if long_ >= FORCE_ARROW_MIN and b["carries"] != "determinate":
            arrows.append(SceneArrow(p, _along(p, n, long_), "force-critical" if crit else "force-possible",
                                     "force-possible", POSSIBLE_RADIUS))
        if short >= FORCE_ARROW_MIN:
            arrows.append(SceneArrow(p, _along(p, n, short), "force-critical" if crit else "force",
                                     "force-certain", _radius(short)))
        f = c["force"]
        size = math.hypot(*f) * per_newton
        if size >= FORCE_ARROW_MIN:  # the example, from where it acts, a little aside so the bounds do not hide it
            q = _along(_grid(c["point"]), (0.0, 0.0, 1.0) if n[2] < 0.5 else (1.0, 0.0, 0.0), EXAMPLE_ASIDE)
            arrows.append(SceneArrow(q, _along(q, f, size), "force-example", "force-example", EXAMPLE_RADIUS))
    scale, label = _scale_arrow(scene, biggest, per_newton)
    legend = [SceneLegendEntry("force", f"thick: carried in every distribution (the least normal force): "
                                        f"{counts['determinate']} determinate, {counts['must-carry']} must carry; "
                                        f"the arrow in front is {label.text}"),
              SceneLegendEntry("force-possible", f"thin: the most it may carry ({counts['may-carry-nothing']} may "
                                                 "carry nothing at all)"),
              SceneLegendEntry("force-example", "one example: the minimum-norm distribution (its resultants)")]
    least = (forces.get("least_mu") or {}).get("least_mu")
    if critical or least:
        need = "" if least is None else f"; it stands with any friction coefficient from {least:.2f}"
        legend.append(SceneLegendEntry("force-critical", f"friction-critical: needs >= "
                                                         f"{forces['friction_critical_at']:.0%} of its friction in "
                                                         f"every distribution ({critical}){need}"))
    carried: dict[str, float] = {}
    for c in contacts:
        if c["a"] != "table" and c["normal"][2] > 0.5:
            carried[c["a"]] = carried.get(c["a"], 0.0) + c["bounds"]["normal_n"][0]
    blocks, shades = _shade(scene, carried, forces["weight_n"], certain=True)
    return replace(scene, blocks=blocks, arrows=scene.arrows + arrows + [scale], labels=scene.labels + [label],
                   legend=scene.legend + legend + shades,
                   block_opacity=min(scene.block_opacity, FORCE_BLOCK_OPACITY))


def _along(p: Sequence[float], direction: Sequence[float], length: float) -> tuple[float, float, float]:
    """The point `length` grid units from p along `direction`."""
    d = math.sqrt(sum(v * v for v in direction)) or 1.0
    return (p[0] + direction[0] / d * length, p[1] + direction[1] / d * length, p[2] + direction[2] / d * length)


def with_removal_map(scene: Scene, removal: dict[str, Any]) -> Scene:
    """Every block tinted by what its removal does: safe / risky / brings others down; a legend with counts."""
    klass = {e["block"]: e["class"] for e in removal["blocks"]}
    blocks = [replace(b, tint=klass.get(b.id, "neutral")) for b in scene.blocks]
    counts = {k: len(v) for k, v in removal["classes"].items()}
    judges = ("statics judge only; tower check adds PyBullet" if removal.get("dynamics") == "none"
              else "statics, PyBullet where in doubt")
    legend = [SceneLegendEntry(k, f"{CLASS_TEXT[k]} ({counts.get(k, 0)})") for k in ("safe", "risky", "brings-down")]
    legend[0] = SceneLegendEntry("safe", f"{legend[0].text}; without each block ({judges})")
    return replace(scene, blocks=blocks, legend=scene.legend + legend)


#: The weakest-direction arrow: a fifth of the build's width, within these lengths (grid units), this high over
#: the top of the build.
TILT_ARROW_SHORTEST, TILT_ARROW_LONGEST, TILT_ARROW_RISE = 2.5, 6.0, 1.2


def with_weakest_tilt(scene: Scene, statics: dict[str, Any]) -> Scene:
    """An arrow over the build's middle, a little above its top, pointing where a tilted table would tip it (or
    make it slide) first. Above the build rather than on the table: on the table, an arrow toward the back lay
    behind a wall, hidden from the usual front view."""
    dx, dy = statics.get("weakest_direction") or (0.0, 0.0)
    if not statics.get("stable") or math.hypot(dx, dy) < 0.5:
        return scene
    bx = scene.bounds()
    cx, cy = (bx[0] + bx[1]) / 2, (bx[2] + bx[3]) / 2
    z = max((b.origin[2] + b.size[2] for b in scene.blocks), default=bx[5]) + TILT_ARROW_RISE
    length = min(max(0.2 * max(bx[1] - bx[0], bx[3] - bx[2]), TILT_ARROW_SHORTEST), TILT_ARROW_LONGEST)
    n, half = math.hypot(dx, dy), length / 2
    tail = (cx - dx / n * half, cy - dy / n * half, z)
    head = (cx + dx / n * half, cy + dy / n * half, z)
    margin = statics["tilt_margin_deg"]
    does = tilt_words(statics, third_person=True).rstrip(",")
    return replace(scene, arrows=scene.arrows + [SceneArrow(tail, head, "tilt", "tilt", 0.115 * length ** 0.5)],
                   legend=scene.legend + [SceneLegendEntry("tilt", f"weakest way (the arrow over the build): a "
                                                                   f"table tilted {margin:.1f} deg this way {does}")])


#: A falling build's motion: the fastest block's arrow is this long (grid units), rotation axes this long.
MOTION_ARROW_MAX, AXIS_LENGTH = 2.5, 3.0
#: Moving blocks slower than this share of the fastest get no arrow (they still show tinted); blocks go this
#: opaque, so the arrows from their centres show inside them.
MOTION_MIN, MOTION_BLOCK_OPACITY = 0.01, 0.75
#: Arrow lengths go with the square root of the speed, and are at least this share of the longest.
MOTION_SHORTEST = 0.45


def with_failure(scene: Scene, statics: dict[str, Any]) -> Scene:
    """How a falling build starts to fall (the statics verdict's `failure`, physics.failure): the moving blocks
    tinted, from each one's centre an arrow the way its centre starts to move (the fastest longest), and through a
    block that turns its rotation axis (right-hand rule: with the thumb along the arrow the fingers curl the way it
    turns). Nothing for a standing build (its weakest tilt is with_weakest_tilt's)."""
    failure = statics.get("failure")
    if statics.get("stable") or not failure or not failure.get("blocks"):
        return scene
    moving = {m["block"]: m for m in failure["blocks"]}
    arrows = []
    for b in scene.blocks:
        m = moving.get(b.id)
        if m is None:
            continue
        c = tuple(o + s / 2 for o, s in zip(b.origin, b.size, strict=True))
        v = m["velocity"]
        speed = math.sqrt(sum(x * x for x in v))
        if speed >= MOTION_MIN:  # slow movers still get an arrow long enough to leave their block
            length = MOTION_ARROW_MAX * max(math.sqrt(speed), MOTION_SHORTEST)
            arrows.append(SceneArrow(c, _along(c, v, length), "motion", "motion", 0.12))
        w = m["spin_rad_per_m"]
        if m["axis_point"] is not None and any(w):
            p = _grid(m["axis_point"])
            arrows.append(SceneArrow(_along(p, w, -AXIS_LENGTH / 2), _along(p, w, AXIS_LENGTH / 2), "motion-axis",
                                     "motion-axis", 0.07))
    blocks = [replace(b, tint="moving") if b.id in moving else b for b in scene.blocks]
    legend = [SceneLegendEntry("moving", f"falls: {fall_summary(failure)}"),
              SceneLegendEntry("motion", "how each starts to move (its centre; the faster, the longer)")]
    if any(a.kind == "motion-axis" for a in arrows):
        legend.append(SceneLegendEntry("motion-axis", "the axis it turns about (right-hand rule)"))
    return replace(scene, blocks=blocks, arrows=scene.arrows + arrows, legend=scene.legend + legend,
                   block_opacity=min(scene.block_opacity, MOTION_BLOCK_OPACITY))


def with_pushes(scene: Scene, pushes: Sequence[dict[str, Any]]) -> Scene:
    """An arrow pointing at the pushed face's centre per push direction, labelled with the force."""
    arrows, labels = list(scene.arrows), list(scene.labels)
    for r in pushes:
        if r["mode"] in ("falls",):
            continue
        p = _grid(r["point"])
        vx, vy = r["vector"]
        tail = (p[0] - 2.0 * vx, p[1] - 2.0 * vy, p[2])
        arrows.append(SceneArrow(tail, p, "push", "push", 0.14))
        labels.append(SceneLabel((p[0] - 2.6 * vx, p[1] - 2.6 * vy, p[2] + 0.4),
                                 f"{r['force_n']:.2f} N {r['mode']}"))
    legend = [SceneLegendEntry("push", "push test: smallest force at the face centre that fails the build")] \
        if pushes else []
    return replace(scene, arrows=arrows, labels=labels, legend=scene.legend + legend)
