"""The Climbers for people at a terminal: the position as a top-down height map, the end of the game in words,
and how to type a move.

The map is what a player would see looking down on the table: one entry per 1x1 column, x to the right and y
up, the column's height and the colour of the top it shows, which figure stands there and which blocks carry a
stone. Four characters a column keep a start tower with its figures within about 70 terminal columns.
"""

from __future__ import annotations

from typing import Any

from tower.climbers import moves as moves_module
from tower.climbers.serial import stone_text

#: The state these functions serve: `game.ClimbersState`, which imports this module (named, not imported, so that
#: imports point one way).
ClimbersState = Any

#: One letter per colour on the map (dark-blue is "d": "b" would leave people guessing which blue).
LETTERS = {"red": "r", "yellow": "y", "dark-blue": "d", "light-blue": "l", "purple": "p", "grey": "g"}
STEPS = {
    "figure1": "move the figure, skip to the block move, or pass the turn",
    "block": "move one block",
    "figure2": "move the figure again, or skip",
    "stone": "lay the blocking stone, or skip",
}


def height_map(state: ClimbersState) -> list[str]:
    """The table from above, cut to the construction and the figures with a margin of one column."""
    from tower.climbers.blocks import COLOURS

    heights, topb, board = state.heights, state.topb, state.board
    cols = [(x, y) for x in range(heights.shape[0]) for y in range(heights.shape[1]) if heights[x, y] > 0]
    cols += [f[:2] for f in state.figures]
    x0 = max(0, min(c[0] for c in cols) - 1)
    x1 = min(heights.shape[0] - 1, max(c[0] for c in cols) + 1)
    y0 = max(0, min(c[1] for c in cols) - 1)
    y1 = min(heights.shape[1] - 1, max(c[1] for c in cols) + 1)
    seat = {f[:2]: q for q, f in enumerate(state.figures)}
    stoned = state.blocked()
    lines = ["    y\\x" + "".join(f"{x:>4}" for x in range(x0, x1 + 1))]
    for y in range(y1, y0 - 1, -1):
        row = f"{y:>7}"
        for x in range(x0, x1 + 1):
            b = int(topb[x, y])
            mark = str(seat[(x, y)]) if (x, y) in seat else "#" if b in stoned else " "
            if b < 0:
                row += f"  .{mark}"
            else:
                row += f"{int(heights[x, y]):>2}{LETTERS[COLOURS[board.top_colour(b)]]}{mark}"
        lines.append(row.rstrip())
    return lines


def legend(state: ClimbersState) -> str:
    seats = ", ".join(f"{q} {state.colours[q]}" for q in range(state.num_players))
    return ("map: x to the right, y up; each column's height and top colour (r red, y yellow, d dark-blue,\n"
            "  l light-blue, p purple, g grey; . the table), then # for a block under a stone or a figure:\n"
            f"  {seats}; 'help' shows how to type moves")


def describe(state: ClimbersState, player: int) -> str:
    """The position for the terminal: who is to play and what the step is, the height map, the players, and
    the legal moves in short (every stone move; the block moves by block)."""
    head = f"round {state.round + 1}, turn {state.turn + 1}"  # counted from 1, as people count
    if state.over:
        head += ": the game is over. " + outcome(state)
    else:
        head += (f": {state.player_label(state.player)} to play ({state.phase}: {STEPS[state.phase]})"
                 + ("\nLAST CHANCE: nobody climbed above all the others last round; unless this player does now, "
                    "the game ends" if state.last_chance else ""))
    lines = [head, *height_map(state), legend(state)]
    for q in range(state.num_players):
        x, y, z = state.figures[q]
        lad = "+".join(n for n, has in (("short", state.short[q]), ("long", state.long[q])) if has) or "none"
        lines.append(f"  {state.player_label(q):>13}: figure at {x},{y} height {z}, ladders {lad}, "
                     f"stone {stone_text(state, q)}")
    if state.last_moved is not None:
        lines.append(f"  moved last turn (may not move now): {state.ids[state.last_moved]}")
    if state.over:
        return "\n".join(lines)
    legal = state.legal_moves()
    kinds: dict[str, int] = {}
    if state.phase == "block":
        kinds = {legal[0].kind: len(legal)}
    else:
        for m in legal:
            kinds[m.kind] = kinds.get(m.kind, 0) + 1
    lines.append("  legal: " + ", ".join(f"{n} {k}" for k, n in kinds.items()))
    figs = [str(m) for m in legal if m.kind == "fig"]
    if figs:
        lines.append(_wrapped("  figure moves: ", figs[:30], "..." if len(figs) > 30 else ""))
    stone_moves = [str(m.block) for m in legal if m.kind == "stone"]
    if stone_moves:
        lines.append(_wrapped("  stone moves (stone ID): ", stone_moves))
    if kinds.get("block"):
        table = state.block_table()
        board = state.board
        movable = sorted({int(i) for i in table.placements.block[table.rows]}
                         | {state.index[m.block] for m in table.extra}, key=lambda i: state.ids[i])  # type: ignore[index]
        where = []
        for i in movable:
            o, s = board.origin[i], board.size[i]
            where.append(f"{state.ids[i]}@{o[0]},{o[1]},{o[2]}({s[0]}x{s[1]}x{s[2]})")
        lines.append(_wrapped("  movable blocks (corner, extents): ", where))
    return "\n".join(lines)


def _wrapped(head: str, items: list[str], tail: str = "", width: int = 100) -> str:
    """`head` and the items, comma separated, in lines of at most `width` characters."""
    lines, line = [], head
    for item in [*items, tail] if tail else items:
        if len(line) + len(item) + 2 > width and line.strip():
            lines.append(line.rstrip())
            line = " " * 4
        line += item + ", "
    lines.append(line.rstrip(", "))
    return "\n".join(lines)


def outcome(state: ClimbersState) -> str:
    """The end in words: who wins at which height, who is as high but got there first, and every height."""
    order = state.ranking()
    best = order[0]
    top = state.figures[best][2]
    text = f"{state.player_label(best)} wins, standing highest at height {top}"
    level = [q for q in order[1:] if state.figures[q][2] == top]
    if level:
        names = " and ".join(state.player_label(q) for q in level)
        text += f" ({names} {'is' if len(level) == 1 else 'are'} as high but got there earlier)"
    heights = ", ".join(f"{state.player_label(q)} {state.figures[q][2]}" for q in range(state.num_players))
    return f"{text}; heights: {heights}"


def move_help() -> str:
    """How to type a move (the moves module's own description)."""
    return (moves_module.__doc__ or "").strip()


# --- words for newcomers (the move lists of the pages and the window) ------------------------------------------
HOW_TO_PLAY = """\
Goal: end the game with your figure standing higher than everybody else's. You win by rebuilding the tower \
under your own feet.

Where a figure may stand: on the table, on a grey top, or on a top of its own colour. It steps up one unit by \
itself; two units need the short ladder (exactly 2), two to four the long one (2 to 4). Each ladder works once. \
Steps are never diagonal.

Your turn has four steps: (1) move your figure, or skip; (2) move exactly one block; (3) move your figure again, \
or skip; (4) lay your blocking stone on a free top, once per game, or skip. You may also pass the whole turn at \
step 1.

Moving a block: take any block with a free top (nothing on it) that the previous player did not move. Put it down \
fully supported (no holes, no overhangs) and touching the construction. A block over figures pushes them aside \
onto free squares of the same top.

If your figure leaves the table in a turn, it must end that turn higher than it began it.

The game ends when a whole round (and the first player's last chance) brings nobody above all others. The \
highest figure wins; on equal heights, the one that got there last."""

OPTION_HELP = {
    "support": ("Block support", "strict: a block rests fully on block tops or the table; physical: overhangs the "
                                 "physics judge accepts are allowed too"),
    "descent": ("Going down", "one-unit: a figure steps down at most one unit at a time; free: any drop"),
    "max_rounds": ("Round limit", "the game ends after this many rounds at the latest (a small number gives a "
                                  "short game)"),
    "start": ("Start tower", "a random start tower, or your own build (a tower-build/1 file or a lab link)"),
}

SKIP_WORDS = {
    "figure1": "don't move the figure now: go on to the block move",
    "block": "move no block (no block can move)",
    "figure2": "leave the figure where it is",
    "stone": "keep the blocking stone",
}


def _place(cell: tuple[int, int, int]) -> str:
    x, y, z = cell
    return f"({x},{y}) on the table" if z == 0 else f"({x},{y}), height {z}"


def move_words(state: ClimbersState, move: Any) -> str:
    """A move in words: "climb to (11,16), height 2, with the long ladder"."""
    from tower.climbers.blocks import COLOURS

    if move.kind == "fig":
        here = state.figures[state.player][2]
        verb = "climb to" if move.cell[2] > here else "go down to" if move.cell[2] < here else "walk to"
        text = f"{verb} {_place(move.cell)}"
        if move.ladders:
            text += ", with the " + " then the ".join(move.ladders) + " ladder"
        return text
    if move.kind == "block":
        sx, sy, sz = move.size
        text = (f"put block {move.block} at {_place(move.cell)}, {sx}x{sy} across, {sz} high, "
                f"{COLOURS[move.top]} on top")
        if move.pushes:
            text += ", pushing " + " and ".join(f"the figure at ({a[0]},{a[1]}) to ({b[0]},{b[1]})"
                                                for a, b in move.pushes)
        return text
    if move.kind == "stone":
        return f"lay the blocking stone on block {move.block}"
    if move.kind == "skip":
        return SKIP_WORDS.get(state.phase, "skip this step")
    if move.kind == "pass":
        return "pass the whole turn"
    return str(move)


PROMPTS = {
    "figure1": "Step 1 of 4: move your figure, or skip to the block move (or pass the whole turn).",
    "block": "Step 2 of 4: move one block with a free top that the previous player did not move.",
    "figure2": "Step 3 of 4: move your figure again, or leave it.",
    "stone": "Step 4 of 4: lay your blocking stone on a free top (once per game), or keep it.",
}
