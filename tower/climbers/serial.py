"""The Climbers as JSON: a player's view, and the complete state and back (docs/formats.md).

The construction is stored as a tower-build/1 document in board coordinates, with the figures and stones; the
rest of the state is plain fields.
"""

from __future__ import annotations

from typing import Any

from tower.climbers.build import build_to_json, parse_build

#: The state these functions serve: `game.ClimbersState`, which imports this module (named, not imported, so that
#: imports point one way).
ClimbersState = Any

#: State fields stored as they are.
FIELDS = ("short", "long", "stone", "stone_used", "player", "phase", "last_moved", "moved_now", "climbed", "turn",
          "round", "round_leader", "last_chance", "over", "reached")


def stone_text(state: ClimbersState, q: int) -> str:
    """Player q's stone: unused, the block it lies on, or spent."""
    if not state.stone_used[q]:
        return "unused"
    b = state.stone[q]
    return state.ids[b] if b is not None else "spent"


def view(state: ClimbersState) -> dict[str, Any]:
    """Everything in The Climbers is public: every player sees this."""
    return {
        "game": state.name, "build": build_to_json(state.to_build()), "current_player": state.current_player,
        "phase": state.phase, "round": state.round, "turn": state.turn, "last_chance": state.last_chance,
        "last_moved": None if state.last_moved is None else state.ids[state.last_moved],
        "players": [{"colour": state.colours[q], "figure": list(state.figures[q]), "height": state.figures[q][2],
                     "short_ladder": state.short[q], "long_ladder": state.long[q], "stone": stone_text(state, q)}
                    for q in range(state.num_players)],
        "over": state.over,
    }


def to_json(state: ClimbersState) -> dict[str, Any]:
    d = state.base_json()
    d.update({"build": build_to_json(state.to_build()), "figures": [list(f) for f in state.figures],
              "turn_start": list(state.turn_start)})
    d.update({key: getattr(state, key) for key in FIELDS})
    return d


def from_json(cls: type[ClimbersState], data: dict[str, Any]) -> ClimbersState:
    # the build is stored in board coordinates already: no shift
    state = cls(data["players"], data["seed"], data["options"], build=parse_build(data["build"]), shift=False)
    state.load_base_json(data)
    state.figures = [tuple(f) for f in data["figures"]]  # type: ignore[misc]
    for key in FIELDS:
        setattr(state, key, list(data[key]) if isinstance(data[key], list) else data[key])
    state.turn_start = tuple(data["turn_start"])  # type: ignore[assignment]
    return state
