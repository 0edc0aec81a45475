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
    PLAYER_COLOURS,
    Colouring,
    Size,
    colouring_problem,
    kind_of,
)
from tower.games.errors import BadInput
from tower.games.fileio import atomic_write_text, read_json

BUILD_FORMAT = "tower-build/1"
MAX_COORD = 10_000  # no real build is larger; keeps the voxel grid of a hostile file bounded
MAX_BLOCKS = 2_000
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

def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        kind = "a float" if isinstance(value, float) else type(value).__name__
        raise BadInput(f"expected a whole number (grid units), got {kind} {value!r}"[:200], where)
    if abs(value) > MAX_COORD:
        raise BadInput(f"{value} is out of range (|value| <= {MAX_COORD})", where)
    return value


def _triple(value: Any, where: str) -> Size:
    if not isinstance(value, list) or len(value) != 3:
        raise BadInput("expected a list of 3 whole numbers [x, y, z]", where)
    return tuple(_int(v, f"{where}[{i}]") for i, v in enumerate(value))  # type: ignore[return-value]


def _obj(value: Any, where: str, allowed: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadInput(f"expected an object, got {type(value).__name__}", where)
    for key in value:
        if key not in allowed:
            raise BadInput(f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})", f"{where}.{key}")
    for key in sorted(required):
        if key not in value:
            raise BadInput(f"missing key {key!r}", where)
    return value


def _colour(value: Any, where: str, allowed: tuple[str, ...] = COLOURS) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise BadInput(f"unknown colour {value!r} (one of: {', '.join(allowed)})"[:300], where)
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise BadInput(f"expected a list, got {type(value).__name__}", where)
    return value


def _faces(value: Any, where: str, size: Size) -> Colouring:
    kind = kind_of(size)
    assert kind is not None
    if value is None:
        return DEFAULT_COLOURING if kind.coloured else ALL_GREY
    faces = _obj(value, where, set(FACES), set(FACES))
    colouring = tuple(COLOUR_INDEX[_colour(faces[f], f"{where}.{f}")] for f in FACES)
    problem = colouring_problem(colouring, kind)  # type: ignore[arg-type]
    if problem:
        raise BadInput(f"illegal face colouring: {problem}", where)
    return colouring  # type: ignore[return-value]


def parse_build(data: Any) -> Build:
    """Validate a parsed `tower-build/1` document; every problem is a BadInput naming its JSON path."""
    doc = _obj(data, "$", {"format", "blocks", "figures", "stones"}, {"format", "blocks"})
    if doc["format"] != BUILD_FORMAT:
        raise BadInput(f"unsupported format {doc['format']!r} (expected {BUILD_FORMAT!r})"[:200], "$.format")
    raw_blocks = _list(doc["blocks"], "$.blocks")
    if len(raw_blocks) > MAX_BLOCKS:
        raise BadInput(f"{len(raw_blocks)} blocks is more than {MAX_BLOCKS}", "$.blocks")
    blocks: list[Block] = []
    ids: set[str] = set()
    for i, raw in enumerate(raw_blocks):
        where = f"$.blocks[{i}]"
        b = _obj(raw, where, {"id", "origin", "size", "faces"}, {"origin", "size"})
        block_id = b.get("id", f"b{i}")
        if not isinstance(block_id, str) or not block_id or len(block_id) > 64:
            raise BadInput("id must be a non-empty string of at most 64 characters", f"{where}.id")
        if block_id in ids:
            raise BadInput(f"duplicate block id {block_id!r}", f"{where}.id")
        ids.add(block_id)
        origin = _triple(b["origin"], f"{where}.origin")
        size = _triple(b["size"], f"{where}.size")
        if kind_of(size) is None:
            raise BadInput(f"size {list(size)} is no block (a permutation of 2x2x1, 2x2x2, 2x2x4 or 2x2x6)",
                           f"{where}.size")
        blocks.append(Block(block_id, origin, size, _faces(b.get("faces"), f"{where}.faces", size)))
    figures = []
    for i, raw in enumerate(_list(doc.get("figures", []), "$.figures")):
        where = f"$.figures[{i}]"
        f = _obj(raw, where, {"color", "cell"}, {"color", "cell"})
        figures.append(Figure(_colour(f["color"], f"{where}.color", PLAYER_COLOURS), _triple(f["cell"], f"{where}.cell")))
    stones = []
    for i, raw in enumerate(_list(doc.get("stones", []), "$.stones")):
        where = f"$.stones[{i}]"
        s = _obj(raw, where, {"color", "block"}, {"color", "block"})
        if not isinstance(s["block"], str) or s["block"] not in ids:
            raise BadInput(f"stone on unknown block {s['block']!r}"[:200], f"{where}.block")
        stones.append(Stone(_colour(s["color"], f"{where}.color", PLAYER_COLOURS), s["block"]))
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
