"""Pure scene arithmetic for the play window: a move's 3D preview and the in-between frames of a move.

Both compare two scenes of the same game: the position now and the position the game itself produced (the
preview applies the move to a copy of the state; the animation runs after the game applied it). Nothing here
decides what is legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from viewer.scene import Scene, SceneBlock, SceneFigure, SceneGhost

#: blocks a preview leaves out: the hand (a previewed move must not show the card it would draw) and the piles (the
#: card played would be drawn over the one on top, in the same place)
PRIVATE_PREFIXES = ("hand-", "deck", "discard")
HOP = 1.2  # grid units a piece rises mid-way through its move, so the path reads as a move, not a slide


def figure_keys(figures: Sequence[SceneFigure]) -> list[tuple[str, int]]:
    """A stable name per figure: its colour and how many figures of that colour come before it."""
    seen: dict[str, int] = {}
    keys = []
    for f in figures:
        keys.append((f.colour, seen.get(f.colour, 0)))
        seen[f.colour] = seen.get(f.colour, 0) + 1
    return keys


def _changed_blocks(now: Scene, after: Scene) -> list[SceneBlock]:
    before = {b.id: (b.origin, b.size, b.faces) for b in now.blocks}
    return [b for b in after.blocks if not b.id.startswith(PRIVATE_PREFIXES)
            and before.get(b.id) != (b.origin, b.size, b.faces)]


def preview(now: Scene, after: Scene) -> tuple[list[SceneGhost], list[SceneFigure]]:
    """Ghosts for what a move would change: blocks (cards, spaces) that appear or move, and figures (pawns) at
    their new places. `after` is the scene of the same player after the move."""
    ghosts = [SceneGhost(b.id, b.origin, b.size, b.faces, selected=True) for b in _changed_blocks(now, after)]
    old = dict(zip(figure_keys(now.figures), now.figures, strict=True))
    moved = [f for k, f in zip(figure_keys(after.figures), after.figures, strict=True)
             if k not in old or old[k].cell != f.cell]
    return ghosts, [replace(f, current=False, problem=False) for f in moved]


def with_preview(now: Scene, after: Scene) -> Scene:
    """`now` with the preview of the position `after` drawn into it: ghosts for changed blocks, ghost pawns,
    and a target square under each ghost pawn (where the move takes it)."""
    from viewer.scene import SceneMarker

    ghosts, figures = preview(now, after)
    return replace(now, ghosts=ghosts, ghost_figures=figures,
                   markers=now.markers + [SceneMarker(f.cell, "target") for f in figures])  # type: ignore[misc]


def _lerp(a: Sequence[float], b: Sequence[float], t: float) -> tuple[float, ...]:
    return tuple(x + (y - x) * t for x, y in zip(a, b, strict=True))


def tween(a: Scene, b: Scene, t: float) -> Scene:
    """Scene `b` with every block and figure that also exists in `a` placed a fraction `t` (0..1) of the way
    from where it was in `a`; moving pieces rise a little on the way. Everything else is `b` as it is."""
    if t >= 1:
        return b
    hop = HOP * 4 * t * (1 - t)
    old_blocks = {blk.id: blk for blk in a.blocks}
    blocks = []
    for blk in b.blocks:
        o = old_blocks.get(blk.id)
        if o is None or (o.origin == blk.origin and o.size == blk.size):
            blocks.append(blk)
            continue
        lo = _lerp(o.origin, blk.origin, t)
        hi = _lerp([p + s for p, s in zip(o.origin, o.size, strict=True)],
                   [p + s for p, s in zip(blk.origin, blk.size, strict=True)], t)
        size = tuple(h - low for h, low in zip(hi, lo, strict=True))
        blocks.append(replace(blk, origin=(lo[0], lo[1], lo[2] + hop), size=size))  # type: ignore[arg-type]
    old_figures = dict(zip(figure_keys(a.figures), a.figures, strict=True))
    figures = []
    for k, f in zip(figure_keys(b.figures), b.figures, strict=True):
        o = old_figures.get(k)
        if o is None or o.cell == f.cell:
            figures.append(f)
            continue
        x, y, z = _lerp(o.cell, f.cell, t)
        figures.append(replace(f, cell=(x, y, z + hop)))  # type: ignore[arg-type]
    return replace(b, blocks=blocks, figures=figures)


def tween_frames(a: Scene, b: Scene, steps: int) -> list[Scene]:
    """`steps` scenes from just after `a` up to and including `b` (eased: slow start and end)."""
    out = []
    for k in range(1, steps + 1):
        u = k / steps
        out.append(tween(a, b, u * u * (3 - 2 * u)))
    return out
