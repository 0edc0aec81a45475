"""The card games played by pointing (viewer/cards/pointing.py, viewer/cards/clickpaths.py): every legal move of a
position is reached by clicking things on the table through the one controller, a card and its target take two
clicks, a choice one more; a card with no move says why in the game's words; the walk draws the chosen card
lifted, its targets lit and the place under the pointer in words; the play window's controller plays by it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tower.games.registry import new_game
from viewer.cards.clickpaths import card_table
from viewer.cards.pointing import LIFT, CardPointer, CardTable
from viewer.games import scene_for_view


def clicks_to_play(table: CardTable, move: int) -> int | None:
    """The fewest clicks through a fresh pointer that play move `move` (None: no path does); each path is
    clicked in order, and once more on its last spot if it has not played by then (a one-move card)."""
    best = None
    for i, path in table.paths:
        if i != move:
            continue
        ptr = CardPointer(table)
        played, n = None, 0
        for key in [*path, path[-1]]:
            n += 1
            played = ptr.click(key)
            if played is not None:
                break
        assert played == table.moves[move][0], (played, table.moves[move], path, ptr.message)
        best = n if best is None else min(best, n)
    return best


def positions(game: str, players: int, seed: int, every: int = 3, limit: int = 240):
    """States of a seeded random game, every `every`-th position."""
    st = new_game(game, players, seed)
    rng = random.Random(seed)
    while not st.is_over and len(st.history) < limit:
        if len(st.history) % every == 0:
            yield st
        st.apply(rng.choice(st.legal_moves()))


def kind(game: str, move) -> str:
    if game == "partners":
        return f"{move.action}{'-1/14' if move.card == '1' and move.action == 'step' else ''}"
    if game == "seventh-heaven":
        return f"{move.verb}{' give' if move.give else ''}{' n' if move.card in ('mushroom', 'foot') else ''}"
    return move.verb


@pytest.mark.parametrize("game, players", [("seventh-heaven", 4), ("seventh-heaven", 2), ("partners", 4),
                                           ("diabolo", 3)])
def test_every_legal_move_is_reached_by_clicks_on_the_table(game: str, players: int) -> None:
    counts: Counter = Counter()
    for st in positions(game, players, seed=5):
        table = card_table(st, st.current_player)
        moves = st.legal_moves()
        assert [t for t, _ in table.moves] == [str(m) for m in moves]
        for i, m in enumerate(moves):
            n = clicks_to_play(table, i)
            assert n is not None, f"no click path for {m}"
            counts[(kind(game, m), n)] += 1
    by_kind: dict[str, list[int]] = {}
    for (k, n), c in counts.items():
        by_kind.setdefault(k, []).extend([n] * c)
    # the common case: a card, then where it goes (or the card again); a choice (a partner card to hand over,
    # a count, the 1/14's) one click more; the switch one per pawn; a 7 one per part and count
    most = Counter(n for k, ns in by_kind.items() if k not in ("switch", "seven") for n in ns).most_common(1)[0][0]
    assert most == 2, counts
    for k, ns in by_kind.items():
        limit = {"switch": 3, "seven": 7, "step-1/14": 3, "trade give": 3, "play give": 3, "swap give": 2,
                 "play n": 3}.get(k, 2)
        assert max(ns) <= limit, (k, Counter(ns))
    print(game, players, sorted(counts.items()))


def test_a_card_and_its_target_play_in_two_clicks_and_a_one_move_card_on_a_second_click_on_itself() -> None:
    st = new_game("seventh-heaven", 4, 3)  # the opening: only +1..+5 cards, each with one move
    table = card_table(st, 0)
    ptr = CardPointer(table)
    i, path = table.paths[0]
    assert len(path) == 2 and path[0].startswith("card:") and path[1].startswith("pawn:")
    assert ptr.click(path[0]) is None
    assert ptr.targets() == [path[1]] and ptr.settled() == i
    assert "click it again" in ptr.message
    assert ptr.click(path[0]) == table.moves[i][0]  # the card again
    assert ptr.click(path[0]) is None
    assert ptr.click(path[1]) == table.moves[i][0]  # or its target
    # a click on nothing puts the card back; a click on another card starts again from it
    ptr.click(path[0])
    assert ptr.click(None) is None and ptr.chosen == [] and ptr.message.startswith("put back")
    other = next(p for _, p in table.paths if p[0] != path[0])
    ptr.click(path[0])
    ptr.click(other[0])
    assert ptr.chosen == [other[0]]


def test_a_card_that_cannot_be_played_says_why_in_the_games_words() -> None:
    st = new_game("seventh-heaven", 4, 3)
    table = card_table(st, 0)
    hand = st.view(0)["hand"]
    back = [f"card:{i}" for i, c in enumerate(hand) if "-" in c or c in ("heart", "snail", "cloud", "foot")]
    assert back, hand
    ptr = CardPointer(table)
    assert ptr.click(back[0]) is None and ptr.chosen == []
    assert "cannot be played now" in ptr.message and "first play of the game" in ptr.message, ptr.message
    assert ptr.words(back[0]) == ptr.message  # said before the click too
    # Diabolo: a card of a closed row; Partners: a card for pawns still in the base
    st = next(s for s in positions("diabolo", 3, seed=2, every=1) if any(r["closed"] for r in s.view(0)["rows"])
              and s.current_player is not None and any(
                  c.split()[0] in [r["colour"] for r in s.view(s.current_player)["rows"] if r["closed"]]
                  for c in s.view(s.current_player)["hand"]) and s.phase == "play")
    p = st.current_player
    table = card_table(st, p)
    closed = [r["colour"] for r in st.view(p)["rows"] if r["closed"]]
    key = next(f"card:{i}" for i, c in enumerate(st.view(p)["hand"]) if c.split()[0] in closed)
    if key in table.why:
        assert "is closed" in table.why[key], table.why[key]
    st = new_game("partners", 4, 1)
    while st.phase == "exchange":
        st.apply(st.legal_moves()[0])
    p = st.current_player
    table = card_table(st, p)
    stuck = [k for k in table.why if k.startswith("card:")]
    for k in stuck:
        assert "cannot be played now: " in table.why[k] and "base" in table.why[k], table.why[k]
    # not your turn: every card says whose turn it is
    other = (p + 1) % 4
    assert all("wait: it is" in w for w in card_table(st, other).why.values())


def test_the_partners_exchange_a_switch_and_a_split_seven_take_one_click_per_choice() -> None:
    st = new_game("partners", 4, 1)
    table = card_table(st, st.current_player)
    give = next(k for k, (t, _) in enumerate(table.moves) if t.startswith("give "))
    path = next(p for i, p in table.paths if i == give)
    assert path[1] == "partner" and clicks_to_play(table, give) == 2
    found = {"switch": False, "seven": False}
    for st in positions("partners", 4, seed=3, every=1, limit=400):
        table = card_table(st, st.current_player)
        for i, m in enumerate(st.legal_moves()):
            if m.action == "switch" and not found["switch"]:
                paths = [p for k, p in table.paths if k == i]
                assert len(paths) == 2 and paths[0][1:] == tuple(reversed(paths[1][1:]))  # either pawn first
                found["switch"] = True
            if m.action == "seven" and len(m.pawns) == 2 and not found["seven"]:
                path = next(p for k, p in table.paths if k == i)
                assert [k.split(":")[0] for k in path] == ["card", "pawn", "n", "pawn", "n"]
                ptr = CardPointer(table)
                if any(ptr.click(key) is not None for key in path[:3]):
                    continue  # the first part left one way to use the rest: played at once
                assert path[3] in ptr.targets()  # the second pawn is lit once the first part is chosen
                found["seven"] = True
        if all(found.values()):
            break
    assert all(found.values()), found


def test_the_walk_is_drawn_lifted_lit_and_said_and_survives_json() -> None:
    st = new_game("seventh-heaven", 4, 1)
    st.apply(st.legal_moves()[0])
    p = st.current_player
    table = CardTable.from_json(card_table(st, p).to_json())  # what the page receives
    scene = scene_for_view(st.layout, st.view(p))
    ptr = CardPointer(table)
    white = next(p for _, p in table.paths if table.spots[p[0]].label.startswith("your white"))
    ptr.click(white[0])
    lit = ptr.targets()
    assert len(lit) >= 4 and all(k.startswith("pawn:") for k in lit)
    ptr.point(lit[0])
    drawn = ptr.decorate(scene)
    card = table.spots[white[0]].items[0]
    before, after = scene.blocks[scene.block_index(card)], drawn.blocks[drawn.block_index(card)]
    assert after.origin[2] == pytest.approx(before.origin[2] + LIFT) and after.selected
    halos = {b.id.split(":")[1] + ":" + b.id.split(":")[2]: b.faces[4] for b in drawn.blocks if b.id.startswith("spot:")}
    assert halos[lit[0]] == "lit-hover" and all(halos[k] == "lit" for k in lit[1:])
    said = [lab.text for lab in drawn.labels if lab.text.startswith("click to play: play white")]
    assert said and lit[0].split(":")[1] in said[0]
    # the halo is what a click on the table hits: it means its spot
    index = next(i for i, b in enumerate(drawn.blocks) if b.id.startswith(f"spot:{lit[1]}:"))
    assert ptr.spot_at("blocks", index, drawn) == lit[1]


def test_the_play_window_controller_plays_a_card_game_by_pointing() -> None:
    from viewer.play import PlayController

    ctl = PlayController(new_game("diabolo", 3, 4), ["human", "ai:random", "ai:random"])
    moves = 0
    while not ctl.state.is_over and moves < 30:
        ctl.run_ais()
        if ctl.state.is_over:
            break
        table = ctl.pointer.table
        i, path = table.paths[len(ctl.state.history) % len(table.paths)]
        before = len(ctl.state.history)
        for key in path[:-1]:
            assert not ctl.card_click(key)
        ctl.card_point(path[-1])
        assert ctl.current_move is not None and str(ctl.current_move) == table.moves[i][0]
        assert table.moves[i][1] in ctl.message  # the move in words, before the click
        scene = ctl.scene()
        assert any(b.id.startswith("spot:") for b in scene.blocks)
        if len(path) == 1:
            ctl.card_click(path[0])
        assert ctl.card_click(path[-1]) and len(ctl.state.history) == before + 1
        assert str(ctl.state.history[before]) == table.moves[i][0]
        moves += 1
    assert moves >= 10


def test_a_pawn_standing_on_a_lit_place_is_that_place_and_a_refusal_names_the_lit_place() -> None:
    st = new_game("partners", 4, 1)  # the exchange: a card, then the partner's base (covered by his pawns)
    p = st.current_player
    view, table = st.view(p), card_table(st, p)
    scene = scene_for_view(st.layout, view)
    partner = next(q for team in view["teams"] if p in team for q in team if q != p)
    give = next(i for i, (t, _) in enumerate(table.moves) if t.startswith("give "))
    card = next(path[0] for i, path in table.paths if i == give)
    for pawn in range(4 * partner, 4 * partner + 4):  # every pawn of his base, and every square of it
        ptr = CardPointer(table)
        ptr.click(card)
        assert ptr.spot_at("figures", pawn, scene) == "partner"
        assert ptr.click(ptr.spot_at("figures", pawn, scene)) == table.moves[give][0], ptr.message
    for block in table.spots["partner"].items:
        ptr = CardPointer(table)
        ptr.click(card)
        assert ptr.click(ptr.spot_at("blocks", scene.block_index(block), scene)) == table.moves[give][0]
    other = (p + 1) % 4  # an opponent's base is not lit: the refusal says what was clicked and what is lit
    ptr = CardPointer(table)
    ptr.click(card)
    assert ptr.click(ptr.spot_at("figures", 4 * other, scene)) is None
    colour, name = view["colours"][other], view["labels"][partner]
    assert ptr.message == f"{table.spots[card].label} cannot go to {colour}'s base: click the lit place " \
                          f"(your partner {name})", ptr.message
    # the move in words is read in everyone's log too: no "your"; after the exchange the text box beside the
    # board stays as short as before it (it grew over the far corner with the moves made)
    assert "your" not in table.moves[give][1], table.moves[give][1]
    lines = len(scene.lines)
    while st.phase == "exchange":
        st.apply(st.legal_moves()[0])
    assert len(scene_for_view(st.layout, st.view(p)).lines) <= lines


def test_diabolos_doubler_chips_stay_in_place_and_no_words_cover_a_row() -> None:
    st = next(s for s in positions("diabolo", 3, seed=2, every=1) if s.phase == "double")
    p = st.current_player
    table, scene = card_table(st, p), scene_for_view(st.layout, st.view(p))
    ptr = CardPointer(table)

    def chips(drawn):
        return {b.id.split(":")[1] + ":" + b.id.split(":")[2]: (b.origin, b.faces[4]) for b in drawn.blocks
                if b.id.startswith("spot:double:")}

    before = chips(ptr.decorate(scene))
    assert set(before) == {"double:yes", "double:no"}
    ptr.click("double:no")
    assert ptr.message.endswith("click it again to play it"), ptr.message  # nothing else is lit
    ptr.point("double:no")
    drawn = ptr.decorate(scene)
    after = chips(drawn)
    assert after["double:yes"] == (before["double:yes"][0], "card") and after["double:no"][1] == "picked"
    assert after["double:no"][0] == before["double:no"][0]
    assert not [lab for lab in drawn.labels if lab.text.startswith("click")]  # the status line says it
    # a card of the hand pointed at: its words go to the status line, not over its neighbours
    st = new_game("partners", 4, 1)
    table, scene = card_table(st, st.current_player), scene_for_view(st.layout, st.view(st.current_player))
    ptr = CardPointer(table)
    ptr.point("card:0")
    assert ptr.words() and not [lab for lab in ptr.decorate(scene).labels if lab.text == ptr.words()]
