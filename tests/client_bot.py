"""A bot written against the client that openapi-python-client generates from `tower serve`'s OpenAPI document (the
package `tower_serve_client`, made by tests/test_serve_client.py): it plays a short game of every game to its end
with random legal moves (The Climbers' block moves from their placements) and uses the lab (create, edit, undo,
redo, push, drop).

tests/test_serve_client.py checks this file and the generated package with `mypy --strict`, and this file with
`disallow_any_expr` too: nothing the bot touches is `Any`, so the document's types are what a client programs
against. It also runs it against a server.
"""

from __future__ import annotations

import random
import time
from typing import TypeVar

import httpx
from tower_serve_client import Client
from tower_serve_client.api.games import create_game, get_game, placements, play_move
from tower_serve_client.api.lab import create_lab, drop_lab, edit_lab, get_lab, lab_push, redo_lab, undo_lab
from tower_serve_client.models import (
    BlockPlacements,
    BuildBlock,
    ClimbersOptions,
    DiaboloOptions,
    DiaboloOptionsHandSize,
    Error,
    GameAnswer,
    LabAdd,
    LabAddKind,
    LabBuild,
    LabDrop,
    LabExplained,
    LabPush,
    LabPushDirection,
    LabState,
    Move,
    NewClimbersGame,
    NewDiaboloGame,
    NewGameAnswer,
    NewLab,
    NewPartnersGame,
    NewSeventhHeavenGame,
    NoBody,
    PartnersOptions,
    RuleSet,
    SeventhHeavenOptions,
    SeventhHeavenOptionsHandSize,
    SeventhHeavenOptionsTrackLength,
)
from tower_serve_client.types import Unset

T = TypeVar("T")
NewGame = NewClimbersGame | NewSeventhHeavenGame | NewPartnersGame | NewDiaboloGame


def short_games(seed: int) -> list[NewGame]:
    """A short game of each of the four games, every seat human (the bot plays them all)."""
    return [
        NewClimbersGame(game="climbers", seats=["human", "human"], seed=seed,
                        options=ClimbersOptions(max_rounds=1)),
        NewSeventhHeavenGame(game="seventh-heaven", seats=["human", "human"], seed=seed,
                             options=SeventhHeavenOptions(track_length=SeventhHeavenOptionsTrackLength.VALUE_15,
                                                          hand_size=SeventhHeavenOptionsHandSize.VALUE_4)),
        NewPartnersGame(game="partners", seats=["human", "human", "human", "human"], seed=seed, options=PartnersOptions(move_limit=40)),
        NewDiaboloGame(game="diabolo", seats=["human", "human", "human"], seed=seed,
                       options=DiaboloOptions(hand_size=DiaboloOptionsHandSize.VALUE_3)),
    ]


class Refused(Exception):
    """The server refused a request the bot thought good (its status and one-line error)."""


def _ok(answer: T | Error | None) -> T:
    if answer is None:
        raise Refused("an answer the document does not name")
    if isinstance(answer, Error):
        raise Refused(f"{answer.rule}: {answer.error}")
    return answer


def a_move(client: Client, game_id: str, token: str, state: GameAnswer, rng: random.Random) -> str:
    """A random legal move of the seat to move: one of `legal_moves`, or a placement of one of `blocks` (a
    construction game lists its block moves by block: `placements` answers them)."""
    choices: list[str] = list(state.legal_moves)
    blocks = state.blocks if not isinstance(state.blocks, Unset) else []
    if blocks and (not choices or rng.random() < 0.5):
        block = rng.choice(blocks)
        found: BlockPlacements = _ok(placements.sync(game_id, client=client, token=token, block=block))
        texts = [row[4] for row in found.placements]  # x, y, z, shape, text, words
        choices = [t for t in texts if isinstance(t, str)] or choices
    if not choices:
        raise Refused(f"seat {state.to_move} has nothing to play")
    return rng.choice(choices)


def play_to_the_end(client: Client, new: NewGame, rng: random.Random, max_moves: int = 400) -> GameAnswer:
    """Create the game, play every seat's moves until it is over; its last state."""
    made: NewGameAnswer = _ok(create_game.sync(client=client, body=new))
    tokens = {seat.seat: seat.token for seat in made.seats}
    state: GameAnswer = _ok(get_game.sync(made.id, client=client, token=tokens[0]))
    for _ in range(max_moves):
        if state.over or state.to_move is None:
            return state
        token = tokens[state.to_move]
        mine: GameAnswer = _ok(get_game.sync(made.id, client=client, token=token))
        text = a_move(client, made.id, token, mine, rng)
        state = _ok(play_move.sync(made.id, client=client, token=token, body=Move(move=text, n=mine.n)))
    return state


def use_the_lab(client: Client) -> tuple[LabState, LabExplained, LabDrop]:
    """A beam over two columns: a cube added, the edit taken back and done again, the beam pushed, the build
    dropped; the lab's state after it, the push and the drop."""
    beam = LabBuild(format_="tower-build/1", blocks=[
        BuildBlock(id="a", origin=[0, 0, 0], size=[2, 2, 2]), BuildBlock(id="b", origin=[4, 0, 0], size=[2, 2, 2]),
        BuildBlock(id="beam", origin=[0, 0, 2], size=[6, 2, 2])])
    lab: LabState = _ok(create_lab.sync(client=client, body=NewLab(build=beam, rules=RuleSet.FLAG)))
    _ok(edit_lab.sync(lab.id, client=client, body=LabAdd(op="add", kind=LabAddKind.CUBE, origin=[8, 0, 0])))
    _ok(undo_lab.sync(lab.id, client=client, body=NoBody()))
    _ok(redo_lab.sync(lab.id, client=client))
    pushed: LabExplained = _ok(lab_push.sync(lab.id, client=client,
                                             body=LabPush(block="beam", direction=LabPushDirection.PLUS_X)))
    dropped: LabDrop = _ok(drop_lab.sync(lab.id, client=client))
    state: LabState = _ok(get_lab.sync(lab.id, client=client))
    return state, pushed, dropped


def run(url: str, seed: int = 7, seconds: float = 240) -> dict[str, str]:
    """Every game played to its end and the lab used; per game its outcome, and `lab` the lab's block ids."""
    client = Client(base_url=url, timeout=httpx.Timeout(60.0), raise_on_unexpected_status=True)
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    out: dict[str, str] = {}
    for new in short_games(seed):
        final = play_to_the_end(client, new, rng)
        if not final.over:
            raise Refused(f"{new.game} did not end")
        out[new.game] = final.outcome if final.outcome is not None else ""
        if time.monotonic() > deadline:
            raise Refused("the games took too long")
    state, pushed, dropped = use_the_lab(client)
    out["lab"] = ",".join(block.id for block in state.build.blocks)
    out["push"] = " ".join(pushed.words)
    out["drop"] = dropped.words
    return out
