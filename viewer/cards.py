"""Pure scenes of the three card games, built from `state.view(player)` only (what that player may see).

Board spaces and cards are flat boxes (`SceneBlock`s, so they share the block layer and its picking ids), pawns
are figures. Card values, special spaces and seats are `SceneLabel`s (text that always faces the viewer); the
overlay text repeats what a player needs in words. Grid units as everywhere in the viewer; a board space is
2 x 2 units.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from viewer.scene import Scene, SceneBlock, SceneFigure, SceneLabel

CARD_W, CARD_D, CARD_H = 1.6, 2.4, 0.12  # a card lying flat: 3.2 x 4.8 cm, a little thick so it casts an edge
SEVENTH_COLOURS = {"red": "red", "blue": "blue", "grey": "grey", "yellow": "yellow", "green": "green",
                   "pink": "pink", "white": "white"}


def _box(id: str, origin: Sequence[float], size: Sequence[float], top: str, sides: str | None = None) -> SceneBlock:
    s = sides or top
    return SceneBlock(id, tuple(origin), tuple(size), (s, s, s, s, top, s))  # type: ignore[arg-type]


HAND_GAP = 1.0  # between two cards of the hand: room for the value labels
HAND_ROW = 7  # cards per row of the hand; a longer hand takes a second row in front


def _card(id: str, x: float, y: float, colour: str, z: float = 0.0, scale: float = 1.0) -> SceneBlock:
    return _box(id, (x, y, z), (CARD_W * scale, CARD_D * scale, CARD_H), colour, "card")


def _hand_row(hand: Sequence[str], colour_of, y: float, text_of=str,
              scale: float = 1.0) -> tuple[list[SceneBlock], list[SceneLabel]]:
    """The hand as face-up cards centred on x = 0 in rows of HAND_ROW (the first row at `y`, more rows in front),
    each labelled with its value."""
    w, d = CARD_W * scale, CARD_D * scale
    step = w + HAND_GAP
    cards, labels = [], []
    for i, c in enumerate(hand):
        row, k = divmod(i, HAND_ROW)
        in_row = min(HAND_ROW, len(hand) - row * HAND_ROW)
        x = -(in_row * step - HAND_GAP) / 2 + k * step
        yy = y - row * (d + 0.8)
        cards.append(_card(f"hand-{i}", x, yy, colour_of(c), scale=scale))
        labels.append(_label(x + w / 2, yy + d / 2, CARD_H, text_of(c)))
    return cards, labels


def _label(x: float, y: float, z: float, text: str) -> SceneLabel:
    return SceneLabel((float(x), float(y), float(z) + 0.05), str(text))


def _pawn(colour: str, x: float, y: float, z: float, scale: float = 1.0) -> SceneFigure:
    # SceneFigure cells are cell corners: the renderer stands the pawn at cell + 0.5
    return SceneFigure(colour, (x - 0.5, y - 0.5, z), scale=scale)  # type: ignore[arg-type]


def _finish(scene: Scene, lines: Sequence[str], labels: Sequence[SceneLabel] = ()) -> Scene:
    b = scene.bounds()
    scene.table = (b[0] - 3, b[1] + 3, b[2] - 3, b[3] + 3)
    scene.shadow = False  # the contact shadow is for towers; under a flat board it is just a dark patch
    scene.flat = True
    scene.lines = list(lines) + scene.lines
    scene.labels = list(labels) + scene.labels
    return scene


def _namer(names: Sequence[str] | None, view: dict[str, Any] | None = None):
    """How to name player p: the given names, else the labels the view carries (the game's `player_label`), else
    the seat ("P2")."""
    names = names or (view or {}).get("labels")
    return (lambda p: names[p]) if names else (lambda p: f"P{p}")


def _seat_text(name, you: int | None) -> str:
    """Whose eyes the scene is seen through: a seat, or a spectator's (a public view has no seat)."""
    return f"you are {name(you)}" if you is not None else "you are watching (public view: no hand is shown)"


def _wrap(label: str, items: Sequence[str], width: int = 64) -> list[str]:
    out, line = [], label
    for item in items:
        if len(line) + len(item) + 1 > width:
            out.append(line)
            line = "  "
        line += " " + item
    out.append(line)
    return out


# --- In 7th Heaven -----------------------------------------------------------------------------------------

SEVENTH_SPECIALS = {2: ("green", "2->5"), 6: ("green", "6->9"), 13: ("red", "13->10"),
                    4: ("purple", "4 swap!"), 8: ("yellow", "8 swap?"), 14: ("yellow", "14 swap?")}


def seventh_specials(view: dict[str, Any]) -> dict[int, tuple[str, str]]:
    """Space -> (tile colour, label) of the special spaces the game's view names (its `specials` option; the
    standard ones for a view without them): jumps forward green, back red; a forced swap purple, a may-swap
    yellow."""
    spec = view.get("specials")
    if not spec:
        return SEVENTH_SPECIALS
    out: dict[int, tuple[str, str]] = {}
    for src, dst in spec.get("jumps", {}).items():
        out[int(src)] = ("green" if int(dst) > int(src) else "red", f"{src}->{dst}")
    for i in spec.get("must_swap", []):
        out[int(i)] = ("purple", f"{i} swap!")
    for i in spec.get("may_swap", []):
        out[int(i)] = ("yellow", f"{i} swap?")
    return out


SEVENTH_PAWN_SCALE = 1.2


def seventh_card_colour(card: str) -> str:
    for c in SEVENTH_COLOURS:
        if card.startswith(c):
            return SEVENTH_COLOURS[c]
    return "gold"  # the text cards


def seventh_card_text(card: str) -> str:
    """A card's label: its value (the card shows its colour), or its name for the text cards."""
    colour = seventh_card_colour(card)
    return card[len(colour):] if colour != "gold" and len(card) > len(colour) else card


def seventh_track(length: int) -> list[tuple[float, float, float]]:
    """Centre of each space's top: a rising arc of 260 degrees that starts in front of the default camera and
    ends high at the back left, so the tall last spaces hide nothing behind them."""
    out = []
    for i in range(length + 1):
        angle = math.radians(-110 + 260 * i / max(length, 1))
        out.append((9 * math.cos(angle), 9 * math.sin(angle), 0.45 * i + 0.3))
    return out


def seventh_heaven_scene(view: dict[str, Any], lines: Sequence[str] = (), names: Sequence[str] | None = None) -> Scene:
    """The track as a stair rising from the Garden Party to 7th Heaven, the six pawns, partner cards, the hand."""
    name = _namer(names, view)
    length = int(view.get("track_length", 20))
    blocks, figures, labels = [], [], []
    positions = seventh_track(length)
    specials = seventh_specials(view)
    for i, (x, y, z) in enumerate(positions):
        colour = "gold" if i == length else ("grey" if i == 0 else specials.get(i, ("tile",))[0])
        blocks.append(_box(f"space-{i}", (x - 1, y - 1, 0), (2, 2, z), colour, "tile"))
        text = "7th Heaven" if i == length else "start" if i == 0 else specials.get(i, ("", ""))[1]
        if text:
            # outside the arc, so the label never covers the pawns standing on the space
            k = 1.3 if i else 1.45
            labels.append(_label(x * k, y * k, z, text))
    by_space: dict[int, list[str]] = {}
    for colour, space in view.get("pawns", {}).items():
        by_space.setdefault(min(max(int(space), 0), length), []).append(colour)
    for space, colours in by_space.items():
        x, y, z = positions[space]
        for k, colour in enumerate(colours):
            dx, dy = (k % 3 - 1) * 0.6, (k // 3 - 0.5) * 0.7
            figures.append(_pawn(SEVENTH_COLOURS.get(colour, "white"), x + dx, y + dy, z, SEVENTH_PAWN_SCALE))
    # partner cards: one face-up card per pawn colour, laid before its holder
    holders: dict[int, list[str]] = {}
    for colour, holder in view.get("partners", {}).items():
        if holder is not None:
            holders.setdefault(int(holder), []).append(colour)
    you = view.get("you")  # None: a spectator's public view
    for p, colours in sorted(holders.items()):
        x0 = 13 + 5 * p
        for k, colour in enumerate(colours):
            blocks.append(_card(f"partner-{p}-{k}", x0 + k * (CARD_W + 0.2), -4.0, colour))
        labels.append(_label(x0 + CARD_W, -4.0 - 1.0, CARD_H, name(p) + (" (you)" if p == you else "")))
    hand = view.get("hand", [])
    cards, card_labels = _hand_row(hand, seventh_card_colour, y=-16, text_of=seventh_card_text)
    blocks += cards
    labels += card_labels
    cur = view.get("current_player")
    text = [f"In 7th Heaven - {_seat_text(name, you)}; "
            f"{name(cur) if cur is not None else 'nobody'} to act ({view.get('phase', '')})"]
    if you is not None:
        text.append("you play for the pawns whose partner cards lie before you: "
                    + ("+".join(holders.get(you, [])) or "none"))
    text.append("partners: " + "  ".join(f"{name(p)}: {'+'.join(cs)}" for p, cs in sorted(holders.items())))
    if you is not None:
        text += _wrap("your hand:", hand)
    text.append(f"deck {view.get('deck', '?')}, discard top: {(view.get('discard') or ['-'])[-1]}"
                + (f"; last move: {view['last_move']}" if view.get("last_move") else ""))
    scene = Scene(blocks=blocks, figures=figures)
    return _finish(scene, list(text) + list(lines), labels)


# --- Partners ------------------------------------------------------------------------------------------------

SECTION = 16
FINISH = 4
PARTNERS_PAWN_SCALE = 1.5  # the board is big: pawns of Climbers size would be specks


def partners_board(players: int) -> dict[str, Any]:
    """Board geometry: centre of every track space, home, finish space and base slot (grid units)."""
    t = SECTION * players
    side = 2.2 * SECTION / 2  # half the square's edge
    track = []
    for i in range(t):
        seat, k = divmod(i, SECTION)
        u = -side + (k + 0.5) * (2 * side / SECTION)
        # seat 0 runs along the bottom edge left to right, then counter-clockwise
        x, y = _rotate(u, -side, seat, players)
        track.append((x, y))
    homes, finish, bases = [], [], []
    for q in range(players):
        hx, hy = _rotate(-side - 1.1, -side - 2.2, q, players)
        homes.append((hx, hy))
        finish.append([_rotate(-side + 1.1, -side + 2.2 * (d + 1), q, players) for d in range(FINISH)])
        bases.append([_rotate(-side - 4.5 + 1.6 * (k % 2), -side - 5.5 + 1.6 * (k // 2), q, players)
                      for k in range(4)])
    return {"track": track, "homes": homes, "finish": finish, "bases": bases}


def _rotate(x: float, y: float, seat: int, players: int) -> tuple[float, float]:
    a = 2 * math.pi * seat / players
    return (x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a))


def partners_scene(view: dict[str, Any], lines: Sequence[str] = (), names: Sequence[str] | None = None) -> Scene:
    """The square track with homes, bases and finish zones, the 16 pawns and the hand."""
    name = _namer(names, view)
    n = int(view.get("players", 4))
    colours = view.get("colours", ["yellow", "red", "blue", "green"])
    board = partners_board(n)
    t = SECTION * n
    you = view.get("you")  # None: a spectator's public view
    blocks = [_box("board", (-22, -22, 0), (44, 44, 0.3), "board")]
    labels = []
    for i, (x, y) in enumerate(board["track"]):
        seat = i // SECTION
        top = colours[seat] if i % SECTION == 0 else "tile"  # each seat's first counted space in its colour
        blocks.append(_box(f"space-{i}", (x - 0.9, y - 0.9, 0.3), (1.8, 1.8, 0.2), top, "tile"))
    for q in range(n):
        hx, hy = board["homes"][q]
        blocks.append(_box(f"home-{q}", (hx - 0.9, hy - 0.9, 0.3), (1.8, 1.8, 0.35), colours[q], "tile"))
        for d, (x, y) in enumerate(board["finish"][q]):
            blocks.append(_box(f"finish-{q}-{d}", (x - 0.8, y - 0.8, 0.3), (1.6, 1.6, 0.15), colours[q], "white"))
        for k, (x, y) in enumerate(board["bases"][q]):
            blocks.append(_box(f"base-{q}-{k}", (x - 0.7, y - 0.7, 0.3), (1.4, 1.4, 0.1), colours[q], "black"))
        bx, by = (sum(c) / 4 for c in zip(*board["bases"][q], strict=True))
        labels.append(_label(bx * 1.12, by * 1.12, 0.4, name(q) + (" (you)" if q == you else "")))
    figures = []
    for i, where in enumerate(view.get("locations", [])):
        seat, k = divmod(i, 4)
        colour = colours[seat] if seat < len(colours) else "white"
        if where < 0:
            x, y = board["bases"][seat][k]
            z = 0.4
        elif where < t:
            (x, y), z = board["track"][where], 0.5
        elif where < t + n:
            (x, y), z = board["homes"][where - t], 0.65
        else:
            q, d = divmod(where - t - n, FINISH)
            (x, y), z = board["finish"][q][d], 0.45
        figures.append(_pawn(colour, x, y, z, PARTNERS_PAWN_SCALE))
    hand = view.get("hand", [])
    own = colours[you] if you is not None and you < len(colours) else "white"
    cards, card_labels = _hand_row(hand, lambda _c: own, y=-31, scale=2.0)
    blocks += cards
    labels += card_labels
    teams = view.get("teams", [])
    cur = view.get("current_player")
    seat = _seat_text(name, you)
    if you is not None and you < len(colours) and colours[you] not in seat:
        seat += f" ({colours[you]})"
    text = [f"Partners - {seat}; "
            f"{name(cur) if cur is not None else 'nobody'} to act ({view.get('phase', '')})",
            "teams: " + "  vs  ".join("+".join(colours[q] for q in team) for team in teams)]
    if you is not None:
        text += _wrap("your hand:", hand)
    if view.get("partner_holds"):
        text.append(f"your partner holds the {view['partner_holds']} you gave")
    if view.get("log"):
        text += _wrap("recent:", [f"{e};" for e in view["log"][-4:]])
    if view.get("winners"):
        text.append(f"winners: {view['winners']}")
    return _finish(Scene(blocks=blocks, figures=figures), text + list(lines), labels)


# --- Diabolo ---------------------------------------------------------------------------------------------------

def diabolo_card_colour(card: str) -> str:
    return card.split()[0] if card.split() and card.split()[0] in ("red", "yellow", "green", "purple", "blue") \
        else "white"


def diabolo_card_text(card: str) -> str:
    """A hand card's label: the number (the card shows its colour); other cards keep their text."""
    words = card.split()
    return words[-1] if len(words) == 2 and diabolo_card_colour(card) != "white" else card


DIABOLO_STEP = CARD_W + 0.35  # from one card of a row to the next


def diabolo_scene(view: dict[str, Any], lines: Sequence[str] = (), names: Sequence[str] | None = None) -> Scene:
    """Five heaven/hell rows: hell (devil) cards to the left, heaven (angel) cards to the right; the hand."""
    name = _namer(names, view)
    blocks: list[SceneBlock] = []
    labels: list[SceneLabel] = []
    rows = view.get("rows", [])
    scoring = view.get("scoring_row")
    cur = view.get("current_player")
    you = view.get("player")  # None: a spectator's public view
    text = [f"Diabolo - {_seat_text(name, you)}; {name(cur) if cur is not None else 'nobody'} to act "
            f"({view.get('phase', '')}), round {view.get('round')}/{view.get('rounds')}",
            "scores: " + "  ".join(f"{name(p)}: {s}" for p, s in enumerate(view.get("scores", [])))]
    longest = max([len(r.get("devil", [])) for r in rows] + [len(r.get("angel", [])) for r in rows] + [3])
    for r, row in enumerate(rows):
        y = (2 - r) * 3.2
        colour = row.get("colour", "white")
        blocks.append(_box(f"row-{r}", (-1.0, y, 0.25), (2.0, CARD_D, 0.5), colour, "black" if row.get("closed")
                           else colour))
        for k, value in enumerate(row.get("devil", [])):
            x = -1.4 - CARD_W - k * DIABOLO_STEP
            blocks.append(_card(f"devil-{r}-{k}", x, y, colour, z=0.25))
            labels.append(_label(x + CARD_W / 2, y + CARD_D / 2, 0.25 + CARD_H, value))
        for k, value in enumerate(row.get("angel", [])):
            x = 1.4 + k * DIABOLO_STEP
            blocks.append(_card(f"angel-{r}-{k}", x, y, colour, z=0.25))
            labels.append(_label(x + CARD_W / 2, y + CARD_D / 2, 0.25 + CARD_H, value))
        # each side's sum just beyond its last card; a closed or scoring row says so beside the heaven sum
        devil, angel = row.get("devil", []), row.get("angel", [])
        note = "closed" if row.get("closed") else ("scoring" if scoring == colour else "")
        # (one card's width further out than the last card: a previewed card goes in that place)
        labels.append(_label(-1.4 - (len(devil) + 1) * DIABOLO_STEP - 1.0, y + CARD_D / 2, 0.3, f"sum {sum(devil)}"))
        labels.append(_label(1.4 + (len(angel) + 1) * DIABOLO_STEP + 1.0, y + CARD_D / 2, 0.3,
                             f"sum {sum(angel)}" + (f" {note}" if note else "")))
    # a dark slab on the hell side and a light one on the heaven side make the two halves readable; they grow
    # with the longest row
    half = 1.4 + longest * DIABOLO_STEP + 3.0
    blocks.append(_box("hell", (-half, -7.5, 0), (half - 1, 17, 0.25), "black"))
    blocks.append(_box("heaven", (1, -7.5, 0), (half - 1, 17, 0.25), "white"))
    labels.append(_label(-half / 2, 9.1, 0.3, "HELL (devil)"))
    labels.append(_label(half / 2, 9.1, 0.3, "HEAVEN (angel)"))
    hand = view.get("hand", [])
    cards, card_labels = _hand_row(hand, diabolo_card_colour, y=-11.5, text_of=diabolo_card_text)
    blocks += cards
    labels += card_labels
    if you is not None:
        text += _wrap("your hand:", hand)
    shown = [f"{name(p)}: {' '.join(cs)}" for p, cs in enumerate(view.get("shown", [])) if cs]
    if shown:
        text += _wrap("shown:", shown)
    if view.get("my_doubler") is not None:
        text.append(f"your doubler card: {'still in your hand' if view.get('my_doubler') else 'used'}"
                    + (f"; scoring the {scoring} row: double its points for you?" if scoring else ""))
    held = [name(p) for p, d in enumerate(view.get("doublers", [])) if d]
    if held:
        text.append("doubler cards still in hand: " + ", ".join(held))
    if scoring and view.get("decided"):
        # who has answered already, never what: the answers are shown together once the last one is in
        text.append("answered (shown when all have): " + ", ".join(name(p) for p in view["decided"]))
    return _finish(Scene(blocks=blocks), text + list(lines), labels)


#: table layout (`GameState.layout`) -> its scene
SCENES = {"heaven-track": seventh_heaven_scene, "partners-track": partners_scene, "diabolo-rows": diabolo_scene}


def card_scene(layout: str, view: dict[str, Any], lines: Sequence[str] = (), names: Sequence[str] | None = None,
               **_: Any) -> Scene:
    """The scene of a card game's view laid out as `layout` (players called `names`, the game's labels);
    an unknown layout is BadInput."""
    from tower.games.errors import BadInput

    if layout not in SCENES:
        raise BadInput(f"the viewer knows no table layout {layout!r}", "$.game")
    return SCENES[layout](view, lines, names)
