"""What each seat and a spectator may see of the card games (the hooks `view`, `public_view`, `public_move`,
`describe`), checked over random games.

The property: a view is a function of what its reader may know. So re-dealing everything the reader cannot see
(the other hands, the deck order, the cards in the Partners exchange, the Diabolo doubler answers not yet
revealed) must leave `view(p)` and `describe(p)` unchanged, and re-dealing every hand must leave `public_view()`
unchanged. The re-deals below are written here, independently of the games' own `determinize`, so a view that
reads a hidden field in any form (a card name, a code, a count of a kind) fails. Hidden decisions are checked the
same way from the other side: every choice of the decision leaves the others' views and the public view alike.
The seed (which with the moves would give away the deck) appears in no view.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from tower.games import GameState, new_game

SEED_BASE = 7_351_904_627  # long enough not to turn up in a view by chance


def _scramble_partners(state: Any, keep: int | None, rng: random.Random) -> None:
    pool = list(state.deck)
    for q in range(state.num_players):
        if q != keep:
            pool += state.hands[q]
            if state.gives[q] is not None:
                pool.append(state.gives[q])
    rng.shuffle(pool)
    for q in range(state.num_players):
        if q == keep:
            continue
        size = len(state.hands[q])
        state.hands[q] = sorted(pool[:size])
        del pool[:size]
        if state.gives[q] is not None:
            state.gives[q] = pool.pop()
        # what q and his partner know of their exchange is theirs only
        for field in (state.gave, state.received, state.known):
            if field[q] is not None:
                field[q] = rng.choice("123456789S")
    state.deck = pool
    state._legal = None


def _scramble_diabolo(state: Any, keep: int | None, rng: random.Random) -> None:
    pool = list(state.deck)
    kept: dict[int, list[int]] = {}
    for q in range(state.num_players):
        if q == keep:
            continue
        shown = list(state.shown[q])  # shown cards are public: they stay
        kept[q] = []
        for k in state.hands[q]:
            if k in shown:
                shown.remove(k)
                kept[q].append(k)
            else:
                pool.append(k)
    rng.shuffle(pool)
    for q, cards in kept.items():
        size = len(state.hands[q]) - len(cards)
        state.hands[q] = sorted([*cards, *pool[:size]])
        del pool[:size]
    state.deck = pool
    for q in list(state.commits):
        if q != keep:
            state.commits[q] = rng.random() < 0.5
    state._legal = None


def _scramble_heaven(state: Any, keep: int | None, rng: random.Random) -> None:
    pool = list(state.deck)
    for q in range(state.num_players):
        if q != keep:
            pool += state.hands[q]
    rng.shuffle(pool)
    for q in range(state.num_players):
        if q != keep:
            size = len(state.hands[q])
            state.hands[q] = pool[:size]
            del pool[:size]
    state.deck = pool
    state._legal = None


SCRAMBLE: dict[str, Callable[[Any, int | None, random.Random], None]] = {
    "partners": _scramble_partners,
    "diabolo": _scramble_diabolo,
    "seventh-heaven": _scramble_heaven,
}
#: the moves that are decided in secret (the rules: the exchange card is face down, the doubler answers are given
#: at the same time), by their text
SECRET_VERBS = {"partners": "give ", "diabolo": "double "}
#: (game, players) cases; every allowed count of each card game
CASES = [("partners", 4), ("partners", 6), ("diabolo", 3), ("diabolo", 4), ("diabolo", 5),
         ("seventh-heaven", 2), ("seventh-heaven", 3), ("seventh-heaven", 4), ("seventh-heaven", 6)]


def _canon(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True)


def _still_secret(before: GameState, after: GameState) -> bool:
    """After one answer of a hidden decision, are the answers still all hidden (nobody has seen them yet)?"""
    if before.phase != after.phase:  # type: ignore[attr-defined]
        return False
    return getattr(before, "scoring_row", None) == getattr(after, "scoring_row", None)


def _check_step(state: GameState, rng: random.Random, seed: int) -> int:
    """All checks at one position; returns how many re-dealt copies were compared."""
    scramble = SCRAMBLE[state.name]
    n = state.num_players
    compared = 0
    public = _canon(state.public_view())
    assert "hand" not in state.public_view() and str(seed) not in public
    assert not {"you", "player", "seed", "rng", "hands", "deck_order"} & set(state.public_view())
    for p in range(n):
        view = _canon(state.view(p))
        text = state.describe(p)
        assert str(seed) not in view and str(seed) not in text
        for _ in range(2):
            copy = state.clone()
            scramble(copy, p, rng)
            assert _canon(copy.view(p)) == view, f"view({p}) reads something {p} cannot see"
            assert copy.describe(p) == text, f"describe({p}) reads something {p} cannot see"
            compared += 1
    for _ in range(2):
        copy = state.clone()
        scramble(copy, None, rng)
        assert _canon(copy.public_view()) == public, "public_view() reads a hidden card"
    if state.is_over:
        assert state.outcome_text()
        return compared
    mover = state.current_player
    assert mover is not None
    legal = state.legal_moves()
    verb = SECRET_VERBS.get(state.name)
    hidden = [m for m in legal if verb and str(m).startswith(verb)]
    for m in legal:
        if m not in hidden:
            assert state.public_move(m, mover) == str(m), "an open move is told as it is"
    if hidden:
        # a hidden decision: one wording for every choice, and nobody else's view tells the choices apart
        assert len({state.public_move(m, mover) for m in hidden}) == 1
        assert all(str(m)[len(verb):] not in state.public_move(m, mover).split() for m in hidden)
        assert state.player_label(mover) in state.public_move(hidden[0], mover)
        after = []
        for m in hidden:
            child = state.clone()
            child.apply(m)
            after.append(child)
        secret = [c for c in after if _still_secret(state, c)]
        if len(secret) == len(after):
            for q in range(n):
                if q != mover:
                    assert len({_canon(c.view(q)) for c in after}) == 1, f"view({q}) shows {mover}'s secret"
            assert len({_canon(c.public_view()) for c in after}) == 1, "public_view() shows a secret choice"
        elif state.name == "partners":
            opponents = [q for q in range(n) if q % (n // 2) != mover % (n // 2)]
            for q in opponents:
                assert len({_canon(c.view(q)) for c in after}) == 1, f"view({q}) shows the exchanged card"
    return compared


@pytest.mark.parametrize(("game", "players"), CASES)
def test_views_depend_only_on_what_their_reader_may_see(game: str, players: int) -> None:
    rng = random.Random(players)
    compared = 0
    for g in range(2 if game != "partners" else 1):
        seed = SEED_BASE + 17 * g + players
        state = new_game(game, players, seed=seed)
        step = 0
        while not state.is_over:
            if step < 60 or step % 9 == 0:
                compared += _check_step(state, rng, seed)
            state.apply(rng.choice(state.legal_moves()))
            step += 1
        compared += _check_step(state, rng, seed)
    assert compared > 100


def test_the_labels_name_seat_and_colour_where_the_game_has_colours() -> None:
    partners = new_game("partners", 4, seed=1)
    assert [partners.player_label(p) for p in range(4)] == ["P0 yellow", "P1 red", "P2 blue", "P3 green"]
    assert partners.public_view()["labels"] == [partners.player_label(p) for p in range(4)]
    # In 7th Heaven a player's colour is the partner card he holds, which changes hands: the label is the seat
    heaven = new_game("seventh-heaven", 4, seed=1)
    diabolo = new_game("diabolo", 3, seed=1)
    assert heaven.player_label(2) == "P2" and diabolo.player_label(1) == "P1"
