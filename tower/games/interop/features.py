"""Fixed-size numeric observations, built from `state.view(player)` only (the one gate for private information).

Every value lies in [-1, 1]: one-hot codes, flags, and counts or scores divided by a stated scale (and clipped
where a game option could push them further). The length depends on the game and its player count only, so
an environment's observation space is fixed. Card and colour orders are the rules modules' own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np


class Row:
    """Collects the parts of one observation vector."""

    def __init__(self) -> None:
        self.parts: list[np.ndarray] = []

    def onehot(self, index: int | None, size: int) -> None:
        v = np.zeros(size, np.float32)
        if index is not None and 0 <= index < size:
            v[index] = 1.0
        self.parts.append(v)

    def values(self, xs: Iterable[float], scale: float = 1.0, size: int | None = None) -> None:
        v = np.asarray(list(xs), np.float32) / scale
        if size is not None:
            v = np.concatenate([v[:size], np.zeros(max(0, size - len(v)), np.float32)])
        self.parts.append(np.clip(v, -1.0, 1.0))

    def counts(self, items: Iterable[int], size: int, scale: float) -> None:
        self.values(np.bincount(np.asarray(list(items), np.int64), minlength=size)[:size], scale)

    def vector(self) -> np.ndarray:
        return np.concatenate(self.parts).astype(np.float32)


def observation(game: str, view: dict[str, Any], player: int, players: int) -> np.ndarray:
    """The numeric observation of `view` (what `player` sees in a `players`-player game of `game`)."""
    from tower.games.interop.actions import encoding_module

    return encoding_module(game).observation(view, player, players)
