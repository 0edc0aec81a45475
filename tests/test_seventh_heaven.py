"""In 7th Heaven: the rule text's statements and examples, then the shared game-API checks."""

from __future__ import annotations

import json
import random
import time
from collections import Counter

import pytest

from cardgames.seventh_heaven import COLOURS, KIND, KIND_NAME, SeventhHeavenMove, SeventhHeavenState
from tower.games import new_game, replay
from tower.games.ai import make_agent
from tower.games.errors import BadInput, IllegalMove

HEAVEN = 20


def game(players: int = 4, seed: int = 1, **options: object) -> SeventhHeavenState:
    return SeventhHeavenState(players, seed, dict(options))


def arrange(
    s: SeventhHeavenState,
    *,
    pos: dict[str, int] | None = None,
    holder: dict[str, int | None] | None = None,
    hands: dict[int, list[str]] | None = None,
    turn: int = 0,
    opening: bool = False,
) -> SeventhHeavenState:
    """Put the table in a position the rule text describes (tests only); a position in the middle of the game
    unless `opening` (then the first play of the game is still to come)."""
    for colour, space in (pos or {}).items():
        s.pos[COLOURS.index(colour)] = space
    for colour, player in (holder or {}).items():
        s.holder[COLOURS.index(colour)] = -1 if player is None else player
    for player, cards in (hands or {}).items():
        s.hands[player] = [KIND[c] for c in cards]
    s.turn = turn
    s.opening = opening
    s._legal = None
    return s


FOUR = {"red": 0, "blue": 1, "grey": 2, "yellow": 3, "green": None, "pink": None}


def where(s: SeventhHeavenState, colour: str) -> int:
    return s.pos[COLOURS.index(colour)]


def partner(s: SeventhHeavenState, colour: str) -> int | None:
    h = s.holder[COLOURS.index(colour)]
    return None if h < 0 else h


def moves(s: SeventhHeavenState) -> set[str]:
    return {str(m) for m in s.legal_moves()}


def total_cards(s: SeventhHeavenState) -> int:
    return sum(map(len, s.hands)) + len(s.deck) + len(s.discard)


# --- setting up ---------------------------------------------------------------------------------------------
def test_all_six_partner_pawns_start_on_the_garden_party():
    s = game()
    assert s.pos == [0] * 6


def test_each_player_gets_one_partner_card_and_the_rest_lie_beside_the_board():
    s = game(4)
    held = Counter(s.holder)
    assert all(held[p] == 1 for p in range(4)) and held[-1] == 2
    assert all(v["partners"] == s.view(0)["partners"] for v in (s.view(p) for p in range(4)))  # face up


def test_there_are_99_sympathy_cards_72_coloured_12_white_7_arrows_8_text():
    s = game()
    cards = [KIND_NAME[k] for h in s.hands for k in h] + [KIND_NAME[k] for k in s.deck]
    assert len(cards) == 99
    coloured = [c for c in cards if c[-2] in "+-" and not c.startswith("white")]
    white = [c for c in cards if c.startswith("white") and c != "white>"]
    arrows = [c for c in cards if c.endswith(">")]
    assert (len(coloured), len(white), len(arrows)) == (72, 12, 7)
    assert sorted(c for c in cards if c.isalpha() or c == "cards3") == sorted(
        ["heart", "mushroom", "cards3", "pepper", "snail", "foot", "cloud", "finger"]
    )
    assert Counter(coloured)["red+5"] == 2 and Counter(coloured)["red-2"] == 1


def test_each_player_receives_12_cards_and_the_rest_form_the_deck():
    s = game(5)
    assert [len(h) for h in s.hands] == [12] * 5 and len(s.deck) == 99 - 60


def test_track_length_colours_and_card_counts_are_options():
    s = game(4, track_length=25, colours=5, forward_copies=1, text_cards=False)
    assert s.length == 25 and len(s.pos) == 5
    assert total_cards(s) == 5 * (5 + 2) + 7 + 6
    with pytest.raises(BadInput):
        game(4, track_length=10)
    with pytest.raises(BadInput):
        game(3, colours=5)  # three players need six partner cards


def test_the_special_spaces_are_a_rule_option():
    s = game()
    assert (s.board.jumps, s.board.must_swap, s.board.may_swap) == ({2: 5, 6: 9, 13: 10}, {4}, {8, 14})
    assert s.view(0)["specials"] == {"jumps": {"2": 5, "6": 9, "13": 10}, "must_swap": [4], "may_swap": [8, 14]}
    s = arrange(game(specials="3:7,5:must,7:may"), pos={"grey": 4}, holder=FOUR,
                hands={0: ["red+3", "blue+5"], 1: ["grey+3"]})
    s.apply(SeventhHeavenMove.parse("play red+3"))
    assert where(s, "red") == 7 and s.phase == "play"  # a jump lands on 7 and triggers nothing more
    s.apply(SeventhHeavenMove.parse("play grey+3"))
    assert where(s, "grey") == 7 and s.phase == "swap" and "keep" in moves(s)  # 7 may swap
    assert "7 may swap" in s.describe(0)
    for bad in ("2:5,2:may", "0:must", "20:may", "4:maybe", "4-9", "5:5", "3:20"):
        with pytest.raises(BadInput) as info:
            game(specials=bad)
        assert info.value.where == "$.options.specials", bad


def test_the_youngest_player_seat_0_begins():
    assert game().current_player == 0


OPENING_HAND = ["red+3", "white+5", "blue-1", "green>", "heart", "mushroom", "pepper", "grey+1"]


def test_the_first_play_moves_a_partner_forward_with_a_one_to_five_card():
    # "He plays face up any sympathy card with 1,2,3,4 or 5 movement points and moves the same colour partner
    # figure forward": a coloured +1..+5 moves its pawn, a white one any pawn; no trade, back card, arrow or text
    s = arrange(game(), holder=FOUR, hands={0: OPENING_HAND}, opening=True)
    assert moves(s) == {"play red+3", "play grey+1"} | {f"play white+5 {c}" for c in COLOURS}
    for text in ("trade grey+1", "play blue-1", "play green>", "play heart blue", "play mushroom 2", "play pepper"):
        problem = s.explain(SeventhHeavenMove.parse(text))
        assert problem is not None and problem.rule == "opening-forward-card", text
    before = s.to_json()
    with pytest.raises(IllegalMove):
        s.apply(SeventhHeavenMove.parse("trade grey+1"))
    assert s.to_json() == before
    s.apply(SeventhHeavenMove.parse("play white+5 pink"))
    assert where(s, "pink") == 5


def test_a_first_player_without_a_one_to_five_card_may_open_with_any_card():
    s = arrange(game(), holder=FOUR, hands={0: ["blue-1", "green>", "heart", "red-2"]}, opening=True)
    assert "play heart blue" in moves(s) and "trade green>" in moves(s) and "play blue-1" in moves(s)
    assert s.explain(SeventhHeavenMove.parse("trade green>")) is None


def test_only_the_first_play_of_the_game_is_restricted():
    s = arrange(game(), holder=FOUR, hands={0: ["red+3", "white+1"], 1: ["red+2", "heart"]}, opening=True)
    s.apply(SeventhHeavenMove.parse("play red+3"))
    assert s.current_player == 1 and "play heart red" in moves(s) and "trade red+2" in moves(s)
    assert s.view(1)["opening"] is False


def test_every_new_game_opens_with_a_forward_card_when_the_first_player_has_one():
    for seed in range(40):
        for players in (2, 4, 6):
            s = game(players, seed)
            forward = [KIND_NAME[k] for k in s.hands[0]
                       if KIND_NAME[k][-2] == "+" and KIND_NAME[k][-1] in "12345"]
            assert s.view(0)["opening"] is True
            first = {str(m).split()[1] for m in s.legal_moves()}
            assert first == (set(forward) or first) and all(str(m).startswith("play ") or not forward
                                                             for m in s.legal_moves())


# --- moving -------------------------------------------------------------------------------------------------
def test_a_coloured_number_moves_the_same_colour_pawn_forward():
    s = arrange(game(), pos={"red": 7}, holder=FOUR, hands={0: ["red+3"]})
    s.apply_text("play red+3")
    assert where(s, "red") == 10 and s.current_player == 1


def test_any_player_may_move_any_pawn_with_the_right_card():
    s = arrange(game(), pos={"yellow": 9}, holder=FOUR, hands={0: ["yellow+1"]})
    s.apply_text("play yellow+1")
    assert where(s, "yellow") == 10


def test_minus_cards_move_backwards_but_never_behind_the_start():
    s = arrange(game(), pos={"blue": 11, "red": 1}, holder=FOUR, hands={0: ["blue-2", "red-2"]})
    s.apply_text("play blue-2")
    assert where(s, "blue") == 9
    arrange(s, turn=0)
    s.apply_text("play red-2")
    assert where(s, "red") == 0


def test_white_numbers_are_jokers_that_move_any_pawn():
    s = arrange(game(), pos={"green": 9}, holder=FOUR, hands={0: ["white+2"]})
    assert {f"play white+2 {c}" for c in COLOURS} <= moves(s)
    s.apply_text("play white+2 green")
    assert where(s, "green") == 11


def test_more_than_one_pawn_may_stand_on_a_space():
    s = arrange(game(), pos={"red": 7, "blue": 10}, holder=FOUR, hands={0: ["red+3"]})
    s.apply_text("play red+3")
    assert where(s, "red") == where(s, "blue") == 10


def test_a_coloured_arrow_moves_its_pawn_to_the_space_of_the_next_pawn():
    s = arrange(game(), pos={c: 0 for c in COLOURS} | {"red": 3, "blue": 9, "grey": 12}, holder=FOUR,
                hands={0: ["red>"]})
    s.apply_text("play red>")
    assert where(s, "red") == 9


def test_the_white_arrow_moves_any_pawn_to_the_next_pawn():
    s = arrange(game(), pos={"red": 3, "blue": 9, "grey": 12}, holder=FOUR, hands={0: ["white>"]})
    s.apply_text("play white> blue")
    assert where(s, "blue") == 12


def test_the_arrow_no_longer_leads_to_a_pawn_in_7th_heaven():
    s = arrange(game(), pos={"red": 15, "blue": HEAVEN, "grey": 3, "yellow": 3, "green": 3, "pink": 3},
                holder=FOUR, hands={0: ["red>"]})
    s.apply_text("play red>")
    assert where(s, "red") == 15


# --- exchanging partners ------------------------------------------------------------------------------------
def test_klaus_plays_a_blue_number_and_swaps_his_grey_card_for_katjas_blue():
    # Klaus (0) has grey, Katja (1) has blue: the rule text's example
    s = arrange(game(), pos={"blue": 5}, holder={"grey": 0, "blue": 1, "red": 2, "yellow": 3},
                hands={0: ["blue+3"]})
    s.apply_text("trade blue+3")
    assert partner(s, "blue") == 0 and partner(s, "grey") == 1
    assert where(s, "blue") == 5  # no pawn moves when exchanging


def test_coloured_arrows_may_also_exchange_partners():
    s = arrange(game(), holder=FOUR, hands={0: ["yellow>"]})
    s.apply_text("trade yellow>")
    assert partner(s, "yellow") == 0 and partner(s, "red") == 3


def test_an_ownerless_partner_card_beside_the_board_can_be_taken_too():
    s = arrange(game(4), holder=FOUR, hands={0: ["green+1"]})
    s.apply_text("trade green+1")
    assert partner(s, "green") == 0 and partner(s, "red") is None


def test_white_and_text_cards_cannot_exchange_partners():
    s = arrange(game(), holder=FOUR, hands={0: ["white+1", "heart"]})
    assert not any(m.startswith("trade") for m in moves(s))
    before = s.to_json()
    with pytest.raises(IllegalMove) as exc:
        s.apply(SeventhHeavenMove.parse("trade white+1"))
    assert exc.value.rule == "exchange-needs-coloured-card" and s.to_json() == before


def test_a_partner_can_be_swapped_back_on_a_later_turn():
    s = arrange(game(), holder=FOUR, hands={0: ["blue+1"], 1: ["blue+2"]})
    s.apply_text("trade blue+1")
    assert partner(s, "blue") == 0 and partner(s, "red") == 1
    s.apply_text("trade blue+2")
    assert partner(s, "blue") == 1 and partner(s, "red") == 0


# --- the six special spaces ---------------------------------------------------------------------------------
def test_space_2_the_first_kiss_moves_the_pawn_on_to_5():
    s = arrange(game(), holder=FOUR, hands={0: ["red+2"]})
    s.apply_text("play red+2")
    assert where(s, "red") == 5


def test_space_4_the_disco_forces_the_mover_to_swap_partners():
    s = arrange(game(), pos={"blue": 1}, holder=FOUR, hands={0: ["blue+3"]})
    s.apply_text("play blue+3")
    assert where(s, "blue") == 4 and s.current_player == 0
    assert "keep" not in moves(s)
    assert moves(s) == {f"swap {c}" for c in COLOURS if c != "red"}
    before = s.to_json()
    with pytest.raises(IllegalMove) as exc:
        s.apply(SeventhHeavenMove.parse("keep"))
    assert exc.value.rule == "space-4-must-swap" and s.to_json() == before
    s.apply_text("swap grey")
    assert partner(s, "grey") == 0 and partner(s, "red") == 2 and s.current_player == 1


def test_space_6_montmartre_sends_the_pawn_to_9():
    s = arrange(game(), pos={"grey": 3}, holder=FOUR, hands={0: ["grey+3"]})
    s.apply_text("play grey+3")
    assert where(s, "grey") == 9


def test_space_8_the_carnival_offers_a_swap_that_may_be_declined():
    s = arrange(game(), pos={"red": 5}, holder=FOUR, hands={0: ["red+3"]})
    s.apply_text("play red+3")
    assert "keep" in moves(s) and "swap yellow" in moves(s)
    s.apply_text("keep")
    assert partner(s, "red") == 0 and s.current_player == 1


def test_space_13_the_first_quarrel_sends_the_pawn_back_to_10():
    s = arrange(game(), pos={"red": 9}, holder=FOUR, hands={0: ["red+4"]})
    s.apply_text("play red+4")
    assert where(s, "red") == 10


def test_space_14_the_unlikely_pair_offers_a_swap():
    s = arrange(game(), pos={"red": 12}, holder=FOUR, hands={0: ["red+2"]})
    s.apply_text("play red+2")
    s.apply_text("swap pink")
    assert partner(s, "pink") == 0 and partner(s, "red") is None


def test_the_player_who_lands_swaps_whoever_owns_the_pawn():
    s = arrange(game(), pos={"blue": 6 - 1}, holder=FOUR, hands={2: ["blue+3"]}, turn=2)
    s.apply_text("play blue+3")  # 5 + 3 = 8, the carnival: player 2 may swap
    assert s.current_player == 2 and "swap blue" in moves(s)


def test_a_backward_move_landing_on_13_also_goes_back_to_10():
    s = arrange(game(), pos={"red": 15}, holder=FOUR, hands={0: ["red-2"]})
    s.apply_text("play red-2")
    assert where(s, "red") == 10


# --- 7th Heaven ---------------------------------------------------------------------------------------------
def test_surplus_points_are_disregarded_in_7th_heaven():
    s = arrange(game(), pos={"red": 18}, holder=FOUR, hands={0: ["red+5"]})
    s.apply_text("play red+5")
    assert where(s, "red") == HEAVEN


def test_the_holder_of_the_partner_card_wins_whoever_moved_the_pawn_in():
    s = arrange(game(4, play_for_places=False), pos={"blue": 18}, holder=FOUR, hands={3: ["blue+2"]}, turn=3)
    s.apply_text("play blue+2")
    assert s.is_over and s.result()["winners"] == [1]


def test_cards_for_a_pawn_in_7th_heaven_have_no_significance():
    s = arrange(game(), pos={"blue": HEAVEN}, holder=FOUR, hands={0: ["blue+3", "blue>"]})
    assert "trade blue+3" not in moves(s) and "play blue+3" in moves(s)
    assert not any(m.endswith(" blue") for m in moves(s))
    before = list(s.pos)
    s.apply_text("play blue+3")
    assert s.pos == before


def test_a_partner_card_in_7th_heaven_can_no_longer_be_swapped():
    s = arrange(game(), pos={"blue": HEAVEN, "red": 3}, holder=FOUR, hands={0: ["red+1"]})
    s.placed = [[1]]
    s.apply_text("play red+1")  # lands on 4: a forced swap, but never for blue
    assert "swap blue" not in moves(s) and "swap grey" in moves(s)


def test_players_in_7th_heaven_take_no_further_part_and_the_next_places_are_played_for():
    s = arrange(game(4), pos={"blue": 18}, holder=FOUR, hands={0: ["blue+2"]})
    s.apply_text("play blue+2")
    assert not s.is_over and s.placed == [[1]]
    assert s.current_player == 2  # player 1 is skipped
    arrange(s, pos={"grey": 19}, hands={2: ["grey+1"]}, turn=2)
    s.apply_text("play grey+1")
    assert s.current_player == 3
    arrange(s, pos={"yellow": 19}, hands={3: ["yellow+1"]}, turn=3)
    s.apply_text("play yellow+1")  # only player 0 is left: he takes the last place
    assert s.is_over and s.result()["places"] == [[1], [2], [3], [0]]


def test_the_game_ends_when_the_last_card_is_played_and_the_nearest_partner_wins():
    s = arrange(game(4), pos={"red": 12, "blue": 15, "grey": 3, "yellow": 9}, holder=FOUR,
                hands={0: ["green+1"], 1: [], 2: [], 3: []})
    s.deck.clear()
    s.apply_text("play green+1")
    assert s.is_over and s.result()["reason"] == "cards-out"
    assert s.result()["winners"] == [1] and s.result()["places"] == [[1], [0], [3], [2]]


def test_players_with_empty_hands_are_passed_over():
    s = arrange(game(4), holder=FOUR, hands={0: ["red+1"], 1: [], 2: ["grey+1"]})
    s.apply_text("play red+1")
    assert s.current_player == 2


# --- 2 or 3 players -----------------------------------------------------------------------------------------
def test_with_two_or_three_players_each_gets_two_partner_cards():
    three = game(3)
    assert Counter(three.holder) == {0: 2, 1: 2, 2: 2}
    two = game(2)
    assert Counter(two.holder) == {0: 2, 1: 2, -1: 2}  # two cards lie face up beside the board


def test_with_two_or_three_players_hands_are_refilled_to_12_after_each_card():
    s = arrange(game(3), pos={"red": 5}, holder={"red": 0, "blue": 0, "grey": 1, "yellow": 1, "green": 2, "pink": 2},
                hands={0: ["red+1", "blue+1", "blue+2"]})
    deck = len(s.deck)
    s.apply_text("play red+1")
    assert len(s.hands[0]) == 12 and len(s.deck) == deck - 10


def test_refilling_stops_after_the_turn_in_which_the_first_pawn_reaches_7th_heaven():
    s = arrange(game(3), pos={"grey": 19}, holder={"red": 0, "blue": 0, "grey": 1, "yellow": 1, "green": 2, "pink": 2},
                hands={0: ["grey+1"] + ["red+1"] * 5})
    s.apply_text("play grey+1")
    assert len(s.hands[0]) == 12  # the player who did it re-stocks one last time
    assert not s.refilling
    arrange(s, hands={1: ["red+1"] * 6}, turn=1)
    s.apply_text("play red+1")
    assert len(s.hands[1]) == 5


def test_with_two_partners_the_swapper_chooses_which_card_to_give():
    # Klaus (0) has grey and yellow, Katja (1) blue; Klaus plays a blue number and gives grey or yellow
    s = arrange(game(3), holder={"grey": 0, "yellow": 0, "blue": 1, "red": 1, "green": 2, "pink": 2},
                hands={0: ["blue+2"]})
    assert {"trade blue+2 give grey", "trade blue+2 give yellow"} <= moves(s)
    before = s.to_json()
    with pytest.raises(IllegalMove) as exc:
        s.apply(SeventhHeavenMove.parse("trade blue+2"))
    assert exc.value.rule == "choose-card-to-give" and s.to_json() == before
    s.apply_text("trade blue+2 give yellow")
    assert partner(s, "blue") == 0 and partner(s, "yellow") == 1 and partner(s, "grey") == 0


def test_with_two_or_three_players_the_first_with_both_partners_in_7th_heaven_wins():
    s = arrange(game(3), pos={"red": HEAVEN, "blue": 19, "grey": HEAVEN},
                holder={"red": 1, "blue": 0, "grey": 0, "yellow": 2, "green": 2, "pink": 1},
                hands={2: ["blue+1"]}, turn=2)
    s.placed = [[1], [0]]
    s.arrivals = [[0], [2]]
    s.refilling = False
    s.apply_text("play blue+1")
    assert s.is_over and s.result()["winners"] == [0]


def test_without_both_partners_in_the_first_to_reach_7th_heaven_with_one_wins():
    s = arrange(game(2), pos={"yellow": 17},
                holder={"red": 0, "blue": 0, "grey": 1, "yellow": 1, "green": None, "pink": None},
                hands={0: ["yellow+3", "red+1"], 1: []})
    s.deck.clear()
    s.apply_text("play yellow+3")
    assert s.placed == [[1]] and not s.is_over
    arrange(s, pos={"red": 19}, hands={0: ["red+1"], 1: []}, turn=0)
    s.apply_text("play red+1")
    assert s.is_over and s.result()["winners"] == [1]


# --- the eight text cards -----------------------------------------------------------------------------------
def test_heart_takes_another_partner_card():
    s = arrange(game(4), holder=FOUR, hands={0: ["heart"]})
    assert moves(s) == {f"play heart {c}" for c in COLOURS if c != "red"}
    s.apply_text("play heart pink")
    assert partner(s, "pink") == 0 and partner(s, "red") is None


def test_with_two_partners_the_heart_also_names_the_card_given():
    s = arrange(game(2), holder={"red": 0, "blue": 0, "grey": 1, "yellow": 1, "green": None, "pink": None},
                hands={0: ["heart"]})
    assert "play heart green give blue" in moves(s)
    s.apply_text("play heart green give blue")
    assert partner(s, "green") == 0 and partner(s, "blue") is None and partner(s, "red") == 0


def test_mushroom_takes_one_to_four_cards_from_the_deck():
    s = arrange(game(4), holder=FOUR, hands={0: ["mushroom"]})
    assert moves(s) == {f"play mushroom {n}" for n in (1, 2, 3, 4)}
    top = s.deck[-3:]
    s.apply_text("play mushroom 3")
    assert sorted(s.hands[0]) == sorted(top)


def test_three_cards_everybody_discards_three_and_takes_three():
    s = arrange(game(4), holder=FOUR, hands={0: ["cards3", "red+1", "red+2", "red+3", "red+4"],
                                             1: ["blue+1", "blue+2"], 2: ["grey+1"] * 5, 3: ["yellow+1"] * 3})
    deck = len(s.deck)
    s.apply_text("play cards3")
    order = []
    while s.phase == "discard":
        order.append(s.current_player)
        s.apply(s.legal_moves()[0])
    assert order == [0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 3]  # player 1 had only two: he discards both
    assert [len(h) for h in s.hands] == [4, 3, 5, 3] and len(s.deck) == deck - 12
    assert s.discard[0] == KIND["cards3"] and len(s.discard) == 1 + 11


def test_pepper_pot_moves_all_the_last_pawns_forward_three():
    s = arrange(game(), pos={"red": 5, "blue": 1, "grey": 1, "yellow": 7, "green": 9, "pink": 11},
                holder=FOUR, hands={0: ["pepper"]})
    s.apply_text("play pepper")
    assert where(s, "blue") == where(s, "grey") == 4  # and 4 is the disco: the player must swap
    assert s.phase == "swap" and "keep" not in moves(s)


def test_snail_moves_all_the_first_pawns_back_two():
    s = arrange(game(), pos={"red": 12, "blue": 12, "grey": 3, "yellow": HEAVEN, "green": 9, "pink": 1},
                holder=FOUR, hands={0: ["snail"]})
    s.apply_text("play snail")
    assert where(s, "red") == where(s, "blue") == 10 and where(s, "yellow") == HEAVEN


def test_foot_moves_the_first_pawn_forward_one_to_three():
    s = arrange(game(), pos={"red": 9, "blue": 11, "grey": 3, "yellow": 3, "green": 3, "pink": 3},
                holder=FOUR, hands={0: ["foot"]})
    assert moves(s) == {"play foot 1 blue", "play foot 2 blue", "play foot 3 blue"}
    s.apply_text("play foot 1 blue")
    assert where(s, "blue") == 12


def test_cloud_moves_all_the_first_pawns_back_three():
    s = arrange(game(), pos={"red": 17, "blue": 17, "grey": 3, "yellow": 3, "green": 3, "pink": 3},
                holder=FOUR, hands={0: ["cloud"]})
    s.apply_text("play cloud")
    assert where(s, "red") == where(s, "blue") == 14
    assert s.phase == "swap" and "keep" in moves(s)  # 14 is the unlikely pair


def test_finger_moves_your_partner_forward_to_the_next_pawn():
    s = arrange(game(), pos={"red": 3, "blue": 11, "grey": 12, "yellow": 0, "green": 0, "pink": 0},
                holder=FOUR, hands={0: ["finger"]})
    assert moves(s) == {"play finger red"}
    s.apply_text("play finger red")
    assert where(s, "red") == 11


def test_finger_does_not_move_a_partner_already_sharing_a_square():
    s = arrange(game(), pos={"red": 10, "blue": 10, "grey": 12, "yellow": 0, "green": 0, "pink": 0},
                holder=FOUR, hands={0: ["finger"]})
    s.apply_text("play finger red")
    assert where(s, "red") == 10


# --- illegal moves, text and the game API -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("play blue+5", "card-not-in-hand"),
        ("play white+1", "white-card-names-pawn"),
        ("play mushroom 9", "mushroom-takes-1-to-4"),
        ("play foot 2 grey", "foot-moves-first-pawn"),
        ("trade red+1", "swap-for-another-partner"),
        ("play red+1 blue", "coloured-card-moves-own-colour"),
        ("trade green+1", "seventh-heaven-is-final"),
        ("discard red+1", "discard-only-for-three-cards"),
        ("keep", "keep-only-after-special-space"),
    ],
)
def test_illegal_moves_name_their_rule_and_leave_the_state_unchanged(text, rule):
    s = arrange(game(), pos={"red": 9, "blue": 11, "green": HEAVEN}, holder=FOUR,
                hands={0: ["red+1", "green+1", "white+1", "mushroom", "foot", "finger"]})
    before = s.to_json()
    with pytest.raises(IllegalMove) as exc:
        s.apply(SeventhHeavenMove.parse(text))
    assert exc.value.rule == rule
    assert s.to_json() == before


@pytest.mark.parametrize("text", ["", "jump red", "play", "play purple+3", "play red+3 sideways", "swap 7"])
def test_malformed_move_text_is_bad_input(text):
    with pytest.raises(BadInput):
        SeventhHeavenMove.parse(text)


def play_random(s: SeventhHeavenState, rng: random.Random, check=None) -> SeventhHeavenState:
    while not s.is_over:
        legal = s.legal_moves()
        assert legal == sorted(legal, key=lambda m: m.sort_key()) and len(set(legal)) == len(legal)
        s.apply(rng.choice(legal))
        if check:
            check(s)
    return s


def test_cards_are_conserved_hands_deck_and_discard_always_hold_all_99():
    for seed in range(30):
        play_random(game(2 + seed % 5, seed), random.Random(seed), lambda s: total_cards(s) == 99 or pytest.fail())


def test_300_random_games_of_2_to_6_players_finish_within_the_length_bound():
    # the benchmark plays the full 2000
    for seed in range(300):
        s = play_random(game(2 + seed % 5, 1000 + seed), random.Random(seed))
        assert len(s.history) <= s.max_game_length
        r = s.result()
        assert r["winners"] and len(r["scores"]) == s.num_players


def test_moves_round_trip_through_text_and_json():
    rng = random.Random(3)
    for seed in range(20):
        s = game(2 + seed % 5, seed)
        while not s.is_over:
            for m in s.legal_moves():
                assert SeventhHeavenMove.parse(str(m), s) == m
                assert SeventhHeavenMove.from_json(json.loads(json.dumps(m.to_json()))) == m
            s.apply(rng.choice(s.legal_moves()))


def test_records_replay_exactly_and_states_round_trip_through_json():
    for seed in range(20):
        s = play_random(game(2 + seed % 5, seed), random.Random(seed))
        assert replay(json.loads(json.dumps(s.record()))).to_json() == s.to_json()
        assert SeventhHeavenState.from_json(json.loads(json.dumps(s.to_json()))).to_json() == s.to_json()


def test_same_seed_and_same_moves_give_the_same_game():
    a, b = new_game("seventh-heaven", 4, 42), new_game("seventh-heaven", 4, 42)
    assert a.to_json() == b.to_json()
    play_random(a, random.Random(1))
    play_random(b, random.Random(1))
    assert a.to_json() == b.to_json()


def test_clone_is_independent_and_equal():
    s = game(4, 5)
    rng = random.Random(0)
    for _ in range(10):
        s.apply(rng.choice(s.legal_moves()))
    c = s.clone()
    assert c.to_json() == s.to_json()
    c.apply(c.legal_moves()[0])
    assert c.to_json() != s.to_json()


def test_view_hides_other_hands_and_the_deck_but_shows_partner_cards():
    s = game(4, 8)
    v = s.view(2)
    assert v["hand"] == sorted(KIND_NAME[k] for k in s.hands[2])
    assert v["hand_sizes"] == [12] * 4 and v["deck"] == len(s.deck)
    text = json.dumps(v)
    assert "hands" not in v and len(v["partners"]) == 6
    assert isinstance(s.describe(2), str) and "your hand" in s.describe(2) and text


def test_determinize_redeals_only_what_the_player_cannot_see():
    rng = random.Random(1)
    s = game(4, 9)
    for _ in range(15):
        s.apply(rng.choice(s.legal_moves()))
    me = s.current_player
    d = s.determinize(me, random.Random(7))
    assert d.view(me) == s.view(me)
    assert sorted(sum(d.hands, []) + d.deck) == sorted(sum(s.hands, []) + s.deck)
    assert d.legal_moves() == s.legal_moves()


def test_ai_players_choose_legal_moves_quickly():
    s = game(4, 3)
    for spec in ("random", "greedy", "mcts:iters=50"):
        agent = make_agent(spec, seed=1)
        t = time.perf_counter()
        move = agent.choose(s)
        assert move in s.legal_moves() and time.perf_counter() - t < 2.0


def test_the_search_player_takes_the_games_measured_settings_unless_told_otherwise():
    state = new_game("seventh-heaven", 4, seed=11)
    plain, told = make_agent("mcts:iters=20", seed=1), make_agent("mcts:iters=20,c=0.3", seed=1)
    assert plain.choose(state) in state.legal_moves() and told.choose(state) in state.legal_moves()
    assert plain._c == type(state).search_exploration == 1.0
    assert told._c == 0.3
    diabolo = new_game("diabolo", 4, seed=11)  # a game without the hook keeps the generic constant
    generic = make_agent("mcts:iters=20", seed=1)
    generic.choose(diabolo)
    assert generic._c == 0.7


def test_describe_says_why_your_colour_changed_after_a_trade():
    s = arrange(game(4, 8), holder=FOUR, hands={0: ["blue+3", "red+1"], 1: ["grey+2"]})
    s.apply(SeventhHeavenMove.parse("trade blue+3"))  # P0 takes blue from P1, P1 gets red
    mine = s.describe(0)
    assert "your partner card: blue" in mine
    assert "you took the blue partner card from P1 and gave red" in mine
    theirs = s.describe(1)
    assert "your partner card: red" in theirs and "P0 took your blue partner card and gave you red" in theirs
    assert s.public_view()["exchanges"] == [{"by": 0, "took": "blue", "gave": "red", "from": 1}]
    assert "colour changed" not in s.describe(2)


def test_the_outcome_names_the_winner_the_reason_and_the_places():
    s = arrange(game(4, 8, play_for_places=False), pos={"red": 18}, holder=FOUR, hands={0: ["red+2"]})
    s.apply(SeventhHeavenMove.parse("play red+2"))
    assert s.is_over and s.result()["winners"] == [0]
    assert s.outcome_text().startswith("P0 wins: the red partner reached 7th Heaven first; places: 1. P0, ")


def test_a_swap_space_asks_its_question_in_words():
    """Landing on a swap space, the player to move is told what the swap asks: must on 4 (no keep among the moves),
    may on 8 and 14 (keep is one); elsewhere there is no question beyond the moves."""
    import random as _random

    from cardgames.seventh_heaven.moves import SWAP

    seen: dict[bool, str] = {}
    for seed in range(40):
        st = new_game("seventh-heaven", 4, seed)
        rng = _random.Random(seed)
        while not st.is_over and len(seen) < 2:
            moves = st.legal_moves()
            if st.phase == SWAP:
                must = all(m.verb != "keep" for m in moves)
                text = st.prompt()
                assert text.startswith(f"Space {st.swap_space}: you {'must' if must else 'may'} swap partner cards")
                assert ("keep yours" in text) != must
                seen[must] = text
            else:
                assert st.prompt() is None
            st.apply(rng.choice(moves))
        if len(seen) == 2:
            break
    assert set(seen) == {True, False}
