"""Partners' table: the square board with its sections, homes, bases and finish lanes, the pawns and the hand."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from viewer.cards.common import (
    CARD_D,
    CARD_H,
    CARD_W,
    box,
    finish,
    hand_row,
    label,
    namer,
    pawn,
    seat_text,
    wrap,
)
from viewer.scene import Scene

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


#: Where pawns sharing a square stand on it (a seat's home holds several): side by side, then in a 2 x 2 square,
#: so each one shows and a click can reach it.
FAN = {1: [(0.0, 0.0)], 2: [(-0.45, 0.0), (0.45, 0.0)], 3: [(-0.45, -0.4), (0.45, -0.4), (0.0, 0.4)],
       4: [(-0.45, -0.45), (0.45, -0.45), (-0.45, 0.45), (0.45, 0.45)]}


def _fanned(i: int, locations: Sequence[int]) -> tuple[float, float]:
    """Pawn i's offset from the middle of its square among the pawns standing on the same square (a base
    slot holds one pawn: no offset)."""
    where = locations[i]
    if where < 0:
        return (0.0, 0.0)
    sharing = [k for k, w in enumerate(locations) if w == where]
    return FAN.get(len(sharing), FAN[4])[sharing.index(i) % 4]


def _rotate(x: float, y: float, seat: int, players: int) -> tuple[float, float]:
    a = 2 * math.pi * seat / players
    return (x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a))


def partners_scene(view: dict[str, Any], lines: Sequence[str] = (), names: Sequence[str] | None = None) -> Scene:
    """The square track with homes, bases and finish zones, the 16 pawns and the hand."""
    name = namer(names, view)
    n = int(view.get("players", 4))
    colours = view.get("colours", ["yellow", "red", "blue", "green"])
    board = partners_board(n)
    t = SECTION * n
    you = view.get("you")  # None: a spectator's public view
    blocks = [box("board", (-22, -22, 0), (44, 44, 0.3), "board")]
    labels = []
    for i, (x, y) in enumerate(board["track"]):
        seat = i // SECTION
        top = colours[seat] if i % SECTION == 0 else "tile"  # each seat's first counted space in its colour
        blocks.append(box(f"space-{i}", (x - 0.9, y - 0.9, 0.3), (1.8, 1.8, 0.2), top, "tile"))
    for q in range(n):
        hx, hy = board["homes"][q]
        blocks.append(box(f"home-{q}", (hx - 0.9, hy - 0.9, 0.3), (1.8, 1.8, 0.35), colours[q], "tile"))
        for d, (x, y) in enumerate(board["finish"][q]):
            blocks.append(box(f"finish-{q}-{d}", (x - 0.8, y - 0.8, 0.3), (1.6, 1.6, 0.15), colours[q], "white"))
        for k, (x, y) in enumerate(board["bases"][q]):
            blocks.append(box(f"base-{q}-{k}", (x - 0.7, y - 0.7, 0.3), (1.4, 1.4, 0.1), colours[q], "black"))
        bx, by = (sum(c) / 4 for c in zip(*board["bases"][q], strict=True))
        labels.append(label(bx * 1.12, by * 1.12, 0.4, name(q) + (" (you)" if q == you else "")))
    figures = []
    locations = view.get("locations", [])
    for i, where in enumerate(locations):
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
        dx, dy = _fanned(i, locations)
        figures.append(pawn(colour, x + dx, y + dy, z, PARTNERS_PAWN_SCALE))
    # the cards played lie in the middle of the board, the last one on top
    last = (view.get("discard") or [None])[-1]
    blocks.append(box("discard", (-CARD_W, -CARD_D, 0.3), (2 * CARD_W, 2 * CARD_D, CARD_H), "card"))
    labels.append(label(0, 0, 0.3 + CARD_H, f"played: {last}" if last else "played cards"))
    hand = view.get("hand", [])
    own = colours[you] if you is not None and you < len(colours) else "white"
    cards, card_labels = hand_row(hand, lambda _c: own, y=-31, scale=2.0)
    blocks += cards
    labels += card_labels
    teams = view.get("teams", [])
    cur = view.get("current_player")
    seat = seat_text(name, you)
    if you is not None and you < len(colours) and colours[you] not in seat:
        seat += f" ({colours[you]})"
    text = [f"Partners - {seat}; "
            f"{name(cur) if cur is not None else 'nobody'} to act ({view.get('phase', '')})",
            "teams: " + "  vs  ".join("+".join(colours[q] for q in team) for team in teams)]
    if you is not None:
        text += wrap("your hand:", hand)
    if view.get("partner_holds"):  # on the hand's line where it fits: the box stays clear of the far corner
        held = f"your partner holds the {view['partner_holds']} you gave"
        if you is not None and len(text[-1]) + len(held) < 64:
            text[-1] += f"; {held}"
        else:
            text.append(held)
    # (no recent moves here: the box would grow over the far corner of the board; the page and the window
    # each keep a log beside the table)
    if view.get("winners"):  # in names, as everywhere else: "winners: P1 red and P3 green"
        text.append("winners: " + " and ".join(name(q) for q in view["winners"]))
    return finish(Scene(blocks=blocks, figures=figures), text + list(lines), labels)


# --- Diabolo ---------------------------------------------------------------------------------------------------
