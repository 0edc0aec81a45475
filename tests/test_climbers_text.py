"""The Climbers in words, for a terminal player who cannot see the tower: the height map, the stone moves, the
move syntax, player labels and the end of the game."""

from __future__ import annotations

from test_climbers import FAR, SPARE, M, blk, level_finish, position

from tower.climbers.game import ClimbersState


def map_rows(text: str) -> dict[int, list[str]]:
    """The map's rows by y: each a list of 4-character column entries, from the header's first x on."""
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if "y\\x" in line)
    xs = [int(v) for v in lines[head].split("y\\x")[1].split()]
    rows = {}
    for line in lines[head + 1:]:
        label, body = line[:7], line[7:]
        if not label.strip().isdigit():
            break
        rows[int(label)] = [body[4 * k:4 * k + 4] for k in range(len(xs))]
    return {"xs": xs, **rows}  # type: ignore[dict-item]


def test_the_map_shows_heights_top_colours_figures_and_stones() -> None:
    blocks = [blk("cube", (10, 10, 0), (2, 2, 2), "grey"), blk("half", (12, 10, 0), (2, 2, 1), "red"),
              blk("tall", (10, 12, 0), (2, 2, 4), "yellow")]
    state = position(blocks, [(12, 11, 1), (10, 10, 2), (9, 10, 0)], stones={2: "tall"})
    text = state.describe(0)
    rows = map_rows(text)
    xs = rows.pop("xs")
    col = {x: k for k, x in enumerate(xs)}
    assert rows[10][col[10]] == " 2g1"  # the grey cube, yellow (seat 1) standing on it
    assert rows[10][col[11]] == " 2g "
    assert rows[11][col[12]] == " 1r0"  # red on the half cube
    assert rows[13][col[11]] == " 4y#"  # the tall block under dark-blue's stone
    assert rows[10][col[9]] == "  .2"  # dark-blue on the table
    assert rows[11][col[9]].strip() == "."
    assert max(rows) > 13 and min(rows) < 10  # a margin round everything
    assert "r red" in text and "# for a block under a stone" in text and "0 red, 1 yellow, 2 dark-blue" in text
    assert all(len(line) <= 100 for line in text.splitlines())
    assert "P0 red to play (figure1: move the figure" in text


def test_a_start_tower_fits_a_terminal() -> None:
    text = ClimbersState(5, seed=3).describe(0)
    assert all(len(line) <= 110 for line in text.splitlines())
    assert max(len(line) for line in text.splitlines() if line[:7].strip().isdigit()) <= 80


def test_the_stone_step_lists_every_stone_move() -> None:
    blocks = [blk("a", (10, 10, 0), (2, 2, 1), "grey"), *SPARE]
    state = position(blocks, [(9, 10, 0), FAR])
    state.apply(M("skip"))
    state.apply(next(m for m in state.legal_moves() if m.block == "spare"))
    state.apply(M("skip"))
    text = state.describe(0)
    assert "stone moves (stone ID): a, anchor, spare" in text


def test_the_block_step_names_the_movable_blocks_and_where_they_are() -> None:
    blocks = [blk("a", (10, 10, 0), (2, 2, 1), "grey"), *SPARE]
    state = position(blocks, [(9, 10, 0), FAR])
    state.apply(M("skip"))
    text = state.describe(0)
    assert "movable blocks (corner, extents): a@10,10,0(2x2x1), anchor@22,20,0(2x2x1), spare@20,20,0(2x2x1)" in text
    assert f"legal: {len(state.legal_moves())} block" in text


def test_the_move_syntax_is_there_for_help() -> None:
    text = ClimbersState(2).move_help()
    for form in ("fig X,Y,Z", "block ID X,Y,Z SXxSYxSZ COLOUR", "stone ID", "skip", "pass", "push"):
        assert form in text


def test_players_are_named_by_seat_and_colour() -> None:
    state = ClimbersState(3)
    assert [state.player_label(p) for p in range(3)] == ["P0 red", "P1 yellow", "P2 dark-blue"]


def test_the_end_in_words() -> None:
    state = level_finish()
    assert state.is_over
    assert state.outcome_text() == ("P1 yellow wins, standing highest at height 1 (P0 red is as high but got there "
                                    "earlier); heights: P0 red 1, P1 yellow 1")
    assert "the game is over. P1 yellow wins" in state.describe(0)


def test_help_in_the_terminal_shows_the_move_syntax(capsys) -> None:
    import io

    from tower.app.textplay import text_loop

    text_loop(ClimbersState(2, seed=1), ["human", "human"], {}, stdin=io.StringIO("help\nquit\n"))
    out = capsys.readouterr().out
    assert "block ID X,Y,Z SXxSYxSZ COLOUR" in out and "y\\x" in out
