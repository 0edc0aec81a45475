"""Aimed block placement: the one controller behind the game page, the lab and the play window.

A chosen block's placements (the game's legal block moves for it, or the lab's) are grouped ONCE by the columns
they cover and by their shape (extents and the colour on top). Pointing then only looks them up: no game, no
server and no physics is asked per mouse move. The browser has the same lookup in `static/js/placement.js`, fed
with `to_json()`; a test checks both give the same answers.

API (grid units throughout, z up, the table top at z = 0):

    ps = BlockPlacements.from_moves(block_id, moves, build, words=state.move_words)
        # moves: the game's legal moves for that block (Climbers block moves: `cell`, `size`, `top`, str(move));
        # build: the position (`tower.climbers.build.Build`); words: a move in words for the list (optional)
    ps = BlockPlacements.resting(block_id, shapes, heights, area, lo, board, figures)  # the lab's free building:
        # each shape at every corner of `area`, resting on the highest column under it; `lo` the table's first
        # column; `figures` the figures' columns; touching=True: only the placements that touch something
    ps.touches(p)             # the placement's footprint covers a block's column or a figure's (`touches`)
    ps.refusal(p, refused, elsewhere)  # the lab's refusals answer for one placement (`LabController.refusals`)
    ps = BlockPlacements(block_id, shapes, placements, heights)      # any other source:
        # shapes: [Shape(size, top, faces)], placements: [Placement(origin, shape index, text, words)],
        # heights: {(x, y): column height without the block}
    ps.explain_with(explainer(state))
        # "why not here": explain(text) -> the rule in words (None if legal) for a probe placement per column
        # near the construction that no placement covers; grouped by text, sent along with `to_json()`
    ps.to_json(), BlockPlacements.from_json(doc)
        # what the page receives once per picked block (static/js/placement.js: BlockPlacements, Aim), and back
    aim = Aim(ps)
    aim.point(hit, normal)    # the pointer meets a block face or the table at `hit`, face normal `normal`
                              # -> the Spot under the pointer: the column in front of that face and its surface
                              # height with the chosen block lifted out; None off the table area
    aim.options               # the placements at that spot: per shape the one nearest the pointer, with its
                              # push variants; empty: nothing legal here
    aim.current               # the placement shown (the ghost) and played by a click; None: nothing here
    aim.cycle(+1 | -1)        # the next/previous shape or face up there (the wheel, R / Shift+R); the choice
                              # sticks while the pointer moves on, wherever that shape is legal
    aim.choose(text)          # aim at a placement picked from the list (or a hint)
    aim.why_not()             # nothing here: the rule in words (or None where there is a placement)
    aim.status()              # one line for the screen: what a click places, how many choices, or why not

A spot: pointing at a top face gives that column; pointing at a side face gives the column in front of it (where
a block set against that face would stand); the table gives the column under the pointer. The surface height is
the column's height without the chosen block, so pointing at the block itself offers the places under it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tower.climbers.blocks import COLOURS

Vec = Sequence[float]
#: Columns around the construction for which "why not here" is worked out (beyond them: `far`).
WHY_MARGIN = 3


@dataclass(frozen=True)
class Shape:
    """One way the block can lie: its extents and the colour on top, and its six face colours (FACES order)."""

    size: tuple[int, int, int]
    top: str
    faces: tuple[str, ...]


@dataclass(frozen=True)
class Placement:
    """One legal placement: where its minimum corner goes, its shape (index into `shapes`), its move text and
    the text in words."""

    origin: tuple[int, int, int]
    shape: int
    text: str
    words: str = ""


@dataclass(frozen=True)
class Spot:
    """The column under the pointer and the surface height there (the chosen block lifted), and the exact
    horizontal point (to centre the block on the pointer)."""

    x: int
    y: int
    z: int
    px: float
    py: float
    nx: int = 0  # the horizontal normal of the face pointed at: a side face when not both 0
    ny: int = 0


def placement_text(block: str, origin: Sequence[int], size: Sequence[int], top: str) -> str:
    """The move text of a placement (The Climbers' block move form, without pushes)."""
    return f"block {block} {origin[0]},{origin[1]},{origin[2]} {size[0]}x{size[1]}x{size[2]} {top}"


Column = tuple[int, int]


def column_heights(blocks: Iterable[Any], without: str | None = None) -> dict[Column, int]:
    """Column -> the top of the highest block over it (`blocks`: with `id`, `footprint_cells()`, `top`), block
    `without` (the one in hand) left out. The page's twin: `columnHeights` in lab.js."""
    heights: dict[Column, int] = {}
    for b in blocks:
        if b.id != without:
            for cell in b.footprint_cells():
                heights[cell] = max(heights.get(cell, 0), b.top)
    return heights


def touches(origin: Sequence[int], size: Sequence[int], heights: Collection[Column],
            figures: Collection[Column]) -> bool:
    """Whether a footprint (corner `origin`, extents `size`) covers a column with a block (a key of `heights`,
    the block in hand left out) or a figure's column. A placement that touches nothing rests on the bare table
    with nothing over or under it, so the rules judge it alike anywhere on the table: the lab's refusals say that
    judgement once for all of them (`elsewhere`). The page's twin: `BlockPlacements.touches` in placement.js."""
    x, y = origin[0], origin[1]
    return any((cx, cy) in heights or (cx, cy) in figures
               for cx in range(x, x + size[0]) for cy in range(y, y + size[1]))


def touching_corners(size: Sequence[int], heights: Collection[Column], figures: Collection[Column],
                     area: Sequence[int]) -> list[Column]:
    """The corners (x, y) in `area` (as `BlockPlacements.resting` has them, in its order) where a footprint of
    `size` touches something (`touches`): found from the occupied columns, so the work is bounded by the build,
    not by the area."""
    x0, y0, x1, y1 = area
    sx, sy = size[0], size[1]
    out = set()
    for cx, cy in {*heights, *figures}:
        for x in range(max(x0, cx - sx + 1), min(x1 - sx, cx) + 1):
            for y in range(max(y0, cy - sy + 1), min(y1 - sy, cy) + 1):
                out.add((x, y))
    return sorted(out)


def alone_corner(size: Sequence[int], heights: Collection[Column], figures: Collection[Column],
                 area: Sequence[int]) -> Column | None:
    """The first corner in `area` (in `resting`'s order) where a footprint of `size` touches nothing (None:
    there is none). Each corner passed over touches something, so the search is bounded by the build too."""
    x0, y0, x1, y1 = area
    for x in range(x0, x1 - size[0] + 1):
        for y in range(y0, y1 - size[1] + 1):
            if not touches((x, y), size, heights, figures):
                return x, y
    return None


@dataclass
class BlockPlacements:
    """The placements of one chosen block, grouped by covered column, plus what "why not" needs."""

    block: str
    shapes: list[Shape]
    placements: list[Placement]
    heights: dict[tuple[int, int], int]  # column -> height with the chosen block lifted out (absent: 0)
    probe: int = 0  # the shape "why not" asks about: the block as it lies now
    board: int = 32  # columns per side of the table area
    why: dict[tuple[int, int], str] = field(default_factory=dict)  # column -> the rule in words
    far: str = ""  # the rule in words for a column beyond `why`
    lo: int = 0  # the table area's first column on both axes (the lab's table reaches below 0)
    free: bool = False  # free placement (the lab, `resting`): every corner rests at one height, see `_free_rows`
    figures: frozenset[Column] = frozenset()  # the figures' columns (the lab's `touches`)
    _by_column: dict[tuple[int, int], list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for i, p in enumerate(self.placements):
            sx, sy, _ = self.shapes[p.shape].size
            x, y, _ = p.origin
            for cx in range(x, x + sx):
                for cy in range(y, y + sy):
                    self._by_column.setdefault((cx, cy), []).append(i)

    # --- making one ----------------------------------------------------------------------------------------
    @classmethod
    def from_moves(cls, block: str, moves: Iterable[Any], build: Any,
                   words: Callable[[Any], str] | None = None, board: int = 32) -> BlockPlacements:
        """From a game's block moves for `block` (`cell`, `size`, `top` colour index, text) and the build."""
        from tower.climbers.blocks import orientations

        me = build.block(block)
        faces = {(tuple(s), c[4]): tuple(COLOURS[k] for k in c) for s, c in orientations(me.size, me.faces)}
        shapes: list[Shape] = []
        index: dict[tuple, int] = {}
        placements = []
        for m in moves:
            if getattr(m, "kind", None) != "block" or m.block != block:
                continue
            key = (tuple(m.size), m.top)
            if key not in index:
                index[key] = len(shapes)
                shapes.append(Shape(key[0], COLOURS[m.top], faces.get(key, (COLOURS[m.top],) * 6)))
            placements.append(Placement(tuple(m.cell), index[key], str(m), words(m) if words else ""))
        probe_key = (tuple(me.size), me.faces[4])
        if probe_key not in index:  # the block as it lies is offered nowhere: still a shape to ask about
            index[probe_key] = len(shapes)
            shapes.append(Shape(probe_key[0], COLOURS[me.faces[4]], tuple(COLOURS[k] for k in me.faces)))
        heights: dict[tuple[int, int], int] = {}
        for b in build.blocks:
            if b.id == block:
                continue
            (x, y, z), (sx, sy, sz) = b.origin, b.size
            for cx in range(x, x + sx):
                for cy in range(y, y + sy):
                    heights[(cx, cy)] = max(heights.get((cx, cy), 0), z + sz)
        return cls(block, shapes, placements, heights, index[probe_key], board)

    @classmethod
    def resting(cls, block: str, shapes: Sequence[Shape], heights: dict[tuple[int, int], int],
                area: Sequence[int], lo: int = 0, board: int = 32, figures: Iterable[Column] = (),
                touching: bool = False) -> BlockPlacements:
        """Free placement (the lab): each shape at every corner of `area` (x0, y0, x1, y1: the columns it may
        cover, half-open), resting on the highest column under its footprint (`heights`: column -> height, the
        block being moved left out); `figures`: the figures' columns. `touching`: only the placements that touch
        something (`touches`). The page builds the same with `BlockPlacements.resting` in placement.js."""
        x0, y0, x1, y1 = area
        figures = frozenset(figures)
        placements = []
        for k, s in enumerate(shapes):
            sx, sy, _ = s.size
            corners = touching_corners(s.size, heights, figures, area) if touching else \
                [(x, y) for x in range(x0, x1 - sx + 1) for y in range(y0, y1 - sy + 1)]
            for x, y in corners:
                z = max(heights.get((cx, cy), 0) for cx in range(x, x + sx) for cy in range(y, y + sy))
                placements.append(Placement((x, y, z), k, placement_text(block, (x, y, z), s.size, s.top)))
        return cls(block, list(shapes), placements, dict(heights), 0, board, lo=lo, free=True, figures=figures)

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> BlockPlacements:
        """Back from `to_json()` (what the page received)."""
        shapes = [Shape(tuple(s["size"]), s["top"], tuple(s["faces"])) for s in doc["shapes"]]  # type: ignore[arg-type]
        placements = [Placement((x, y, z), shape, text, words) for x, y, z, shape, text, words in doc["placements"]]
        out = cls(doc["block"], shapes, placements, {(x, y): h for x, y, h in doc["heights"]}, doc["probe"],
                  doc["board"], far=doc["far"], lo=doc.get("lo", 0),
                  free=doc.get("free", False))
        out.why = {(x, y): w["text"] for w in doc["why"] for x, y in w["columns"]}
        return out

    def probe_at(self, x: int, y: int) -> tuple[tuple[int, int, int], Shape]:
        """The placement "why not" asks about at column (x, y): the block as it lies, centred on the column."""
        shape = self.shapes[self.probe]
        sx, sy, _ = shape.size
        ox, oy = x - (sx - 1) // 2, y - (sy - 1) // 2
        return (ox, oy, self.height(x, y)), shape

    def explain_with(self, explain: Callable[[str], str | None], margin: int = WHY_MARGIN) -> None:
        """Work out "why not here" for every column near the construction that no placement covers at its
        surface: `explain(text)` is the game's refusal of the probe placement in words (None: it is legal)."""
        cols = list(self.heights) or [(self.board // 2, self.board // 2)]
        x0 = max(0, min(c[0] for c in cols) - margin)
        x1 = min(self.board - 1, max(c[0] for c in cols) + margin)
        y0 = max(0, min(c[1] for c in cols) - margin)
        y1 = min(self.board - 1, max(c[1] for c in cols) + margin)
        cache: dict[str, str | None] = {}
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                if self._at_column(x, y):
                    continue
                origin, shape = self.probe_at(x, y)
                text = placement_text(self.block, origin, shape.size, shape.top)
                if text not in cache:
                    cache[text] = explain(text)
                if cache[text]:
                    self.why[(x, y)] = cache[text]  # type: ignore[assignment]
        fx = x1 + 1 if x1 + 1 < self.board else max(0, x0 - 1)
        origin, shape = self.probe_at(fx, y0)
        self.far = explain(placement_text(self.block, origin, shape.size, shape.top)) or ""

    # --- looking up ----------------------------------------------------------------------------------------
    def height(self, x: int, y: int) -> int:
        return self.heights.get((x, y), 0)

    def touches(self, p: Placement) -> bool:
        """Whether the placement's footprint covers a block's column or a figure's (`touches`)."""
        return touches(p.origin, self.shapes[p.shape].size, self.heights, self.figures)

    def refusal(self, p: Placement, refused: dict[str, str], elsewhere: Sequence[str | None]) -> str | None:
        """The lab's refusals answer (`LabController.refusals`) for one placement: "rule: words", None where the
        rules let it go. A placement that touches something is refused only if listed; one that touches
        nothing takes its shape's `elsewhere`."""
        if p.text in refused:
            return refused[p.text]
        return None if self.touches(p) else elsewhere[p.shape]

    def spot(self, hit: Vec, normal: Vec) -> Spot | None:
        """The column in front of the pointed face (the face's own column for a top face) and its surface."""
        x = math.floor(hit[0] + 0.5 * normal[0])
        y = math.floor(hit[1] + 0.5 * normal[1])
        if not (self.lo <= x < self.lo + self.board and self.lo <= y < self.lo + self.board):
            return None
        return Spot(x, y, self.height(x, y), float(hit[0]), float(hit[1]), round(normal[0]), round(normal[1]))

    def _at_column(self, x: int, y: int) -> list[int]:
        """Placements covering column (x, y) at its surface (or, for overhangs, at the lowest height above)."""
        rows = self._by_column.get((x, y), [])
        z = self.height(x, y)
        level = [i for i in rows if self.placements[i].origin[2] == z]
        if level or not rows:
            return level
        above = [self.placements[i].origin[2] for i in rows if self.placements[i].origin[2] > z]
        lowest = min(above, default=None)
        return [i for i in rows if self.placements[i].origin[2] == lowest]

    def _free_rows(self, spot: Spot) -> list[int]:
        """Free placement: every placement covering the column (each rests on the highest column under it, so the
        one nearest the pointer is where the block goes); against a side face only those in front of the face."""
        out = []
        for i in self._by_column.get((spot.x, spot.y), []):
            (ox, oy, _), (sx, sy, _) = self.placements[i].origin, self.shapes[self.placements[i].shape].size
            if (spot.nx > 0 and ox < spot.x) or (spot.nx < 0 and ox + sx > spot.x + 1) or \
                    (spot.ny > 0 and oy < spot.y) or (spot.ny < 0 and oy + sy > spot.y + 1):
                continue
            out.append(i)
        return out

    def options(self, spot: Spot) -> list[int]:
        """The placements offered at `spot`: per shape, the one whose footprint centre is nearest the pointer
        (ties: the smaller corner), then its push variants; shapes in their order."""
        best: dict[int, tuple[float, tuple[int, int, int]]] = {}
        rows = self._free_rows(spot) if self.free else self._at_column(spot.x, spot.y)
        for i in rows:
            p = self.placements[i]
            sx, sy, _ = self.shapes[p.shape].size
            d = (p.origin[0] + sx / 2 - spot.px) ** 2 + (p.origin[1] + sy / 2 - spot.py) ** 2
            key = (d, p.origin)
            if p.shape not in best or key < best[p.shape]:
                best[p.shape] = key
        return [i for i in sorted(rows, key=lambda i: (self.placements[i].shape, i))
                if self.placements[i].origin == best[self.placements[i].shape][1]]

    def why_not(self, spot: Spot | None) -> str:
        if spot is None:
            return "off the table area"
        return self.why.get((spot.x, spot.y), self.far)

    def to_json(self) -> dict[str, Any]:
        """What the page receives once per chosen block (static/js/placement.js reads it)."""
        why: dict[str, list[list[int]]] = {}
        for (x, y), text in sorted(self.why.items()):
            why.setdefault(text, []).append([x, y])
        return {
            "block": self.block,
            "board": self.board,
            "shapes": [{"size": list(s.size), "top": s.top, "faces": list(s.faces)} for s in self.shapes],
            "placements": [[*p.origin, p.shape, p.text, p.words] for p in self.placements],
            "heights": [[x, y, h] for (x, y), h in sorted(self.heights.items())],
            "probe": self.probe,
            "why": [{"text": t, "columns": cs} for t, cs in why.items()],
            "far": self.far,
            "lo": self.lo,
            "free": self.free,
        }


def explainer(state: Any) -> Callable[[str], str | None]:
    """`explain_with`'s argument for a game: a move text -> the game's refusal of it in words (`state.explain`),
    None when it is legal. The game decides; this only asks it."""
    from tower.games.errors import BadInput

    def explain(text: str) -> str | None:
        try:
            move = state.move_type.parse(text, state)
        except BadInput as exc:
            return exc.what
        refused = state.explain(move)
        return None if refused is None else refused.message
    return explain


class Aim:
    """The pointer over one block's placements: the spot, the options there, the one shown, the sticky shape."""

    def __init__(self, placements: BlockPlacements) -> None:
        self.ps = placements
        self.spot: Spot | None = None
        self.options: list[int] = []
        self.index = 0
        self.shape: int | None = None  # the shape the person cycled to (kept while the pointer moves)

    def point(self, hit: Vec | None, normal: Vec = (0.0, 0.0, 1.0)) -> Spot | None:
        """The pointer is at `hit` (None: over nothing); returns the new spot."""
        self.spot = None if hit is None else self.ps.spot(hit, normal)
        self.options = [] if self.spot is None else self.ps.options(self.spot)
        self.index = 0
        if self.shape is not None:
            for k, i in enumerate(self.options):
                if self.ps.placements[i].shape == self.shape:
                    self.index = k
                    break
        return self.spot

    @property
    def current(self) -> Placement | None:
        return self.ps.placements[self.options[self.index]] if self.options else None

    def cycle(self, step: int = 1) -> Placement | None:
        """The next (or previous) shape, face up or push variant at this spot."""
        if self.options:
            self.index = (self.index + step) % len(self.options)
            self.shape = self.ps.placements[self.options[self.index]].shape
        return self.current

    def choose(self, text: str) -> Placement | None:
        """Aim at a given placement (picked from the list, or a hint): its spot, with its shape chosen."""
        p = next((q for q in self.ps.placements if q.text == text), None)
        if p is None:
            return None
        sx, sy, _ = self.ps.shapes[p.shape].size
        self.shape = p.shape
        self.point((p.origin[0] + sx / 2, p.origin[1] + sy / 2, p.origin[2]))
        for k, i in enumerate(self.options):
            if self.ps.placements[i] == p:
                self.index = k
        return self.current

    def why_not(self) -> str | None:
        return None if self.options else self.ps.why_not(self.spot)

    def status(self) -> str:
        """One line for the screen: what a click does here, or why nothing can go here."""
        cur = self.current
        if cur is None:
            if self.spot is None:
                return f"{self.ps.block}: point at the tower or the table where it should go"
            return f"not at ({self.spot.x},{self.spot.y}): {self.why_not()}"
        more = f" ({self.index + 1} of {len(self.options)} here: wheel or R turns it)" if len(self.options) > 1 else ""
        return f"click to {cur.words or cur.text}{more}"


__all__ = ["Aim", "BlockPlacements", "Placement", "Shape", "Spot", "alone_corner", "column_heights", "explainer",
           "placement_text", "touches", "touching_corners"]
