"""Legality of a build (docs/formats.md): which rule each problem breaks, with the blocks and cells involved."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tower.climbers.blocks import COLOURS, GREY, KINDS
from tower.climbers.build import Build
from tower.climbers.grid import VoxelGrid

RULES = ("overlap", "unsupported", "below-table", "figure-not-on-surface", "figure-wrong-colour",
         "figure-overlap", "stone-not-on-free-top", "block-count")
#: Rules that are reported but do not make a build illegal: a sandbox build may use more blocks than the box
#: holds (people explore), while a game never can.
WARNING_RULES = frozenset({"block-count"})


@dataclass(frozen=True)
class Violation:
    rule: str
    message: str
    blocks: tuple[str, ...] = ()
    cells: tuple[tuple[int, int, int], ...] = ()
    figure: str | None = None
    stone: str | None = None
    level: str = field(default="error")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule}
        if self.blocks:
            out["block"] = self.blocks[0]
            if len(self.blocks) > 1:
                out["blocks"] = list(self.blocks)
        if self.figure is not None:
            out["figure"] = self.figure
        if self.stone is not None:
            out["stone"] = self.stone
        out["cells"] = [list(c) for c in self.cells]
        out["message"] = self.message
        if self.level != "error":
            out["level"] = self.level
        return out


def _cells(cells) -> tuple[tuple[int, int, int], ...]:
    return tuple(sorted(tuple(int(v) for v in c) for c in cells))


def check_build(build: Build, grid: VoxelGrid | None = None) -> list[Violation]:
    """Every rule the build breaks, errors first in rule order; [] for a legal build."""
    grid = grid or VoxelGrid(build.blocks, [f.cell for f in build.figures])
    out: list[Violation] = []
    ids = [b.id for b in build.blocks]

    for b in build.blocks:
        if b.origin[2] < 0:
            out.append(Violation("below-table", f"block {b.id} starts at z = {b.origin[2]}, below the table top",
                                 (b.id,), _cells((x, y, z) for x, y in b.footprint_cells()
                                                 for z in range(b.origin[2], min(0, b.top)))))
    for first, second, cells in grid.overlaps:
        out.append(Violation("overlap", f"blocks {ids[first]} and {ids[second]} share {len(cells)} cell{'' if len(cells) == 1 else 's'}",
                             (ids[second], ids[first]), _cells(cells)))
    for i, b in enumerate(build.blocks):
        holes = grid.unsupported_cells(i)
        if holes:
            out.append(Violation("unsupported",
                                 f"block {b.id} has {len(holes)} of {b.size[0] * b.size[1]} footprint cells "
                                 "with nothing under them (hole or overhang)", (b.id,), _cells(holes)))

    stones_on = Counter(s.block for s in build.stones)
    figure_cells = Counter(f.cell for f in build.figures)
    for f in build.figures:
        index = grid.surface_under(f.cell)
        if not grid.is_surface(f.cell):
            out.append(Violation("figure-not-on-surface",
                                 f"the {f.colour} figure at {list(f.cell)} does not stand on a free top face "
                                 "or the table", cells=(f.cell,), figure=f.colour))
            continue
        if index is not None:
            block = build.blocks[index]
            top = block.faces[4]
            if top not in (GREY, COLOURS.index(f.colour)):
                out.append(Violation("figure-wrong-colour",
                                     f"the {f.colour} figure stands on the {COLOURS[top]} top of {block.id}; "
                                     "a figure may stand only on its own colour, grey or the table",
                                     (block.id,), (f.cell,), f.colour))
    for cell, n in sorted(figure_cells.items()):
        if n > 1:
            out.append(Violation("figure-overlap", f"{n} figures stand in the cell {list(cell)}; one cell holds one",
                                 cells=(cell,)))

    # a stone goes on any free surface: a block whose top shows at least one cell free of blocks and figures
    # (other blocks may cover the rest of it); one stone a block
    by_id = {b.id: i for i, b in enumerate(build.blocks)}
    for s in build.stones:
        i = by_id[s.block]
        reasons = []
        if not grid.top_cells(i):
            reasons.append("other blocks cover all of its top")
        elif all(c in figure_cells for c in grid.top_cells(i)):
            reasons.append("figures stand on every cell of its top that shows")
        if stones_on[s.block] > 1:
            reasons.append(f"{stones_on[s.block]} stones lie on it")
        if reasons:
            b = build.blocks[i]
            out.append(Violation("stone-not-on-free-top",
                                 f"the {s.colour} stone on {s.block} is not on a free surface: {', '.join(reasons)}",
                                 (s.block,), _cells((x, y, b.top) for x, y in b.footprint_cells()),
                                 stone=s.colour))

    counts = Counter(b.kind.name for b in build.blocks)
    for kind in KINDS:
        if counts[kind.name] > kind.count:
            extra = [b.id for b in build.blocks if b.kind is kind][kind.count:]
            out.append(Violation("block-count", f"{counts[kind.name]} {kind.name} blocks; the game has "
                                 f"{kind.count}", tuple(extra), level="warning"))
    return out


def is_legal(violations: list[Violation]) -> bool:
    return not any(v.level == "error" for v in violations)
