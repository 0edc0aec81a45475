"""Clicks per move when every game is played by pointing on the table (the page and the window walk the same
paths: viewer/cards/pointing.py, viewer/placement.py, viewer/climbers_pointing.py), over the legal moves of
positions of seeded random games. Not a timing: a count, the same on every machine.

- card games: the fewest clicks through a fresh pointer that play each legal move (a card and where it goes,
  a choice more; a one-move card's second click on itself);
- The Climbers: a figure step or the blocking stone is its lit cell clicked twice (choose, play); where several
  moves go to one cell (with one ladder or another) the wheel or R turns through them first; skip, keep and pass
  are one button; a block move is the block, then its spot (two clicks), plus the wheel turns that bring the
  wanted shape and face up at that spot (the shorter way round); a placement no spot shows is the list's.

    python benchmarks/clicks.py [--games 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tower.games.registry import new_game  # noqa: E402
from viewer.cards.clickpaths import card_table  # noqa: E402
from viewer.cards.pointing import CardPointer  # noqa: E402


def positions(game: str, players: int, seed: int, every: int, limit: int):
    st = new_game(game, players, seed)
    rng = random.Random(seed)
    while not st.is_over and len(st.history) < limit:
        if len(st.history) % every == 0:
            yield st
        st.apply(rng.choice(st.legal_moves()))


def card_clicks(st) -> list[int]:
    """The clicks each legal move of the player to move takes (fewest over its paths)."""
    table = card_table(st, st.current_player)
    best: dict[int, int] = {}
    for move, path in table.paths:
        ptr = CardPointer(table)
        for n, key in enumerate([*path, path[-1]], 1):
            if ptr.click(key) is not None:
                best[move] = min(best.get(move, n), n)
                break
    return list(best.values())


def climbers_clicks(st, kinds: dict[str, list[int]], listed: Counter) -> None:
    """The clicks of each legal move of a Climbers position, by kind (a move only the list reaches: `listed`)."""
    from viewer.climbers_pointing import ACTION_KEYS, move_cells
    from viewer.placement import Aim, BlockPlacements

    legal = st.legal_moves()
    blocks = legal.blocks() if callable(getattr(legal, "blocks", None)) else []
    if not blocks:
        cells = move_cells(st, list(legal))
        for m in legal:
            text = str(m)
            if text in ACTION_KEYS:
                kinds["skip, keep, pass (a button)"].append(1)
            elif m.kind in ("fig", "stone"):
                ways = next((ms for ms in cells.values() if text in ms), None)
                name = "figure step" if m.kind == "fig" else "blocking stone"
                if ways is None:
                    listed[name] += 1
                else:  # a cell chosen shows its first way; the wheel turns to the others, the shorter way round
                    k = ways.index(text)
                    kinds[name].append(2 + min(k, len(ways) - k))
        return
    build = st.to_build()
    moves = list(legal)
    for block in blocks:
        mine = [m for m in moves if m.block == block]
        aim = Aim(BlockPlacements.from_moves(block, mine, build))
        for m in mine:
            text = str(m)
            cur = aim.choose(text)  # the pointer at the placement's spot
            if cur is None or cur.text != text:
                listed["block move"] += 1
                continue
            # a fresh pointer shows the first option there; the wheel turns to the wanted one, the shorter way
            n, k = len(aim.options), aim.index
            kinds["block move"].append(2 + min(k, n - k))


def summary(values: list[int]) -> str:
    c = Counter(values)
    spread = ", ".join(f"{k}: {c[k] / len(values):.0%}" for k in sorted(c) if c[k] / len(values) >= 0.005)
    return f"median {statistics.median(values):g}, max {max(values)}  ({spread}; {len(values)} moves)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3, help="seeded random games per game and player count")
    args = ap.parse_args()
    for game, players in (("seventh-heaven", 4), ("seventh-heaven", 2), ("partners", 4), ("diabolo", 3)):
        values: list[int] = []
        for seed in range(args.games):
            for st in positions(game, players, seed, every=3, limit=240):
                values += card_clicks(st)
        print(f"{game} ({players} players): {summary(values)}")
    kinds: dict[str, list[int]] = defaultdict(list)
    listed: Counter = Counter()
    for players in (2, 4):
        for seed in range(args.games):
            for st in positions("climbers", players, seed, every=5, limit=40):
                climbers_clicks(st, kinds, listed)
    for kind, values in kinds.items():
        only = f"; {listed[kind]} only in the list" if listed[kind] else ""
        print(f"climbers, {kind}: {summary(values)}{only}")


if __name__ == "__main__":
    main()
