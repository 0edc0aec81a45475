"""Builds: blocks, figures and blocking stones, and the `tower-build/1` file format (docs/formats.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tower.climbers.blocks import (
    ALL_GREY,
    COLOUR_INDEX,
    COLOURS,
    DEFAULT_COLOURING,
    FACES,
    Colouring,
    Size,
    colouring_problem,
    kind_of,
)
from tower.games.errors import BadInput
from tower.games.fileio import atomic_write_text
from tower.games.reader import LONE_SURROGATE, character_words, read_json
from tower.schemas import validate

BUILD_FORMAT = "tower-build/1"
RECORD_FORMAT = "game-record/1"  # a file handed over instead of a build, named as what it is
#: Most blocks in a build (the schema's `maxItems`, checked before the schema itself)
MAX_BLOCKS = 2000
MAX_CELLS = 2**24  # bounding-box volume (grid cells) of blocks and figures: the voxel grid is dense


@dataclass(frozen=True)
class Block:
    id: str
    origin: Size  # minimum corner, grid units
    size: Size  # extents along x, y, z after rotation
    faces: Colouring  # colour index per face, FACES order

    @property
    def kind(self):  # -> BlockKind
        return kind_of(self.size)

    @property
    def top(self) -> int:
        return self.origin[2] + self.size[2]

    @property
    def top_colour(self) -> str:
        return COLOURS[self.faces[4]]

    def footprint(self) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1), half-open."""
        x, y, _ = self.origin
        return x, y, x + self.size[0], y + self.size[1]

    def footprint_cells(self) -> list[tuple[int, int]]:
        x0, y0, x1, y1 = self.footprint()
        return [(x, y) for x in range(x0, x1) for y in range(y0, y1)]


@dataclass(frozen=True)
class Figure:
    colour: str
    cell: Size  # [x, y, z]: z is the height of the surface under its feet


@dataclass(frozen=True)
class Stone:
    colour: str
    block: str


@dataclass
class Build:
    blocks: list[Block] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    stones: list[Stone] = field(default_factory=list)

    def block(self, block_id: str) -> Block:
        for b in self.blocks:
            if b.id == block_id:
                return b
        raise KeyError(block_id)

    def without(self, ids: set[str]) -> Build:
        """The build with the blocks `ids` taken away (stones on them go too)."""
        return Build([b for b in self.blocks if b.id not in ids], list(self.figures),
                     [s for s in self.stones if s.block not in ids])

    def to_json(self) -> dict[str, Any]:
        return build_to_json(self)


# --- reading -----------------------------------------------------------------------------------------------
# The schema (tower/schemas/tower-build-1.schema.json) says what each key holds: types, required and unknown keys,
# ranges, block sizes, colour names. The code below checks only what a schema cannot say.

def _faces(value: dict[str, str] | None, where: str, size: Size) -> Colouring:
    kind = kind_of(size)
    assert kind is not None  # the schema lists the block sizes
    if value is None:
        return DEFAULT_COLOURING if kind.coloured else ALL_GREY
    colouring = tuple(COLOUR_INDEX[value[f]] for f in FACES)
    problem = colouring_problem(colouring, kind)  # type: ignore[arg-type]
    if problem:
        raise BadInput(f"illegal face colouring: {problem}", where)
    return colouring  # type: ignore[return-value]


def parse_build(data: Any) -> Build:
    """Validate a parsed `tower-build/1` document; every problem is a BadInput naming its JSON path. The count of
    blocks is checked before the schema, so a file of a million blocks costs no validation."""
    blocks_in = data.get("blocks") if isinstance(data, dict) else None
    if isinstance(blocks_in, list) and len(blocks_in) > MAX_BLOCKS:
        raise BadInput(f"{len(blocks_in)} blocks is more than the {MAX_BLOCKS} a build may have", "$.blocks")
    validate(data, BUILD_FORMAT)
    blocks: list[Block] = []
    ids: set[str] = set()
    for i, b in enumerate(data["blocks"]):
        where = f"$.blocks[{i}]"
        block_id = b.get("id", f"b{i}")
        if LONE_SURROGATE.search(block_id):  # what not every tool's regex can say (the reader refuses it too)
            raise BadInput(f"the string holds {character_words(LONE_SURROGATE.search(block_id).group())}",
                           f"{where}.id")
        if block_id in ids:
            raise BadInput(f"duplicate block id {block_id!r}", f"{where}.id")
        ids.add(block_id)
        size: Size = tuple(b["size"])  # type: ignore[assignment]
        blocks.append(Block(block_id, tuple(b["origin"]), size,  # type: ignore[arg-type]
                            _faces(b.get("faces"), f"{where}.faces", size)))
    figures = [Figure(f["color"], tuple(f["cell"])) for f in data.get("figures", [])]  # type: ignore[arg-type]
    stones = []
    for i, s in enumerate(data.get("stones", [])):
        if s["block"] not in ids:
            raise BadInput(f"stone on unknown block {s['block']!r}"[:200], f"$.stones[{i}].block")
        stones.append(Stone(s["color"], s["block"]))
    # the dense voxel grid spans every block and figure, and the table (z = 0)
    points = [p for b in blocks for p in (b.origin, tuple(o + n for o, n in zip(b.origin, b.size, strict=True)))]
    points += [f.cell for f in figures]
    if points:
        span = [max(p[i] for p in points) - min(p[i] for p in points) + 1 for i in range(2)]
        span.append(max(max(p[2] for p in points), 0) - min(min(p[2] for p in points), 0) + 1)
        if span[0] * span[1] * span[2] > MAX_CELLS:
            raise BadInput(f"the build spans {span[0]} x {span[1]} x {span[2]} grid cells, more than {MAX_CELLS} "
                           "in all", "$")
    return Build(blocks, figures, stones)


def load_build(path: str | Path) -> Build:
    """Read and validate a build file; errors name the file and the JSON path."""
    data = read_json(path)
    try:
        return parse_build(data)
    except BadInput as exc:
        raise exc.in_source(str(path)) from None


def read_build(path: str | Path) -> Build:
    """The build in the file `path` as every front end reads it (`tower check`, `tower view`, the lab): a game
    record handed over instead is named as one (not "unknown key 'game'"); errors name the file."""
    try:
        return build_document(read_json(path))
    except BadInput as exc:
        raise exc if exc.source else exc.in_source(str(path)) from None


def build_document(doc: Any) -> Build:
    """A parsed `tower-build/1` document as a build, worded as `tower check` words a bad file (the lab's uploads
    too): a game record is named as one, not as a build with an unknown key."""
    if isinstance(doc, dict) and doc.get("format") == RECORD_FORMAT:
        raise BadInput("this is a game record, not a build: `tower replay FILE` steps through it, "
                       "`tower view FILE` shows where it ended", "$.format")
    return parse_build(doc)


# --- writing -----------------------------------------------------------------------------------------------

def build_to_json(build: Build) -> dict[str, Any]:
    doc: dict[str, Any] = {"format": BUILD_FORMAT, "blocks": []}
    for b in build.blocks:
        entry: dict[str, Any] = {"id": b.id, "origin": list(b.origin), "size": list(b.size)}
        if b.faces != ALL_GREY:
            entry["faces"] = {f: COLOURS[c] for f, c in zip(FACES, b.faces, strict=True)}
        doc["blocks"].append(entry)
    if build.figures:
        doc["figures"] = [{"color": f.colour, "cell": list(f.cell)} for f in build.figures]
    if build.stones:
        doc["stones"] = [{"color": s.colour, "block": s.block} for s in build.stones]
    return doc


def dumps_build(build: Build) -> str:
    """Compact but readable: one block per line."""
    doc = build_to_json(build)
    lines = ",\n  ".join(json.dumps(b) for b in doc["blocks"])
    rest = "".join(f',\n "{k}": {json.dumps(doc[k])}' for k in ("figures", "stones") if k in doc)
    return f'{{"format": "{BUILD_FORMAT}",\n "blocks": [\n  {lines}]{rest}}}\n'


def save_build(build: Build, path: str | Path) -> None:
    atomic_write_text(path, dumps_build(build))
