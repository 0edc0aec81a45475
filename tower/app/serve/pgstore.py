"""Every game of the server in PostgreSQL (`tower serve --db postgresql://...`), shared by any number of processes.

It keeps what the SQLite store keeps (games, seats' token hashes, moves, labs, the quotas' counts) in the same
tables, plus what several processes need to agree on (docs/serve.md, "Several processes"):

- `games.version` counts a game's committed changes. A change (a move, a take-back, an abandon) is decided under
  the game's row lock (`game_tx`: `SELECT ... FOR UPDATE`): the process first brings its copy of the game up to
  the stored version, then applies the change and commits it with the version bumped. Two processes receiving
  moves for one game at the same instant are thus served one after the other, the second against the first's
  position: a move is applied exactly once. The answer is sent after the commit, as with SQLite.
- A seat's name (`games.names`) and a game's rematch (`games.rematch`) are changes of the game as a move is: set
  under its row lock with the version bumped, so every process shows the same names and a rematch is created
  once, whichever processes are asked at the same instant.
- `NOTIFY tower_games, 'OWNER GAME VERSION'` is sent in the same transaction (delivered on commit); every process
  LISTENs on a connection of its own and brings the game's copy up to date, announcing each move to its pages.
- `leases`: the process that drives a game's AI seats (one at a time), with an expiry it renews; a lapsed lease is
  taken over by another process.
- `buckets`: the per-client and server-wide rates of new games and labs; `processes`: who is alive (a heartbeat).

Writes that no other process races for (a new game, a lab, expiry) go through one writer thread that commits in
groups, as the SQLite store does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import secrets
import socket
import threading
from collections.abc import AsyncIterator
from concurrent.futures import Future
from typing import Any

import psycopg
from psycopg import errors as pgerrors

from tower.app.serve.store import (
    GAME_COLUMNS,
    GameRow,
    Op,
    Store,
    StoreConflict,
    Stored,
    StoreError,
    game_row,
    names_of,
    redacted,
    rematch_of,
    with_queued,
)

log = logging.getLogger("tower.serve")

SCHEMA_VERSION = 2
#: Channel of the games' notifications.
CHANNEL = "tower_games"
#: The database's clock in seconds (leases and buckets use it, so processes on machines whose clocks differ agree).
NOW = "extract(epoch from clock_timestamp())"
#: A lease's owner is gone: its time is up, or none of its connections is open (a process killed on this or another
#: machine: its connections close with it, at once where the kernel says so, else when TCP gives up).
GONE = (f"(leases.until < {NOW} OR leases.owner NOT IN (SELECT application_name FROM pg_stat_activity "
        f"WHERE application_name IS NOT NULL))")
#: Statements that bring a database from schema version i to i + 1 (MIGRATIONS[0]: an empty database).
MIGRATIONS: list[list[str]] = [[
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL, seed BIGINT NOT NULL, "
    "options TEXT NOT NULL, seats TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, over INTEGER NOT NULL DEFAULT 0, "
    "client TEXT NOT NULL DEFAULT '', updated DOUBLE PRECISION, version BIGINT NOT NULL DEFAULT 0)",
    "CREATE TABLE tokens (hash TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER)",
    "CREATE TABLE moves (game_id TEXT NOT NULL REFERENCES games(id), n INTEGER NOT NULL, player INTEGER NOT NULL, "
    "text TEXT NOT NULL, at DOUBLE PRECISION NOT NULL, PRIMARY KEY (game_id, n))",
    "CREATE INDEX games_updated ON games(updated)",
    "CREATE INDEX games_client ON games(client, over)",
    "CREATE INDEX tokens_game ON tokens(game_id)",
    "CREATE TABLE labs (id TEXT PRIMARY KEY, build TEXT NOT NULL, rules TEXT NOT NULL, created DOUBLE PRECISION "
    "NOT NULL, updated DOUBLE PRECISION NOT NULL, client TEXT NOT NULL DEFAULT '', version BIGINT NOT NULL DEFAULT 0)",
    "CREATE INDEX labs_client ON labs(client, updated)",
    "CREATE TABLE leases (game_id TEXT PRIMARY KEY, owner TEXT NOT NULL, until DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE buckets (name TEXT NOT NULL, key TEXT NOT NULL, tokens DOUBLE PRECISION NOT NULL, "
    "at DOUBLE PRECISION NOT NULL, PRIMARY KEY (name, key))",
    "CREATE TABLE processes (id TEXT PRIMARY KEY, seen DOUBLE PRECISION NOT NULL)",
], [  # 1 -> 2: the seats' names and the rematch, shared by the processes (each kept its own)
    "ALTER TABLE games ADD COLUMN names TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE games ADD COLUMN rematch TEXT",
]]
#: Connections of the event loop's pool (game changes and version checks) and of the threads' reads.
ASYNC_CONNECTIONS = 8
READ_CONNECTIONS = 4


def pg_sql(sql: str) -> str:
    """A statement written for SQLite's `?` placeholders, for psycopg's `%s` (no `?` stands in a literal)."""
    return sql.replace("%", "%%").replace("?", "%s")


def _failed(url: str, exc: BaseException) -> StoreError:
    text = " ".join(redacted(str(exc)).split())[:200] or type(exc).__name__
    return StoreError(text)


class PgStore(Store):
    """The PostgreSQL database at `url`: the `Store` interface (the writer thread's group commits, the threads'
    reads) plus the event loop's game transactions, leases, shared buckets and the listener's connection."""

    shared = True

    def __init__(self, url: str, synchronous: str = "full", lock_seconds: float = 3.0) -> None:  # noqa: D107
        self.path = url
        self.lock_seconds = lock_seconds
        # `normal`: a commit is answered before its WAL reaches the disk (a killed server loses nothing, a
        # crash of PostgreSQL itself may lose the last commits); `full`: after (the default)
        self.synchronous = "on" if synchronous == "full" else "off"
        # who this process is: its leases' owner, and every one of its connections' `application_name`, so a
        # process whose connections are all gone (killed: the kernel closes them) is known to be gone at once
        self.owner = f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"
        self._reads: queue.Queue[psycopg.Connection] = queue.Queue()
        self._made = 0
        self._made_lock = threading.Lock()
        try:
            with self._connect() as conn:
                self._migrate(conn)
                self.salt = conn.execute("SELECT value FROM meta WHERE key = 'client_salt'").fetchone()[0]
        except psycopg.Error as exc:
            raise _failed(url, exc) from None
        self._pool: asyncio.Queue | None = None
        self._pool_loop: Any = None
        self._pool_made = 0
        self._queue: queue.Queue[tuple[list[Op], Future] | None] = queue.Queue()
        self._writer = threading.Thread(target=self._write_loop, name="tower-serve-pg", daemon=True)
        self._writer.start()
        self.commits = 0

    def _migrate(self, conn: psycopg.Connection) -> None:
        """Create the schema or bring it to SCHEMA_VERSION, one process at a time (an advisory lock)."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(4811)")  # processes starting at once wait for each other
            conn.execute(MIGRATIONS[0][0])
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            version = int(row[0]) if row else 0
            if version > SCHEMA_VERSION:
                raise StoreError(f"{redacted(self.path)}: database schema {version}, this server knows "
                                 f"{SCHEMA_VERSION}")
            for at in range(version, SCHEMA_VERSION):
                for sql in MIGRATIONS[at][1:] if at == 0 else MIGRATIONS[at]:  # `meta` is there already
                    conn.execute(sql)
            conn.execute("INSERT INTO meta VALUES ('schema', %s) ON CONFLICT (key) DO UPDATE SET value = "
                         "excluded.value", (str(SCHEMA_VERSION),))
            conn.execute("INSERT INTO meta VALUES ('client_salt', %s) ON CONFLICT (key) DO NOTHING",
                         (secrets.token_hex(16),))

    def _connect(self) -> psycopg.Connection:
        conn = psycopg.connect(self.path, autocommit=True, connect_timeout=10, application_name=self.owner)
        conn.execute(f"SET synchronous_commit = {self.synchronous}")
        conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{int(self.lock_seconds * 1000)}ms",))
        conn.execute("SET statement_timeout = '30s'")
        return conn

    def quick_check(self) -> None:
        """Nothing to check here: PostgreSQL checks its own pages."""

    # --- writes that no other process races for (group commit) ---------------------------------------------
    def _write_loop(self) -> None:
        conn: psycopg.Connection | None = None
        while True:
            item = self._queue.get()
            if item is None:
                break
            batch = with_queued(item, self._queue)
            done: list[Future] = []
            try:
                if conn is None or conn.closed:
                    conn = self._connect()
                conn.execute("BEGIN")
                for ops, fut in batch:
                    conn.execute("SAVEPOINT one")
                    try:
                        for sql, params in ops:
                            conn.execute(pg_sql(sql), params)
                    except pgerrors.DivisionByZero:  # a guarded update found another version (`lab_save_ops`)
                        conn.execute("ROLLBACK TO SAVEPOINT one")
                        fut.set_exception(StoreConflict("changed by another process meanwhile"))
                    except (pgerrors.IntegrityError, pgerrors.DataError, pgerrors.ProgrammingError) as exc:
                        conn.execute("ROLLBACK TO SAVEPOINT one")  # one bad write fails alone
                        fut.set_exception(StoreError(" ".join(str(exc).split())[:200]))
                    else:
                        done.append(fut)
                    conn.execute("RELEASE SAVEPOINT one")
                conn.execute("COMMIT")
            except psycopg.Error as exc:  # the connection or the commit failed: nothing of the batch was written
                # (or, the connection lost during COMMIT, it may have been: none of it is acknowledged)
                if conn is not None and not conn.closed:
                    with contextlib.suppress(psycopg.Error):
                        conn.execute("ROLLBACK")
                    if conn.info.transaction_status == psycopg.pq.TransactionStatus.UNKNOWN:
                        conn.close()
                for fut in [f for _ops, f in batch] + done:
                    if not fut.done():
                        fut.set_exception(StoreError(" ".join(str(exc).split())[:200]))
                continue
            self.commits += 1
            for fut in done:
                fut.set_result(None)
        if conn is not None:
            conn.close()

    # --- reads from threads --------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _reader(self):
        try:
            conn = self._reads.get_nowait()
        except queue.Empty:
            with self._made_lock:
                make = self._made < READ_CONNECTIONS
                self._made += make
            conn = self._connect() if make else self._reads.get(timeout=30)
        try:
            yield conn
        except psycopg.OperationalError:
            conn.close()
            with self._made_lock:
                self._made -= 1
            raise
        else:
            self._reads.put(conn)

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple]:
        try:
            with self._reader() as conn:
                return conn.execute(pg_sql(sql), params).fetchall()
        except psycopg.Error as exc:
            raise _failed(self.path, exc) from None

    def game(self, game_id: str) -> GameRow | None:
        rows = self._rows(f"SELECT {GAME_COLUMNS}, version FROM games WHERE id = ?", (game_id,))
        return game_row(rows[0], rows[0][-1]) if rows else None

    def running_of(self, key: str) -> int:
        """Unfinished games of a client (its key): counted in the database, whichever process created them."""
        return self._rows("SELECT COUNT(*) FROM games WHERE client = ? AND over = 0", (key,))[0][0] if key else 0

    def bytes_used(self) -> int:
        """Bytes of the database on disk (`pg_database_size`)."""
        try:
            return int(self._rows("SELECT pg_database_size(current_database())")[0][0])
        except StoreError:
            return 0

    def free_bytes(self) -> int:
        """The database server's disk is not this process's to see: its operator watches it."""
        return 1 << 62

    # --- labs ----------------------------------------------------------------------------------------------
    def lab_row(self, lab_id: str, since: float) -> tuple[str, str, int] | None:
        """(build, rules, version) of a lab used since `since`."""
        rows = self._rows("SELECT build, rules, version FROM labs WHERE id = ? AND updated >= ?", (lab_id, since))
        return rows[0] if rows else None

    def lab_version(self, lab_id: str) -> int | None:
        rows = self._rows("SELECT version FROM labs WHERE id = ?", (lab_id,))
        return rows[0][0] if rows else None

    @staticmethod
    def lab_save_ops(lab_id: str, build: str, rules: str, now: float, version: int) -> list[Op]:
        """A lab's new build, if the stored one is still `version` (else the write fails with StoreConflict: a
        division by zero, so the guard needs no procedure)."""
        return [("WITH u AS (UPDATE labs SET build = ?, rules = ?, updated = ?, version = version + 1 "
                 "WHERE id = ? AND version = ? RETURNING 1) SELECT 1 / (SELECT COUNT(*) FROM u)",
                 (build, rules, now, lab_id, version))]

    # --- the event loop's connections ----------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _aconn(self) -> AsyncIterator[psycopg.AsyncConnection]:
        loop = asyncio.get_running_loop()
        if self._pool is None or self._pool_loop is not loop:
            self._pool, self._pool_loop, self._pool_made = asyncio.Queue(), loop, 0
        pool = self._pool
        try:
            conn = pool.get_nowait()
        except asyncio.QueueEmpty:
            if self._pool_made < ASYNC_CONNECTIONS:
                self._pool_made += 1
                try:
                    conn = await psycopg.AsyncConnection.connect(self.path, autocommit=True, connect_timeout=10,
                                                                 application_name=self.owner)
                    await conn.execute(f"SET synchronous_commit = {self.synchronous}")
                    await conn.execute("SELECT set_config('lock_timeout', %s, false)",
                                       (f"{int(self.lock_seconds * 1000)}ms",))
                    await conn.execute("SET statement_timeout = '30s'")
                except BaseException:
                    self._pool_made -= 1
                    raise
            else:
                try:
                    conn = await asyncio.wait_for(pool.get(), self.lock_seconds)
                except TimeoutError:
                    raise StoreError("all of this process's database connections are busy") from None
        try:
            yield conn
        except BaseException:
            if conn.closed or conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                await conn.close()  # broken, or left inside a transaction: a fresh one next time
                self._pool_made -= 1
            else:
                pool.put_nowait(conn)
            raise
        else:
            pool.put_nowait(conn)

    async def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple]:
        try:
            async with self._aconn() as conn:
                cur = await conn.execute(sql, params)
                return await cur.fetchall() if cur.description else []
        except psycopg.Error as exc:
            raise _failed(self.path, exc) from None

    async def version_of(self, game_id: str) -> int | None:
        """A game's stored version (None: no such game)."""
        rows = await self._fetch("SELECT version FROM games WHERE id = %s", (game_id,))
        return rows[0][0] if rows else None

    async def stored(self, game_id: str) -> Stored:
        """A game's moves, abandon, names and rematch as stored."""
        async with self._aconn() as conn:
            return await _stored(conn, game_id)

    @contextlib.asynccontextmanager
    async def game_tx(self, game_id: str) -> AsyncIterator[GameTx]:
        """A transaction holding the game's row lock (waited for at most `lock_seconds`: StoreError). Leaving it
        without `commit` rolls it back."""
        try:
            async with self._aconn() as conn, conn.transaction():
                cur = await conn.execute("SELECT version, over FROM games WHERE id = %s FOR UPDATE", (game_id,))
                row = await cur.fetchone()
                if row is None:
                    raise StoreError("no such game")
                yield GameTx(self, conn, game_id, row[0])
        except psycopg.Error as exc:
            raise _failed(self.path, exc) from None

    # --- leases of the AI seats ----------------------------------------------------------------------------
    async def lease(self, game_id: str, seconds: float) -> bool:
        """Take (or keep) the lease of a game's AI seats: True if this process holds it now."""
        rows = await self._fetch(
            f"INSERT INTO leases VALUES (%s, %s, {NOW} + %s) ON CONFLICT (game_id) DO UPDATE SET owner = "
            f"excluded.owner, until = excluded.until WHERE leases.owner = excluded.owner OR {GONE} RETURNING owner",
            (game_id, self.owner, seconds))
        return bool(rows)

    async def release(self, game_id: str) -> None:
        await self._fetch("DELETE FROM leases WHERE game_id = %s AND owner = %s", (game_id, self.owner))

    async def heartbeat(self, seconds: float, driving: list[str]) -> int:
        """Renew this process's leases of the games whose AI it drives now (a lease it holds for a game it no
        longer drives lapses, and is taken over) and its entry of `processes`; the number of processes alive."""
        async with self._aconn() as conn:
            await conn.execute(f"UPDATE leases SET until = {NOW} + %s WHERE owner = %s AND game_id = ANY(%s)",
                               (seconds, self.owner, driving))
            await conn.execute(f"INSERT INTO processes VALUES (%s, {NOW}) ON CONFLICT (id) DO UPDATE SET seen = "
                               f"excluded.seen", (self.owner,))
            await conn.execute(f"DELETE FROM processes WHERE seen < {NOW} - %s", (seconds * 3,))
            # alive: heard from lately, and with a connection open (a killed process's close with it)
            cur = await conn.execute("SELECT COUNT(*) FROM processes WHERE id IN (SELECT application_name FROM "
                                     "pg_stat_activity WHERE application_name IS NOT NULL)")
            return int((await cur.fetchone())[0])

    async def lapsed(self, limit: int = 50) -> list[str]:
        """Unfinished games whose AI lease lapsed (its process is gone): another process takes them over."""
        rows = await self._fetch(f"SELECT leases.game_id FROM leases JOIN games g ON g.id = leases.game_id WHERE "
                                 f"{GONE} AND g.over = 0 ORDER BY leases.until LIMIT %s", (limit,))
        return [r[0] for r in rows]

    async def leave(self) -> None:
        """This process stops: its leases and its entry go at once (another process takes its AI seats over)."""
        with contextlib.suppress(StoreError):
            await self._fetch("DELETE FROM leases WHERE owner = %s", (self.owner,))
            await self._fetch("DELETE FROM processes WHERE id = %s", (self.owner,))

    # --- the listener --------------------------------------------------------------------------------------
    async def listen(self, on_note) -> None:
        """Call `on_note(owner, game_id, version)` for every game changed by a process; `on_note(None, None,
        None)` after each (re)connection (notes may have been missed meanwhile). Runs until cancelled."""
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.path, autocommit=True, connect_timeout=10,
                                                                 application_name=self.owner) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    on_note(None, None, None)
                    async for note in conn.notifies():
                        owner, game_id, version = note.payload.split(" ")
                        on_note(owner, game_id, int(version))
            except (psycopg.Error, OSError, ValueError) as exc:
                log.warning("the database's notifications were lost (%s); listening again in 1 s",
                            " ".join(str(exc).split())[:160])
                await asyncio.sleep(1.0)

    # --- shared buckets ------------------------------------------------------------------------------------
    def bucket(self, name: str, rate: float, burst: float) -> SharedBucket:
        return SharedBucket(self, name, rate, burst)

    def close(self) -> None:
        self._queue.put(None)
        self._writer.join(timeout=10)
        while True:
            try:
                self._reads.get_nowait().close()
            except queue.Empty:
                break


async def _stored(conn: psycopg.AsyncConnection, game_id: str) -> Stored:
    cur = await conn.execute("SELECT player, text FROM moves WHERE game_id = %s ORDER BY n", (game_id,))
    moves = [(r[0], r[1]) for r in await cur.fetchall()]
    cur = await conn.execute("SELECT over, names, rematch FROM games WHERE id = %s", (game_id,))
    row = await cur.fetchone() or (0, None, None)
    return Stored(moves, row[0] == 2, names_of(row[1]), rematch_of(row[2]))


class GameTx:
    """A game's transaction under its row lock (`PgStore.game_tx`): `version` as stored when the lock was taken."""

    def __init__(self, store: PgStore, conn: psycopg.AsyncConnection, game_id: str, version: int) -> None:
        self.store, self.conn, self.game_id, self.version = store, conn, game_id, version

    async def stored(self) -> Stored:
        return await _stored(self.conn, self.game_id)

    async def commit(self, ops: list[Op], ai_next: bool | None, lease_seconds: float) -> None:
        """Write the change, bump the version, tell the other processes (on commit), and take the lease of the AI
        seats if one is to move now (released otherwise): the process that made the position drives its AI.
        `ai_next` None: a change that moves nothing (a name, a rematch) leaves the lease where it is."""
        conn, gid, owner = self.conn, self.game_id, self.store.owner
        async with conn.pipeline():  # the statements go out together: one round trip, not six
            for sql, params in ops:
                await conn.execute(pg_sql(sql), params)
            await conn.execute("UPDATE games SET version = version + 1 WHERE id = %s", (gid,))
            if ai_next:
                await conn.execute(f"INSERT INTO leases VALUES (%s, %s, {NOW} + %s) ON CONFLICT (game_id) DO "
                                   f"UPDATE SET owner = excluded.owner, until = excluded.until",
                                   (gid, owner, lease_seconds))
            elif ai_next is not None:
                await conn.execute("DELETE FROM leases WHERE game_id = %s", (gid,))
            await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{owner} {gid} {self.version + 1}"))


class SharedBucket:
    """A token bucket by key kept in the database (`buckets`), so every process draws from the same one: the
    interface of `limits.Bucket`. Used for rare events (new games and labs): each call is one statement."""

    def __init__(self, store: PgStore, name: str, rate: float, burst: float) -> None:
        self.store, self.name, self.rate, self.burst = store, name, rate, burst

    def _level(self) -> str:
        return f"LEAST({self.burst!r}::float8, buckets.tokens + ({NOW} - buckets.at) * {self.rate!r}::float8)"

    def take(self, key: str, now: float | None = None) -> float:
        """Take a token: 0.0 if there was one, else the seconds until there will be (nothing taken)."""
        level = self._level()
        taken = self.store._rows(
            f"INSERT INTO buckets VALUES (?, ?, ?, {NOW}) ON CONFLICT (name, key) DO UPDATE SET tokens = "
            f"{level} - 1, at = {NOW} WHERE {level} >= 1 RETURNING tokens", (self.name, key, self.burst - 1))
        if taken:
            return 0.0
        rows = self.store._rows(f"SELECT {level} FROM buckets WHERE name = ? AND key = ?", (self.name, key))
        tokens = rows[0][0] if rows else self.burst
        return (1 - tokens) / self.rate if self.rate > 0 else 3600.0

    def used(self, key: str, now: float | None = None) -> float:
        rows = self.store._rows(f"SELECT {self._level()} FROM buckets WHERE name = ? AND key = ?", (self.name, key))
        return max(0.0, self.burst - rows[0][0]) if rows else 0.0

    def give(self, key: str) -> None:
        self.store._rows(f"UPDATE buckets SET tokens = LEAST({self.burst!r}::float8, tokens + 1) WHERE name = ? AND "
                         f"key = ? RETURNING 1", (self.name, key))

    def forget(self) -> None:
        """Drop the keys whose buckets are full again (they would start full anyway)."""
        self.store._rows(f"DELETE FROM buckets WHERE name = ? AND {self._level()} >= {self.burst!r}::float8 "
                         f"RETURNING 1", (self.name,))

