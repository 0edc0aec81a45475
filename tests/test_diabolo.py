"""Diabolo: the rule text's stories, its three worked scoring examples, and the game-API guarantees."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cardgames.diabolo import COLOUR_INDEX, COLOURS, DiaboloMove, DiaboloState, kind
from tower.games import new_game, replay
from tower.games.errors import BadInput, IllegalMove

M = DiaboloMove.parse


def card(text: str) -> int:
    colour, value = text.split()
    return kind(COLOUR_INDEX[colour], int(value))


def scenario(players: int, rows: dict[str, tuple[list[int], list[int]]], hands: list[list[str]],
             dealer: int | None = None, turn: int = 0, top: tuple[str, ...] = ()) -> DiaboloState:
    """A game in its first round with these rows (devil values, angel values) and hands; the rest is the draw pile,
    `top` drawn first. The player to move has already drawn."""
    state = DiaboloState(players, 0)
    data = state.to_json()
    pool = Counter(card(f"{c} {v}") for c in COLOURS for v in (1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5))
    data["rows"] = [[[], []] for _ in COLOURS]
    for colour, (devil, angel) in rows.items():
        data["rows"][COLOUR_INDEX[colour]] = [list(devil), list(angel)]
        for v in (*devil, *angel):
            pool[card(f"{colour} {v}")] -= 1
    data["hands"] = []
    for hand in hands:
        kinds = [card(t) for t in hand]
        for k in kinds:
            pool[k] -= 1
        data["hands"].append(kinds)
    assert all(n >= 0 for n in pool.values()), "scenario uses a card twice"
    for t in top:
        pool[card(t)] -= 1
    assert all(n >= 0 for n in pool.values()), "scenario uses a card twice"
    data["deck"] = sorted(pool.elements()) + [card(t) for t in reversed(top)]
    data["dealer"] = (turn - 1) % players if dealer is None else dealer
    data["turn"] = turn
    return DiaboloState.from_json(data)


def card_count(state: DiaboloState) -> int:
    return (sum(map(len, state.hands)) + len(state.deck) + len(state.discards)
            + sum(len(side) for row in state.rows for side in row))


def play_random(state: DiaboloState, rng: random.Random) -> None:
    while not state.is_over:
        state.apply(rng.choice(state.legal_moves()))


# --- the three worked examples of the rule text ---------------------------------------------------------------
MICHAEL, JOE, THIRD = 0, 1, 2


def examples_state() -> DiaboloState:
    """Purple 5+1 devil v 4+2+1 angel; green 2+5 devil v 1+2 angel, Michael about to add a green 2 to the angels;
    red 3 devil v 2+1 angel; blue a lone angel 1 so that a later row asks for doublers too."""
    return scenario(
        3,
        {"purple": ([5, 1], [4, 2, 1]), "green": ([2, 5], [1, 2]), "red": ([3], [2, 1]), "blue": ([], [1])},
        [["purple 5", "green 3", "green 1", "green 2", "yellow 1"],
         ["purple 4", "purple 2", "red 5", "yellow 2"],
         ["yellow 3", "red 4"]],
        turn=MICHAEL,
    )


def test_the_round_ends_and_is_scored_when_the_second_row_closes():
    state = examples_state()
    state.apply(M("place green 2 angel"))  # green now has 5 cards: the second closed row with purple
    assert state.phase == "double" and state.view(0)["scoring_row"] == "purple"


def test_green_example_seven_devil_against_five_angel_costs_michael_his_four_green_points():
    state = examples_state()
    state.apply(M("place green 2 angel"))
    green = next(r for r in state.view(0)["results"] if r["colour"] == "green")
    assert (green["devil"], green["angel"], green["outcome"]) == (7, 5, "loss")
    assert green["points"] == [-4, 0, 0]  # Michael still holds a green 3 and 1; Joe has no green card
    assert state.scores == [-4, 0, 0]


def test_red_example_three_against_three_scores_nothing():
    state = examples_state()
    state.apply(M("place green 2 angel"))
    red = next(r for r in state.view(0)["results"] if r["colour"] == "red")
    assert (red["devil"], red["angel"], red["outcome"], red["points"]) == (3, 3, "none", [0, 0, 0])


def test_purple_example_joe_doubles_his_six_to_twelve_and_michael_loses_his_doubler_for_nothing():
    state = examples_state()
    state.apply(M("place green 2 angel"))
    # six devil points against seven angel points: every player with a doubler decides, face down
    assert state.current_player == MICHAEL
    state.apply(M("double yes"))
    state.apply(M("double yes"))  # Joe
    state.apply(M("double no"))  # the third player
    purple = next(r for r in state.view(0)["results"] if r["colour"] == "purple")
    assert (purple["devil"], purple["angel"], purple["outcome"]) == (6, 7, "gain")
    assert purple["points"] == [0, 12, 0]
    assert state.scores == [-4, 12, 0]
    # both committed doublers are spent: the blue row (more angel points) asks only the third player
    assert state.doubler == [False, False, True]
    assert state.current_player == THIRD and state.asking == [THIRD]


def test_a_doubler_is_not_asked_for_a_row_with_more_devil_points():
    state = examples_state()
    state.apply(M("place green 2 angel"))
    # green (a loss) was scored without a question; the first question is about purple
    assert [r["colour"] for r in state.view(0)["results"]] == ["red", "yellow", "green"]


def test_doublers_are_back_in_every_hand_next_round():
    state = examples_state()
    state.apply(M("place green 2 angel"))
    for text in ("double yes", "double yes", "double no", "double no"):
        state.apply(M(text))
    assert state.round == 1 and state.phase == "play" and state.doubler == [True, True, True]


# --- placing --------------------------------------------------------------------------------------------------
def test_at_most_three_cards_lie_on_one_side_of_a_row():
    state = scenario(4, {"red": ([1, 2, 3], [])}, [["red 4", "blue 1"], ["blue 2"], ["blue 3"], ["blue 4"]])
    before = state.to_json()
    with pytest.raises(IllegalMove) as err:
        state.apply(M("place red 4 devil"))
    assert err.value.rule == "side-full"
    assert state.to_json() == before
    assert M("place red 4 angel") in state.legal_moves()
    assert M("place red 4 devil") not in state.legal_moves()


def test_a_row_closes_at_five_cards_and_takes_no_more():
    state = scenario(4, {"red": ([1, 2], [1, 2])}, [["red 4", "blue 1"], ["red 5", "blue 2"], ["blue 3"], ["blue 4"]])
    state.apply(M("place red 4 angel"))
    assert state.view(1)["rows"][COLOUR_INDEX["red"]]["closed"]
    before = state.to_json()
    with pytest.raises(IllegalMove) as err:
        state.apply(M("place red 5 devil"))
    assert err.value.rule == "row-closed"
    assert state.to_json() == before
    assert all(m.colour != "red" for m in state.legal_moves())


def test_a_card_must_be_in_the_hand():
    state = scenario(4, {}, [["blue 1"], ["blue 2"], ["blue 3"], ["blue 4"]])
    with pytest.raises(IllegalMove) as err:
        state.apply(M("place red 5 angel"))
    assert err.value.rule == "not-in-hand"


def test_a_turn_begins_by_drawing_a_card():
    state = DiaboloState(4, 3)
    assert [len(h) for h in state.hands] == [7, 6, 6, 6]  # seat 0, left of the first dealer, has drawn
    state.apply(state.legal_moves()[0])
    assert [len(h) for h in state.hands] == [6, 7, 6, 6]


def test_a_player_who_cannot_place_shows_the_hand_and_discards_one_card():
    state = scenario(4, {"red": ([1, 2, 3], [1, 1])}, [["red 4", "red 5", "red 4"], ["green 1"], ["green 2"], ["green 3"]])
    assert state.legal_moves() == [M("discard red 4"), M("discard red 5")]
    state.apply(M("discard red 4"))
    assert state.view(1)["shown"][0] == ["red 4", "red 5"]  # everybody saw what is left
    assert state.view(1)["discards"] == ["red 4"]


def test_discarding_is_illegal_while_a_card_can_be_placed():
    state = scenario(4, {}, [["red 4", "blue 1"], ["blue 2"], ["blue 3"], ["blue 4"]])
    with pytest.raises(IllegalMove) as err:
        state.apply(M("discard red 4"))
    assert err.value.rule == "must-place"


def test_with_five_players_the_round_ends_only_when_a_third_row_closes():
    rows = {"red": ([1, 2], [1, 2]), "blue": ([1, 2], [1, 2]), "green": ([1, 2], [1, 2])}
    hands = [["red 3", "blue 3", "green 3"], ["blue 4", "yellow 1"], ["green 4", "yellow 2"], ["yellow 3"], ["yellow 4"]]
    state = scenario(5, rows, hands)
    state.apply(M("place red 3 angel"))
    state.apply(M("place blue 4 angel"))
    assert state.phase == "play" and state.round == 0  # two closed rows are not enough with five players
    state.apply(M("place green 4 angel"))
    assert state.phase == "double"  # the third closed row ends the round: scoring begins (red asks for doublers)


def test_with_four_players_the_round_ends_when_a_second_row_closes():
    rows = {"red": ([1, 2], [1, 2]), "blue": ([1, 2], [1, 2])}
    hands = [["red 3"], ["blue 4", "yellow 1"], ["yellow 3"], ["yellow 4"]]
    state = scenario(4, rows, hands)
    state.apply(M("place red 3 devil"))
    assert state.phase == "play"
    state.apply(M("place blue 4 angel"))
    assert state.phase == "double"  # scoring: blue, with more angel points, asks for doublers


# --- scoring --------------------------------------------------------------------------------------------------
def test_players_tied_for_the_highest_sum_all_gain_it_each_doubled_only_if_committed():
    rows = {"red": ([1, 2], [4, 3]), "blue": ([1, 2], [1, 2])}
    hands = [["blue 3"], ["red 5", "red 1"], ["red 4", "red 2"], ["red 3", "red 1"]]
    state = scenario(4, rows, hands)
    state.apply(M("place blue 3 angel"))  # blue closes: one closed row is not enough
    assert state.phase == "play"
    state.apply(M("place red 1 angel"))  # red closes: the round ends
    # red: 3 devil v 8 angel, scored first: P1 holds 5, P2 6, P3 4
    for text in ("double no", "double no", "double yes", "double no"):  # order: left of dealer (seat 0) first
        state.apply(M(text))
    red = state.view(0)["results"][0]
    assert red["sums"] == [0, 5, 6, 4] and red["points"] == [0, 0, 12, 0]
    state = scenario(4, rows, [["blue 3"], ["red 5", "red 1"], ["red 4", "red 2"], ["red 3", "red 3"]])
    state.apply(M("place blue 3 angel"))
    state.apply(M("place red 1 angel"))
    for text in ("double no", "double no", "double yes", "double no"):
        state.apply(M(text))
    red = state.view(0)["results"][0]
    assert red["sums"] == [0, 5, 6, 6] and red["points"] == [0, 0, 12, 6]  # a tie: both gain


def test_players_tied_for_the_highest_sum_all_lose_it():
    rows = {"red": ([4, 3], [1, 2]), "blue": ([1, 2], [1, 2])}
    state = scenario(4, rows, [["blue 3"], ["red 5", "red 1"], ["red 4", "red 2"], ["yellow 1"]])
    state.apply(M("place blue 3 devil"))
    state.apply(M("place red 1 devil"))  # red: 8 devil v 3 angel
    red = state.view(0)["results"][0]
    assert red["colour"] == "red" and red["sums"] == [0, 5, 6, 0] and red["points"] == [0, 0, -6, 0]
    state = scenario(4, rows, [["blue 3"], ["red 5", "red 1"], ["red 4", "red 2"], ["red 3", "red 3"]])
    state.apply(M("place blue 3 devil"))
    state.apply(M("place red 5 devil"))  # P1 keeps only the red 1
    red = state.view(0)["results"][0]
    assert red["sums"] == [0, 1, 6, 6] and red["points"] == [0, 0, -6, -6]


def test_every_row_is_scored_not_only_the_closed_ones():
    rows = {"red": ([1, 2], [1, 2]), "blue": ([1, 2], [1, 2]), "yellow": ([4], [])}
    state = scenario(4, rows, [["red 3"], ["blue 4", "yellow 5"], ["yellow 3"], ["yellow 1"]], top=("purple 1",))
    state.apply(M("place red 3 devil"))
    state.apply(M("place blue 4 devil"))
    yellow = state.view(0)["results"][1]
    assert yellow["colour"] == "yellow" and yellow["outcome"] == "loss" and yellow["points"] == [0, -5, 0, 0]


def test_the_round_ends_when_the_draw_pile_is_empty():
    state = scenario(4, {}, [["red 1"], ["red 2"], ["red 3"], ["red 4"]])
    data = state.to_json()
    data["hands"][3] += data["deck"]  # every other card is in the last hand (a test arrangement)
    data["deck"] = []
    state = DiaboloState.from_json(data)
    state.apply(M("place red 1 angel"))  # player 1 would have to draw from an empty pile
    assert state.phase == "double" and state.view(0)["scoring_row"] == "red"


def test_as_many_rounds_as_players_and_the_dealer_moves_on():
    for players in (3, 4, 5):
        state = DiaboloState(players, players)
        rng = random.Random(players)
        firsts: dict[int, tuple[int, int]] = {}  # round -> (dealer, first player)
        while not state.is_over:
            if state.phase == "play" and state.round not in firsts:
                firsts[state.round] = (state.dealer, state.turn)
            state.apply(rng.choice(state.legal_moves()))
        assert state.round == players and sorted(firsts) == list(range(players))
        assert [firsts[r][0] for r in range(players)] == [(players - 1 + r) % players for r in range(players)]
        assert all(t == (d + 1) % players for d, t in firsts.values())  # left of the dealer begins


def test_the_highest_total_wins():
    state = DiaboloState(3, 11)
    play_random(state, random.Random(5))
    res = state.result()
    assert res["winners"] == [p for p in range(3) if res["scores"][p] == max(res["scores"])]


# --- hidden information -----------------------------------------------------------------------------------------
def test_a_view_shows_the_own_hand_and_hides_the_others_and_their_pending_doublers():
    state = examples_state()
    state.apply(M("place green 2 angel"))
    state.apply(M("double yes"))  # Michael commits for purple
    joe = state.view(JOE)
    assert joe["my_commitment"] is None and joe["decided"] == [MICHAEL]
    assert "yes" not in str(joe["decided"]) and "hands" not in joe
    assert joe["hand"] == ["purple 2", "purple 4", "red 5", "yellow 2"]
    assert state.view(MICHAEL)["my_commitment"] is True
    assert joe["hand_sizes"] == [4, 4, 2] and joe["doublers"] == [True, True, True]


def test_determinize_keeps_everything_the_player_sees():
    rng = random.Random(0)
    for g in range(15):
        state = DiaboloState(3 + g % 3, g)
        play_rng = random.Random(g)
        while not state.is_over:
            for p in range(state.num_players):
                copy = state.determinize(p, rng)
                assert copy.view(p) == state.view(p)
                assert card_count(copy) == card_count(state)
            state.apply(play_rng.choice(state.legal_moves()))


def test_determinize_redeals_the_hidden_cards():
    state = DiaboloState(4, 1)
    copies = [state.determinize(0, random.Random(i)) for i in range(5)]
    assert any(c.hands[1] != state.hands[1] for c in copies)
    assert all(c.hands[0] == state.hands[0] for c in copies)


def test_search_rewards_are_exact_shares_at_the_end_and_chances_to_win_before():
    state = DiaboloState(3, 11)
    play_random(state, random.Random(5))
    winners = state.result()["winners"]
    assert state.rewards() == [1 / len(winners) if p in winners else 0.0 for p in range(3)]
    early = DiaboloState(4, 3)
    copy = early.determinize(0, random.Random(1))
    copy.scores = [30, 0, 0, -30]
    chances = copy.rewards()
    assert sum(chances) == pytest.approx(1.0)
    assert chances[0] > max(chances[1:3]) and chances[3] < min(chances[1:3])
    assert 0.0 < chances[3] and chances[0] < 1.0  # three rounds are still to come: nothing is settled


# --- moves as values ------------------------------------------------------------------------------------------
def test_move_texts_and_json_round_trip():
    for text in ("place red 5 angel", "place blue 1 devil", "discard green 3", "double yes", "double no"):
        move = M(text)
        assert str(move) == text and DiaboloMove.from_json(move.to_json()) == move and hash(move) == hash(M(text))
    assert M("place red 5 heaven") == M("place red 5 angel")


@pytest.mark.parametrize("text", ["", "place", "place red angel", "place pink 3 angel", "place red 0 angel",
                                  "place red 3 up", "discard red", "double maybe", "jump", "place red x angel"])
def test_malformed_move_text_is_bad_input(text):
    with pytest.raises(BadInput):
        M(text)


def test_legal_moves_are_sorted_and_unique_and_legal():
    for g in range(40):
        state = DiaboloState(3 + g % 3, g)
        rng = random.Random(g)
        while not state.is_over:
            moves = state.legal_moves()
            texts = [str(m) for m in moves]
            assert texts == sorted(set(texts)) and moves
            for m in moves:
                assert state.explain(m) is None
            state.apply(rng.choice(moves))
        assert state.legal_moves() == []


def test_illegal_moves_name_a_rule_and_leave_the_state_unchanged():
    every = [M(f"place {c} {v} {s}") for c in COLOURS for v in range(1, 6) for s in ("angel", "devil")]
    every += [M(f"discard {c} {v}") for c in COLOURS for v in range(1, 6)] + [M("double yes"), M("double no")]
    for g in range(10):
        state = DiaboloState(3 + g % 3, g)
        rng = random.Random(g)
        while not state.is_over:
            legal = set(state.legal_moves())
            before = state.to_json()
            for m in rng.sample(every, 8):
                if m not in legal:
                    with pytest.raises(IllegalMove) as err:
                        state.apply(m)
                    assert err.value.rule != "not-legal"
                    assert state.to_json() == before
            state.apply(rng.choice(sorted(legal, key=str)))


# --- whole games ---------------------------------------------------------------------------------------------
def test_cards_are_conserved_after_every_move():
    for g in range(200):
        state = DiaboloState(3 + g % 3, 500 + g)
        assert card_count(state) == 70
        rng = random.Random(g)
        while not state.is_over:
            state.apply(rng.choice(state.legal_moves()))
            assert card_count(state) == 70


def test_random_games_finish():
    # 2000 here to keep the file fast; benchmarks/bench_diabolo.py plays the full 5000
    for g in range(2000):
        state = DiaboloState(3 + g % 3, 7000 + g)
        rng = random.Random(g)
        while not state.is_over:
            state.apply(state.random_move(rng))
        assert len(state.history) <= DiaboloState.max_game_length
        assert state.round == state.num_players


def test_same_seed_and_moves_give_the_same_game_and_records_replay_exactly():
    for g in range(20):
        state = new_game("diabolo", 3 + g % 3, seed=g)
        play_random(state, random.Random(g))
        again = replay(state.record())
        assert again.to_json() == state.to_json()
        assert DiaboloState.from_json(state.to_json()).to_json() == state.to_json()


def test_a_half_played_game_saves_and_clones_exactly():
    state = DiaboloState(4, 9)
    rng = random.Random(9)
    for _ in range(37):
        state.apply(rng.choice(state.legal_moves()))
    copy = state.clone()
    loaded = DiaboloState.from_json(state.to_json())
    assert copy.to_json() == state.to_json() == loaded.to_json()
    for s in (copy, loaded):
        play_random(s, random.Random(1))
    assert copy.to_json() == loaded.to_json()
    assert len(state.history) == 37  # the original is untouched


def test_card_values_are_an_option():
    state = DiaboloState(3, 0, {"values": "1,2,3,4,5,6,7"})
    assert card_count(state) == 35
    play_random(state, random.Random(0))
    with pytest.raises(BadInput):
        DiaboloState(3, 0, {"values": "1,2,x"})
    with pytest.raises(BadInput):
        DiaboloState(3, 0, {"colours": 4})


def test_the_terminal_rendering_shows_the_rows_and_only_the_own_hand():
    state = examples_state()
    text = state.describe(JOE)
    assert "purple" in text and "your hand: purple 2, purple 4, red 5, yellow 2" in text
    assert "green 3" not in text  # Michael's cards stay hidden


def test_the_ai_players_finish_a_game():
    from tower.games.ai import make_agent

    state = DiaboloState(3, 2)
    agents = [make_agent("greedy", 1), make_agent("mcts:iters=20", 2), make_agent("random", 3)]
    while not state.is_over:
        state.apply(agents[state.current_player].choose(state))
    assert state.round == 3


def test_search_re_deals_lean_towards_what_the_others_placements_suggest(monkeypatch):
    """A player who put red cards on the angel side this round more likely holds red in a re-deal (greedy
    players keep the colours they lead); with the weight at 0 the re-deal is uniform."""
    import cardgames.diabolo.search as search
    from cardgames.diabolo.cards import KIND_COLOUR

    state = DiaboloState(4, 2)
    red = COLOUR_INDEX["red"]
    state.leans[1][red] = 6

    def reds(seat: int) -> float:
        copies = [state.determinize(0, random.Random(i)) for i in range(400)]
        return sum(sum(1 for k in c.hands[seat] if KIND_COLOUR[k] == red) for c in copies) / 400

    monkeypatch.setattr(search, "INFER_WEIGHT", 0.7)
    assert reds(1) > 2 * reds(2)
    monkeypatch.setattr(search, "INFER_WEIGHT", 0.0)
    assert reds(1) == pytest.approx(reds(2), rel=0.25)


def test_placements_are_recorded_per_player_and_colour_for_the_round():
    state = DiaboloState(3, 4)
    rng = random.Random(1)
    while state.round == 0 and state.phase == "play":
        p = state.current_player
        move = rng.choice(state.legal_moves())
        before = [list(x) for x in state.leans]
        state.apply(move)
        if move.verb == "place":
            c = COLOUR_INDEX[move.colour]
            before[p][c] += move.value if move.side == "angel" else -move.value
        if state.phase == "play" and state.round == 0:
            assert state.leans == before
    assert DiaboloState.from_json(state.to_json()).leans == state.leans


def test_a_doubler_answer_is_told_without_the_answer_and_describe_explains_the_doublers():
    state = examples_state()
    state.apply(M("place green 2 angel"))
    assert state.phase == "double"
    asked = state.current_player
    told = {state.public_move(M(f"double {a}"), asked) for a in ("yes", "no")}
    assert told == {f"P{asked} has chosen whether to double"}
    text = state.describe(JOE)
    assert "'in hand' can still double a gain" in text and "answers in secret" in text


def test_the_outcome_names_the_winners_and_their_points():
    state = DiaboloState(3, 5)
    rng = random.Random(5)
    while not state.is_over:
        state.apply(rng.choice(state.legal_moves()))
    res = state.result()
    text = state.outcome_text()
    top = max(res["scores"])
    assert text.startswith(" and ".join(f"P{p}" for p in res["winners"])) and f"with {top} points" in text
    assert text.endswith(", ".join(f"P{p} {x}" for p, x in enumerate(res["scores"])))
