"""Partners: the rule stories of the rule text, then the shared game-API checks (random games, records)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cardgames.partners import (
    BASE,
    CARD_NAMES,
    FINISH,
    STANDARD_DECK,
    PartnersMove,
    PartnersState,
    parse_card,
    parse_pawn,
)
from cardgames.partners.moves import play_card, seven_moves, seven_search
from tower.games import new_game, replay
from tower.games.errors import BadInput, IllegalMove

YELLOW, RED, BLUE, GREEN = range(4)


# --- building positions -----------------------------------------------------------------------------
def space(seat: int, r: int, players: int = 4) -> int:
    """The location of `seat`'s r-th counted space (1 = the first after its home, 64 = the last)."""
    return (16 * seat + r - 1) % (16 * players)


def home(seat: int, players: int = 4) -> int:
    return 16 * players + seat


def case(seat: int, k: int, players: int = 4) -> int:
    """Finish case k as the text numbers them: 4 at the entrance (the largest) ... 1 the deepest."""
    return 16 * players + players + FINISH * seat + (FINISH - k)


def table(hand: list[str], pawns: dict[str, int], turn: int = YELLOW, players: int = 4,
          options: dict | None = None) -> PartnersState:
    """A play-phase position: `turn` holds `hand` (card names); the named pawns stand where given."""
    s = PartnersState(players, 0, options)
    s.phase = "play"
    s.turn = turn
    s.loc = [BASE] * (4 * players)
    for name, where in pawns.items():
        s.loc[parse_pawn(name)] = where
    s.hands = [[] for _ in range(players)]
    s.hands[turn] = [parse_card(c) for c in hand]
    for other in range(players):
        if other != turn:
            s.hands[other] = ["2"]  # so play goes on around the table
    s._legal = None
    return s


def play(s: PartnersState, text: str) -> None:
    s.apply(PartnersMove.parse(text, s))


def illegal(s: PartnersState, text: str) -> str:
    """Apply `text` expecting IllegalMove; checks the state is unchanged and returns the rule name."""
    before = s.to_json()
    with pytest.raises(IllegalMove) as info:
        play(s, text)
    assert s.to_json() == before
    return info.value.rule


def texts(s: PartnersState) -> set[str]:
    return {str(m) for m in s.legal_moves()}


# --- set-up ---------------------------------------------------------------------------------------------
def test_partners_sit_opposite_yellow_and_blue_against_red_and_green():
    s = new_game("partners", seed=1)
    assert s.view(0)["colours"] == ["yellow", "red", "blue", "green"]
    assert s.teams() == [[YELLOW, BLUE], [RED, GREEN]]
    assert all(w == BASE for w in s.loc) and len(s.loc) == 16


def test_each_player_is_dealt_four_cards_from_the_110_card_deck():
    s = new_game("partners", seed=2)
    assert [len(h) for h in s.hands] == [4, 4, 4, 4]
    assert sum(STANDARD_DECK.values()) == 110 and len(s.deck) == 110 - 16


# --- leaving the base ---------------------------------------------------------------------------------
@pytest.mark.parametrize("card", ["heart", "8", "13"])
def test_a_card_with_the_heart_brings_a_pawn_out_of_the_base_onto_its_home(card):
    s = table([card], {})
    assert f"{card} out" in texts(s)
    play(s, f"{card} out")
    assert s.loc[parse_pawn("y1")] == home(YELLOW)


def test_other_cards_cannot_bring_a_pawn_out():
    s = table(["5", "7", "-4", "1/14"], {})
    assert texts(s) == {"discard"}
    with pytest.raises(BadInput):
        PartnersMove.parse("5 out")


def test_eight_and_thirteen_may_move_instead_of_leaving():
    s = table(["8"], {"y1": space(YELLOW, 3)})
    assert {"8 out", "8 y1"} <= texts(s)
    play(s, "8 y1")
    assert s.loc[parse_pawn("y1")] == space(YELLOW, 11)


def test_the_home_is_not_counted_when_moving():
    s = table(["5"], {"y1": home(YELLOW)})
    play(s, "5 y1")
    assert s.loc[parse_pawn("y1")] == space(YELLOW, 5)


# --- the wall ---------------------------------------------------------------------------------------------
def test_nobody_passes_a_pawn_standing_on_its_own_home():
    s = table(["5"], {"r1": home(RED), "y1": space(YELLOW, 14)})
    assert illegal(s, "5 y1") == "wall"


def test_the_wall_stops_a_partner_and_backward_moves_of_others_too():
    s = table(["5", "-4"], {"r1": home(RED), "b1": space(RED, 2), "y4": space(YELLOW, 15)},
              turn=BLUE)
    assert illegal(s, "-4 b1") == "wall"
    s2 = table(["3"], {"y1": home(YELLOW), "b1": space(GREEN, 15)}, turn=BLUE)
    assert illegal(s2, "3 b1") == "wall"


def test_a_pawn_of_another_colour_on_a_home_is_no_wall():
    s = table(["5"], {"b1": home(RED), "y1": space(YELLOW, 14)})
    play(s, "5 y1")
    assert s.loc[parse_pawn("y1")] == space(YELLOW, 19)


def test_the_owner_of_the_wall_may_pass_it_backwards_with_back_four():
    s = table(["-4"], {"r1": home(RED), "r2": space(RED, 2)}, turn=RED)
    play(s, "-4 r2")
    assert s.loc[parse_pawn("r2")] == space(RED, 62)


# --- captures and crowded spaces -------------------------------------------------------------------
def test_landing_on_an_opponent_sends_it_back_to_its_base():
    s = table(["5"], {"y1": space(YELLOW, 10), "r1": space(YELLOW, 15)})
    play(s, "5 y1")
    assert s.loc[parse_pawn("y1")] == space(YELLOW, 15) and s.loc[parse_pawn("r1")] == BASE


@pytest.mark.parametrize("victim", ["y2", "b1"])
def test_a_player_may_capture_his_own_or_his_partners_pawn(victim):
    s = table(["5"], {"y1": space(YELLOW, 10), victim: space(YELLOW, 15)})
    assert "5 y1" in texts(s)  # cards must be played, even against oneself
    play(s, "5 y1")
    assert s.loc[parse_pawn(victim)] == BASE


def test_pawns_may_gather_on_their_home_and_passing_moves_leave_them_alone():
    s = table(["heart"], {"y1": home(YELLOW)})
    play(s, "heart out")
    assert s.loc[parse_pawn("y1")] == s.loc[parse_pawn("y2")] == home(YELLOW)


def test_with_home_stack_off_a_pawn_coming_out_captures_the_one_on_its_home():
    s = table(["heart"], {"y1": home(YELLOW)}, options={"home_stack": False})
    play(s, "heart out")
    assert s.loc[parse_pawn("y1")] == BASE and s.loc[parse_pawn("y2")] == home(YELLOW)


def test_a_space_with_two_pawns_may_be_passed_but_not_landed_on():
    s = table(["5", "6"], {"y1": space(YELLOW, 10), "r1": space(YELLOW, 15), "r2": space(YELLOW, 15)})
    assert illegal(s, "5 y1") == "stack"
    play(s, "6 y1")
    assert s.loc[parse_pawn("y1")] == space(YELLOW, 16)
    assert s.loc[parse_pawn("r1")] == s.loc[parse_pawn("r2")] == space(YELLOW, 15)


# --- back four -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("start", [0, 1, 2, 3, 4])
def test_back_four_from_home_or_spaces_one_to_four_reaches_the_last_stretch(start):
    where = home(YELLOW) if start == 0 else space(YELLOW, start)
    s = table(["-4"], {"y1": where})
    play(s, "-4 y1")
    assert s.loc[parse_pawn("y1")] == space(YELLOW, 60 + start if start else 61)
    s.hands[YELLOW] = ["5"]
    s.turn = YELLOW
    s._legal = None
    play(s, "5 y1")  # from there the pawn runs into its finish zone
    assert s.in_finish(s.loc[parse_pawn("y1")])


def test_back_four_never_returns_a_pawn_to_its_base():
    s = table(["-4"], {"y1": home(YELLOW)})
    play(s, "-4 y1")
    assert s.loc[parse_pawn("y1")] != BASE


# --- the finish zone -----------------------------------------------------------------------------------
def test_the_finish_zone_is_entered_from_the_last_space_before_ones_home():
    s = table(["2"], {"y1": space(YELLOW, 64), "r1": home(RED), "y2": home(YELLOW)})
    play(s, "2 y1")  # the wall on yellow's own home is not in the way: the zone turns off before it
    assert s.loc[parse_pawn("y1")] == case(YELLOW, 3)


def test_a_pawn_in_its_last_place_is_blocked():
    s = table(["1/14", "2", "3"], {"y1": case(YELLOW, 1), "y2": case(YELLOW, 2), "y3": space(YELLOW, 30)})
    assert not any(m.pawns and m.pawns[0] in (0, 1) for m in s.legal_moves())
    assert illegal(s, "1 y2") == "finish-order"


def test_no_pawn_jumps_over_another_to_fill_the_zone_out_of_order():
    # the first pawn only reached case 4: the second cannot be placed in front of it
    s = table(["3"], {"y1": case(YELLOW, 4), "y2": space(YELLOW, 63)})
    play(s, "3 y2")
    assert not s.in_finish(s.loc[parse_pawn("y2")])
    assert s.loc[parse_pawn("y1")] == case(YELLOW, 4)


def test_a_pawn_that_cannot_go_on_in_the_zone_backs_out_for_the_rest_of_the_count():
    # the text's example: pawns in case 2 and case 4, a 5: one step on to case 3, then back onto the track
    s = table(["5"], {"y1": case(YELLOW, 2), "y2": case(YELLOW, 4)})
    play(s, "5 y2")
    assert s.loc[parse_pawn("y2")] == space(YELLOW, 62)
    assert s.loc[parse_pawn("y1")] == case(YELLOW, 2)


def test_backing_out_may_not_jump_a_pawn_in_the_zone_either():
    s = table(["5"], {"y1": case(YELLOW, 2), "y2": case(YELLOW, 4)})
    assert illegal(s, "5 y1") == "finish-order"


def test_an_opponent_never_moves_a_pawn_in_a_finish_zone():
    s = table(["switch"], {"y1": case(YELLOW, 3), "r1": space(RED, 5), "y2": space(YELLOW, 5)}, turn=RED)
    assert illegal(s, "switch y1 r1") == "switch-finish"


# --- the 7 ---------------------------------------------------------------------------------------------
def test_the_seven_splits_over_several_pawns():
    s = table(["7"], {"y1": space(YELLOW, 5), "y2": space(YELLOW, 20)})
    play(s, "7: y1+3 y2+4")
    assert s.loc[parse_pawn("y1")] == space(YELLOW, 8) and s.loc[parse_pawn("y2")] == space(YELLOW, 24)


def test_all_seven_must_be_used_and_each_pawn_moves_once():
    s = table(["7"], {"y1": space(YELLOW, 5), "y2": space(YELLOW, 20)})
    assert illegal(s, "7: y1+3") == "seven-total"
    assert illegal(s, "7: y1+3 y2+2") == "seven-total"
    assert illegal(s, "7: y1+3 y1+4") == "seven-once"
    assert {str(m) for m in s.legal_moves() if m.action == "seven"} >= {"7: y1+7", "7: y2+7", "7: y1+3 y2+4"}
    assert all(sum(m.steps) == 7 for m in s.legal_moves())


def test_a_pawn_may_enter_the_finish_with_part_of_the_seven():
    s = table(["7"], {"y1": space(YELLOW, 62), "y2": space(YELLOW, 20)})
    play(s, "7: y1+6 y2+1")
    assert s.loc[parse_pawn("y1")] == case(YELLOW, 1)


def test_a_part_of_the_seven_never_backs_up():
    s = table(["7"], {"y1": case(YELLOW, 3), "y2": space(YELLOW, 20)})
    assert illegal(s, "7: y1+3 y2+4") == "finish-order"
    play(s, "7: y1+2 y2+5")
    assert s.loc[parse_pawn("y1")] == case(YELLOW, 1)


def test_the_rest_of_a_seven_moves_the_partner_once_the_fourth_pawn_is_home():
    pawns = {"y1": case(YELLOW, 1), "y2": case(YELLOW, 2), "y3": case(YELLOW, 3), "y4": space(YELLOW, 63),
             "b1": space(BLUE, 10)}
    s = table(["7"], pawns)
    play(s, "7: y4+2 b1+5")
    assert s.loc[parse_pawn("b1")] == space(BLUE, 15)
    s2 = table(["7"], {**pawns, "y4": space(YELLOW, 40)})
    assert illegal(s2, "7: b1+5 y4+2") == "partner-help"


# --- the switch ----------------------------------------------------------------------------------------
def test_the_switch_swaps_any_two_pawns_own_partners_or_opponents():
    s = table(["switch"], {"y1": space(YELLOW, 5), "y2": space(YELLOW, 9), "r3": space(RED, 7),
                           "b1": space(BLUE, 1)})
    assert {"switch y1 r3", "switch y1 y2", "switch y1 b1", "switch r3 b1"} <= texts(s)
    play(s, "switch y1 r3")
    assert s.loc[parse_pawn("y1")] == space(RED, 7) and s.loc[parse_pawn("r3")] == space(YELLOW, 5)


def test_the_switch_must_be_played_even_with_no_pawn_of_ones_own_on_the_board():
    s = table(["switch", "5"], {"r1": space(RED, 7), "g1": space(GREEN, 3)})
    assert texts(s) == {"switch r1 g1"}


def test_the_switch_skips_pawns_in_a_base_a_finish_zone_or_sharing_a_space():
    s = table(["switch"], {"y1": home(YELLOW), "y2": home(YELLOW), "r1": space(RED, 4), "g1": case(GREEN, 1)})
    assert illegal(s, "switch y1 r1") == "switch-stack"
    assert illegal(s, "switch r1 g1") == "switch-finish"
    assert illegal(s, "switch r1 b1") == "switch-base"
    assert texts(s) == {"discard"}  # one free pawn is not enough to swap


# --- impossible turns, partner help, the exchange -----------------------------------------------------
def test_a_player_who_cannot_use_any_card_discards_his_hand_and_waits_for_the_next_deal():
    s = new_game("partners", seed=5)
    for _ in range(4):
        s.apply(s.legal_moves()[0])  # the exchange
    s.hands[YELLOW] = ["2", "3", "5", "6"]
    s._legal = None
    assert texts(s) == {"discard"}
    play(s, "discard")
    assert s.hands[YELLOW] == [] and s.discard[-4:] == ["2", "3", "5", "6"]
    seen = []
    while s.phase == "play":
        seen.append(s.current_player)
        s.apply(s.legal_moves()[0])
    assert YELLOW not in seen


def test_a_playable_card_cannot_be_thrown_away():
    s = table(["heart", "5"], {})
    assert illegal(s, "discard") == "must-play"


def test_a_player_whose_pawns_are_all_home_moves_his_partners_pawns():
    pawns = {"y1": case(YELLOW, 1), "y2": case(YELLOW, 2), "y3": case(YELLOW, 3), "y4": case(YELLOW, 4),
             "b1": space(BLUE, 10)}
    s = table(["5", "heart"], pawns)
    assert texts(s) == {"5 b1", "heart out"}
    play(s, "heart out")
    assert s.loc[parse_pawn("b2")] == home(BLUE)


def test_a_player_may_not_move_his_partners_pawns_before_his_own_are_home():
    s = table(["5"], {"y1": space(YELLOW, 3), "b1": space(BLUE, 10)})
    assert illegal(s, "5 b1") == "partner-help"
    assert illegal(s, "5 r1") == "own-pawns"


def yellow_and_blue_bring_their_last_pawn_home() -> PartnersState:
    """Seven pawns of yellow+blue home, yellow plays the 2 that brings blue's last one in."""
    pawns = {f"y{i}": case(YELLOW, i) for i in range(1, 5)}
    pawns.update({f"b{i}": case(BLUE, i) for i in range(1, 4)})
    pawns["b4"] = space(BLUE, 63)
    s = table(["2"], pawns)
    play(s, "2 b4")
    return s


def test_the_team_with_all_eight_pawns_home_wins():
    s = yellow_and_blue_bring_their_last_pawn_home()
    assert s.is_over and s.result()["winners"] == [YELLOW, BLUE]
    assert s.legal_moves() == []
    assert s.outcome_text() == ("P0 yellow and P2 blue win: all 8 pawns of the team are home; pawns home: "
                                "yellow+blue 8, red+green 0")
    assert s.outcome_text() in s.describe(RED)


def test_a_game_stopped_at_the_move_limit_is_told_as_a_draw():
    s = table(["5"], {"y1": space(YELLOW, 3)}, options={"move_limit": 1})
    play(s, "5 y1")
    assert s.is_over and s.outcome_text().startswith("nobody wins: the game stopped at the move limit (1 card")


def test_partners_exchange_one_card_face_down_at_the_same_time():
    s = new_game("partners", seed=11)
    hands = [list(h) for h in s.hands]
    gifts = {}
    for _ in range(4):
        p = s.current_player
        move = s.legal_moves()[-1]
        gifts[p] = move.card
        watcher = (p + 1) % 4  # an opponent of the giver
        before = s.view(watcher)
        s.apply(move)
        if s.phase != "exchange":
            break  # the last card given: now both teams swap
        after = s.view(watcher)
        changed = {k for k in after if after[k] != before[k]}
        assert changed <= {"current_player", "exchanged", "hand_sizes", "log"}
        assert after["log"][-1] == f"{s.player_label(p)} passed a card to the partner"
        assert after["hand_sizes"][p] == 3 and s.public_move(move, p) == after["log"][-1]
    assert s.phase == "play"
    for p in range(4):
        mate = s.partner(p)
        expect = Counter(hands[p]) - Counter([gifts[p]]) + Counter([gifts[mate]])
        assert Counter(s.hands[p]) == expect
        assert s.view(p)["received"] == CARD_NAMES[gifts[mate]]
        assert s.view(p)["gave"] == CARD_NAMES[gifts[p]]
    # an opponent's view carries nothing about the swap but hand sizes
    opp = s.view(RED)
    assert opp["gave"] == CARD_NAMES[gifts[RED]] and opp["received"] == CARD_NAMES[gifts[GREEN]]


def test_the_dealer_deals_three_times_then_the_player_on_his_left_deals():
    s = new_game("partners", seed=3)
    rng = random.Random(3)
    dealers = [s.dealer]
    while not s.is_over and len(dealers) < 8:
        s.apply(rng.choice(s.legal_moves()))
        if s.phase == "exchange" and all(g is None for g in s.gives) and len(s.hands[0]) == 4:
            dealers.append(s.dealer)
    assert dealers[:8] == [3, 3, 3, 0, 0, 0, 1, 1]


def test_the_player_left_of_the_dealer_starts():
    s = new_game("partners", seed=4)
    assert s.current_player == (s.dealer + 1) % 4


# --- moves as text and data --------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["give 1/14", "heart out", "13 out", "5 y2", "-4 g3", "14 r1",
                                  "7: y1+3 y2+4", "switch r3 b1", "discard"])
def test_move_text_round_trips(text):
    move = PartnersMove.parse(text)
    assert str(move) == text and PartnersMove.from_json(move.to_json()) == move


@pytest.mark.parametrize("text", ["", "5", "give joker", "7 y1", "7: y1", "switch y1", "11 y1", "5 x1", "5 y9"])
def test_malformed_move_text_is_bad_input(text):
    with pytest.raises(BadInput):
        PartnersMove.parse(text)


# --- whole games -----------------------------------------------------------------------------------------
def _card_total(s: PartnersState) -> Counter:
    cards = Counter(s.deck) + Counter(s.discard) + Counter(g for g in s.gives if g)
    for hand in s.hands:
        cards += Counter(hand)
    return cards


def test_cards_are_neither_lost_nor_made_and_moves_are_sorted_unique_and_round_trip():
    rng = random.Random(7)
    for seed in range(3):
        s = new_game("partners", seed=seed)
        while not s.is_over:
            assert _card_total(s) == Counter(STANDARD_DECK)
            moves = s.legal_moves()
            assert moves == sorted(set(moves), key=PartnersMove.sort_key)
            for m in moves:
                assert PartnersMove.from_json(m.to_json()) == m
                assert PartnersMove.parse(str(m), s) == m
            s.apply(rng.choice(moves))


def test_many_random_games_finish_with_a_winning_team():
    rng = random.Random(0)
    lengths = []
    for seed in range(200):  # the benchmark plays many more
        s = new_game("partners", seed=seed)
        while not s.is_over:
            s.apply(rng.choice(s.legal_moves()))
        assert len(s.result()["winners"]) == 2
        lengths.append(len(s.history))
    assert max(lengths) < PartnersState.max_game_length


def test_the_six_player_edition_plays_three_teams_of_two():
    rng = random.Random(1)
    s = new_game("partners", players=6, seed=1)
    assert s.teams() == [[0, 3], [1, 4], [2, 5]] and s.board.size == 96
    while not s.is_over:
        s.apply(rng.choice(s.legal_moves()))
    assert len(s.result()["winners"]) == 2
    with pytest.raises(BadInput):
        new_game("partners", players=5)


def test_same_seed_and_moves_give_the_same_game_and_records_replay_exactly():
    rng = random.Random(2)
    s = new_game("partners", seed=9)
    for _ in range(400):
        if s.is_over:
            break
        s.apply(rng.choice(s.legal_moves()))
    again = replay(s.record())
    assert again.to_json() == s.to_json()
    assert PartnersState.from_json(s.to_json()).to_json() == s.to_json()
    assert s.clone().to_json() == s.to_json()


def test_illegal_moves_leave_the_state_unchanged():
    rng = random.Random(3)
    s = new_game("partners", seed=13)
    probes = [PartnersMove.parse(t) for t in ("give heart", "5 y1", "-4 r2", "7: y1+7", "switch y1 r1",
                                              "discard", "heart out", "13 b1")]
    for _ in range(150):
        if s.is_over:
            break
        legal = set(s.legal_moves())
        for probe in probes:
            if probe not in legal and s.explain(probe) is not None:
                illegal(s, str(probe))
        s.apply(rng.choice(s.legal_moves()))


def test_a_player_view_hides_other_hands_and_determinize_agrees_with_it():
    rng = random.Random(4)
    s = new_game("partners", seed=21)
    for step in range(250):
        if s.is_over:
            break
        p = s.current_player
        view = s.view(p)
        assert set(view) >= {"hand", "hand_sizes", "pawns"} and "hands" not in view
        d = s.determinize(p, rng)
        assert d.view(p) == view
        assert _card_total(d) == Counter(STANDARD_DECK)
        if step % 25 == 0:
            assert isinstance(s.describe(p), str)
        s.apply(rng.choice(s.legal_moves()))


def _walk_step_by_step(s: PartnersState, loc: list[int], pawn: int, n: int, bounce: bool) -> int:
    """The rule text's walk, one space at a time (the reference the fast walk is checked against): the
    destination, or a negative number when the walk is not allowed."""
    t, fin = s.board.size, s.board.fin
    owner = pawn // 4
    f0, last = fin + FINISH * owner, (16 * owner - 1) % t
    here = loc[pawn]
    if here == BASE:
        return -1
    if here >= f0 and all(x in loc for x in range(here + 1, f0 + FINISH)):
        return -1  # placed for good
    others = loc[:pawn] + [-2] + loc[pawn + 1:]

    def wall(q: int) -> bool:
        return any(others[i] == t + q for i in range(4 * q, 4 * q + 4))

    pos, forward, k = here, n > 0, abs(n)
    while k:
        if forward:
            if pos >= fin:
                nxt = pos + 1
            elif pos >= t:
                nxt = 16 * (pos - t)
            elif pos == last:
                nxt = f0
            else:
                nxt = (pos + 1) % t
                if nxt % 16 == 0 and wall(nxt // 16):
                    return -1
            if nxt >= fin and (nxt == f0 + FINISH or nxt in others):
                if not bounce:
                    return -1
                forward = False
                continue
            pos = nxt
        else:
            if pos >= fin:
                pos = last if pos == f0 else pos - 1
                if pos >= fin and pos in others:
                    return -1  # no jumping in the finish zone
            elif pos >= t:
                pos = (16 * (pos - t) - 1) % t
            else:
                if pos % 16 == 0 and pos // 16 != owner and wall(pos // 16):
                    return -1
                pos = (pos - 1) % t
        k -= 1
    if pos < t and others.count(pos) >= 2:
        return -1
    return pos


def test_the_fast_walk_and_the_remembered_moves_agree_with_the_rules_step_by_step():
    """Walks near and in the finish zone are worked out by counting; the step moves of each pawn and place are
    remembered; 7 splits are remembered by what they depend on. All must agree with the plain rules on positions
    of random games (4 and 6 players), also after two pawns are put on one space (only a test can do that)."""
    import cardgames.partners.moves as moves_module

    rng = random.Random(8)
    checked = 0
    for seed in range(4):
        s = new_game("partners", 4 if seed % 2 else 6, seed=200 + seed)
        step = 0
        while not s.is_over:
            step += 1
            if step % 3 == 0 and s.phase == "play":
                position = s.clone()
                if step % 9 == 0:  # a stack on the track, next to where pawns are
                    on_board = [p for p, w in enumerate(position.loc) if 0 <= w < position.board.size]
                    if len(on_board) >= 2:
                        a, b = rng.sample(on_board, 2)
                        position.loc[a] = position.loc[b]
                        position._legal = None
                for pawn in range(len(position.loc)):
                    if position.loc[pawn] != BASE:
                        for n in (1, 3, 5, 7, 9, 13, 14, -4):
                            for bounce in (True, False):
                                got = position.board.walk(position.loc[:], pawn, n, bounce, dry=True)
                                want = _walk_step_by_step(position, position.loc, pawn, n, bounce)
                                assert max(got, -1) == want, (position.loc, pawn, n, bounce)
                                checked += 1
                remembered = position.legal_moves()
                for memo in (moves_module._STEP_TABLES, moves_module._SEVEN_SPLITS, moves_module._GROUP_SPLITS):
                    memo.clear()
                position._legal = None
                assert position.legal_moves() == remembered, position.loc
            s.apply(rng.choice(s.legal_moves()))
    assert checked > 20_000


def test_the_quick_seven_finds_exactly_what_trying_every_order_finds():
    rng = random.Random(5)
    checked = 0
    for seed in range(4):
        s = new_game("partners", seed=100 + seed)
        while not s.is_over:
            if s.phase == "play":
                p = s.current_player
                outcomes = []
                for moves in (seven_moves(s.board, s.loc, p), seven_search(s.board, s.loc, p)):
                    seen = set()
                    for m in moves:
                        loc = s.loc[:]
                        assert play_card(s.board, p, m, loc) is None
                        seen.add(tuple(loc))
                    assert len(seen) == len(moves)  # one move per distinct result
                    outcomes.append(seen)
                assert outcomes[0] == outcomes[1]
                checked += 1
            s.apply(rng.choice(s.legal_moves()))
    assert checked > 1000


def test_a_player_knows_the_card_he_gave_is_in_his_partners_hand_and_nothing_more():
    s = new_game("partners", seed=17)
    given = {}
    for _ in range(4):
        move = s.legal_moves()[0]
        given[s.current_player] = move.card
        s.apply(move)
    rng = random.Random(0)
    for _ in range(20):
        d = s.determinize(YELLOW, rng)
        assert given[YELLOW] in d.hands[BLUE]  # he knows this much
        assert d.hands[YELLOW] == s.hands[YELLOW]
    # the opponents' hands are re-dealt: they are not simply copied
    assert any(s.determinize(YELLOW, rng).hands[RED] != s.hands[RED] for _ in range(20))


@pytest.mark.parametrize("players", [4, 6])
def test_the_random_move_hook_draws_exactly_what_a_choice_from_the_legal_moves_draws(players):
    """random_move(rng) only skips copying the list: a legal move, and the same draw from the same generator,
    so a random player's games (and their records) are the same with or without the hook."""
    hook, plain = random.Random(6), random.Random(6)
    for seed in range(3):
        s = new_game("partners", players=players, seed=seed)
        while not s.is_over:
            legal = s.legal_moves()
            move = s.random_move(hook)
            assert move in legal and s.explain(move) is None
            assert move == plain.choice(legal)
            s.apply(move)
        assert len(s.result()["winners"]) == 2


def test_the_search_reward_is_the_win_at_the_end_and_a_graded_team_margin_before():
    s = yellow_and_blue_bring_their_last_pawn_home()
    assert s.rewards() == [1.0, 0.0, 1.0, 0.0]  # both partners win, whole
    s = table(["5", "2"], {"y1": space(YELLOW, 10), "r1": space(YELLOW, 15), "g1": space(GREEN, 3)})
    before = s.rewards()
    assert before[YELLOW] == before[BLUE] and before[RED] == before[GREEN]
    assert before[YELLOW] + before[RED] == pytest.approx(1.0) and 0.0 < before[YELLOW] < 1.0
    small = s.clone()
    play(small, "2 y1")
    play(s, "5 y1")  # sends r1 back to its base
    assert before[YELLOW] < small.rewards()[YELLOW] < s.rewards()[YELLOW] < 1.0
