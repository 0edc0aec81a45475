"""Every game of the server in one SQLite file: created games, their seat tokens and every move.

A game is its record (game, players, seed, options) plus the moves in order, so loading a game is replaying
its record, exactly as a `game-record/1` file replays. Tokens are stored as SHA-256 hashes: the file alone
gives nobody a seat.

Writes go through one writer thread that commits in groups: the requests waiting at the same moment share one
transaction and one fsync (`synchronous=FULL` in WAL mode: a commit survives a killed process and a power
cut; see `SYNCHRONOUS`). `write()` returns only once its transaction is committed, so an answer sent after it never announces a
move a restart would forget.
"""

from __future__ import annotations

import hashlib
import json
import queue
import secrets
import sqlite3
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1


def new_id(nbytes: int) -> str:
    """A random URL-safe id of `nbytes` random bytes that does not start with '-': an operator types it after an
    option (`tower serve --delete-game ID`), where a leading '-' would read as another option."""
    while True:
        out = secrets.token_urlsafe(nbytes)
        if not out.startswith("-"):
            return out

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL, seed INTEGER NOT NULL,
    options TEXT NOT NULL, seats TEXT NOT NULL, created REAL NOT NULL, over INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS tokens (
    hash TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id), n INTEGER NOT NULL, player INTEGER NOT NULL,
    text TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (game_id, n));
"""
#: SQLite's `synchronous` settings offered: `full` (the default) fsyncs every commit, which then survives a
#: power cut; `normal` leaves the write-ahead log to the system, which survives a killed server but may lose the
#: last commits in a power cut (in exchange each write is a few milliseconds quicker).
SYNCHRONOUS = ("full", "normal")
#: Statements of one write: (sql, parameters).
Op = tuple[str, tuple[Any, ...]]


def with_queued(item: Any, q: queue.Queue) -> list[Any]:
    """`item` and every write queued meanwhile, which join its transaction (group commit); the queue's closing
    None, if met, is put back for the writer's loop."""
    batch = [item]
    while True:
        try:
            more = q.get_nowait()
        except queue.Empty:
            return batch
        if more is None:
            q.put(None)
            return batch
        batch.append(more)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class GameRow:
    """A stored game: its record without the moves, and who sits where."""

    id: str
    game: str
    players: int
    seed: int
    options: dict[str, Any]
    seats: list[str]
    created: float
    over: bool
    abandoned: bool = False
    client: str = ""  # its creator, as `Store.client_key` keeps it
    version: int = 0  # changes committed (PostgreSQL: what another process's copy is checked against)
    names: dict[int, str] = field(default_factory=dict)  # seat -> the name its player chose
    rematch: dict[str, Any] | None = None  # the rematch, once a seat asked for one (`rematch_json`)


@dataclass(frozen=True)
class Stored:
    """What another process may have changed of a game, as stored: its moves (player, text) in order, whether
    it was abandoned, its seats' names and its rematch (`rematch_json`)."""

    moves: list[tuple[int, str]]
    abandoned: bool
    names: dict[int, str]
    rematch: dict[str, Any] | None


def names_json(names: dict[int, str]) -> str:
    """Seats' names as the `games.names` column keeps them (JSON: seat number as text -> name)."""
    return json.dumps({str(seat): name for seat, name in sorted(names.items())})


def names_of(text: str | None) -> dict[int, str]:
    return {int(seat): name for seat, name in json.loads(text or "{}").items()}


def rematch_json(rematch: dict[str, Any] | None) -> str | None:
    """A game's rematch as the `games.rematch` column keeps it: `{"id", "origin", "seat"}` (the new game, the
    origin of its links, the seat that asked for it) as JSON; NULL: none yet. No token: each seat's link carries
    the seat's own token, which the new game shares (`create_ops`)."""
    return None if rematch is None else json.dumps(rematch)


def rematch_of(text: str | None) -> dict[str, Any] | None:
    return json.loads(text) if text else None


class StoreError(RuntimeError):
    """The database refused a write (disk full, file gone): the change was not made."""


class StoreConflict(StoreError):
    """Another process changed the row meanwhile (PostgreSQL): the change was not made."""


def is_url(db: str) -> bool:
    """A PostgreSQL URL (libpq's `postgresql://...`) rather than an SQLite file."""
    return db.startswith(("postgresql://", "postgres://"))


def redacted(url: str) -> str:
    """A database URL without its password (it is printed and logged)."""
    import re

    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


class Store:
    """The SQLite file. Reads may come from any thread; writes are queued to the writer thread."""

    #: one server process owns the file: its tables' locks decide every change (PostgreSQL's store is shared)
    shared = False

    def __init__(self, path: str | Path, synchronous: str = "full", lock_seconds: float = 3.0,
                 check: bool = True) -> None:
        if synchronous not in SYNCHRONOUS:
            raise StoreError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, got {synchronous!r}")
        self.path = str(path)
        self.synchronous = synchronous.upper()
        self.lock_seconds = lock_seconds
        self._read = self._connect()
        self._read_lock = threading.Lock()
        if check:
            self.quick_check()
        self._read.executescript(SCHEMA)
        self._read.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        version = self._read.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        if version != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path}: database schema {version}, this server knows {SCHEMA_VERSION}")
        self._add_columns()
        self._queue: queue.Queue[tuple[list[Op], Future] | None] = queue.Queue()
        self._writer = threading.Thread(target=self._write_loop, name="tower-serve-db", daemon=True)
        self._writer.start()
        #: transactions committed and statements they held (for the benchmark's figures)
        self.commits = 0

    def _add_columns(self) -> None:
        """Columns added since schema 1 (a file of an older server gains them, its games kept): each game's client
        (a hash of its creator's address, for the quotas that must survive a restart), when it last changed
        (what `game_keep_seconds` counts from), its seats' names and its rematch."""
        have = {r[1] for r in self._read.execute("PRAGMA table_info(games)").fetchall()}
        if "client" not in have:
            self._read.execute("ALTER TABLE games ADD COLUMN client TEXT NOT NULL DEFAULT ''")
        if "updated" not in have:
            self._read.execute("ALTER TABLE games ADD COLUMN updated REAL")
            self._read.execute("UPDATE games SET updated = created")
        if "names" not in have:
            self._read.execute("ALTER TABLE games ADD COLUMN names TEXT NOT NULL DEFAULT '{}'")
        if "rematch" not in have:
            self._read.execute("ALTER TABLE games ADD COLUMN rematch TEXT")
        self._read.execute("CREATE INDEX IF NOT EXISTS games_updated ON games(updated)")
        self._read.execute("CREATE INDEX IF NOT EXISTS games_client ON games(client, over)")
        self._read.execute("CREATE INDEX IF NOT EXISTS tokens_game ON tokens(game_id)")
        salt = secrets.token_hex(16)
        self._read.execute("INSERT OR IGNORE INTO meta VALUES ('client_salt', ?)", (salt,))
        self.salt = self._read.execute("SELECT value FROM meta WHERE key = 'client_salt'").fetchone()[0]

    def client_key(self, client: str) -> str:
        """How a client (an address) is kept in the database: a salted hash, so the file lists no addresses."""
        return hashlib.sha256(f"{self.salt}:{client}".encode("utf-8", "surrogatepass")).hexdigest()[:32] if client \
            else ""

    def quick_check(self) -> None:
        """`PRAGMA quick_check`: a damaged file is refused with one line before the server announces anything."""
        try:
            rows = [r[0] for r in self._read.execute("PRAGMA quick_check(3)").fetchall()]
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is damaged or not a database ({exc}); restore it from a backup") from None
        if rows != ["ok"]:
            raise StoreError(f"{self.path} is damaged ({rows[0][:120]}); restore it from a backup or repair it with "
                             f"sqlite3's .recover")

    def _connect(self) -> sqlite3.Connection:
        # autocommit mode: transactions are begun and committed explicitly, never implicitly by the module; a lock
        # held by another process is waited for `lock_seconds`, then the write fails (503) rather than hang
        conn = sqlite3.connect(self.path, check_same_thread=False, timeout=self.lock_seconds, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self.synchronous}")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    # --- writes --------------------------------------------------------------------------------------------
    def _write_loop(self) -> None:
        conn = self._connect()
        while True:
            item = self._queue.get()
            if item is None:
                break
            batch = with_queued(item, self._queue)
            done: list[Future] = []
            try:
                conn.execute("BEGIN IMMEDIATE")
                for ops, fut in batch:
                    conn.execute("SAVEPOINT one")
                    try:
                        for sql, params in ops:
                            conn.execute(sql, params)
                    except sqlite3.Error as exc:  # one bad write fails alone, the others still commit
                        conn.execute("ROLLBACK TO one")
                        fut.set_exception(StoreError(str(exc)))
                    else:
                        done.append(fut)
                    conn.execute("RELEASE one")
                conn.execute("COMMIT")
            except sqlite3.Error as exc:  # BEGIN or COMMIT failed (a lock held too long, a full disk): nothing of
                # the batch was written, and every request of it is told so (none may wait for ever)
                try:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                for _ops, fut in batch:
                    if not fut.done():
                        fut.set_exception(StoreError(str(exc)))
                for fut in done:
                    if not fut.done():
                        fut.set_exception(StoreError(str(exc)))
                continue
            self.commits += 1
            for fut in done:
                fut.set_result(None)
        conn.close()

    def submit(self, ops: list[Op]) -> Future:
        """Queue one write (its statements commit together or not at all); the future completes on commit."""
        fut: Future = Future()
        self._queue.put((ops, fut))
        return fut

    def write(self, ops: list[Op]) -> None:
        """Queue one write and wait for its commit (StoreError if it failed)."""
        self.submit(ops).result()

    # --- what a change writes ------------------------------------------------------------------------------
    @staticmethod
    def create_ops(row: GameRow, hashes: dict[str, int | None], rematch: bool = False) -> list[Op]:
        """A new game and its tokens (`token_hash` -> seat, None for the spectators). A `rematch`'s seats keep
        their old game's tokens: their hashes are stored with the game's id after a colon (`tokens.hash` is
        unique), which `tokens` reads back as the hash alone."""
        ops: list[Op] = [("INSERT INTO games (id, game, players, seed, options, seats, created, over, client, updated) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)",
                          (row.id, row.game, row.players, row.seed, json.dumps(row.options), json.dumps(row.seats),
                           row.created, row.client, row.created))]
        ops += [("INSERT INTO tokens VALUES (?, ?, ?)", (f"{h}:{row.id}" if rematch else h, row.id, seat))
                for h, seat in hashes.items()]
        return ops

    @staticmethod
    def move_ops(game_id: str, n: int, player: int, text: str, over: bool) -> list[Op]:
        """Move number `n` (0-based) of a game, and whether it ended the game."""
        return [("INSERT INTO moves VALUES (?, ?, ?, ?, ?)", (game_id, n, player, text, time.time())),
                ("UPDATE games SET over = ?, updated = ? WHERE id = ?", (int(over), time.time(), game_id))]

    @staticmethod
    def names_ops(game_id: str, names: dict[int, str]) -> list[Op]:
        """The seats' names of a game, all of them (written under the game's lock, after its copy was brought up
        to the stored game: no other seat's name is lost)."""
        return [("UPDATE games SET names = ? WHERE id = ?", (names_json(names), game_id))]

    @staticmethod
    def rematch_ops(game_id: str, rematch: dict[str, Any]) -> list[Op]:
        """A game's rematch (in the transaction that creates the rematch's game)."""
        return [("UPDATE games SET rematch = ? WHERE id = ?", (rematch_json(rematch), game_id))]

    @staticmethod
    def truncate_ops(game_id: str, keep: int) -> list[Op]:
        """Take back every move from number `keep` on (undo)."""
        return [("DELETE FROM moves WHERE game_id = ? AND n >= ?", (game_id, keep)),
                ("UPDATE games SET over = 0 WHERE id = ?", (game_id,))]

    @staticmethod
    def end_ops(game_id: str) -> list[Op]:
        """End a game as abandoned (`over` = 2): its seats left it, or it reached the server's length cap."""
        return [("UPDATE games SET over = 2, updated = ? WHERE id = ?", (time.time(), game_id))]

    @staticmethod
    def delete_ops(game_id: str) -> list[Op]:
        """Remove a game with its moves and tokens (the operator's `tower serve --delete-game`)."""
        return [("DELETE FROM moves WHERE game_id = ?", (game_id,)), ("DELETE FROM tokens WHERE game_id = ?", (game_id,)),
                ("DELETE FROM games WHERE id = ?", (game_id,))]

    @staticmethod
    def delete_many_ops(ids: list[str]) -> list[Op]:
        """Remove games with their moves and tokens (expiry: `Store.expired`)."""
        marks = ",".join("?" * len(ids))
        return [(f"DELETE FROM moves WHERE game_id IN ({marks})", tuple(ids)),
                (f"DELETE FROM tokens WHERE game_id IN ({marks})", tuple(ids)),
                (f"DELETE FROM games WHERE id IN ({marks})", tuple(ids))]

    def expired(self, before: float, limit: int) -> list[str]:
        """Ids of up to `limit` games unchanged since `before`, the oldest first (`game_keep_seconds`)."""
        return [r[0] for r in self._rows("SELECT id FROM games WHERE updated < ? ORDER BY updated LIMIT ?",
                                         (before, limit))]

    def bytes_used(self) -> int:
        """Bytes of the database on disk: the file and its write-ahead log."""
        total = 0
        for suffix in ("", "-wal"):
            try:
                total += Path(self.path + suffix).stat().st_size
            except OSError:
                pass
        return total

    def free_bytes(self) -> int:
        """Bytes free on the database's file system."""
        import shutil

        try:
            return shutil.disk_usage(Path(self.path).resolve().parent).free
        except OSError:
            return 1 << 62

    # --- reads ---------------------------------------------------------------------------------------------
    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple]:
        with self._read_lock:
            return self._read.execute(sql, params).fetchall()

    def game(self, game_id: str) -> GameRow | None:
        rows = self._rows(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return game_row(rows[0]) if rows else None

    def unfinished(self) -> list[str]:
        """Ids of the games not over yet."""
        return [r[0] for r in self._rows("SELECT id FROM games WHERE over = 0 ORDER BY created")]

    def unfinished_with_ai(self, limit: int) -> list[str]:
        """Ids of the newest `limit` unfinished games with an AI seat (resumed when the server starts: an AI to
        move plays on without a visit; a game of people only waits in the database until someone asks for it)."""
        rows = self._rows("SELECT id FROM games WHERE over = 0 AND seats LIKE '%\"ai:%' ORDER BY created DESC "
                          "LIMIT ?", (limit,))
        return [r[0] for r in reversed(rows)]

    def running_by_client(self) -> dict[str, set[str]]:
        """client key -> ids of its unfinished games (`running_games_per_client`, kept across restarts)."""
        out: dict[str, set[str]] = {}
        for client, game_id in self._rows("SELECT client, id FROM games WHERE over = 0 AND client != ''"):
            out.setdefault(client, set()).add(game_id)
        return out

    def listing(self) -> list[tuple[str, str, int, float, str]]:
        """(id, game, moves, created, state) of every game, oldest first (the operator's `--list-games`)."""
        rows = self._rows("SELECT g.id, g.game, COUNT(m.n), g.created, g.over FROM games g LEFT JOIN moves m "
                          "ON m.game_id = g.id GROUP BY g.id ORDER BY g.created")
        return [(r[0], r[1], r[2], r[3], {0: "running", 1: "over", 2: "abandoned"}.get(r[4], "?")) for r in rows]

    def moves(self, game_id: str) -> list[tuple[int, str]]:
        """(player, text) of every move of a game, in order."""
        return [(r[0], r[1]) for r in self._rows("SELECT player, text FROM moves WHERE game_id = ? ORDER BY n",
                                                 (game_id,))]

    def tokens(self, game_id: str) -> dict[str, int | None]:
        """Token hash -> seat (None: a spectator) of a game."""
        return {r[0].split(":")[0]: r[1] for r in self._rows("SELECT hash, seat FROM tokens WHERE game_id = ?",
                                                             (game_id,))}

    def count(self) -> int:
        return self._rows("SELECT COUNT(*) FROM games")[0][0]

    def close(self) -> None:
        self._queue.put(None)
        self._writer.join(timeout=10)
        with self._read_lock:
            self._read.close()


#: The columns of `games` a `GameRow` is read from (`game_row`), in its order; PostgreSQL's store adds `version`.
GAME_COLUMNS = "id, game, players, seed, options, seats, created, over, client, names, rematch"


def game_row(r: tuple, version: int = 0) -> GameRow:
    """A `GameRow` of the GAME_COLUMNS of a row."""
    return GameRow(r[0], r[1], r[2], r[3], json.loads(r[4]), json.loads(r[5]), r[6], bool(r[7]), r[7] == 2, r[8],
                   version, names_of(r[9]), rematch_of(r[10]))
