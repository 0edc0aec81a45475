"""AI levels by name (easy, normal, strong): every game says which player plays each level, and a level is
accepted wherever a seat is chosen: `make_agent`, `--players`, a record's seats, the server's lobby."""

from __future__ import annotations

import pytest

from tower.app.seats import parse_players
from tower.app.serve.lobby import catalogue, parse_new_game
from tower.games import game_class, game_names, new_game
from tower.games.ai import LEVELS, LevelAgent, MCTSAgent, level_spec, make_agent
from tower.games.errors import BadInput


@pytest.mark.parametrize("game", game_names())
def test_every_game_maps_every_level_to_a_player(game):
    cls = game_class(game)
    assert set(cls.ai_levels) == set(LEVELS)
    for level in LEVELS:
        make_agent(level_spec(cls, level), game=cls)  # a code name the program knows, with settings the game has
    assert level_spec(cls, "easy") == "greedy"
    # the levels grow in thinking time: normal searches a tenth of a second, strong up to a second
    normal, strong = (make_agent(level_spec(cls, lv)) for lv in ("normal", "strong"))
    assert isinstance(normal, MCTSAgent) and isinstance(strong, MCTSAgent)
    assert normal.budget_s == 0.1 and strong.budget_s == 1.0


@pytest.mark.parametrize("game", game_names())
def test_a_level_plays_the_game_it_is_handed(game):
    state = new_game(game, seed=3)
    for spec in ("easy", "ai:normal"):
        agent = make_agent(spec, seed=1)
        assert isinstance(agent, LevelAgent) and agent.name == spec.removeprefix("ai:")
        move = agent.choose(state)
        assert move in state.legal_moves()
    # the player behind the level is the game's own: the same moves as its code name with the same seed
    ref = make_agent(level_spec(state, "easy"), seed=5)
    assert make_agent("easy", seed=5).choose(state) == ref.choose(state)


def test_levels_take_no_settings_and_unknown_names_are_named():
    with pytest.raises(BadInput, match="takes no settings"):
        make_agent("strong:time=3")
    with pytest.raises(BadInput, match="unknown AI 'hard'.*easy, normal, strong"):
        make_agent("hard")


def test_players_flag_takes_levels():
    assert parse_players("human,strong,ai:easy", "climbers") == ["human", "ai:strong", "ai:easy"]  # one spelling
    with pytest.raises(BadInput, match="--players: unknown AI 'expert'"):
        parse_players("human,expert,easy", "climbers")


def test_the_lobby_offers_the_levels_by_name_first():
    cat = catalogue()
    assert [lv["spec"] for lv in cat["levels"]] == [f"ai:{lv}" for lv in LEVELS]
    assert cat["ai"][:3] == [f"ai:{lv}" for lv in LEVELS] and "ai:greedy" in cat["ai"]
    assert all(lv["label"] and lv["text"] for lv in cat["levels"])
    for g in cat["games"]:
        assert g["levels"] == dict(game_class(g["name"]).ai_levels)
    made = parse_new_game({"game": "diabolo", "seats": ["human", "ai:normal", "ai:strong"]})
    assert made.seats == ["human", "ai:normal", "ai:strong"]
    with pytest.raises(BadInput, match=r"\$\.seats\[1\]"):
        parse_new_game({"game": "diabolo", "seats": ["human", "ai:strong:time=9", "ai:easy"]})


def test_widening_and_reuse_of_the_strong_climbers_search():
    """`widen=1`: a node visited n times has at most sqrt(n + 1) children, so the root's visits go to a few
    moves; `reuse=1`: the player's next decision of the same turn starts from the subtree the game went down."""
    state = new_game("climbers", 2, seed=4)
    agent = make_agent("mcts:iters=15,time=30,widen=1,reuse=1", seed=1)
    assert isinstance(agent, MCTSAgent)
    state.apply(agent.choose(state))
    history, root = agent._kept
    assert history == state.history[:-1] and root.visits >= 15
    assert 1 < len(root.children) <= (root.visits + 1) ** 0.5
    chosen = root.children[state.history[-1]]
    if state.current_player == 0:  # the same player decides again (the turn goes on): the subtree is kept
        assert agent._reused(state) is chosen and chosen.parent is None and chosen.visits > 0
    with pytest.raises(BadInput, match="unknown AI setting 'keep'"):
        make_agent("mcts:keep=1")


def test_the_search_keeps_positions_in_its_tree_where_nothing_is_hidden():
    """Where nothing is hidden the tree keeps each node's position and its candidate moves, instead of
    replaying the moves from the root on every iteration: the same moves and playouts, so the same choice."""
    state = new_game("climbers", 3, seed=6)
    rng_moves = make_agent("greedy", seed=2)
    for _ in range(4):
        state.apply(rng_moves.choose(state))
    for spec in ("mcts:iters=12,time=30", "mcts:iters=12,time=30,widen=1"):
        kept, replayed = make_agent(spec, seed=3), make_agent(spec, seed=3)
        blind = state.clone()
        blind.perfect_information = False  # the information-set path: a copy of the root every iteration
        assert kept.choose(state.clone()) == replayed.choose(blind)
