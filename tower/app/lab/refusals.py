"""Where the rules would refuse the block in hand: the lab's question ahead of the click (docs/lab.md).

Each place of the block in hand that touches the build is checked as its edit would be (`LabController.refusal`),
but not against the whole build: only the blocks round the place can change their problems, so the check reads
those (`tower.climbers.legality.Near`), with the same answer. On a 189-block wall (every place of a double in its
three orientations) that is 0.21 s of CPU instead of 2.4 s; the server still asks it of the lab's rules worker
(`tower/app/serve/labjobs.py`), since twenty of them at once in its own process held the interpreter from every
other request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tower.climbers.blocks import FACES


def placement_edit(block: str, kind: str, shape: Any, origin: Sequence[int]) -> dict[str, Any]:
    """The edit that puts the block in hand at a placement (`viewer.placement.Shape` `shape`, corner `origin`):
    a new block of `kind` ("new") as the shape lies, or block `block` moved there."""
    if block != "new":
        return {"op": "move", "block": block, "origin": list(origin)}
    return {"op": "add", "kind": kind, "origin": list(origin), "size": list(shape.size),
            "faces": dict(zip(FACES, shape.faces, strict=True))}


def refusals(ctl: Any, block: str, shapes: Sequence[Any], area: Sequence[int], kind: str,
             table_half: int) -> dict[str, Any]:
    """Where the rules would refuse the block in hand (controller `ctl`, a `LabController`), over the placements
    the lab's pointing offers (`viewer.placement.BlockPlacements.resting` over `area`, the block lifted out):
    `{"refused": {placement text: "rule: words"}, "elsewhere": ["rule: words" | None per shape]}`. `block` is "new"
    (a block of `kind` still to be added, `shapes` its orientations) or the id of the block being moved. The
    ghost says it before the click; the edit, if clicked, is refused alike.

    `refused` lists the placements that touch something (`viewer.placement.touches`: the footprint covers a column
    with a block, the moving one left out, or a figure's column), each checked as its edit would be. A placement
    that touches nothing rests on the bare table and is judged alike anywhere (a kind the build has all of, a move
    that leaves the block above unsupported): `elsewhere[k]` is that judgement for shape k, made once on the
    area's first such placement (None: allowed, or the area has none). The work and the answer are bounded by the
    build, not by the area (`BlockPlacements.refusal` reads it back). `table_half`: the half width of the lab's
    table, in grid units."""
    from viewer.placement import BlockPlacements, alone_corner, column_heights

    moving = None if block == "new" else ctl.block(block)
    heights = column_heights(ctl.build.blocks, None if moving is None else block)
    figures = {(f.cell[0], f.cell[1]) for f in ctl.build.figures}
    near = BlockPlacements.resting(block, shapes, heights, area, -table_half, 2 * table_half, figures,
                                   touching=True)

    def judge(shape: Any, origin: tuple[int, int, int]) -> str | None:
        refused = ctl.refusal(placement_edit(block, kind, shape, origin))
        return None if refused is None else f"{refused.rule}: {refused.message}"

    out: dict[str, str] = {}
    for p in near.placements:
        said = judge(near.shapes[p.shape], p.origin)
        if said is not None:
            out[p.text] = said
    elsewhere = []
    for shape in shapes:
        corner = alone_corner(shape.size, heights, figures, area)
        elsewhere.append(None if corner is None else judge(shape, (*corner, 0)))
    return {"refused": out, "elsewhere": elsewhere}

