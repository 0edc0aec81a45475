"""The referee of every table: creates games, checks tokens, applies moves, runs the AI seats, tells the pages.

Order of a change, always: the table's lock is taken, the game applies the move (see `work`), the store
commits it, then the pages are told and the answer is sent. A refused request changes nothing. AI seats and
hints think in a pool of worker processes, so a long search holds a worker, never this process or another
table; the pages' scenes are built in a worker process of their own.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tower.app.serve import memory
from tower.app.serve.errors import Refused
from tower.app.serve.fair import FairLine
from tower.app.serve.limits import Bucket, Limits
from tower.app.serve.lobby import parse_new_game
from tower.app.serve.store import GameRow, Store, StoreError, new_id, token_hash
from tower.app.serve.stores import open_store
from tower.app.serve.table import Change, Table, listing_job, placements_job, render, render_messages
from tower.app.serve.workers import HINT_AI, WorkerPool
from tower.games.errors import BadInput
from tower.games.registry import game_class, new_game

log = logging.getLogger("tower.serve")

GAME_ID_BYTES = 9  # 72 bits: ids are not secret (tokens are), only hard to stumble upon
TOKEN_BYTES = 24  # 192 bits per seat link
QUEUE_LIMIT = 256  # messages waiting for one page; a page that falls further behind is disconnected
#: finished games kept in memory with no page open; older ones are dropped and, if asked for again, reloaded from
#: the database (a finished game never changes, so nothing is lost)
FINISHED_KEPT = 64
#: The threads of the games' work (a Climbers position listing its moves, a game loaded, a take-back checked): an
#: executor of its own, so no game waits for a thread behind other work of the server (the lab has its own).
GAME_THREADS = ThreadPoolExecutor(4, thread_name_prefix="tower-game")
#: Seconds an occasional worker (placements, construction hints, replays) stays without a job before it exits.
POOL_IDLE_SECONDS = 30.0
#: Seconds between two expiries of old games (`game_keep_seconds`), and games deleted in one write.
EXPIRE_EVERY = 600.0
EXPIRE_BATCH = 500
#: Hints a client may ask at once before `hints_per_minute` applies.
HINT_BURST = 10


async def in_game_thread(fn, *args: Any) -> Any:
    """`fn(*args)` in one of the games' threads (GAME_THREADS)."""
    return await asyncio.get_running_loop().run_in_executor(GAME_THREADS, fn, *args)


def game_line() -> FairLine:
    """The line of a server's heavy game work in those threads (a Climbers position listing its moves, a big game
    created or loaded, a take-back checked): one job at a time, the games' creators in turn. Many such threads at
    once left the event loop a fraction of the interpreter lock (20 addresses' Climbers games: a move's p95
    10 -> 663 ms)."""
    return FairLine(1, None, 1 << 20, "game's work")


async def heavy_game_work(line: FairLine, client: str, fn, *args: Any) -> Any:
    """`fn(*args)` in a games' thread, in `client`'s turn of `line`."""
    async with line.turn(client):
        return await in_game_thread(fn, *args)


class CacheBudget:
    """What the construction games in memory keep worked out (`Table.cache_bytes`), within `limit` bytes: past
    it the least recently used positions forget theirs (`Table.forget_caches`) and work it out again when asked."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.sizes: OrderedDict[Table, int] = OrderedDict()
        self.total = 0
        self.forgotten = 0  # positions made to forget (for tests and figures)

    def note(self, table: Table, size: int) -> None:
        self.total += size - self.sizes.pop(table, 0)
        self.sizes[table] = size
        for other in list(self.sizes):
            if self.total <= self.limit:
                break
            if other is table or other.lock.locked():
                continue
            self.total -= self.sizes.pop(other)
            other.forget_caches()
            self.forgotten += 1

    def drop(self, table: Table) -> None:
        self.total -= self.sizes.pop(table, 0)

    def forget_idle(self, seconds: float) -> int:
        """The positions nobody asked about for `seconds` forget what they worked out (a game left alone keeps
        its state, not its moves)."""
        now = time.monotonic()
        idle = [t for t in self.sizes if now - t.used > seconds and _idle(t)]
        for table in idle:
            self.drop(table)
            table.forget_caches()
            self.forgotten += 1
        return len(idle)


@dataclass(eq=False)
class Subscriber:
    """One open page (WebSocket) of a seat or a spectator; messages go out in order through its queue."""

    seat: int | None
    send: Any  # async callable taking a str
    close: Any  # async callable
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    table: Any = None  # set once registered
    closing: Any = None

    async def run(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                await self.close()
                return
            try:
                await self.send(text)
            except (ConnectionError, RuntimeError):  # the page went away meanwhile: its handler cleans up
                return

    def push(self, text: str | None) -> None:
        """Queue a message (None: close the page). A page that stopped reading is closed; it reconnects and
        starts again from a fresh snapshot."""
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.closing = asyncio.get_running_loop().create_task(self.close())


@dataclass(frozen=True)
class NewGame:
    """A game created but not yet written (`GameServer._new_game`): its table, the writes that store it, and the
    answer of `POST /api/games`."""

    table: Table
    ops: list
    answer: dict[str, Any]


class GameServer:
    """All tables of one database. Use from one asyncio event loop."""

    def __init__(self, db: str, *, workers: int | None = None, ai_pause: float = 0.4, judge: Any = None,
                 synchronous: str = "full", limits: Limits | None = None, ray: str | None = None) -> None:
        if judge is None:
            from tower.app.stability import statics_stands

            judge = statics_stands
        self.limits = limits = limits or Limits()
        self.store = open_store(db, synchronous, lock_seconds=limits.db_lock_seconds)
        self.judge = judge
        self.pool = WorkerPool(workers, nice=19)  # AI seats: searches use what the answers leave of the cores
        # hints: a worker of their own, so a hint never waits behind the AI seats' searches
        self.hints = WorkerPool(1)
        # one line for the hints' worker, served round-robin by client (`hints_per_client`, `hints_waiting`); a
        # construction game's hint (seconds over a big build) has a worker and a line of its own, so it never
        # holds up a card game's (milliseconds)
        self.hint_line = FairLine(1, max(1, limits.hints_per_client), limits.hints_waiting, "hint", "hint-running",
                                  "hints-busy")
        # hints asked per client: 50 addresses each asking again as soon as answered made 570 hints a second, each a
        # position sent to the worker and back through the event loop (a move's p95 at 5x a quiet one)
        self.hint_bucket = Bucket(limits.hints_per_minute / 60, HINT_BURST)
        self.heavy_hints = WorkerPool(1, nice=10)
        self.heavy_hint_line = FairLine(1, max(1, limits.hints_per_client), limits.hints_waiting, "hint",
                                        "hint-running", "hints-busy")
        # AI searches wait their turn here: at most one per AI worker at a time, the games' creators in turn (a
        # client with twenty all-AI games gets one search in turn, as another client with one game does)
        self.ai_line = FairLine(limits.ai_searches_at_once or self.pool.workers, None, 1 << 20, "AI search")
        if self.store.shared:  # the rates of new games hold across the processes of one database
            self.game_bucket: Any = self.store.bucket("games", limits.games_per_minute / 60, limits.game_burst)
            self.server_games: Any = self.store.bucket("server-games", limits.server_games_per_minute / 60,
                                                       max(1.0, limits.server_games_per_minute / 6))
        else:
            self.game_bucket = Bucket(limits.games_per_minute / 60, limits.game_burst)
            self.server_games = Bucket(limits.server_games_per_minute / 60,
                                       max(1.0, limits.server_games_per_minute / 6))
        # per-process buckets (a client's requests, feeds opened) and their rates: with a shared database each
        # process grants its share, the rate divided by the processes alive (`_heartbeats`)
        self.shares: list[tuple[Bucket, float, float]] = []
        self.peers = 1
        # client key -> its unfinished games (`running_games_per_client`), read from the database: a restart does
        # not give an address room for more
        self.running: dict[str, set[str]] = self.store.running_by_client()
        # replays: computed page by page in a worker of their own, a few at a time; finished games' pages kept
        self.replayer = WorkerPool(1, nice=19)
        self.replay_queue = asyncio.Semaphore(max(1, limits.replays_at_once))
        self.replays = PageCache(limits.replay_cache)
        # the pages' scenes: built in a process of their own, so the referee's loop answers moves meanwhile
        self.renderer = WorkerPool(1)
        self.ai_pause = ai_pause  # seconds before an AI moves, so people can follow a run of AI moves
        self.tables: dict[str, Table] = {}
        self.budget = CacheBudget(limits.construction_cache_bytes)
        self.game_line = game_line()
        # The Climbers' placements and ghosts: worked out in a process of their own, clients in turn
        self.placer = WorkerPool(1, nice=5)
        self.place_line = FairLine(1, 2, 1024, "placement list", "placements-running", "placements-busy")
        self.list_line = FairLine(1, None, 1 << 20, "move list")  # the block steps' moves listed there
        self._loading: dict[str, asyncio.Future] = {}
        self.rng = random.Random(secrets.randbits(64))  # re-deals of the take-back check
        self._tasks: set[asyncio.Task] = set()
        self.ray: Any = None  # `tower serve --ray ADDRESS`: the lab's heavy physics as Ray tasks (`raylab`); last,
        if ray is not None:  # so that a server refused before (its database) starts no Ray
            from tower.app.serve.raylab import RayLab

            self.ray = RayLab(ray)

    # --- life ----------------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the render worker; resume the unfinished games in the background (an AI seat to move moves
        again without a visit)."""
        memory.tune()
        self.renderer.start()
        self.hints.start()
        self._spawn(self._resume())
        self._spawn(self._sweep())
        if self.store.shared:  # other processes' changes reach this one's tables and pages; AI leases kept
            self._spawn(self.store.listen(self._noted))
            self._spawn(self._heartbeats())

    async def _resume(self) -> None:
        """Load the unfinished games with an AI seat (newest first, up to half the memory bound) so their AI
        seats play on; games of people only stay in the database until someone asks for them."""
        for game_id in await asyncio.to_thread(self.store.unfinished_with_ai, self.limits.games_in_memory // 2):
            try:
                self.kick(await self.table(game_id))
            except Exception as exc:  # one damaged game must not keep the others from resuming
                log.error("cannot resume game %s: %s", game_id, exc)

    async def _sweep(self, every: float = 5.0) -> None:
        """Now and then: idle games leave memory (`idle_game_seconds`); games unchanged for `game_keep_seconds`
        leave the database (`expire`)."""
        expired = 0.0
        while True:
            await asyncio.sleep(min(every, max(0.05, self.limits.idle_game_seconds / 2)))
            evicted = self._evict()
            for pool in (self.placer, self.heavy_hints, self.replayer):  # the occasional workers give their
                pool.close_if_idle(POOL_IDLE_SECONDS)  # memory back (a big position's moves: 100 MiB and more)
            if self.budget.forget_idle(POOL_IDLE_SECONDS) or evicted:
                memory.give_back()  # what they held goes back to the system
            if time.monotonic() - expired > min(EXPIRE_EVERY, self.limits.game_keep_seconds / 4):
                expired = time.monotonic()
                try:
                    await self.expire()
                except Refused as exc:  # the database was busy: next round
                    log.warning("old games were not expired: %s", exc.message)

    async def expire(self) -> int:
        """Games unchanged for `game_keep_seconds` (finished, abandoned, or left by everyone unfinished) leave the
        database with their moves and tokens, a batch at a time; the games in memory stay. The number left."""
        before = time.time() - self.limits.game_keep_seconds
        gone = 0
        if self.store.shared:  # the shared buckets' rows of clients full again go (they would start full anyway)
            for bucket in (self.game_bucket, self.server_games):
                try:
                    await asyncio.to_thread(bucket.forget)
                except StoreError as exc:
                    raise Refused(503, "not-saved", str(exc)) from None
        while True:
            ids = await asyncio.to_thread(self.store.expired, before, EXPIRE_BATCH)
            ids = [i for i in ids if i not in self.tables]
            if not ids:
                return gone
            try:
                await asyncio.wrap_future(self.store.submit(Store.delete_many_ops(ids)))
            except StoreError as exc:
                raise Refused(503, "not-saved", str(exc)) from None
            gone += len(ids)
            for client, games in list(self.running.items()):
                games.difference_update(ids)
                if not games:
                    del self.running[client]
            if len(ids) < EXPIRE_BATCH:
                return gone

    async def close_pages(self) -> None:
        """Close every open page's WebSocket (the server is stopping; the pages will reconnect)."""
        subs = [sub for table in self.tables.values() for sub in table.subscribers]
        await asyncio.gather(*(sub.close() for sub in subs), return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for table in self.tables.values():
            if table.ai_task:
                table.ai_task.cancel()
        self.pool.close()
        self.hints.close()
        self.heavy_hints.close()
        self.replayer.close()
        self.renderer.close()
        self.placer.close()
        if self.store.shared:
            await self.store.leave()
        await asyncio.to_thread(self.store.close)

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- tables --------------------------------------------------------------------------------------------
    async def table(self, game_id: str) -> Table:
        """The live table of a game, loaded from the store (its record replayed) on first use; 404 if none."""
        table = self.tables.get(game_id)
        if table is not None:
            return table
        pending = self._loading.get(game_id)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._loading[game_id] = pending
            try:
                row = await asyncio.to_thread(self.store.game, game_id) if _plausible_id(game_id) else None
                if row is None:
                    raise Refused(404, "no-game", "no such game on this server")
                try:
                    table = await heavy_game_work(self.game_line, row.client or row.id, Table.load, self.store, row,
                                                  self.judge)
                except BadInput as exc:  # the operator reads why in the log; a client is never shown a move
                    log.error("game %s cannot be loaded: %s", game_id, exc.what)
                    raise Refused(500, "damaged-game", "this game's stored moves no longer replay; the server's "
                                                       "log says why") from None
                self._add(table)
                self.kick(table)  # an AI to move plays on (a game reloaded after a failed write, or evicted)
                pending.set_result(table)
            except BaseException as exc:
                pending.set_exception(exc)
                pending.exception()  # retrieved: a load nobody else waits for must not warn
                raise
            finally:
                del self._loading[game_id]
            return table
        return await asyncio.shield(pending)

    def _add(self, table: Table) -> None:
        """Keep `table` live (then drop idle tables beyond the bounds: `_evict`)."""
        table.max_moves = self.limits.game_moves
        table.budget, table.line = self.budget, self.game_line
        table.used = time.monotonic()
        self.tables[table.id] = table
        self._evict()

    def _evict(self) -> int:
        """Idle tables leave memory: finished ones beyond FINISHED_KEPT, any idle one unused for
        `idle_game_seconds`, and the least recently used idle ones beyond `games_in_memory`. A table is idle when
        no page is open, no AI thinks and no request holds it; it comes back from the database when asked for.
        The number of tables dropped."""
        now = time.monotonic()
        idle = sorted((t for t in self.tables.values() if _idle(t)), key=lambda t: t.used)
        finished = [t for t in idle if t.over]
        drop = {t.id for t in finished[:max(0, len(finished) - FINISHED_KEPT)]}
        drop |= {t.id for t in idle if now - t.used > self.limits.idle_game_seconds}
        over = len(self.tables) - len(drop) - self.limits.games_in_memory
        for t in idle:
            if over <= 0:
                break
            if t.id not in drop:
                drop.add(t.id)
                over -= 1
        for game_id in drop:
            table = self.tables.pop(game_id)
            table.dead = True
            self.budget.drop(table)
        return len(drop)

    async def seat(self, game_id: str, token: str) -> tuple[Table, int | None]:
        """The table and the seat a token opens (None: the spectators' link); 403 for any other token. A game
        that cannot be loaded is reported (without its moves) only to a token of that game."""
        try:
            table = await self.table(game_id)
        except Refused as exc:
            if exc.rule == "damaged-game":
                tokens = await asyncio.to_thread(self.store.tokens, game_id)
                if token_hash(token) not in tokens:
                    raise Refused(403, "bad-token", "this link's token does not open this game") from None
            raise
        known, seat = table.seat_of(token)
        if not known:
            raise Refused(403, "bad-token", "this link's token does not open this game")
        table.used = time.monotonic()
        return table, seat

    async def hold(self, game_id: str, token: str, fresh: bool = True) -> tuple[Table, int | None]:
        """`seat`, with the table's lock taken (release it: `table.lock.release()`). A table that left memory
        meanwhile (evicted, or dropped after a failed write) is not used: the live one is taken instead. With a
        shared database the table is first brought up to the stored game (`fresh`; a change does it under the
        game's row lock instead: `_decide`)."""
        while True:
            table, seat = await self.seat(game_id, token)
            await table.lock.acquire()
            if not table.dead:
                if self.store.shared and fresh:
                    try:
                        await self._refresh(table)
                    except BaseException:
                        table.lock.release()
                        raise
                return table, seat
            table.lock.release()

    async def _commit(self, table: Table, change: Change) -> None:
        try:
            await asyncio.wrap_future(self.store.submit(change.ops))
        except StoreError as exc:
            self._drop(table, exc)
        if table.over:
            self._ended(table)

    def _forget(self, table: Table) -> None:
        """`table` leaves memory (the next request reloads the game from the database, if it is still there), and
        its open pages are closed (they reconnect)."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        table.dead = True
        self.budget.drop(table)
        for sub in list(table.subscribers):
            sub.push(None)

    def _drop(self, table: Table, exc: Exception) -> None:
        """A change of `table` was not saved: the table now differs from the database, which is the truth: drop
        it (the next request reloads it) and refuse the change (503)."""
        self._forget(table)
        log.warning("a write of game %s failed: %s", table.id, exc)
        raise Refused(503, "not-saved", "the database is busy or refused the write; nothing was changed, "
                                        "try again") from None

    async def _decide(self, table: Table, run) -> Change | None:
        """`await run()` (a Change, or None for nothing to do; called holding the table's lock) and its commit.
        With a shared database the database decides: under the game's row lock the table is first brought up to
        the stored game (another process may have moved it), then the change is applied and committed with the
        game's version; two processes changing one game at once are served one after the other."""
        if not self.store.shared:
            change = await run()
            if change is not None:
                await self._commit(table, change)
            return change
        change = None
        try:
            async with self.store.game_tx(table.id) as tx:
                await self._catch_up(table, tx.version, tx.stored)
                change = await run()
                if change is None:
                    return None
                # a name or a rematch moves nothing: the lease of the AI seats stays with the process driving them
                ai_next = None if change.kind in ("name", "rematch") else table.ai_to_move and not table.over
                await tx.commit(change.ops, ai_next, self.limits.ai_lease_seconds)
                version = tx.version + 1
        except StoreError as exc:
            if change is None:  # nothing was applied: the lock was not taken in time, or the database is gone
                raise Refused(503, "not-saved", "the database is busy; nothing was changed, try again") from None
            self._drop(table, exc)
        table.version = version
        if table.over:
            self._ended(table)
        return change

    # --- several processes on one database -----------------------------------------------------------------
    async def _catch_up(self, table: Table, version: int, stored) -> None:
        """Bring the table (its lock held) up to the stored game at `version` (`await stored()`: its moves, abandon,
        names and rematch), announcing each change to its pages as it happens."""
        if version == table.version:
            return
        now = await stored()
        try:
            while (change := await work(table, table.catch_up, now, version)) is not None:
                await self._announce(table, change)
        except BadInput as exc:
            log.error("game %s cannot be brought up to date: %s", table.id, exc.what)
            raise Refused(500, "damaged-game", "this game's stored moves no longer replay; the server's log says "
                                               "why") from None
        if table.over:
            self._ended(table)

    async def _refresh(self, table: Table) -> None:
        """The table (its lock held) brought up to the stored game, if another process changed it."""
        try:
            version = await self.store.version_of(table.id)
            if version is not None:
                await self._catch_up(table, version, lambda: self.store.stored(table.id))
        except StoreError as exc:
            raise Refused(503, "not-saved", f"the database did not answer: {exc}"[:200]) from None
        if version is None:  # deleted meanwhile (expired, or by the operator): it leaves memory too
            self._forget(table)
            raise Refused(404, "no-game", "no such game on this server")

    def _noted(self, owner: str | None, game_id: str | None, version: int | None) -> None:
        """A notification of the database's listener: another process changed a game (None: the listener
        (re)connected, and every table is checked, as notes may have been missed)."""
        if owner is None:
            for table in list(self.tables.values()):
                self._spawn(self._follow(table, None))
        elif owner != self.store.owner and (table := self.tables.get(game_id or "")) is not None:
            if version is None or version > table.version:
                self._spawn(self._follow(table, version))

    async def _follow(self, table: Table, version: int | None) -> None:
        """Bring a table up to another process's change and tell its pages; its AI may then be to move."""
        async with table.lock:
            if table.dead or (version is not None and table.version >= version):
                return
            try:
                await self._refresh(table)
            except Refused as exc:
                log.warning("game %s was not brought up to date: %s", table.id, exc.message)
                return
        self.kick(table)

    async def _heartbeats(self) -> None:
        """With a shared database: this process's AI leases renewed and its presence noted every third of
        `ai_lease_seconds`; the games whose lease lapsed (their process is gone) taken over; the per-process
        buckets given this process's share."""
        seconds = self.limits.ai_lease_seconds
        while True:
            try:
                driving = [t.id for t in self.tables.values() if t.ai_task is not None and not t.ai_task.done()]
                self.peers = max(1, await self.store.heartbeat(seconds, driving))
                for bucket, rate, burst in self.shares:
                    bucket.rate, bucket.burst = rate / self.peers, max(1.0, burst / self.peers)
                for game_id in await self.store.lapsed():
                    try:
                        self.kick(await self.table(game_id))
                    except Refused as exc:
                        log.warning("the AI of game %s was not taken over: %s", game_id, exc.message)
            except StoreError as exc:
                log.warning("the database did not answer the heartbeat: %s", exc)
            await asyncio.sleep(max(0.1, seconds / 3))

    def share(self, bucket: Bucket) -> Bucket:
        """Register a per-process bucket: with a shared database it grants this process's share of its rate."""
        self.shares.append((bucket, bucket.rate, bucket.burst))
        return bucket

    async def _bucket(self, bucket: Any, what: str, key: str) -> Any:
        """`bucket.take/used/give(key)`: a shared bucket's statement in a thread, a local one at once."""
        fn = getattr(bucket, what)
        return await asyncio.to_thread(fn, key) if self.store.shared else fn(key)

    def _ended(self, table: Table) -> None:
        """A game ended (by the rules, abandoned, or deleted): it no longer counts for its creator."""
        games = self.running.get(table.row.client)
        if games is not None:
            games.discard(table.id)
            if not games:
                del self.running[table.row.client]

    # --- requests ------------------------------------------------------------------------------------------
    async def create(self, body: Any, origin: str, client: str = "") -> dict[str, Any]:
        """`POST /api/games`: a new game; the links of its human seats and of its spectators. `client` (the
        address) may create `games_per_minute` and hold `running_games_per_client` unfinished games (429)."""
        made = await self._new_game(body, origin, client)
        try:
            await asyncio.wrap_future(self.store.submit(made.ops))
        except StoreError as exc:
            log.warning("a new game could not be saved: %s", exc)
            raise Refused(503, "not-saved", "the database is busy or refused the write; no game was created, "
                                            "try again") from None
        self._install(made)
        return made.answer

    async def _new_game(self, body: Any, origin: str, client: str, rematch_of: Table | None = None) -> NewGame:
        """A new game checked (its body, the client's quotas and rates, the disk) and dealt, not yet written:
        `create` writes it alone, a rematch (`rematch_of` the old game, whose seats' tokens it shares) with the old
        game's change (`rematch`)."""
        key = self.store.client_key(client)
        options = body.get("options") if isinstance(body, dict) else None
        if isinstance(options, dict) and any(isinstance(v, (dict, list)) for v in options.values()):
            # a build sent as an option (The Climbers' start) takes 20 ms and more to check: in the games' line
            ng = await heavy_game_work(self.game_line, key, parse_new_game, body, self.limits)
        else:
            ng = parse_new_game(body, self.limits)
        self.disk_check()
        # counted in the database with a shared one (whichever process created them)
        running = await asyncio.to_thread(self.store.running_of, key) if self.store.shared \
            else len(self.running.get(key, set()))
        if running >= self.limits.running_games_per_client:
            raise Refused(429, "too-many-games", f"this address already has {running} unfinished games; finish "
                                                 f"or abandon one first", retry_after=60)
        wait = await self._bucket(self.game_bucket, "take", client)
        if wait:
            raise Refused(429, "too-many-games", f"at most {self.limits.games_per_minute:g} new games a minute "
                                                 f"from one address", retry_after=wait)
        wait = await self._bucket(self.server_games, "take", "")
        if wait and await self._bucket(self.game_bucket, "used", client) > 1.5:  # the whole server's rate:
            # refused only to a client that has created another game in the time its own allowance refills one
            # (a newcomer, or a client making a game now and then, is never refused for the others)
            await self._bucket(self.game_bucket, "give", client)
            raise Refused(429, "server-busy", f"this server creates at most {self.limits.server_games_per_minute:g} "
                                              f"games a minute, and many addresses are creating games now; try "
                                              f"again shortly", retry_after=wait)
        try:
            def make() -> Any:
                return new_game(ng.game, ng.players, ng.seed, ng.options, judge=self.judge)

            # a construction game's start is checked block by block (0.1 s for 200 blocks): in the line of the
            # games' work; a card game is dealt in microseconds, at once
            state = await heavy_game_work(self.game_line, key, make) if game_class(ng.game).construction else make()
        except BadInput as exc:  # an option of the right type that the game refuses (OpenAPI: 409, not 400)
            raise Refused(409, "option", f"at {exc.where}: {exc.what}") from None
        game_id = new_id(GAME_ID_BYTES)
        row = GameRow(game_id, ng.game, ng.players, ng.seed, ng.options, ng.seats, time.time(), False, client=key)
        if rematch_of is not None:
            hashes, answer = dict(rematch_of.tokens), {"id": game_id}
        else:
            seat_tokens = {p: secrets.token_urlsafe(TOKEN_BYTES) for p, kind in enumerate(ng.seats) if kind == "human"}
            watch = secrets.token_urlsafe(TOKEN_BYTES)
            tokens: dict[str, int | None] = {t: p for p, t in seat_tokens.items()}
            tokens[watch] = None
            hashes = {token_hash(t): p for t, p in tokens.items()}
            answer = {
                "id": game_id,
                "seats": [{"seat": p, "url": f"{origin}/play/{game_id}?token={t}", "token": t}
                          for p, t in seat_tokens.items()],
                "spectator_url": f"{origin}/play/{game_id}?token={watch}",
            }
        table = Table(row, state, [], hashes)
        return NewGame(table, Store.create_ops(row, hashes, rematch=rematch_of is not None), answer)

    def _install(self, made: NewGame) -> None:
        """A new game, written, goes live: it counts for its creator, and its AI seats start."""
        self.running.setdefault(made.table.row.client, set()).add(made.table.id)
        self._add(made.table)
        self.kick(made.table)

    def disk_check(self) -> None:
        """A new game or lab is refused (507) once the database holds `disk_bytes`, or its file system has less
        than `disk_free_bytes` free: before the disk fills, while every move of the games going on still fits."""
        used, free = self.store.bytes_used(), self.store.free_bytes()
        if used >= self.limits.disk_bytes or free < self.limits.disk_free_bytes:
            raise Refused(507, "disk-budget", f"this server's storage is full ({used // 2**20} MiB used of "
                                              f"{self.limits.disk_bytes // 2**20} MiB, {free // 2**20} MiB free on "
                                              f"its disk): no new games or labs until old ones expire",
                          retry_after=3600)

    async def answer(self, game_id: str, token: str) -> dict[str, Any]:
        table, seat = await self.hold(game_id, token)
        try:
            await self._list_moves(table)
            return await work(table, table.api_answer, seat)
        finally:
            table.lock.release()

    async def snapshot(self, game_id: str, token: str) -> dict[str, Any]:
        table, seat = await self.hold(game_id, token)
        try:
            return await self._snapshot(table, seat)
        finally:
            table.lock.release()

    async def _snapshot(self, table: Table, seat: int | None) -> dict[str, Any]:
        """The page snapshot of a seat now (call holding the table's lock); the scene is built by the renderer."""
        cached = table.cached_snapshot(seat)
        if cached is None:
            await self._list_moves(table)
            capture = await work(table, table.capture, seat)
            cached = await self.renderer.run(render, capture)
            table.keep_snapshot(seat, cached)
        return cached

    async def play(self, game_id: str, token: str, body: Any) -> dict[str, Any]:
        """`POST /api/games/{id}/moves`: `{"move": TEXT}` (and optionally `"n"`, the number of moves the sender
        believes were played: a retried request then cannot play twice)."""
        await self.seat(game_id, token)
        if not isinstance(body, dict) or not isinstance(body.get("move"), str) or set(body) - {"move", "n"}:
            raise BadInput('the body must be {"move": TEXT} (and optionally "n": moves played so far)', "$")
        if len(body["move"]) > 200:
            raise BadInput("a move's text is at most 200 characters", "$.move")
        expect = body.get("n")
        if "n" in body and (not isinstance(expect, int) or isinstance(expect, bool)):
            raise BadInput("n must be a whole number", "$.n")
        return await self._change(game_id, token, lambda t, seat: (t.play, seat, body["move"], expect))

    async def take_back(self, game_id: str, token: str) -> dict[str, Any]:
        # the take-back check replays the game on re-dealt copies (a tenth of a second in a long game): a thread
        return await self._change(game_id, token, lambda t, seat: (t.take_back, seat, self.rng), thread=True)

    async def abandon(self, game_id: str, token: str) -> dict[str, Any]:
        """`POST /api/games/{id}/abandon`: a player ends the game (docs/serve.md); its AI seats stop."""
        out = await self._change(game_id, token, lambda t, seat: (t.abandon, seat))
        return out

    async def _change(self, game_id: str, token: str, what, thread: bool = False) -> dict[str, Any]:
        """A change asked for by a seat, in the one order: apply, commit, tell the pages, answer the seat.
        `what(table, seat)` gives the table's method and its arguments."""
        table, seat = await self.hold(game_id, token, fresh=False)
        try:
            fn, *args = what(table, seat)

            async def run() -> Change:
                return await (heavy_game_work(self.game_line, table.row.client or table.id, fn, *args) if thread
                              else work(table, fn, *args))

            change = await self._decide(table, run)
            await self._announce(table, change)
            await self._list_moves(table)
            out = await work(table, table.api_answer, seat)
        finally:
            table.lock.release()
        self.kick(table)
        return out

    async def name(self, game_id: str, token: str, body: Any) -> dict[str, Any]:
        """`POST /api/games/{id}/name`: `{"name": TEXT}`, the seat's name shown to everyone."""
        await self.seat(game_id, token)
        if not isinstance(body, dict) or set(body) != {"name"}:
            raise BadInput('the body must be {"name": TEXT}', "$")
        table, seat = await self.hold(game_id, token, fresh=False)
        try:
            async def run() -> Change:
                return table.set_name(seat, body["name"])

            # stored with the game, under its lock with a shared database (`_decide`): every process shows it
            change = await self._decide(table, run)
            await self._announce(table, change)
        finally:
            table.lock.release()
        return {"seat": seat, "name": table.names.get(seat, "")}

    async def rematch(self, game_id: str, token: str, origin: str, client: str = "") -> dict[str, Any]:
        """`POST /api/games/{id}/rematch`: the same table again (game, seats, options; a new deal), once; every
        page of the old game is handed its own seat's new link (each seat keeps its token: the database holds only
        hashes, and every process gives a seat the same link). It counts as a new game of `client`."""
        table, seat = await self.hold(game_id, token)  # a rematch stored by another process is read here
        try:
            body = table.rematch_body(seat)
            if table.rematch is None:
                made: list[NewGame] = []

                async def run() -> Change | None:
                    if table.rematch is not None:  # made by another process meanwhile (`_decide` caught up)
                        return None
                    made.append(await self._new_game(body, origin, client, rematch_of=table))
                    return table.set_rematch(seat, made[0].table.id, origin, made[0].ops)

                # decided once, under the old game's lock: its new game and its links in one transaction
                change = await self._decide(table, run)
                if change is not None:
                    self._install(made[0])
                    await self._announce(table, change)
        finally:
            table.lock.release()
        return {"id": table.rematch["id"], "url": table.rematch_for(seat)}

    async def hint(self, game_id: str, token: str, client: str = "") -> dict[str, Any]:
        """A move suggested for the seat to move, by an AI that sees only what that seat sees. A client has one
        hint thought out at a time (`hints_per_client`, 429); the hints wait for the worker in a line served
        round-robin by client (`fair.FairLine`), at most `hints_waiting` clients' hints at once (503), and asks
        at most `hints_per_minute` (burst HINT_BURST; 429)."""
        await self.seat(game_id, token)  # a bad token is 403 whatever the client's allowance
        wait = self.hint_bucket.take(client)
        if wait:
            raise Refused(429, "too-many-hints", f"at most {self.limits.hints_per_minute:g} hints a minute from one "
                                                 f"address (hints_per_minute)", retry_after=wait)
        table, seat = await self.hold(game_id, token)
        try:
            table.require_turn(seat)
            rev = table.rev
            args = await work(table, self._think_args, table, HINT_AI, seat)
        finally:
            table.lock.release()
        text = await self._hint(client, args, table.state.construction)
        table, seat = await self.hold(game_id, token)
        try:
            if table.rev != rev:
                raise Refused(409, "stale", "the game moved on while the hint was thought out")
            # a game of perfect information was thought out on this very position (the same `rev`): its move is
            # legal, and checking it would list a big block step's moves here
            if not table.state.perfect_information and not await work(table, table.is_legal_text, text):
                text = str((await work(table, table.legal))[0])
        finally:
            table.lock.release()
        return {"move": text, "n": table.n}

    async def _hint(self, client: str, args: tuple, heavy: bool = False) -> str:
        line, pool = (self.heavy_hint_line, self.heavy_hints) if heavy else (self.hint_line, self.hints)
        async with line.turn(client):
            return await pool.choose(*args)

    async def ghosts(self, game_id: str, token: str, block: str, client: str = "") -> bytes:
        return await self._placements(game_id, token, block, client, True)

    async def placements(self, game_id: str, token: str, block: str, client: str = "") -> bytes:
        return await self._placements(game_id, token, block, client, False)

    async def _placements(self, game_id: str, token: str, block: str, client: str, ghosts: bool) -> bytes:
        """One block's placements (grouped for pointing, or as ghosts) as the answer's gzipped JSON, worked out
        and encoded in the placements' worker, in the client's turn of its line (`place_line`: two of a client's
        at a time, 429 beyond). Encoded in the event loop, a 200-cube position's 470 KB of ghosts held it for
        20 ms."""
        if len(block) > 16:
            raise BadInput("block must be a block's id", "$.block")
        table, seat = await self.hold(game_id, token)
        try:
            args = await work(table, table.placement_args, seat, block, ghosts)
        finally:
            table.lock.release()
        async with self.place_line.turn(client):
            out = await self.placer.run(placements_job, *args)
        if out is None:
            raise Refused(409, "block-cannot-move", f"block {block} cannot move now")
        return out

    async def _list_moves(self, table: Table) -> None:
        """A construction game's block step has its moves listed in the placements' worker (`listing_job`; call
        holding the table's lock): a 200-cube position's 236,496 placements once took a tenth of a second of the
        interpreter and 25 MiB in the server's process per game asked about (30 addresses' games: a move's p95
        at 3.3x a quiet one, 80 MiB kept after). Games in the creators' turns (`list_line`)."""
        args = await work(table, table.listing_args)
        if args is None:
            return
        try:
            async with self.list_line.turn(table.row.client or table.id):
                others, blocks = await self.placer.run(listing_job, *args)
        except Exception:  # the worker failed twice: the moves are listed here, as before there was a worker
            log.exception("the moves of game %s could not be listed in the placements' worker", table.id)
            return
        table.keep_listing(args[0][1], others, blocks)

    async def record(self, game_id: str) -> dict[str, Any]:
        table = await self.table(game_id)
        table.used = time.monotonic()
        if self.store.shared and not table.over:  # another process may have ended it (a finished one is final)
            async with table.lock:
                await self._refresh(table)
        return table.record()

    # --- the pages -----------------------------------------------------------------------------------------
    async def subscribe(self, game_id: str, token: str, sub_factory) -> Subscriber:
        """Register an open page; its first message is the snapshot of its seat."""
        table, seat = await self.hold(game_id, token)
        sub = sub_factory(seat)
        try:
            snap = await self._snapshot(table, seat)
            table.subscribers.add(sub)
            first = table.first_message(seat)  # kept per position: many pages opening cost one dump
            if first is None:
                first = table.keep_first_message(seat, json.dumps({"type": "snapshot", "event": None,
                                                                   "snapshot": snap}))
            sub.push(first)
        finally:
            table.lock.release()
        sub.table = table
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        table = getattr(sub, "table", None)
        if table is not None:
            table.subscribers.discard(sub)

    async def _announce(self, table: Table, change: Change) -> None:
        """Tell every open page of the game of the change, each as its seat may see it (called holding the
        table's lock). What each seat sees is captured now; the scenes are built and sent by the table's sender,
        in order, while the mover already has its answer."""
        if not table.subscribers:
            return
        subs = list(table.subscribers)
        seats = {sub.seat for sub in subs}
        await self._list_moves(table)
        captured = await work(table, lambda: {seat: table.capture(seat) for seat in seats})
        events = {}
        for seat in seats:
            event: dict[str, Any] = {"kind": change.kind, "player": change.player, "n": change.n,
                                     "label": table.label(change.player) if change.player >= 0 else "the host"}
            if change.move is not None:
                event["text"] = table.move_text(change.move, change.player, seat)
            events[seat] = event
        table.outbox.put_nowait((subs, [(seat, captured[seat], events[seat]) for seat in seats]))
        if table.sender is None or table.sender.done():
            table.sender = self._spawn(self._send(table))

    async def _send(self, table: Table) -> None:
        """Render and send the table's announcements one after the other (a page sees them in order)."""
        while not table.outbox.empty():
            subs, items = table.outbox.get_nowait()
            out = await self.renderer.run(render_messages, items)
            for sub in subs:  # only the pages open when the change was made: a later page has a newer snapshot
                if sub in table.subscribers:
                    sub.push(out[sub.seat])

    # --- AI seats ------------------------------------------------------------------------------------------
    def kick(self, table: Table) -> None:
        """Start the table's AI loop if an AI seat is to move and no loop runs."""
        if table.ai_to_move and (table.ai_task is None or table.ai_task.done()):
            table.ai_task = self._spawn(self._ai_turns(table))

    def _think_args(self, table: Table, spec: str, observer: int | None) -> tuple:
        st = table.state
        seed = (table.row.seed * 1_000_003 + table.n * 31 + (st.current_player or 0)) % 2**63
        return (st.name, st.to_json(), spec, seed, observer)

    async def _ai_turns(self, table: Table) -> None:
        while self.tables.get(table.id) is table and not table.dead:
            async with table.lock:
                if self.store.shared and not await self._ai_lease(table):
                    return
                if not table.ai_to_move or table.dead:
                    return
                seat, rev = table.state.current_player, table.rev
                spec = table.seats[seat]
                if table.ai_seconds >= self.limits.ai_seconds_per_game:
                    spec = "ai:random"  # the game's thinking budget is spent: instant moves from now on
                args = await work(table, self._think_args, table, spec, None)
            if self.ai_pause:
                await asyncio.sleep(self.ai_pause)
            text = None
            if spec != "ai:random":
                try:
                    async with self.ai_line.turn(table.row.client):  # one search per worker, creators in turn
                        began = time.monotonic()
                        try:
                            text = await self.pool.choose(*args)
                        finally:
                            table.ai_seconds += time.monotonic() - began
                except Exception:  # a crashed search must not stop the game: the seat plays a random move
                    log.exception("AI %s of game %s failed; playing a random move", table.seats[seat], table.id)
            async with table.lock:
                if table.dead or table.abandoned:
                    return
                if text is None:
                    text = str(table.state.random_move(random.Random(args[3])))

                async def run(text: str = text, seat: int = seat, rev: int = rev) -> Change | None:
                    try:
                        return await work(table, table.play_ai, seat, text, rev)
                    except Refused:
                        log.error("AI %s of game %s chose an illegal move %r", table.seats[seat], table.id, text)
                        return await work(table, table.play_ai, seat, str(table.legal()[0]), rev)

                try:
                    change = await self._decide(table, run)
                except Refused:  # not saved (the table was dropped): the game is reloaded and goes on later
                    self._spawn(self._resume_later(table.id))
                    return
                if change is None:
                    continue  # the game changed while the AI thought (a take-back, another process): again
                await self._announce(table, change)

    async def _ai_lease(self, table: Table) -> bool:
        """With a shared database (the table's lock held): the table brought up to the stored game and, if an AI
        is to move, this process's lease of the game's AI taken or kept. False: another process drives it (or
        the database did not answer: the lease lapses and a process takes it over)."""
        try:
            await self._refresh(table)
            return not table.ai_to_move or await self.store.lease(table.id, self.limits.ai_lease_seconds)
        except (Refused, StoreError) as exc:
            log.warning("the AI of game %s waits: %s", table.id, getattr(exc, "message", exc))
            return False

    async def _resume_later(self, game_id: str) -> None:
        """Reload a game whose AI move could not be saved, once the database may answer again, and let its AI
        seats go on."""
        await asyncio.sleep(max(1.0, self.limits.db_lock_seconds))
        try:
            self.kick(await self.table(game_id))
        except Exception as exc:
            log.error("cannot resume game %s: %s", game_id, exc)


class PageCache:
    """Answers kept by key, least recently used out first: at most `count` of them."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._items: OrderedDict[Any, bytes] = OrderedDict()

    def get(self, key: Any) -> bytes | None:
        body = self._items.get(key)
        if body is not None:
            self._items.move_to_end(key)
        return body

    def put(self, key: Any, body: bytes) -> None:
        self._items[key] = body
        self._items.move_to_end(key)
        while len(self._items) > self.count:
            self._items.popitem(last=False)


def _idle(t: Table) -> bool:
    """Nobody uses the table now: no page open, no AI thinking, no request holding it, nothing left to send."""
    return (not t.subscribers and (t.sender is None or t.sender.done()) and not t.lock.locked()
            and (t.ai_task is None or t.ai_task.done()))


async def work(table: Table, fn, *args: Any) -> Any:
    """Game work of a table. A construction game (The Climbers) lists thousands of placements, up to a tenth of
    a second: that runs in a thread, one such job at a time in the games' creators' turns (`game_line`), so other
    tables are served meanwhile and the event loop keeps its share of the interpreter; what the position then
    keeps worked out is measured for the server's `CacheBudget`. A card game's work takes microseconds: it runs at
    once, as a hop to a thread and back would cost more than the work (and would queue behind other threads for
    the interpreter lock)."""
    if table.state.construction:
        def measured() -> tuple[Any, int]:
            out = fn(*args)
            return out, table.cache_bytes()  # measured here, off the event loop

        if table.line is None:  # a table of no server (tests)
            return await in_game_thread(fn, *args)
        out, size = await heavy_game_work(table.line, table.row.client or table.id, measured)
        if table.budget is not None:
            table.budget.note(table, size)
        return out
    return fn(*args)


def _plausible_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 64 and all(c.isalnum() or c in "-_" for c in game_id)
