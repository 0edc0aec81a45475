"""The lab's state and its edits, with no I/O: a build, the selection, the edit history and the rule set.

Every edit makes a new `Build` (builds are small: copying a list of 200 frozen blocks costs microseconds), so the
history is a list of builds and undo/redo move a cursor along it. An edit is checked before it is kept:

- always refused (any rule set): what no real table allows, `overlap`, `below-table`, `off-table` (outside the
  lab's table area), `too-many-blocks` (the lab's cap), a figure inside a block or two in one cell;
- `strict`: also refused when it brings a new problem under the game's build rules (`unsupported`, a figure on
  the wrong colour, ...), named by the rule (`tower.climbers.legality`);
- `flag`: allowed, the problem listed and outlined;
- `free`: physics only: the game's build rules are not shown at all.

A refused edit raises `IllegalMove(rule, message)` and changes nothing; a malformed one raises `BadInput`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from tower.climbers.blocks import (
    COLOUR_INDEX,
    COLOURS,
    DEFAULT_COLOURING,
    FACES,
    KINDS,
    PLAYER_COLOURS,
    TOP,
    Colouring,
    Size,
    colouring_problem,
    kind_of,
    orientations,
    rotate,
)
from tower.climbers.build import Block, Build, Figure, Stone, parse_build
from tower.climbers.legality import Violation, check_build
from tower.games.errors import BadInput, IllegalMove

RULE_SETS = ("strict", "flag", "free")
#: Rules an edit may never break, whatever the rule set: no real table allows them.
PHYSICAL_RULES = frozenset({"overlap", "below-table", "figure-overlap", "figure-not-on-surface"})
#: The lab's cap on blocks per build when none is given (`tower serve` passes its `blocks_per_build` limit, 200 by
#: default): a 200-block free build still edits in well under a second (benchmarks/bench_lab.py); the statics
#: judge's time grows faster than linearly beyond that.
MAX_LAB_BLOCKS = 200
#: The lab's table area (grid units): |x|, |y| <= TABLE_HALF, z <= TABLE_HEIGHT.
TABLE_HALF = 100
TABLE_HEIGHT = 200
#: Edits kept for undo; older ones are forgotten.
HISTORY = 500
#: Verdicts kept for undo and redo (the last builds of the history judged).
VERDICTS_KEPT = 8
#: Id prefixes of new blocks, by kind name.
PREFIX = {"half-cube": "h", "cube": "c", "double-cube": "d", "grey": "g"}
KIND_BY_NAME = {k.name: k for k in KINDS}
#: A quarter turn about each axis (indices into `tower.climbers.blocks.rotations()`).
QUARTER_TURN = {"z": 10, "x": 5, "y": 22}


@dataclass(frozen=True)
class Edit:
    """One step of the history: the build after it and what it was, in words."""

    build: Build
    words: str


def _key(v: Violation) -> tuple:
    return (v.rule, v.blocks, v.figure, v.stone)


def _int3(value: Any, where: str) -> Size:
    if not isinstance(value, list | tuple) or len(value) != 3 or \
            any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise BadInput("expected three whole numbers [x, y, z] (grid units)", where)
    return tuple(int(v) for v in value)  # type: ignore[return-value]


def default_faces(size: Size, top: str | None = None) -> Colouring:
    """A valid colouring of a block of `size`: the default colouring, turned as a whole (so its faces keep their
    usual neighbours) until `top` is on top (grey blocks are grey all round)."""
    kind = kind_of(size)
    if kind is None:
        raise BadInput(f"size {list(size)} is no block (a permutation of 2x2x1, 2x2x2, 2x2x4 or 2x2x6)", "$.size")
    if top is not None and top not in COLOUR_INDEX:
        raise BadInput(f"unknown colour {top!r} (one of: {', '.join(COLOURS)})"[:200], "$.top")
    if not kind.coloured:
        if top not in (None, "grey"):
            raise BadInput(f"a grey block is grey on every face, not {top}", "$.top")
        return (COLOUR_INDEX["grey"],) * 6  # type: ignore[return-value]
    # the colouring does not depend on the block's shape: turning the default cube shows every colour on top
    turned = [faces for _, faces in orientations((2, 2, 2), DEFAULT_COLOURING)]
    return next(f for f in turned if top is None or f[TOP] == COLOUR_INDEX[top])


def top_colours(size: Size) -> list[str]:
    """The colours a block of `size` can show on top (every colour for a coloured block, grey for a grey one)."""
    kind = kind_of(size)
    if kind is None:
        return []
    return list(COLOURS) if kind.coloured else ["grey"]


def kind_sizes(kind_name: str) -> list[Size]:
    """The orientations (extents along x, y, z) of a kind of block."""
    kind = KIND_BY_NAME.get(kind_name)
    if kind is None:
        raise BadInput(f"unknown kind {kind_name!r} (one of: {', '.join(KIND_BY_NAME)})"[:200], "$.kind")
    return list(dict.fromkeys(s for s, _ in orientations(kind.dims, DEFAULT_COLOURING)))


def _faces_of(value: Any, size: Size) -> Colouring:
    """A `faces` object ({"+x": colour, ...}) checked against the pairs rule for a block of `size`."""
    if not isinstance(value, dict) or set(value) != set(FACES):
        raise BadInput(f"faces must name each of {', '.join(FACES)} once", "$.faces")
    for f in FACES:
        if value[f] not in COLOUR_INDEX:
            raise BadInput(f"unknown colour {value[f]!r}"[:200], f"$.faces.{f}")
    colouring: Colouring = tuple(COLOUR_INDEX[value[f]] for f in FACES)  # type: ignore[assignment]
    problem = colouring_problem(colouring, kind_of(size))  # type: ignore[arg-type]
    if problem:
        raise IllegalMove("face-colouring", problem)
    return colouring


class LabController:
    """The lab: `build` is the current build; `edit(op)` changes it (or refuses), `undo()`/`redo()` walk the
    history, `select()` picks a block. `rules` is one of RULE_SETS."""

    def __init__(self, build: Build | None = None, rules: str = "strict", max_blocks: int = MAX_LAB_BLOCKS,
                 physics: Any = None) -> None:
        #: the physics judges (`tower.app.stability`, or a stand-in with `judge_build` and `fall`); None: the lab
        #: shows the rules only
        self.physics = physics
        self.max_blocks = max_blocks
        self._analysis: tuple[int, str, dict[str, Any]] | None = None
        # the verdicts of the last few builds of the history, each kept with its build (so that its id stays its
        # own): undo and redo show a verdict again without judging the build again
        self._verdicts: OrderedDict[int, tuple[Build, dict[str, Any] | None]] = OrderedDict()
        self._explain: tuple[int, dict[Any, Any]] = (0, {})
        self.rules = "strict"
        self.set_rules(rules)
        start = build if build is not None else Build()
        self._check_limits(start)
        self.history: list[Edit] = [Edit(start, "start")]
        self.cursor = 0
        self.selected: str | None = None
        self._violations: tuple[int, list[Violation]] | None = None

    # --- reading -----------------------------------------------------------------------------------------------
    @property
    def build(self) -> Build:
        return self.history[self.cursor].build

    @property
    def can_undo(self) -> bool:
        return self.cursor > 0

    @property
    def can_redo(self) -> bool:
        return self.cursor < len(self.history) - 1

    def violations(self) -> list[Violation]:
        """The build's problems under the rule set (none in free building but the physical ones)."""
        build = self.build
        if self._violations is None or self._violations[0] != id(build):
            found = check_build(build)
            self._violations = (id(build), found)
        found = self._violations[1]
        return [v for v in found if v.rule in PHYSICAL_RULES] if self.rules == "free" else list(found)

    def block(self, block_id: str) -> Block:
        for b in self.build.blocks:
            if b.id == block_id:
                return b
        raise BadInput(f"no block {block_id!r} in the build"[:200], "$.block")

    def surface_z(self, x: int, y: int, size: Sequence[int] = (1, 1), without: str | None = None) -> int:
        """The height a footprint of `size` at (x, y) rests at: the top of whatever is under it, or the table."""
        z = 0
        for b in self.build.blocks:
            if b.id == without:
                continue
            if b.origin[0] < x + size[0] and x < b.origin[0] + b.size[0] and \
                    b.origin[1] < y + size[1] and y < b.origin[1] + b.size[1]:
                z = max(z, b.top)
        return z

    def analysis(self) -> dict[str, Any]:
        """What the lab shows of the current build (`analysis.analyse`), computed once per build and rule set."""
        from tower.app.lab.analysis import analyse, judge

        build = self.build
        if self._analysis is None or self._analysis[:2] != (id(build), self.rules):
            if id(build) in self._verdicts:
                self._verdicts.move_to_end(id(build))
            else:
                self._verdicts[id(build)] = (build, judge(build, self.physics))
                if len(self._verdicts) > VERDICTS_KEPT:
                    self._verdicts.popitem(last=False)
            stability = self._verdicts[id(build)][1]
            self._analysis = (id(build), self.rules, analyse(build, self.violations(), self.rules, stability))
        return self._analysis[2]

    def scene(self, ghost: Block | None = None, title: str = "tower lab", show: Sequence[str] = (),
              pushes: Sequence[tuple[str, str]] = ()) -> Any:
        """The pure scene of the lab (`viewer.scene.Scene`): the build, its problems outlined, the selection, the
        ghost of a block about to be placed, the weakest tilt direction on the table, the words of the analysis
        as overlay text; with `show` ("forces", "removal") and `pushes` ((block, direction), ...) the physics
        overlays of `viewer.overlays` (asked of the physics here, once per build)."""
        from viewer.overlays import with_forces, with_pushes, with_removal_map, with_weakest_tilt
        from viewer.scene import SceneGhost, build_scene, face_names

        ghosts = [SceneGhost(ghost.id, ghost.origin, ghost.size, face_names(ghost), True, "ghost")] if ghost else []
        analysis = self.analysis()
        scene = build_scene(self.build, self.violations(), selected=self.selected, ghosts=ghosts, title=title,
                            lines=analysis["words"])
        if analysis["stability"] is not None:
            scene = with_weakest_tilt(scene, analysis["stability"]["statics"])
        if "forces" in show:
            scene = with_forces(scene, self.forces()["forces"])
        if "removal" in show:
            scene = with_removal_map(scene, self.removal()["removal"])
        if pushes:
            scene = with_pushes(scene, [self.push(b, d)["push"] for b, d in pushes])
        return scene

    def drop(self) -> dict[str, Any]:
        """PyBullet's run of the current build for the drop animation (`analysis.drop`); refused while blocks
        overlap (the simulation would fling them apart) or without physics."""
        from tower.app.lab.analysis import drop

        if self.physics is None:
            raise IllegalMove("no-physics", "the physics judges are not available")
        if not self.build.blocks:
            raise IllegalMove("empty", "there is nothing on the table to drop")
        if any(v.rule == "overlap" for v in check_build(self.build)):
            raise IllegalMove("overlap", "blocks overlap: take them apart before dropping the build")
        from physics.units import UNIT_M

        return drop(self.build, self.physics, UNIT_M)

    def drop_scene(self, dropped: dict[str, Any]) -> Any:
        """The lab's scene carrying a drop (`drop()`'s answer) as its animation: `frames` (the trajectory's poses)
        and `moved` (the blocks outlined at its end): what the page and the window play."""
        from viewer.scene import SceneFrame

        scene = self.scene(title="tower lab")
        scene.frames = [SceneFrame(f["t"], f["poses"]) for f in dropped["frames"]]
        scene.moved = list(dropped["moved"])
        scene.lines = [dropped["words"], *scene.lines]
        return scene

    # --- explanations (the physics' contact forces, removal map and push test), once per build -------------------
    def _explained(self, key: Any, make: Any) -> Any:
        if self.physics is None or not hasattr(self.physics, "forces"):
            raise IllegalMove("no-physics", "the physics judges are not available")
        build = self.build
        if self._explain[0] != id(build):
            self._explain = (id(build), {})
        cache = self._explain[1]
        if key not in cache:
            cache[key] = make(build)
        return cache[key]

    def forces(self) -> dict[str, Any]:
        """The contact forces of the current build (`physics.ContactForces.to_json()`) and the words for them."""
        from tower.app.explain import forces_lines

        def make(build: Build) -> dict[str, Any]:
            doc = self.physics.forces(build).to_json() if build.blocks else {"stands": True, "contacts": []}
            return {"forces": doc, "words": forces_lines(doc) if build.blocks else ["forces: the table is empty"]}
        return self._explained("forces", make)

    def removal(self) -> dict[str, Any]:
        """The removal map of the current build (statics: what taking each block away does) and its words."""
        from tower.app.explain import removal_lines

        def make(build: Build) -> dict[str, Any]:
            if not build.blocks:
                return {"removal": {"classes": {}, "blocks": []}, "words": ["removal map: the table is empty"]}
            doc = self.physics.removal(build, statics_only=True).to_json()
            return {"removal": doc, "words": removal_lines(doc)}
        return self._explained("removal", make)

    def push(self, block: str, direction: str) -> dict[str, Any]:
        """The push test on one face of a block: the push along `direction` (+x, -x, +y, -y: where the hand
        moves) that fails the build, and the words for it."""
        from tower.app.explain import PUSH_DIRECTIONS, push_lines

        self.block(block)
        if direction not in PUSH_DIRECTIONS:
            raise BadInput(f"direction must be one of {', '.join(PUSH_DIRECTIONS)}, got {direction!r}"[:200],
                           "$.direction")

        def make(build: Build) -> dict[str, Any]:
            doc = self.physics.push(build, block, (direction,))[0].to_json()
            return {"push": doc, "words": push_lines([doc])}
        return self._explained(("push", block, direction), make)

    # --- what a block in hand can be (the window's and the page's choices; aiming is viewer.placement's) ------------
    @staticmethod
    def kinds() -> list[str]:
        return [k.name for k in KINDS]

    @staticmethod
    def sizes(kind: str) -> list[Size]:
        return kind_sizes(kind)

    @staticmethod
    def tops(size: Size) -> list[str]:
        return top_colours(size)

    def ghost(self, kind: str, size: Size, top: str | None, origin: Size) -> Block:
        """The block `add` would make (for drawing the ghost)."""
        return Block("ghost", tuple(origin), tuple(size), default_faces(size, top))  # type: ignore[arg-type]

    # --- settings ------------------------------------------------------------------------------------------------
    def set_rules(self, rules: str) -> None:
        if rules not in RULE_SETS:
            raise BadInput(f"unknown rule set {rules!r} (one of: {', '.join(RULE_SETS)})"[:200], "$.rules")
        self.rules = rules

    def select(self, block_id: str | None) -> None:
        if block_id is not None:
            self.block(block_id)
        self.selected = block_id

    # --- edits -------------------------------------------------------------------------------------------------------
    def edit(self, op: dict[str, Any]) -> str:
        """Apply one edit given as its JSON form (docs/lab.md); returns it in words. Refused: IllegalMove (the
        rule broken) or BadInput (malformed); nothing changes then."""
        if not isinstance(op, dict) or not isinstance(op.get("op"), str):
            raise BadInput('an edit is an object with "op"', "$.op")
        kind = op["op"]
        handler = {"add": self._add, "move": self._move, "turn": self._turn, "delete": self._delete,
                   "figure": self._figure, "unfigure": self._unfigure, "stone": self._stone,
                   "unstone": self._unstone, "load": self._load, "recolour": self._recolour}.get(kind)
        if handler is None:
            raise BadInput(f"unknown edit {kind!r}"[:200], "$.op")
        build, words, select = handler(op)
        self._commit(build, words, loading=kind == "load")
        self.selected = select if select is not None and any(b.id == select for b in build.blocks) else None
        return words

    def add_block(self, kind: str, origin: Sequence[int], size: Sequence[int] | None = None,
                  top: str | None = None) -> str:
        """Add a block (the new id is returned); `size` defaults to the kind's first orientation."""
        op: dict[str, Any] = {"op": "add", "kind": kind, "origin": list(origin)}
        if size is not None:
            op["size"] = list(size)
        if top is not None:
            op["top"] = top
        self.edit(op)
        return self.build.blocks[-1].id

    def undo(self) -> str:
        if not self.can_undo:
            raise IllegalMove("nothing-to-undo", "there is no edit to undo")
        words = self.history[self.cursor].words
        self.cursor -= 1
        self._after_jump()
        return f"undid: {words}"

    def redo(self) -> str:
        if not self.can_redo:
            raise IllegalMove("nothing-to-redo", "there is no undone edit to redo")
        self.cursor += 1
        self._after_jump()
        return f"redid: {self.history[self.cursor].words}"

    def _after_jump(self) -> None:
        if self.selected is not None and not any(b.id == self.selected for b in self.build.blocks):
            self.selected = None

    # --- the edits themselves: each returns (new build, words, block to select) --------------------------------
    def _new_id(self, kind_name: str) -> str:
        taken = {b.id for b in self.build.blocks}
        prefix = PREFIX[kind_name]
        n = 1
        while f"{prefix}{n}" in taken:
            n += 1
        return f"{prefix}{n}"

    def _add(self, op: dict[str, Any]) -> tuple[Build, str, str]:
        _only(op, {"op", "kind", "origin", "size", "top", "faces", "id"})
        sizes = kind_sizes(op.get("kind") if isinstance(op.get("kind"), str) else "?")
        size = _int3(op["size"], "$.size") if "size" in op else sizes[0]
        if size not in sizes:
            raise BadInput(f"a {op['kind']} cannot have size {list(size)} (one of: "
                           f"{', '.join('x'.join(map(str, s)) for s in sizes)})", "$.size")
        origin = _int3(op.get("origin"), "$.origin")
        faces = _faces_of(op["faces"], size) if "faces" in op else default_faces(size, op.get("top"))
        block_id = op.get("id") or self._new_id(op["kind"])
        if not isinstance(block_id, str) or not block_id or len(block_id) > 64 or \
                any(b.id == block_id for b in self.build.blocks):
            raise BadInput(f"id {block_id!r} is taken or not a short name"[:200], "$.id")
        b = Block(block_id, origin, size, faces)
        build = self.build
        return (Build([*build.blocks, b], list(build.figures), list(build.stones)),
                f"added {op['kind']} {block_id} at {list(origin)}", block_id)

    def _replace(self, new: Block) -> Build:
        build = self.build
        return Build([new if b.id == new.id else b for b in build.blocks], list(build.figures), list(build.stones))

    def _move(self, op: dict[str, Any]) -> tuple[Build, str, str]:
        _only(op, {"op", "block", "origin", "size", "top"})
        b = self.block(op.get("block"))  # type: ignore[arg-type]
        origin = _int3(op.get("origin"), "$.origin")
        size, faces = b.size, b.faces
        if "size" in op:  # turned and moved at once (the ghost of a moved block may be turned)
            size = _int3(op["size"], "$.size")
            turned = [(s, f) for s, f in orientations(b.size, b.faces) if s == size]
            if "top" in op:
                turned = [(s, f) for s, f in turned if COLOURS[f[TOP]] == op["top"]]
            if not turned:
                raise BadInput(f"block {b.id} cannot be turned to size {list(size)}"
                               + (f" with {op['top']} on top" if "top" in op else ""), "$.size")
            faces = turned[0][1]
        return self._replace(replace(b, origin=origin, size=size, faces=faces)), \
            f"moved {b.id} to {list(origin)}", b.id

    def _turn(self, op: dict[str, Any]) -> tuple[Build, str, str]:
        _only(op, {"op", "block", "axis"})
        b = self.block(op.get("block"))  # type: ignore[arg-type]
        axis = op.get("axis", "z")
        if axis not in QUARTER_TURN:
            raise BadInput(f"axis must be x, y or z, got {axis!r}"[:100], "$.axis")
        size, faces = rotate(b.size, b.faces, QUARTER_TURN[axis])
        return self._replace(replace(b, size=size, faces=faces)), f"turned {b.id} about {axis}", b.id

    def _recolour(self, op: dict[str, Any]) -> tuple[Build, str, str]:
        _only(op, {"op", "block", "top", "faces"})
        b = self.block(op.get("block"))  # type: ignore[arg-type]
        faces = _faces_of(op["faces"], b.size) if "faces" in op else default_faces(b.size, op.get("top"))
        return self._replace(replace(b, faces=faces)), f"recoloured {b.id}", b.id

    def _delete(self, op: dict[str, Any]) -> tuple[Build, str, None]:
        _only(op, {"op", "block"})
        b = self.block(op.get("block"))  # type: ignore[arg-type]
        build = self.build
        gone = [s.colour for s in build.stones if s.block == b.id]
        return (Build([x for x in build.blocks if x.id != b.id], list(build.figures),
                      [s for s in build.stones if s.block != b.id]),
                f"deleted {b.id}" + (f" (and the {', '.join(gone)} stone)" if gone else ""), None)

    def _colour(self, op: dict[str, Any]) -> str:
        colour = op.get("colour")
        if colour not in PLAYER_COLOURS:
            raise BadInput(f"colour must be one of {', '.join(PLAYER_COLOURS)}, got {colour!r}"[:200], "$.colour")
        return colour  # type: ignore[return-value]

    def _figure(self, op: dict[str, Any]) -> tuple[Build, str, None]:
        _only(op, {"op", "colour", "cell"})
        colour, cell = self._colour(op), _int3(op.get("cell"), "$.cell")
        build = self.build
        figures = [f for f in build.figures if f.colour != colour] + [Figure(colour, cell)]
        return Build(list(build.blocks), figures, list(build.stones)), f"put the {colour} figure at {list(cell)}", None

    def _unfigure(self, op: dict[str, Any]) -> tuple[Build, str, None]:
        _only(op, {"op", "colour"})
        colour = self._colour(op)
        build = self.build
        if not any(f.colour == colour for f in build.figures):
            raise IllegalMove("no-figure", f"there is no {colour} figure")
        return Build(list(build.blocks), [f for f in build.figures if f.colour != colour], list(build.stones)), \
            f"took the {colour} figure away", None

    def _stone(self, op: dict[str, Any]) -> tuple[Build, str, None]:
        _only(op, {"op", "colour", "block"})
        colour, b = self._colour(op), self.block(op.get("block"))  # type: ignore[arg-type]
        build = self.build
        stones = [s for s in build.stones if s.colour != colour] + [Stone(colour, b.id)]
        return Build(list(build.blocks), list(build.figures), stones), f"laid the {colour} stone on {b.id}", None

    def _unstone(self, op: dict[str, Any]) -> tuple[Build, str, None]:
        _only(op, {"op", "colour"})
        colour = self._colour(op)
        build = self.build
        if not any(s.colour == colour for s in build.stones):
            raise IllegalMove("no-stone", f"there is no {colour} stone")
        return Build(list(build.blocks), list(build.figures), [s for s in build.stones if s.colour != colour]), \
            f"took the {colour} stone away", None

    def _load(self, op: dict[str, Any]) -> tuple[Build, str, None]:
        _only(op, {"op", "build"})
        build = parse_build(op.get("build"))
        return build, f"loaded a build of {len(build.blocks)} blocks", None

    # --- keeping an edit -------------------------------------------------------------------------------------------
    def _check_limits(self, build: Build) -> None:
        if len(build.blocks) > self.max_blocks:
            raise IllegalMove("too-many-blocks", f"{len(build.blocks)} blocks; the lab holds at most "
                              f"{self.max_blocks}")
        for b in build.blocks:
            lo, hi = b.origin, tuple(o + s for o, s in zip(b.origin, b.size, strict=True))
            if min(lo[0], lo[1]) < -TABLE_HALF or max(hi[0], hi[1]) > TABLE_HALF or hi[2] > TABLE_HEIGHT:
                raise IllegalMove("off-table", f"block {b.id} would leave the lab's table (|x|, |y| <= "
                                  f"{TABLE_HALF}, z <= {TABLE_HEIGHT})")
        for f in build.figures:
            if max(abs(f.cell[0]), abs(f.cell[1])) > TABLE_HALF or not 0 <= f.cell[2] <= TABLE_HEIGHT:
                raise IllegalMove("off-table", f"the {f.colour} figure would leave the lab's table")

    def _commit(self, build: Build, words: str, loading: bool = False) -> None:
        """Keep `build` as the next step of the history, unless the rule set refuses it (IllegalMove)."""
        self._check_limits(build)
        if not loading:  # a loaded file is taken as it is, its problems shown
            before = {_key(v) for v in check_build(self.build) if v.level == "error"}
            refused = PHYSICAL_RULES if self.rules in ("free", "flag") else None
            for v in check_build(build):
                if v.level != "error" or _key(v) in before:
                    continue
                if refused is None or v.rule in refused:
                    raise IllegalMove(v.rule, v.message)
        del self.history[self.cursor + 1:]
        self.history.append(Edit(build, words))
        if len(self.history) > HISTORY:
            del self.history[0]
        self.cursor = len(self.history) - 1


def _only(op: dict[str, Any], allowed: set[str]) -> None:
    for key in op:
        if key not in allowed:
            raise BadInput(f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})"[:300], f"$.{key}")
