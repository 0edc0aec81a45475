"""Every limit of `tower serve` in one table (docs/serve.md, "Limits"): what one request, one client and one game
may cost, checked before any work is done.

`Limits()` holds the defaults; `tower serve --limit NAME=VALUE` changes one. Other parts of the server (and the
lab's endpoints) read them from here, e.g. `DEFAULT.blocks_per_build`.

A client is an address (`request.remote`); behind a reverse proxy every client has the proxy's address, so
`--trust-proxy` takes it from the proxy's `X-Forwarded-For` header instead (docs/serve.md).
"""

from __future__ import annotations

import difflib
import math
import time
from dataclasses import dataclass, fields, replace
from typing import Any

from tower.games.errors import BadInput


@dataclass(frozen=True)
class Limits:
    """The limits of one server. Each field's `metadata["doc"]` says what it bounds (the docs table is built from
    them: `table()`)."""

    # --- one request ------------------------------------------------------------------------------------------
    body_bytes: int = 256 * 1024
    players: int = 6
    option_text: int = 200
    option_number: int = 10_000
    option_text_number: int = 40
    blocks_per_build: int = 200
    record_moves: int = 3000
    answer_bytes: int = 4 * 1024 * 1024
    # --- one client (an address) ------------------------------------------------------------------------------
    requests_per_second: float = 40.0
    request_burst: int = 200
    games_per_minute: float = 6.0
    game_burst: int = 10
    running_games_per_client: int = 20
    connections_per_client: int = 64
    refused_connections_per_minute: float = 60.0
    websockets_per_client: int = 16
    websocket_opens_per_minute: float = 60.0
    replays_per_client: int = 1
    hints_per_client: int = 1
    hints_per_minute: float = 30.0
    labs_per_minute: float = 6.0
    lab_burst: int = 10
    labs_per_client: int = 100
    # --- connections ------------------------------------------------------------------------------------------
    header_seconds: float = 10.0
    body_seconds: float = 10.0
    idle_seconds: float = 30.0
    websocket_message_bytes: int = 1024
    websocket_frame_seconds: float = 10.0
    # --- the whole server -------------------------------------------------------------------------------------
    games_in_memory: int = 500
    idle_game_seconds: float = 30.0
    game_moves: int = 3000
    ai_seconds_per_game: float = 600.0
    ai_searches_at_once: int = 0  # 0: one per AI worker process
    replays_at_once: int = 2
    replay_page: int = 25
    replay_cache: int = 64
    db_lock_seconds: float = 3.0
    websockets_per_seat: int = 8
    hints_waiting: int = 256
    server_games_per_minute: float = 120.0
    server_labs_per_minute: float = 120.0
    game_keep_seconds: int = 30 * 24 * 3600
    construction_cache_bytes: int = 128 << 20
    disk_bytes: int = 1 << 30
    disk_free_bytes: int = 256 << 20
    ai_lease_seconds: float = 10.0
    # --- the lab ----------------------------------------------------------------------------------------------
    lab_cpu_seconds: float = 20.0
    lab_workers: int = 1
    lab_queue: int = 64
    lab_quick_blocks: int = 60
    lab_history_bytes: int = 1024 * 1024
    lab_idle_seconds: int = 30 * 24 * 3600

    def with_changes(self, settings: list[str]) -> Limits:
        """A copy with `NAME=VALUE` settings applied; BadInput names a setting that is unknown or not a number."""
        known = {f.name: f for f in fields(self)}
        changes: dict[str, Any] = {}
        for text in settings:
            name, eq, value = text.partition("=")
            name = name.strip().replace("-", "_")
            if not eq:
                raise BadInput(f"--limit {text!r}: expected NAME=VALUE (the names: docs/serve.md, Limits)", "")
            if name not in known:
                near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
                raise BadInput(f"--limit {text!r}: no limit named {name!r}"
                               + (f" (did you mean {near[0]!r}?)" if near else "")
                               + " (the names: docs/serve.md, Limits)", "")
            kind = type(getattr(self, name))
            try:
                number = kind(value)
            except ValueError:
                raise BadInput(f"--limit {name}: {value!r} is not a {kind.__name__}", "") from None
            if not (math.isfinite(number) and number >= 0):
                raise BadInput(f"--limit {name}: must be a number >= 0, got {value!r}", "")
            changes[name] = number
        return replace(self, **changes)

    @staticmethod
    def table() -> list[tuple[str, Any, str]]:
        """(name, default, what it bounds) of every limit, in order (the docs' table)."""
        return [(name, getattr(DEFAULT, name), doc) for name, doc in DOCS.items()]


DEFAULT = Limits()

DOCS: dict[str, str] = {
    "body_bytes": "bytes of a request body (a longer one is refused with 413 before it is read)",
    "players": "players of a new game (besides each game's own range)",
    "option_text": "characters of a text option (e.g. Partners' `deck`, Diabolo's `values`)",
    "option_number": "largest whole-number option (e.g. Partners' `move_limit`)",
    "option_text_number": "largest number inside a text option (a count of cards, a space of the track)",
    "blocks_per_build": "blocks of a build sent to the server (The Climbers' `start` option, the lab)",
    "record_moves": "moves of a record sent for replay",
    "answer_bytes": "bytes of any JSON answer (a larger one is refused with 500 `answer-too-large`, and logged)",
    "requests_per_second": "API requests a client may make per second, on average (token bucket; 429)",
    "request_burst": "API requests a client may make at once before `requests_per_second` applies",
    "games_per_minute": "games a client may create per minute, on average (token bucket; 429)",
    "game_burst": "games a client may create at once before `games_per_minute` applies",
    "running_games_per_client": "unfinished games created by one client (429 until one ends or is abandoned)",
    "connections_per_client": "open connections of one client (more are answered 429 and closed as they open)",
    "refused_connections_per_minute": "connections of a client the server may close for a broken limit per "
                                      "minute, on average (a refused WebSocket upgrade, a frame past "
                                      "`websocket_message_bytes`; burst `websockets_per_client`): past it the "
                                      "client's new connections wait a second unread, then are answered 429 and "
                                      "closed, before their request is read",
    "websockets_per_client": "open WebSocket feeds of one client (429 before the upgrade)",
    "websocket_opens_per_minute": "WebSocket feeds a client may open per minute, on average (burst "
                                  "`websockets_per_client`; 429 before the upgrade)",
    "replays_per_client": "replay computations of one client at a time (429 while one runs)",
    "hints_per_client": "hints of one client thought out at a time (429 while one runs)",
    "hints_per_minute": "hints a client may ask per minute, on average (burst 10; token bucket; 429)",
    "labs_per_minute": "labs a client may create per minute, on average (token bucket; 429)",
    "lab_burst": "labs a client may create at once before `labs_per_minute` applies",
    "labs_per_client": "labs a client may hold: it gets room for another as its labs reach `lab_idle_seconds`",
    "header_seconds": "seconds a new connection has to send its first request's headers",
    "body_seconds": "seconds a request has to send its body",
    "idle_seconds": "seconds a keep-alive connection may wait for its next request",
    "websocket_message_bytes": "bytes of one message a page may send on its WebSocket feed (the page sends only "
                               "the heartbeat's answers; a longer frame closes the feed from its header)",
    "websocket_frame_seconds": "seconds a WebSocket frame, once begun, has to arrive whole (then the connection is "
                               "cut)",
    "games_in_memory": "games held in memory; idle ones leave first and come back from the database when asked for",
    "idle_game_seconds": "seconds after which a game nobody asks for (no page open, no AI thinking) leaves memory",
    "game_moves": "moves of one game: a game that reaches it ends as abandoned",
    "ai_seconds_per_game": "seconds of AI thinking one game may use; after it its AI seats play at random",
    "ai_searches_at_once": "AI searches running at once (a queue; 0: one per worker); hints have their own worker",
    "replays_at_once": "replay computations at once on the whole server (others wait their turn)",
    "replay_page": "positions (scenes) in one replay answer",
    "replay_cache": "replay answers of finished games kept for the next asker",
    "db_lock_seconds": "seconds a write waits for the database lock before it is answered with 503",
    "websockets_per_seat": "open WebSocket feeds of one seat of a game (429 before the upgrade)",
    "hints_waiting": "clients whose hints wait at once for the hints' worker, in a line served round-robin by "
                     "client (then 503 with `Retry-After`); a memory bound, far above the clients of a busy server",
    "server_games_per_minute": "games the whole server creates per minute beside the per-address rate (429 "
                               "`server-busy`, never to a client's first game in a while)",
    "server_labs_per_minute": "labs the whole server creates per minute beside the per-address rate (429 "
                              "`server-busy`, never to a client's first lab in a while)",
    "game_keep_seconds": "seconds a game is kept after its last change (finished, abandoned, or left unfinished "
                         "by everyone): then it leaves the database with its moves and links",
    "construction_cache_bytes": "bytes (estimated) the Climbers games in memory may keep worked out (legal moves, "
                                "placements, snapshots): past it, or 30 s unused, positions forget theirs",
    "disk_bytes": "bytes the database may take on disk; past it new games and labs are refused with 507 "
                  "`disk-budget` (moves of the games going on are still kept)",
    "disk_free_bytes": "bytes that must stay free on the database's disk; below it new games and labs are refused "
                       "with 507 `disk-budget`",
    "ai_lease_seconds": "seconds a process's lease of a game's AI seats lasts unless renewed (PostgreSQL, several "
                        "processes): a process gone, another takes its AI seats over after this",
    "lab_cpu_seconds": "CPU seconds one physics job of the lab may use (a verdict, removal map, push, drop, forces); "
                       "over it: 413 `lab-cpu-seconds`, the build is too big for this server",
    "lab_workers": "worker processes (nice 19) for the lab's heavy physics: removal maps, pushes, drops, forces, "
                   "verdicts of big builds",
    "lab_queue": "clients whose lab jobs wait for a worker at once, in each lane (one job each: round-robin by "
                 "client; then 503 with `Retry-After`)",
    "lab_quick_blocks": "blocks of a build whose statics verdict and push tests run in the lab's quick lane (a "
                        "worker at the server's priority); a bigger build's are heavy work",
    "lab_history_bytes": "bytes of one lab's undo history in memory (estimated); the oldest edits are forgotten",
    "lab_idle_seconds": "seconds after which a lab nobody opened or edited is deleted (from memory and database)",
}


class Bucket:
    """Token buckets by key (a client's address): `rate` tokens a second, at most `burst` saved up."""

    def __init__(self, rate: float, burst: float, keys: int = 100_000) -> None:
        self.rate, self.burst, self.keys = rate, burst, keys
        self._state: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)

    def take(self, key: str, now: float | None = None) -> float:
        """Take a token: 0.0 if there was one, else the seconds until there will be (nothing taken)."""
        now = time.monotonic() if now is None else now
        tokens, when = self._state.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - when) * self.rate)
        if tokens >= 1:
            if len(self._state) >= self.keys and key not in self._state:
                self._forget(now)
            self._state[key] = (tokens - 1, now)
            return 0.0
        self._state[key] = (tokens, now)
        return (1 - tokens) / self.rate if self.rate > 0 else 3600.0

    def used(self, key: str, now: float | None = None) -> float:
        """Tokens `key` has taken and not yet got back (0 for a key never seen or full again)."""
        now = time.monotonic() if now is None else now
        tokens, when = self._state.get(key, (self.burst, now))
        return max(0.0, self.burst - min(self.burst, tokens + (now - when) * self.rate))

    def give(self, key: str) -> None:
        """Give back a token taken by `take` (the request it was taken for was refused by another limit)."""
        if key in self._state:
            tokens, when = self._state[key]
            self._state[key] = (min(self.burst, tokens + 1), when)

    def _forget(self, now: float) -> None:
        """Drop the keys whose buckets are full again (they would start full anyway)."""
        full = [k for k, (t, w) in self._state.items() if t + (now - w) * self.rate >= self.burst]
        for k in full:
            del self._state[k]
        if len(self._state) >= self.keys:  # all busy: the oldest go (they start full: a client's gain, not loss)
            for k in sorted(self._state, key=lambda k: self._state[k][1])[: len(self._state) // 2]:
                del self._state[k]


def clip(text: Any, limit: int = 160) -> str:
    """`repr` of client input for an error message, at most `limit` characters."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."
