"""One suite for every game (in the spirit of OpenSpiel's random simulation test).

For seeded random playouts of every registered game and player count, at every step: legal moves are sorted,
unique and empty only at the end; every legal move applies; a well-formed move that is not legal raises IllegalMove
and leaves the state unchanged; clone() is independent both ways; to_json/from_json and the move text and JSON forms
round-trip; the record (whole or cut short) replays to the same state; the same seed gives the same game; view(p)
does not depend on what p cannot see (the others' hands are re-dealt), nor does the spectators' public_view(), and
a hidden decision is told to the others without its secret (public_move); the game ends within its documented maximum
length (`GameState.max_game_length`); the result is well-formed.

Environment: TOWER_CONFORMANCE_PLAYOUTS raises the number of playouts per game and player count (CI uses the
default); TOWER_CONFORMANCE_APPLY caps how many legal moves are applied (each to its own clone) per checked step,
0 meaning all of them (Climbers has thousands of legal moves a step, so CI applies a random sample).
"""

from __future__ import annotations

import json
import os
import random
from contextlib import contextmanager

import pytest

from tower.games import GameState, game_class, game_names, new_game, replay
from tower.games.errors import IllegalMove

PLAYOUTS = int(os.environ.get("TOWER_CONFORMANCE_PLAYOUTS", "2"))
APPLY_CAP = int(os.environ.get("TOWER_CONFORMANCE_APPLY", "48"))
#: Full per-step checks are costly for long games; beyond this many steps only every k-th step is checked.
DENSE_STEPS = 60
SPARSE_EVERY = 25

CASES = [(name, n) for name in game_names() for n in game_class(name).allowed_players()]


def _canon(doc) -> str:
    return json.dumps(doc, sort_keys=True)


def _hides_information(cls: type[GameState]) -> bool:
    """Games with hidden information re-deal it in `determinize`; the others inherit the plain clone."""
    return cls.determinize is not GameState.determinize


@contextmanager
def _where(game: str, players: int, seed: int, step: int | str):
    """Name the playout and step in any failure, so it can be reproduced."""
    try:
        yield
    except (Exception, pytest.fail.Exception) as exc:  # a failed check, DID NOT RAISE, or a crash of the game
        what = str(exc) if isinstance(exc, AssertionError) else f"{type(exc).__name__}: {exc}"
        raise AssertionError(f"{game}, {players} players, seed {seed}, step {step}: {what}") from exc


def _move_pool(game: str, players: int, seed: int, rng: random.Random) -> list:
    """Well-formed moves of this game from another seeded playout: mostly not legal in ours."""
    probe = new_game(game, players, seed + 1000)
    pool = []
    for _ in range(40):
        if probe.is_over:
            break
        moves = probe.legal_moves()
        pool += rng.sample(moves, min(3, len(moves)))
        probe.apply(rng.choice(moves))
    return pool


def _check_illegal(state, legal: list, candidates: list, rng: random.Random, before: str) -> int:
    """Well-formed moves that are not legal now raise IllegalMove naming a rule and change nothing."""
    legal_set = set(legal)
    bad = [m for m in candidates if m not in legal_set]
    tried = 0
    for move in rng.sample(bad, min(4, len(bad))):
        with pytest.raises(IllegalMove) as info:
            state.apply(move)
        assert info.value.rule, f"refusing {move} names no rule"
        assert _canon(state.to_json()) == before, f"refusing {move} changed the state"
        assert state.explain(move) is not None, f"explain() finds nothing wrong with the refused {move}"
        tried += 1
    return tried


def _check_step(state, legal, rng: random.Random, candidates: list) -> tuple[int, bool]:
    """All per-step contracts. Returns (illegal moves tried, whether a re-deal changed another player's view)."""
    assert legal, "legal moves may be empty only when the game is over"
    keys = [m.sort_key() for m in legal]
    assert keys == sorted(keys), "legal moves are sorted"
    assert len(set(legal)) == len(legal), "legal moves are unique"
    before = _canon(state.to_json())
    # every legal move applies (each to its own clone); the original is untouched by it
    chosen = legal if APPLY_CAP == 0 or len(legal) <= APPLY_CAP else rng.sample(legal, APPLY_CAP)
    for m in chosen:
        assert state.explain(m) is None, f"explain() refuses the legal move {m}"
        twin = state.clone()
        twin.apply(m)
        assert twin.history[-1] == m and len(twin.history) == len(state.history) + 1
    assert _canon(state.to_json()) == before, "applying moves to clones changed the original"
    # text and JSON forms round-trip
    for m in rng.sample(legal, min(5, len(legal))):
        assert type(m).parse(str(m), state) == m, f"text form {str(m)!r} does not read back"
        assert type(m).from_json(json.loads(json.dumps(m.to_json()))) == m, f"JSON form of {m} does not read back"
        hash(m)
    tried = _check_illegal(state, legal, candidates, rng, before)
    # the state's JSON form round-trips
    again = type(state).from_json(json.loads(json.dumps(state.to_json())))
    assert _canon(again.to_json()) == before, "to_json/from_json does not round-trip"
    assert again.legal_moves() == legal, "the state read back has other legal moves"
    # no player's view depends on what that player cannot see
    changed_other = False
    for p in range(state.num_players):
        view = _canon(state.view(p))
        redealt = state.determinize(p, random.Random(rng.random()))
        assert _canon(redealt.view(p)) == view, f"view({p}) changed when the hidden information was re-dealt"
        changed_other |= any(_canon(redealt.view(q)) != _canon(state.view(q))
                             for q in range(state.num_players) if q != p)
    assert _canon(state.to_json()) == before, "determinize() changed the original"
    _check_public(state, legal, rng)
    return tried, changed_other


def _check_public(state, legal, rng: random.Random) -> None:
    """What everyone may see: the spectators' view ignores every re-deal of hidden information, and a move is
    told to the others in words that do not depend on its secret (moves that leave the same public position are
    told alike)."""
    public = _canon(state.public_view())
    for p in range(state.num_players):
        label = state.player_label(p)
        assert isinstance(label, str) and label, f"player_label({p}) is empty"
        redealt = state.determinize(p, random.Random(rng.random()))
        assert _canon(redealt.public_view()) == public, "public_view() changed when hidden information was re-dealt"
    if state.perfect_information:
        assert public == _canon(state.view(0)), "a perfect-information game's public view is everyone's view"
        return
    mover = state.current_player
    told: dict[str, tuple[str, object]] = {}
    for m in rng.sample(legal, min(12, len(legal))):
        after = state.clone()
        after.apply(m)
        text = after.public_move(m, mover)
        assert isinstance(text, str) and text, f"public_move of {m} is empty"
        # a move told in other words than its own is a hidden decision; with the told text blanked out of the
        # public position (a game may log it), two hidden decisions that leave the same position must be told
        # alike, or the telling gives away the secret the position keeps
        if text == str(m):
            continue  # told as it is: a face-up move, nothing secret to keep
        key = _canon(after.public_view()).replace(json.dumps(text)[1:-1], "<told>")
        first, first_move = told.setdefault(key, (text, m))
        assert first == text, f"{first_move} and {m} leave the same public position but are told apart: " \
                              f"{first!r} / {text!r}"


def _check_result(state, players: int) -> None:
    assert state.legal_moves() == [], "no legal moves once the game is over"
    assert state.current_player is None
    res = state.result()
    json.dumps(res)
    winners, scores = res["winners"], res["scores"]
    assert winners, "someone wins"
    assert len(set(winners)) == len(winners) and set(winners) <= set(range(players)), f"winners {winners}"
    assert all(isinstance(w, int) and not isinstance(w, bool) for w in winners)
    assert len(scores) == players and all(isinstance(s, int | float) and not isinstance(s, bool) for s in scores)
    # the winners, and only they, share the win: whole for each member of a winning team, else 1/k each
    shares = state.win_shares()
    assert [p for p in range(players) if shares[p] > 0] == sorted(winners), f"shares {shares}, winners {winners}"
    whole = len(winners) if "teams" in res else 1
    assert sum(shares) == pytest.approx(whole) and len(set(shares[w] for w in winners)) == 1, f"shares {shares}"
    text = state.outcome_text()
    assert isinstance(text, str) and text, "outcome_text() says nothing"


def _playout(game: str, players: int, seed: int) -> None:
    cls = game_class(game)
    rng = random.Random(seed)
    state = new_game(game, players, seed)
    with _where(game, players, seed, 0):
        assert _canon(state.to_json()) == _canon(new_game(game, players, seed).to_json()), \
            "the same seed deals a different game"
    pool = _move_pool(game, players, seed, rng)
    cut = rng.randrange(1, 40)  # the record cut short here must replay to the state seen here
    cut_json = None
    steps, illegal_tried, redeal_seen = 0, 0, False
    previous: list = []
    while not state.is_over:
        legal = state.legal_moves()
        with _where(game, players, seed, steps):
            if steps < DENSE_STEPS or steps % SPARSE_EVERY == 0:
                # the previous step's moves are well-formed and, after a move, mostly illegal now
                tried, changed = _check_step(state, legal, rng, pool + previous)
                illegal_tried += tried
                redeal_seen |= changed
            else:
                assert legal, "legal moves may be empty only when the game is over"
            frozen = state.clone()
            frozen_json = _canon(frozen.to_json())
            state.apply(rng.choice(legal))
            assert _canon(frozen.to_json()) == frozen_json, "a move applied to the original changed its clone"
        previous = rng.sample(legal, min(6, len(legal)))
        steps += 1
        if steps == cut:
            cut_json = _canon(state.to_json())
        assert steps <= cls.max_game_length, \
            f"{game}, {players} players, seed {seed}: ran past its maximum length {cls.max_game_length}"
    with _where(game, players, seed, f"end ({steps} moves)"):
        _check_result(state, players)
        assert illegal_tried > 0, "no well-formed illegal move was tried: the pool is too small"
        if _hides_information(cls):
            assert redeal_seen, "determinize() never changed another player's view: nothing was re-dealt"
        # the record replays to the very same state, whole and cut short; the same seed and moves give the same game
        record = json.loads(json.dumps(state.record()))
        assert _canon(replay(record).to_json()) == _canon(state.to_json()), "the record does not replay"
        if cut_json is not None:
            assert _canon(replay(record, upto=cut).to_json()) == cut_json, f"the record cut at {cut} does not replay"
        same = new_game(game, players, seed)
        for m in state.history:
            same.apply(m)
        assert _canon(same.to_json()) == _canon(state.to_json()), "the same seed and moves gave another game"


@pytest.mark.parametrize(("game", "players"), CASES)
def test_random_playouts_keep_every_contract(game: str, players: int) -> None:
    for k in range(PLAYOUTS):
        _playout(game, players, 100 * players + k)

