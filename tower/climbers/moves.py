"""Moves of The Climbers: small immutable values whose text form is what a person types and what records keep.

    fig X,Y,Z [short|long|short+long]
                  move the figure to the cell (X, Y) whose top is at height Z, with the ladders used on the
                  way, in the order used
    block ID X,Y,Z SXxSYxSZ COLOUR [push X,Y,Z>X,Y,Z ...]
                  put block ID with its minimum corner at (X, Y, Z), turned to extents SXxSYxSZ with COLOUR
                  face up, pushing the listed figures from one cell to another of the same top face
    stone ID      lay the blocking stone on block ID
    skip          leave out this step (a figure move, the stone; the block step only if no block can move)
    pass          pass the whole turn (only as the first decision of a turn)

Examples: `fig 15,13,2 short`, `block d3 14,12,0 2x2x4 red`, `block c1 10,10,2 2x2x2 grey push 10,10,2>12,10,2`.
Colours: red yellow dark-blue light-blue purple grey.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

from tower.climbers.blocks import COLOUR_INDEX, COLOURS
from tower.games.base import GameState, Move
from tower.games.errors import BadInput

Cell = tuple[int, int, int]
LADDERS = ("short", "long")
KINDS = ("fig", "block", "stone", "skip", "pass")


def _cell(text: str) -> Cell:
    parts = text.split(",")
    if len(parts) != 3:
        raise BadInput(f"expected a cell x,y,z, got {text!r}", "")
    try:
        return tuple(int(p) for p in parts)  # type: ignore[return-value]
    except ValueError:
        raise BadInput(f"expected whole numbers in the cell {text!r}", "") from None


def _fmt(cell: Cell) -> str:
    return ",".join(str(v) for v in cell)


@dataclass(frozen=True)
class ClimbersMove(Move):
    kind: str
    cell: Cell | None = None  # fig: destination; block: new origin
    ladders: tuple[str, ...] = ()  # fig: ladders used, in order
    block: str | None = None  # block / stone
    size: Cell | None = None  # block: extents after rotation
    top: int | None = None  # block: colour index of the face turned up
    pushes: tuple[tuple[Cell, Cell], ...] = ()  # block: figures pushed aside (from, to)

    @classmethod
    def block_move(cls, block: str, cell: Cell, size: Cell, top: int,
                   pushes: tuple[tuple[Cell, Cell], ...] = ()) -> ClimbersMove:
        """A block move, made without the dataclass's checks (move lists build thousands of them)."""
        move = object.__new__(cls)
        move.__dict__.update(kind="block", cell=cell, ladders=(), block=block, size=size, top=top, pushes=pushes)
        return move

    def __str__(self) -> str:
        if self.kind == "fig":
            return f"fig {_fmt(self.cell)}" + (f" {'+'.join(self.ladders)}" if self.ladders else "")  # type: ignore[arg-type]
        if self.kind == "block":
            s = self.size
            text = f"block {self.block} {_fmt(self.cell)} {s[0]}x{s[1]}x{s[2]} {COLOURS[self.top]}"  # type: ignore[index]
            if self.pushes:
                text += " push " + " ".join(f"{_fmt(a)}>{_fmt(b)}" for a, b in self.pushes)
            return text
        if self.kind == "stone":
            return f"stone {self.block}"
        return self.kind

    def sort_key(self) -> Any:
        return (KINDS.index(self.kind), self.block or "", self.cell or (), self.size or (), -1 if self.top is None
                else self.top, self.ladders, self.pushes)

    @classmethod
    def parse(cls, text: str, state: GameState | None = None) -> Self:
        words = text.strip().split()
        if not words:
            raise BadInput("empty move", "")
        kind = words[0].lower()
        if kind in ("skip", "pass"):
            if len(words) != 1:
                raise BadInput(f"'{kind}' takes nothing after it", "")
            return cls(kind)
        if kind == "fig":
            if len(words) not in (2, 3):
                raise BadInput("usage: fig X,Y,Z [short|long|short+long|long+short]", "")
            ladders = tuple(words[2].split("+")) if len(words) == 3 else ()
            if any(lad not in LADDERS for lad in ladders) or len(set(ladders)) != len(ladders):
                raise BadInput(f"unknown ladders {words[2]!r} (short, long, short+long)", "")
            return cls("fig", cell=_cell(words[1]), ladders=ladders)
        if kind == "stone":
            if len(words) != 2:
                raise BadInput("usage: stone BLOCK", "")
            return cls("stone", block=words[1])
        if kind == "block":
            if len(words) < 5:
                raise BadInput("usage: block ID X,Y,Z SXxSYxSZ TOPCOLOUR [push X,Y,Z>X,Y,Z ...]", "")
            dims = words[3].lower().split("x")
            try:
                size = tuple(int(d) for d in dims)
            except ValueError:
                size = ()
            if len(size) != 3:
                raise BadInput(f"expected extents like 2x2x4, got {words[3]!r}", "")
            if words[4] not in COLOUR_INDEX:
                raise BadInput(f"unknown colour {words[4]!r} (one of: {', '.join(COLOURS)})", "")
            pushes = []
            rest = words[5:]
            if rest:
                if rest[0] != "push" or len(rest) < 2:
                    raise BadInput("after the top colour only 'push FROM>TO ...' may follow", "")
                for item in rest[1:]:
                    a, sep, b = item.partition(">")
                    if not sep:
                        raise BadInput(f"a push is FROM>TO, got {item!r}", "")
                    pushes.append((_cell(a), _cell(b)))
            return cls("block", cell=_cell(words[2]), block=words[1], size=size,  # type: ignore[arg-type]
                       top=COLOUR_INDEX[words[4]], pushes=tuple(sorted(pushes)))
        raise BadInput(f"unknown move {words[0]!r} (fig, block, stone, skip, pass)", "")

    @classmethod
    def from_json(cls, data: Any) -> Self:
        """The text form; also the older `{"fig": TEXT, "path": [...]}` of figure moves (the path is left out:
        the game finds the walk itself)."""
        if isinstance(data, dict) and set(data) <= {"fig", "path"} and isinstance(data.get("fig"), str):
            move = cls.parse(data["fig"])
            if move.kind != "fig":
                raise BadInput("'fig' must hold a figure move", "$.fig")
            path = data.get("path", [])
            if not isinstance(path, list) or not all(
                    isinstance(c, list) and len(c) == 3 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                for v in c) for c in path):
                raise BadInput("'path' must be a list of [x, y, z] cells", "$.path")
            return move
        if not isinstance(data, str):
            raise BadInput("a Climbers move is its text, like 'fig 3,4,2' (or an older {'fig': ..., 'path': [...]})",
                           "$")
        return cls.parse(data)
