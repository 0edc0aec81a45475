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
from tower.climbers.build import BUILD_FORMAT, Block, Build, Figure, Stone
from tower.climbers.legality import Near, Violation, check_build
from tower.games.errors import BadInput, IllegalMove
from tower.games.reader import character_words, refused_character
from tower.schemas import problem

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
#: What one step of the history holds in memory, estimated (measured with tracemalloc on CPython 3.11): the step
#: and its build, a pointer per block (blocks an edit did not touch are shared with the step before) and each new
#: block (one for most edits, every block for a loaded build).
EDIT_BYTES, POINTER_BYTES, BLOCK_BYTES = 1500, 8, 330
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
    bytes: int = 0  # memory the step holds, estimated (EDIT_BYTES, ...)


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
                 physics: Any = None, check: bool = True, max_history_bytes: int | None = None,
                 opens: str = "'allow, outline'") -> None:
        #: the physics judges (`tower.app.stability`, or a stand-in with `judge_build` and `fall`); None: the lab
        #: shows the rules only
        self.physics = physics
        #: how the person who opened this lab gets the rules that outline problems instead of refusing them: the
        #: page's choice ("'allow, outline'"), or the command line's ("--rules flag"); said in refusals of a file
        self.opens = opens
        self.max_blocks = max_blocks
        self.max_history_bytes = max_history_bytes  # the history's memory (estimated); None: HISTORY edits only
        self._analysis: tuple[int, str, dict[str, Any]] | None = None
        # the verdicts of the last few builds of the history, each kept with its build (so that its id stays its
        # own): undo and redo show a verdict again without judging the build again
        self._verdicts: OrderedDict[int, tuple[Build, dict[str, Any] | None]] = OrderedDict()
        self._explain: tuple[int, dict[Any, Any]] = (0, {})
        self.rules = "strict"
        self.set_rules(rules)
        start = build if build is not None else Build()
        self._check_limits(start)
        self.history: list[Edit] = [Edit(start, "start", _bytes(start, len(start.blocks)))]
        self.cursor = 0
        self.selected: str | None = None
        self._violations: tuple[int, list[Violation]] | None = None
        self._near: tuple[Build, Near, bool] | None = None  # the current build by columns, and whether it is in limits
        if check:  # a build to start from is checked as a loaded file is (a stored lab was checked already)
            refused = self._refused(start, Build(), loading=True)
            if refused is not None:
                raise refused

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
        found = self._all_violations()
        return [v for v in found if v.rule in PHYSICAL_RULES] if self.rules == "free" else list(found)

    def block(self, block_id: str) -> Block:
        for b in self.build.blocks:
            if b.id == block_id:
                return b
        raise IllegalMove("no-block", f"no block {block_id!r} in the build"[:200])

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
              pushes: Sequence[tuple[str, str]] = (), hidden: str | None = None, refused: str = "") -> Any:
        """The pure scene of the lab (`viewer.scene.Scene`): the build, its problems outlined, the selection, the
        ghost of a block about to be placed, the weakest tilt direction on the table, the words of the analysis
        as overlay text; with `show` ("forces", "removal") and `pushes` ((block, direction), ...) the physics
        overlays of `viewer.overlays` (asked of the physics here, once per build). `hidden`: a block left out (the
        one being moved: the ghost shows where it goes); `refused`: the rule in words that refuses the ghost's
        place (the ghost is drawn in the refusal colour, the words beside it)."""
        from viewer.overlays import (
            with_failure,
            with_forces,
            with_pushes,
            with_removal_map,
            with_weakest_tilt,
        )
        from viewer.scene import SceneGhost, SceneLabel, build_scene, face_names

        faces = ("refused",) * 6 if refused else face_names(ghost) if ghost else ()
        ghosts = [SceneGhost(ghost.id, ghost.origin, ghost.size, faces, True, "ghost")] if ghost else []  # type: ignore[arg-type]
        analysis = self.analysis()
        build = self.build.without({hidden}) if hidden else self.build
        scene = build_scene(build, self.violations(), selected=self.selected, ghosts=ghosts, title=title,
                            lines=analysis["words"])
        if ghost is not None and refused:
            top = (ghost.origin[0] + ghost.size[0] / 2, ghost.origin[1] + ghost.size[1] / 2,
                   ghost.origin[2] + ghost.size[2] + 0.6)
            scene.labels.append(SceneLabel(top, f"refused here: {refused}"))
        if analysis["stability"] is not None:
            scene = with_weakest_tilt(scene, analysis["stability"]["statics"])
            scene = with_failure(scene, analysis["stability"]["statics"])
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

    def explained(self, key: Any) -> bool:
        """Whether `key` ("forces", "removal") of the current build is worked out already (showing it is instant)."""
        return self._explain[0] == id(self.build) and key in self._explain[1]

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
        for key, value in op.items():
            if value is None:  # leave a key out for its default; null is no value of any of them
                raise BadInput(f"{key} must not be null (leave it out for its default)"[:200], f"$.{key}")
        if "top" in op and (not isinstance(op["top"], str) or op["top"] not in COLOUR_INDEX):  # even where unused
            raise BadInput(f"unknown colour {op['top']!r} (one of: {', '.join(COLOURS)})"[:200], "$.top")
        kind = op["op"]
        handler = {"add": self._add, "move": self._move, "turn": self._turn, "delete": self._delete,
                   "figure": self._figure, "unfigure": self._unfigure, "stone": self._stone,
                   "unstone": self._unstone, "load": self._load, "recolour": self._recolour}.get(kind)
        if handler is None:
            raise BadInput(f"unknown edit {kind!r}"[:200], "$.op")
        build, words, select = handler(op)
        self._commit(build, words, loading=kind == "load", new=self._new_name(op, build))
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
        block_id = op.get("id", "")
        if not isinstance(block_id, str) or len(block_id) > 64:
            raise BadInput(f"id {block_id!r} is not a short name"[:200], "$.id")
        bad = refused_character(block_id)
        if bad:  # what an id of a build may hold (the build schema's pattern)
            raise BadInput(f"the id holds {character_words(bad)}", "$.id")
        block_id = block_id or self._new_id(op["kind"])
        if any(b.id == block_id for b in self.build.blocks):
            raise IllegalMove("id-taken", f"the build has a block {block_id!r} already"[:200])
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
                raise IllegalMove("cannot-turn", f"block {b.id} cannot be turned to size {list(size)}"
                                  + (f" with {op['top']} on top" if "top" in op else ""))
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
        if op.get("top") in COLOUR_INDEX and op["top"] != "grey" and not kind_of(b.size).coloured:  # type: ignore
            raise IllegalMove("face-colouring", f"a grey block is grey on every face, not {op['top']}")
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
        build = load_build_doc(op.get("build"))
        return build, f"loaded a build of {len(build.blocks)} blocks", None

    def snapshot(self) -> LabController:
        """A controller of the current build alone (same rules and cap, no history, no physics): long questions
        such as `refusals` are asked of it outside the lab's lock, so an edit never waits for them."""
        return LabController(self.build, rules=self.rules, max_blocks=self.max_blocks, check=False)

    def refusal(self, op: dict[str, Any]) -> IllegalMove | None:
        """What `edit(op)` would refuse (the rule, worded as the edit's refusal would be), without changing
        anything; None when it would be kept. BadInput for a malformed edit, as `edit` raises it."""
        handler = {"add": self._add, "move": self._move}.get(op.get("op"))  # type: ignore[arg-type]
        if handler is None:
            raise BadInput("only an add or a move is checked ahead", "$.op")
        try:
            build, _words, _select = handler(op)
        except IllegalMove as exc:
            return exc
        blocks = self.build.blocks  # the block added (the last) or moved: all else is as it was
        changed = len(blocks) if op["op"] == "add" else next(i for i, b in enumerate(blocks) if b.id == op["block"])
        return self._refused(build, self.build, new=self._new_name(op, build), changed=changed)

    def refusals(self, block: str, shapes: Sequence[Any], area: Sequence[int], kind: str = "") -> dict[str, Any]:
        """Where the rules would refuse the block in hand over the placements the pointing offers in `area`
        (`tower.app.lab.refusals.refusals`: `{"refused": {placement text: "rule: words"}, "elsewhere": [...]}`)."""
        from tower.app.lab.refusals import refusals

        return refusals(self, block, shapes, area, kind, TABLE_HALF)

    # --- keeping an edit -------------------------------------------------------------------------------------------
    def _check_limits(self, build: Build, only: Block | None = None) -> None:
        """The lab's cap and table; `only`: the one block to check for the table (the rest is known on it)."""
        if len(build.blocks) > self.max_blocks:
            raise IllegalMove("too-many-blocks", f"{len(build.blocks)} blocks; the lab holds at most "
                              f"{self.max_blocks}")
        for b in build.blocks if only is None else [only]:
            lo, hi = b.origin, tuple(o + s for o, s in zip(b.origin, b.size, strict=True))
            if min(lo[0], lo[1]) < -TABLE_HALF or max(hi[0], hi[1]) > TABLE_HALF or hi[2] > TABLE_HEIGHT:
                raise IllegalMove("off-table", f"block {b.id} would leave the lab's table (|x|, |y| <= "
                                  f"{TABLE_HALF}, z <= {TABLE_HEIGHT})")
        for f in build.figures if only is None else []:
            if max(abs(f.cell[0]), abs(f.cell[1])) > TABLE_HALF or not 0 <= f.cell[2] <= TABLE_HEIGHT:
                raise IllegalMove("off-table", f"the {f.colour} figure would leave the lab's table")

    def _new_name(self, op: dict[str, Any], build: Build) -> tuple[str, str] | None:
        """(id, words) of the block an add makes: its refusals call it "the new cube", not by an id nobody saw."""
        if op.get("op") != "add" or not build.blocks or op.get("id"):
            return None
        return build.blocks[-1].id, f"the new {str(op.get('kind', 'block')).replace('-', ' ')}"

    def _refused(self, build: Build, before_build: Build, loading: bool = False,
                 new: tuple[str, str] | None = None, changed: int | None = None) -> IllegalMove | None:
        """Why the rule set refuses to go from `before_build` to `build` (None: it does not): the lab's limits,
        then any problem that was not there before (a loaded file: any problem at all) that the rule set
        refuses. `new` names an added block in the words. `changed`: the index of the one block `build` adds or
        changes, `before_build` being the current build: only the blocks round it are checked, with the same
        answer (`legality.Near`)."""
        near = None
        if changed is not None:
            if self._near is None or self._near[0] is not self.build:
                try:  # the current build within the cap and the table: only the changed block is checked for it
                    self._check_limits(self.build)
                    self._near = (self.build, Near(self.build), True)
                except IllegalMove:
                    self._near = (self.build, Near(self.build), False)
            near = self._near
        try:
            self._check_limits(build, build.blocks[changed] if near is not None and near[2] else None)
        except IllegalMove as exc:
            return exc
        if near is None:
            was, now = ([] if loading else self._errors(before_build)), self._errors(build)
        else:
            was, now = ([v for v in found if v.level == "error"] for found in near[1].problems(build, changed))
        before = {_key(v) for v in was}
        refused = PHYSICAL_RULES if self.rules in ("free", "flag") else None
        for v in now:
            if _key(v) in before:
                continue
            if refused is None or v.rule in refused:
                message = v.message if new is None else _renamed(v.message, *new)
                if loading and refused is None:
                    message += f" (the game's rules refuse it: {self.opens} opens it with its problems shown)"
                return IllegalMove(v.rule, message)
        return None

    def _errors(self, build: Build) -> list[Violation]:
        if build is self.build:
            return [v for v in self._all_violations() if v.level == "error"]
        return [v for v in check_build(build) if v.level == "error"]

    def _all_violations(self) -> list[Violation]:
        build = self.build
        if self._violations is None or self._violations[0] != id(build):
            self._violations = (id(build), check_build(build))
        return self._violations[1]

    def _commit(self, build: Build, words: str, loading: bool = False, new: tuple[str, str] | None = None) -> None:
        """Keep `build` as the next step of the history, unless the rule set refuses it (IllegalMove). A loaded
        file is checked as a whole: every problem in it is new."""
        refused = self._refused(build, self.build, loading=loading, new=new)
        if refused is not None:
            raise refused
        del self.history[self.cursor + 1:]
        self.history.append(Edit(build, words, _bytes(build, len(build.blocks) if loading else 1)))
        drop = max(0, len(self.history) - HISTORY)
        if self.max_history_bytes is not None:
            held = sum(e.bytes for e in self.history)
            while drop < len(self.history) - 1 and held > self.max_history_bytes:
                held -= self.history[drop].bytes
                drop += 1
        del self.history[:drop]
        self.cursor = len(self.history) - 1

    @property
    def history_bytes(self) -> int:
        """The memory the history holds, estimated."""
        return sum(e.bytes for e in self.history)


def _bytes(build: Build, new_blocks: int) -> int:
    """The estimated memory of a history step holding `build` with `new_blocks` blocks of its own."""
    items = len(build.blocks) + len(build.figures) + len(build.stones)
    return EDIT_BYTES + POINTER_BYTES * items + BLOCK_BYTES * new_blocks


def load_build_doc(doc: Any) -> Build:
    """A `tower-build/1` document for the lab, worded as `tower check FILE` words it: BadInput where it breaks the
    format's schema (a game record named as one), IllegalMove (`bad-build`) where it breaks what the loader checks
    beyond it (ids repeat, a stone on no block, ...): the OpenAPI document says the first, not the second."""
    from tower.climbers.build import build_document

    if problem(doc, BUILD_FORMAT) is not None:
        return build_document(doc)  # raises BadInput, the place inside the file named
    try:
        return build_document(doc)
    except BadInput as exc:
        raise IllegalMove("bad-build", f"at {exc.where}: {exc.what}"[:280]) from None


def _renamed(message: str, block_id: str, name: str) -> str:
    """`message` with the id of a block being added replaced by what the person knows it as ("the new cube")."""
    import re

    message = re.sub(rf"\bblock {re.escape(block_id)}\b", name, message)
    return re.sub(rf"(?<![\w-]){re.escape(block_id)}(?![\w-])", name, message)


def _only(op: dict[str, Any], allowed: set[str]) -> None:
    for key in op:
        if key not in allowed:
            raise BadInput(f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})"[:300], f"$.{key}")
