"""AI seats and hints think in a pool of worker processes, never in the server's own process.

A search holds a core for its whole time budget; in the server process it would hold the interpreter too and
every other table would wait. A worker gets the position as `to_json()`, rebuilds it, thinks, and answers the
move's text; the server checks that move like any other before applying it.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from tower.games.errors import BadInput

#: Longest search budget an AI seat or a hint may ask for (seconds), and the most iterations: a table must not
#: hold a worker for minutes.
MAX_AI_SECONDS = 10.0
MAX_AI_ITERATIONS = 50_000
#: The AI players the lobby offers (any other spec within the limits is accepted too).
AGENT_CHOICES = ("ai:random", "ai:greedy", "ai:mcts:time=1", "ai:mcts:time=3")
HINT_AI = "ai:greedy"  # instant, and it sees the position the way the asking seat does (see `choose`)


def check_ai_spec(spec: str) -> str:
    """An AI seat's spec (`ai:greedy`, `ai:mcts:time=1`, ...) as the server accepts it; BadInput otherwise."""
    from tower.games.ai import make_agent

    if not isinstance(spec, str) or not spec.startswith("ai:"):
        raise BadInput(f"a seat is 'human' or an AI like 'ai:greedy', got {spec!r}", "")
    make_agent(spec)  # names an unknown AI or setting, or a setting that is not a number
    _, _, settings = spec.removeprefix("ai:").partition(":")
    for part in filter(None, settings.split(",")):
        key, _, value = part.partition("=")
        if key == "time" and not 0 < float(value) <= MAX_AI_SECONDS:
            raise BadInput(f"{spec!r}: time must be more than 0 and at most {MAX_AI_SECONDS:g} s on this server", "")
        if key in ("iters", "iterations") and not 0 < int(value) <= MAX_AI_ITERATIONS:
            raise BadInput(f"{spec!r}: iters must be 1 to {MAX_AI_ITERATIONS} on this server", "")
    return spec


def choose(game: str, state_json: dict[str, Any], spec: str, seed: int, observer: int | None = None) -> str:
    """The text of the move the AI `spec` chooses in the position `state_json`.

    With `observer` (a hint), the AI thinks on a copy in which everything that seat cannot see is re-dealt, so
    the hint knows no more than the seat asking for it."""
    from tower.app.stability import statics_stands
    from tower.games.ai import make_agent
    from tower.games.registry import game_class

    cls = game_class(game)
    state = cls.from_json(state_json)
    if cls.construction:
        state.judge = statics_stands
    rng = random.Random(seed)
    if observer is not None:
        state = state.determinize(observer, rng)
    return str(make_agent(spec, seed=seed).choose(state))


def _warm() -> int:
    """Run once in each worker as it starts: import the games and the scenes so the first real job is quick."""
    import tower.games.ai  # noqa: F401
    import viewer.games  # noqa: F401
    import viewer.scene_json  # noqa: F401
    from tower.games.registry import game_class, game_names

    for name in game_names():
        game_class(name)
    return len(game_names())


class WorkerPool:
    """Worker processes for work that must not hold the server's process: AI moves and hints (`choose`), the
    scenes of the pages (`table.render_messages`). A pool broken by a dead worker is replaced on the next call."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._pool: Executor | None = None

    def _executor(self) -> Executor:
        if self._pool is None:
            # forkserver: workers start from a clean process, not from this one with its threads and sockets
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_warm)
        return self._pool

    def start(self) -> None:
        """Start the workers now rather than at the first job."""
        for _ in range(self.workers):
            self._executor().submit(_warm)

    async def run(self, fn, *args: Any) -> Any:
        """`fn(*args)` in a worker; a pool broken by a dead worker is replaced and the call tried again."""
        import asyncio

        loop = asyncio.get_running_loop()
        for attempt in range(2):
            try:
                return await loop.run_in_executor(self._executor(), fn, *args)
            except BrokenProcessPool:
                self._pool = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def choose(self, *args: Any) -> str:
        """The move text an AI chooses (`choose(*args)`), in a worker."""
        return await self.run(choose, *args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
