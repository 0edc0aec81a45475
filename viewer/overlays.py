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

from viewer.scene import Scene, SceneArrow, SceneLabel, SceneLegendEntry

#: One grid unit in metres (the build format's 2 cm grid).
METRES_PER_UNIT = 0.02
#: The longest force arrow, in grid units (the largest contact force of the build is drawn this long).
FORCE_ARROW_MAX = 3.0
#: Force arrows shorter than this (grid units) are left out: they would be dots hiding the picture.
FORCE_ARROW_MIN = 0.12
#: Friction-critical contacts are drawn at least this long (grid units), whatever their force.
CRITICAL_MIN = 0.9
#: Blocks are drawn this opaque under the force overlay, so arrows inside the tower show through.
FORCE_BLOCK_OPACITY = 0.6
#: Friction use from which a contact is drawn in the warning colour (physics.forces.FRICTION_CRITICAL).
CRITICAL_USE = 0.8
#: Shares of the most loaded block's load (the weight it carries from above) from which a block is shaded heavy /
#: medium: relative to the build's own carriers, so a wide tower (where no block carries a quarter of the weight)
#: still shows its main load paths.
LOAD_HEAVY, LOAD_MEDIUM = 0.5, 0.2
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
    """Each contact's resultant force as an arrow through its point of application, pointing the way it pushes
    the upper (or pushed) block, length proportional to the force; friction-critical contacts in the warning
    colour. A scale arrow of a round number of newtons stands in front of the build; blocks go translucent."""
    if not forces.get("stands"):
        legend = [SceneLegendEntry("brings-down", "forces: none hold this build up (it falls)")]
        return replace(scene, legend=scene.legend + legend)
    contacts = forces["contacts"]
    biggest = max((math.hypot(*c["force"]) for c in contacts), default=0.0)
    if biggest <= 0:
        return scene
    per_newton = FORCE_ARROW_MAX / biggest  # grid units per newton
    arrows = []
    for c in contacts:
        f = c["force"]
        size = math.hypot(*f) * per_newton
        critical = c["friction_use"] >= CRITICAL_USE and c["normal_n"] > 0
        if critical:  # however small, a contact about to slip must be seen
            size = max(size, CRITICAL_MIN)
        elif size < FORCE_ARROW_MIN:
            continue
        p = _grid(c["point"])
        u = [v / math.hypot(*f) for v in f]
        half = size / 2
        # centred on the contact point: half the arrow in each block, so neither hides it completely
        tail = (p[0] - u[0] * half, p[1] - u[1] * half, p[2] - u[2] * half)
        head = (p[0] + u[0] * half, p[1] + u[1] * half, p[2] + u[2] * half)
        arrows.append(SceneArrow(tail, head, "force-critical" if critical else "force", "force",
                                 0.05 + 0.08 * math.sqrt(size / FORCE_ARROW_MAX)))
    step = nice_step(biggest)
    bx = scene.bounds()
    x0, y0 = bx[0], bx[2] - 2.5
    scale_len = step * per_newton
    arrows.append(SceneArrow((x0, y0, 0.05), (x0 + scale_len, y0, 0.05), "force", "scale",
                             0.05 + 0.08 * math.sqrt(scale_len / FORCE_ARROW_MAX)))
    label = SceneLabel((x0 + scale_len / 2, y0 - 0.8, 0.05), f"{step:g} N")
    n_crit = sum(1 for c in contacts if c["friction_use"] >= CRITICAL_USE and c["normal_n"] > 0)
    legend = [SceneLegendEntry("force", f"contact forces (minimum-norm): the arrow in front is {step:g} N; "
                                        f"largest {biggest:.2f} N"),
              SceneLegendEntry("force-critical", f"friction >= {CRITICAL_USE:.0%} used: slips first ({n_crit})")]
    # blocks shaded by the weight from above they carry: who holds the tower up
    carried: dict[str, float] = {}
    for c in contacts:
        if c["a"] != "table" and c["normal"][2] > 0.5:
            carried[c["a"]] = carried.get(c["a"], 0.0) + c["normal_n"]
    weight = forces["weight_n"]
    most = max(carried.values(), default=0.0)
    bins = ((LOAD_HEAVY, "load-heavy"), (LOAD_MEDIUM, "load-medium"), (0.0, "load-light"))

    def shade(block_id: str) -> str:
        load = carried.get(block_id, 0.0)
        if load <= 1e-9 * weight:
            return "load-none"
        return next(name for share, name in bins if load >= share * most)

    blocks = [replace(b, tint=shade(b.id)) for b in scene.blocks]
    legend += [SceneLegendEntry("load-heavy", f"carries >= {LOAD_HEAVY:.0%} of the most any block carries "
                                              f"({most:.2f} N = {most / weight:.0%} of the weight)"),
               SceneLegendEntry("load-medium", f"carries {LOAD_MEDIUM:.0%}-{LOAD_HEAVY:.0%} of that"),
               SceneLegendEntry("load-light", f"carries < {LOAD_MEDIUM:.0%} of that; white: nothing rests on it")]
    return replace(scene, blocks=blocks, arrows=scene.arrows + arrows, labels=scene.labels + [label],
                   legend=scene.legend + legend, block_opacity=min(scene.block_opacity, FORCE_BLOCK_OPACITY))


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


def with_weakest_tilt(scene: Scene, statics: dict[str, Any]) -> Scene:
    """An arrow on the table from under the build's middle toward where a tilted table would tip it first."""
    dx, dy = statics.get("weakest_direction") or (0.0, 0.0)
    if not statics.get("stable") or math.hypot(dx, dy) < 0.5:
        return scene
    bx = scene.bounds()
    cx, cy = (bx[0] + bx[1]) / 2, (bx[2] + bx[3]) / 2
    reach = max(bx[1] - bx[0], bx[3] - bx[2]) / 2 + 2.5
    n = math.hypot(dx, dy)
    tail = (cx + dx / n * (reach - 2.0), cy + dy / n * (reach - 2.0), 0.05)
    head = (cx + dx / n * reach, cy + dy / n * reach, 0.05)
    margin = statics["tilt_margin_deg"]
    return replace(scene, arrows=scene.arrows + [SceneArrow(tail, head, "tilt", "tilt", 0.18)],
                   legend=scene.legend + [SceneLegendEntry("tilt", f"weakest way: a table tilted {margin:.1f} deg "
                                                                   "this way tips it")])


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
