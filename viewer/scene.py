"""The pure state-to-scene step: a Climbers build (plus overlays) becomes a `Scene` that tests can assert on.

Nothing here imports pyvista or vtk. All coordinates are in **grid units** (1 unit = 2 cm; x and y horizontal,
z up, the table top at z = 0), exactly as in the `tower-build/1` format, so a scene can be checked against the
build without conversions. Rendering (viewer.layers, viewer.renderer) draws a scene as it is; it never looks at the game.

Legality is never decided here: violations come from `tower.climbers.legality.check_build` (or the game), and the
scene only marks the blocks and cells those violations name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tower.climbers.blocks import COLOURS, FACES
from tower.climbers.build import Block, Build

#: Display colours (RGB 0-255) of the six face colours. Chosen so light-blue and dark-blue differ strongly in
#: lightness, and grey is a true neutral (equal channels), as a viewer with a colour-blind eye needs.
PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (206, 48, 42),
    "yellow": (246, 200, 36),
    "dark-blue": (28, 58, 150),
    "light-blue": (120, 196, 240),
    "purple": (128, 62, 170),
    "grey": (150, 150, 150),
}
#: Further colours the card games use (pawns, suits, board spaces); looked up together with PALETTE.
EXTRA_RGB: dict[str, tuple[int, int, int]] = {
    "blue": (40, 90, 200),
    "green": (46, 160, 70),
    "pink": (236, 120, 180),
    "orange": (240, 130, 30),
    "white": (245, 245, 240),
    "black": (30, 30, 34),
    "gold": (235, 190, 60),
    "tile": (238, 228, 205),
    "board": (120, 150, 110),
    "card": (250, 248, 240),
    # physics overlays (viewer.overlays): removal classes differ in lightness as well as hue (light green, amber,
    # dark red), so they read apart without full colour vision; force arrows near black, friction-critical orange
    "safe": (150, 215, 160),
    "risky": (245, 175, 40),
    "brings-down": (165, 28, 40),
    "force": (28, 28, 34),
    # how much weight from above a block carries (the force overlay): light to dark blue
    "load-none": (232, 232, 232),
    "load-light": (160, 182, 230),
    "load-medium": (120, 150, 215),
    "load-heavy": (55, 85, 180),
    "force-critical": (255, 110, 0),
    # the force bounds: what a contact may carry (a thin dark grey shaft beyond the thick certain part); the minimum-norm
    # example as thin green lines; a falling build's motion (crimson arrows, violet rotation axes, moving blocks pink)
    "force-possible": (70, 70, 84),
    "force-example": (30, 150, 40),
    "motion": (200, 20, 60),
    "motion-axis": (120, 40, 200),
    "moving": (246, 176, 176),
    "push": (200, 0, 160),
    "tilt": (20, 150, 150),
    "neutral": (215, 215, 215),
    # card games played by pointing (viewer.cards.pointing): where the chosen card can go (green), the place
    # under the pointer (the hover blue), and a choice already made (gold)
    "lit": (60, 205, 95),
    "lit-hover": (0, 170, 255),
    "picked": (255, 200, 40),
    # the lab's ghost where the rules would refuse the block (the problems' signal colour)
    "refused": (255, 0, 60),
}
ALL_RGB: dict[str, tuple[int, int, int]] = {**EXTRA_RGB, **PALETTE}
TABLE_RGB = (214, 196, 168)  # light wood: neutral, so no face colour is mistaken for the table
BACKGROUND_RGB = (226, 233, 242)  # a pale sky: the light table and white outlines stand out
PROBLEM_RGB = (255, 0, 60)  # legality problems: a signal colour no face has
SELECT_RGB = (255, 255, 255)

LADDER_HEIGHT = {"short": 2, "long": 4}  # the rises each ladder bridges (rules: 2 resp. 2-4 units)


@dataclass(frozen=True)
class SceneBlock:
    """One block: integer box in grid units and its six face colours in FACES order (+x -x +y -y +z -z)."""

    id: str
    origin: tuple[int, int, int]
    size: tuple[int, int, int]
    faces: tuple[str, str, str, str, str, str]
    problems: tuple[str, ...] = ()  # rule names of violations naming this block
    selected: bool = False
    movable: bool = False
    tint: str = ""  # a colour name painted over all six faces (an overlay's classes, e.g. the removal map)

    @property
    def bounds(self) -> tuple[float, float, float, float, float, float]:
        """(xmin, xmax, ymin, ymax, zmin, zmax) in grid units."""
        (x, y, z), (sx, sy, sz) = self.origin, self.size
        return (x, x + sx, y, y + sy, z, z + sz)


@dataclass(frozen=True)
class SceneFigure:
    colour: str
    cell: tuple[int, int, int]  # the 1x1 cell it stands in; z is the surface under its feet
    problem: bool = False
    current: bool = False  # the figure of the player to move
    scale: float = 1.0  # pawns of the board games are drawn larger than Climbers figures


@dataclass(frozen=True)
class SceneStone:
    colour: str
    block: str
    centre: tuple[float, float, float]  # middle of the block's top face


@dataclass(frozen=True)
class SceneLadder:
    colour: str
    kind: str  # "short" or "long"
    base: tuple[float, float, float]  # foot of the ladder on the table, next to its owner's seat
    height: int


@dataclass(frozen=True)
class SceneGhost:
    """A possible placement of a block (a legal move offered by the game), drawn translucent."""

    block: str
    origin: tuple[int, int, int]
    size: tuple[int, int, int]
    faces: tuple[str, str, str, str, str, str]
    selected: bool = False
    label: str = ""


@dataclass(frozen=True)
class SceneLabel:
    """A short text drawn at a point of the scene (card values, special spaces), always facing the viewer."""

    position: tuple[float, float, float]
    text: str


@dataclass(frozen=True)
class SceneMarker:
    """A flagged grid cell (e.g. an unsupported footprint cell or a target of a figure step)."""

    cell: tuple[int, int, int]
    kind: str  # "problem" (a legality violation) or "target" (a legal step destination)
    rule: str = ""


@dataclass(frozen=True)
class SceneArrow:
    """An arrow from `tail` to `head` (grid units): a contact force, a push, the weakest tilt direction or the
    legend's scale arrow. `kind` says which; `radius` is the shaft's (grid units)."""

    tail: tuple[float, float, float]
    head: tuple[float, float, float]
    colour: str
    kind: str = ""
    radius: float = 0.1


@dataclass(frozen=True)
class SceneLegendEntry:
    """One line of an overlay's legend: a colour swatch (a colour name) and what it means."""

    colour: str
    text: str


@dataclass(frozen=True)
class SceneFrame:
    """One frame of an animation of the blocks (the lab's drop: PyBullet's trajectory): at `t` seconds, block id ->
    [centre, quaternion (x, y, z, w)], grid units. Renderers move the scene's blocks to these poses."""

    t: float
    poses: dict[str, Any]


@dataclass
class Scene:
    """Everything the renderer draws, by layer. Grid units throughout."""

    blocks: list[SceneBlock] = field(default_factory=list)
    figures: list[SceneFigure] = field(default_factory=list)
    stones: list[SceneStone] = field(default_factory=list)
    ladders: list[SceneLadder] = field(default_factory=list)
    ghosts: list[SceneGhost] = field(default_factory=list)
    markers: list[SceneMarker] = field(default_factory=list)
    title: str = ""
    lines: list[str] = field(default_factory=list)  # overlay text, top left
    menu: list[str] = field(default_factory=list)  # the play window's move menu and log, top right
    table: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # xmin, xmax, ymin, ymax of the table plane
    shadow: bool = True  # a soft contact shadow under the blocks standing on the table
    flat: bool = False  # a board game: the default camera looks down more steeply and comes closer
    labels: list[SceneLabel] = field(default_factory=list)
    hover: str | None = None  # the block under the mouse (outlined thinly)
    ghost_figures: list[SceneFigure] = field(default_factory=list)  # where a previewed move puts pawns/figures
    arrows: list[SceneArrow] = field(default_factory=list)  # physics overlays: forces, pushes, tilt direction
    legend: list[SceneLegendEntry] = field(default_factory=list)  # what the overlay's colours and sizes mean
    block_opacity: float = 1.0  # < 1 lets the force arrows inside the tower show through
    frames: list[SceneFrame] = field(default_factory=list)  # an animation of the blocks (a drop), in time order
    moved: list[str] = field(default_factory=list)  # the blocks the animation moves (outlined at its end)

    def block_index(self, block_id: str) -> int:
        for i, b in enumerate(self.blocks):
            if b.id == block_id:
                return i
        raise KeyError(block_id)

    @property
    def problem_blocks(self) -> list[str]:
        return [b.id for b in self.blocks if b.problems]

    def bounds(self) -> tuple[float, float, float, float, float, float]:
        """Bounds of the blocks, figures and ghosts (the table excluded); a unit box for an empty scene."""
        boxes = [b.bounds for b in self.blocks]
        boxes += [(g.origin[0], g.origin[0] + g.size[0], g.origin[1], g.origin[1] + g.size[1], g.origin[2],
                   g.origin[2] + g.size[2]) for g in self.ghosts]
        boxes += [(f.cell[0], f.cell[0] + 1, f.cell[1], f.cell[1] + 1, f.cell[2], f.cell[2] + 1.3 * f.scale)
                  for f in self.figures + self.ghost_figures]
        # ladders stand beside the construction: part of the picture, so the camera must not cut them off
        boxes += [(lad.base[0] - 0.6, lad.base[0] + 0.6, lad.base[1] - 0.1, lad.base[1] + 0.1, lad.base[2],
                   lad.base[2] + lad.height) for lad in self.ladders]
        # overlay arrows (forces, pushes, the tilt direction) must stay in the picture too
        boxes += [(min(a.tail[0], a.head[0]), max(a.tail[0], a.head[0]), min(a.tail[1], a.head[1]),
                   max(a.tail[1], a.head[1]), min(a.tail[2], a.head[2]), max(a.tail[2], a.head[2]))
                  for a in self.arrows]
        if not boxes:
            return (0.0, 1.0, 0.0, 1.0, 0.0, 1.0)
        return (min(b[0] for b in boxes), max(b[1] for b in boxes), min(b[2] for b in boxes),
                max(b[3] for b in boxes), min(b[4] for b in boxes), max(b[5] for b in boxes))


def face_names(block: Block) -> tuple[str, str, str, str, str, str]:
    """The colour names of a build block's faces in FACES order."""
    return tuple(COLOURS[c] for c in block.faces)  # type: ignore[return-value]


def _table_extent(bounds: tuple[float, ...], margin: float) -> tuple[float, float, float, float]:
    return (bounds[0] - margin, bounds[1] + margin, bounds[2] - margin, bounds[3] + margin)


def build_scene(build: Build, violations: Iterable[Any] | None = None, *,
                selected: str | None = None, movable: Iterable[str] = (),
                ghosts: Sequence[SceneGhost] = (), targets: Iterable[tuple[int, int, int]] = (),
                current_colour: str | None = None, players: Sequence[dict[str, Any]] = (),
                title: str = "", lines: Sequence[str] = (), hover: str | None = None) -> Scene:
    """Turn a build and optional overlays into a Scene.

    violations: objects with `rule`, `blocks`, `cells` (tower.climbers.legality.Violation) or their JSON form; the named
    blocks are flagged and the named cells marked. selected/movable: block ids to highlight (the game says which
    blocks may move). ghosts: placements offered by the game. targets: cells a figure may step to. hover: the
    block under the mouse.
    players: the `players` list of a Climbers `state.view()` (for the ladders each player still holds).
    """
    problems: dict[str, list[str]] = {}
    markers: list[SceneMarker] = []
    problem_figures: set[tuple[int, int, int]] = set()
    for v in violations or ():
        if (v.get("level") if isinstance(v, dict) else getattr(v, "level", "error")) not in (None, "error"):
            continue  # a warning (more blocks than the box holds) is said in words, not outlined as a problem
        rule, blocks, cells = _violation_parts(v)
        for b in blocks:
            problems.setdefault(b, []).append(rule)
        for c in cells:
            markers.append(SceneMarker(c, "problem", rule))
            if rule.startswith("figure"):
                problem_figures.add(c)
    movable_ids = set(movable)
    blocks = [SceneBlock(b.id, tuple(b.origin), tuple(b.size), face_names(b),  # type: ignore[arg-type]
                         tuple(dict.fromkeys(problems.get(b.id, ()))), b.id == selected, b.id in movable_ids)
              for b in build.blocks]
    by_id = {b.id: b for b in build.blocks}
    figures = [SceneFigure(f.colour, tuple(f.cell), f.cell in problem_figures,  # type: ignore[arg-type]
                           f.colour == current_colour)
               for f in build.figures]
    stones = []
    for s in build.stones:
        b = by_id.get(s.block)
        if b is not None:
            stones.append(SceneStone(s.colour, s.block, (b.origin[0] + b.size[0] / 2, b.origin[1] + b.size[1] / 2,
                                                         float(b.top))))
    markers += [SceneMarker(tuple(c), "target") for c in targets]  # type: ignore[arg-type]
    scene = Scene(blocks, figures, stones, [], list(ghosts), markers, title, list(lines), hover=hover)
    bx = scene.bounds()
    scene.table = _table_extent(bx, margin=max(6.0, 0.6 * max(bx[1] - bx[0], bx[3] - bx[2])))
    scene.ladders = _ladders(players, bx)
    return scene


def _violation_parts(v: Any) -> tuple[str, tuple[str, ...], list[tuple[int, int, int]]]:
    """(rule, block ids, cells) of a Violation object or its `to_json()` dict."""
    if isinstance(v, dict):
        blocks = tuple(v.get("blocks") or ([v["block"]] if v.get("block") else []))
        return v["rule"], blocks, [tuple(c) for c in v.get("cells", [])]  # type: ignore[misc]
    return v.rule, tuple(v.blocks), [tuple(c) for c in v.cells]


def _ladders(players: Sequence[dict[str, Any]], bounds: tuple[float, ...]) -> list[SceneLadder]:
    """Ladders still held, in front of the construction: one place per player, left to right."""
    out = []
    n = len(players)
    for q, p in enumerate(players):
        # places spread along the front (-y) side; each shows its owner's unused ladders side by side
        width = max(bounds[1] - bounds[0], 3.5 * n)
        x = (bounds[0] + bounds[1]) / 2 - width / 2 + width * (q + 0.5) / max(n, 1)
        y = bounds[2] - 3.0
        for k, kind in enumerate(("short", "long")):
            if p.get(f"{kind}_ladder"):
                out.append(SceneLadder(p["colour"], kind, (x - 0.8 + 1.6 * k, y, 0.0), LADDER_HEIGHT[kind]))
    return out


def ghost_from_move(move: Any, build: Build, selected: bool = False) -> SceneGhost:
    """A ghost block for a Climbers block move (kind 'block': block id, new origin, size, top colour).

    The side colours of a placement are not part of the move (only the top matters to play); the ghost takes
    the block's own colouring turned to show the chosen top, or the plain top colour on all sides if no
    orientation of the block gives that size and top.
    """
    from tower.climbers.blocks import orientations

    b = build.block(move.block)
    faces = None
    for size, colouring in orientations(b.size, b.faces):
        if size == tuple(move.size) and colouring[4] == move.top:
            faces = tuple(COLOURS[c] for c in colouring)
            break
    if faces is None:
        faces = (COLOURS[move.top],) * 6
    return SceneGhost(move.block, tuple(move.cell), tuple(move.size), faces, selected, str(move))  # type: ignore[arg-type]


PHASE_TEXT = {"figure1": "1 figure move (optional)", "block": "2 move a block", "figure2": "3 figure move (optional)",
              "stone": "4 blocking stone (optional)"}


def climbers_status(view: dict[str, Any], names: Sequence[str] | None = None) -> list[str]:
    """Status lines of a Climbers view: round, whose turn and which step, then each player's height, ladders
    still held and stone. `names`: how the game names each player (`player_label`; default: the colours)."""
    players = view.get("players", [])
    cur = view.get("current_player")

    def name(q: int) -> str:
        colour = players[q]["colour"]
        label = names[q] if names else colour
        return label if colour in label else f"{label} ({colour})"

    phase = view.get("phase", "?")
    rnd = view.get("round")
    counted = rnd + 1 if isinstance(rnd, int) else "?"  # the game counts rounds from 0, people from 1
    if cur is not None and cur < len(players):
        head = f"round {counted}: {name(cur)} to play, step {PHASE_TEXT.get(phase, phase)}"
    else:
        head = "game over"  # (no round: one ended by the round limit has its counter already past the last)
    lines = [head]
    width = max([10] + [len(name(q)) for q in range(len(players))])
    for q, p in enumerate(players):
        ladders = "+".join(k for k in ("short", "long") if p.get(f"{k}_ladder")) or "none"
        mark = ">" if q == cur else " "
        lines.append(f"{mark}{name(q):<{width}} height {p['height']:>2}  ladders {ladders:<10} "
                     f"stone {p.get('stone', '?')}")
    return lines


def scene_from_climbers_view(view: dict[str, Any], **overlays: Any) -> Scene:
    """A Climbers `state.view(player)` as a scene: the build, the players' ladders, whose turn it is."""
    from tower.climbers.build import parse_build

    build = parse_build(view["build"])
    players = view.get("players", [])
    cur = view.get("current_player")
    colour = players[cur]["colour"] if cur is not None and cur < len(players) else None
    names = overlays.pop("names", None)
    lines = list(overlays.pop("lines", ())) or climbers_status(view, names)
    return build_scene(build, current_colour=colour, players=players, lines=lines, **overlays)


__all__ = ["PALETTE", "Scene", "SceneArrow", "SceneBlock", "SceneLegendEntry", "SceneFigure", "SceneFrame", "SceneGhost", "SceneLabel", "SceneLadder", "SceneMarker",
           "SceneStone", "build_scene", "climbers_status", "face_names", "ghost_from_move", "scene_from_climbers_view",
           "FACES"]
