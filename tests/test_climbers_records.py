"""Records of The Climbers written before the move style changed still replay, and new ones are plain text.

`data/climbers-records-v1.json` holds two games recorded by the earlier code (figure moves stored as
`{"fig": TEXT, "path": [...]}`), with the final position that code reached.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tower.climbers.moves import ClimbersMove
from tower.games import replay
from tower.games.errors import BadInput

OLD = json.loads((Path(__file__).parent / "data" / "climbers-records-v1.json").read_text())


@pytest.mark.parametrize("case", OLD, ids=lambda c: f"{c['record']['players']}p-seed{c['record']['seed']}")
def test_an_old_record_replays_to_the_same_end(case: dict) -> None:
    record = case["record"]
    assert any(isinstance(m, dict) for m in record["moves"])  # it does hold the old form
    state = replay(record)
    assert state.is_over
    assert [list(f) for f in state.figures] == case["final"]["figures"]
    assert state.to_json()["build"] == case["final"]["build"]
    assert state.result() == case["final"]["result"]
    # saved again, every move is its text, and that replays too
    again = state.record()
    assert all(isinstance(m, str) for m in again["moves"])
    assert replay(again).to_json() == state.to_json()


def test_a_figure_move_is_its_text_in_json() -> None:
    move = ClimbersMove.parse("fig 12,13,4 short+long")
    assert move.to_json() == "fig 12,13,4 short+long"
    assert ClimbersMove.from_json(move.to_json()) == move
    assert ClimbersMove.from_json({"fig": "fig 12,13,4 short+long", "path": [[11, 13, 0], [12, 13, 4]]}) == move


@pytest.mark.parametrize("data,where", [({"fig": "skip"}, "$.fig"), ({"fig": "fig 1,2,3", "path": [[1, 2]]}, "$.path"),
                                        ({"fig": "fig 1,2,3", "path": "x"}, "$.path"), (7, "$"), ({"block": "x"}, "$")])
def test_malformed_json_moves_name_the_place(data, where: str) -> None:
    with pytest.raises(BadInput) as err:
        ClimbersMove.from_json(data)
    assert err.value.where == where
