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
from dataclasses import dataclass, field
from typing import Any

from tower.app.serve.errors import Refused
from tower.app.serve.lobby import parse_new_game
from tower.app.serve.store import GameRow, Store, StoreError, token_hash
from tower.app.serve.table import Change, Table, render, render_messages
from tower.app.serve.workers import HINT_AI, WorkerPool
from tower.games.errors import BadInput
from tower.games.registry import new_game

log = logging.getLogger("tower.serve")

GAME_ID_BYTES = 9  # 72 bits: ids are not secret (tokens are), only hard to stumble upon
TOKEN_BYTES = 24  # 192 bits per seat link
QUEUE_LIMIT = 256  # messages waiting for one page; a page that falls further behind is disconnected
#: finished games kept in memory with no page open; older ones are dropped and, if asked for again, reloaded from
#: the database (a finished game never changes, so nothing is lost)
FINISHED_KEPT = 64


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


class GameServer:
    """All tables of one database. Use from one asyncio event loop."""

    def __init__(self, db: str, *, workers: int | None = None, ai_pause: float = 0.4, judge: Any = None,
                 synchronous: str = "full") -> None:
        if judge is None:
            from tower.app.stability import statics_stands

            judge = statics_stands
        self.store = Store(db, synchronous)
        self.judge = judge
        self.pool = WorkerPool(workers)  # AI seats and hints
        # the pages' scenes: built in a process of their own, so the referee's loop answers moves meanwhile
        self.renderer = WorkerPool(1)
        self.ai_pause = ai_pause  # seconds before an AI moves, so people can follow a run of AI moves
        self.tables: dict[str, Table] = {}
        self._loading: dict[str, asyncio.Future] = {}
        self.rng = random.Random(secrets.randbits(64))  # re-deals of the take-back check
        self._tasks: set[asyncio.Task] = set()

    # --- life ----------------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the render worker; resume the unfinished games in the background (an AI seat to move moves
        again without a visit)."""
        self.renderer.start()
        self._spawn(self._resume())

    async def _resume(self) -> None:
        for game_id in await asyncio.to_thread(self.store.unfinished):
            try:
                self.kick(await self.table(game_id))
            except Exception:  # one damaged game must not keep the others from resuming
                log.exception("cannot resume game %s", game_id)

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
        self.renderer.close()
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
                    raise Refused(404, "no-game", f"no game {game_id!r} on this server")
                table = await asyncio.to_thread(Table.load, self.store, row, self.judge)
                self._add(table)
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
        """Keep `table` live; drop the oldest finished tables nobody has open beyond FINISHED_KEPT."""
        self.tables[table.id] = table
        idle = [t.id for t in self.tables.values() if t.state.is_over and not t.subscribers
                and (t.sender is None or t.sender.done()) and not t.lock.locked()]
        for game_id in idle[:max(0, len(idle) - FINISHED_KEPT)]:
            del self.tables[game_id]

    async def seat(self, game_id: str, token: str) -> tuple[Table, int | None]:
        """The table and the seat a token opens (None: the spectators' link); 403 for any other token."""
        table = await self.table(game_id)
        known, seat = table.seat_of(token)
        if not known:
            raise Refused(403, "bad-token", "this link's token does not open this game")
        return table, seat

    async def _commit(self, table: Table, change: Change) -> None:
        try:
            await asyncio.wrap_future(self.store.submit(change.ops))
        except StoreError as exc:
            # the table now differs from the database, which is the truth: drop it, reload on the next request
            self.tables.pop(table.id, None)
            for sub in list(table.subscribers):
                sub.push(None)
            raise Refused(503, "not-saved", f"the move could not be saved ({exc}); it was not made") from None

    # --- requests ------------------------------------------------------------------------------------------
    async def create(self, body: Any, origin: str) -> dict[str, Any]:
        """`POST /api/games`: a new game; the links of its human seats and of its spectators."""
        ng = parse_new_game(body)
        state = await asyncio.to_thread(new_game, ng.game, ng.players, ng.seed, ng.options, judge=self.judge)
        game_id = secrets.token_urlsafe(GAME_ID_BYTES)
        seat_tokens = {p: secrets.token_urlsafe(TOKEN_BYTES) for p, kind in enumerate(ng.seats) if kind == "human"}
        watch = secrets.token_urlsafe(TOKEN_BYTES)
        row = GameRow(game_id, ng.game, ng.players, ng.seed, ng.options, ng.seats, time.time(), False)
        tokens: dict[str, int | None] = {t: p for p, t in seat_tokens.items()}
        tokens[watch] = None
        await asyncio.wrap_future(self.store.submit(Store.create_ops(row, tokens)))
        table = Table(row, state, [], {token_hash(t): p for t, p in tokens.items()})
        self._add(table)
        self.kick(table)
        return {
            "id": game_id,
            "seats": [{"seat": p, "url": f"{origin}/play/{game_id}?token={t}", "token": t}
                      for p, t in seat_tokens.items()],
            "spectator_url": f"{origin}/play/{game_id}?token={watch}",
        }

    async def answer(self, game_id: str, token: str) -> dict[str, Any]:
        table, seat = await self.seat(game_id, token)
        async with table.lock:
            return await work(table, table.api_answer, seat)

    async def snapshot(self, game_id: str, token: str) -> dict[str, Any]:
        table, seat = await self.seat(game_id, token)
        async with table.lock:
            return await self._snapshot(table, seat)

    async def _snapshot(self, table: Table, seat: int | None) -> dict[str, Any]:
        """The page snapshot of a seat now (call holding the table's lock); the scene is built by the renderer."""
        cached = table.cached_snapshot(seat)
        if cached is None:
            capture = await work(table, table.capture, seat)
            cached = await self.renderer.run(render, capture)
            table.keep_snapshot(seat, cached)
        return cached

    async def play(self, game_id: str, token: str, body: Any) -> dict[str, Any]:
        """`POST /api/games/{id}/moves`: `{"move": TEXT}` (and optionally `"n"`, the number of moves the sender
        believes were played: a retried request then cannot play twice)."""
        table, seat = await self.seat(game_id, token)
        if not isinstance(body, dict) or not isinstance(body.get("move"), str) or set(body) - {"move", "n"}:
            raise BadInput('the body must be {"move": TEXT} (and optionally "n": moves played so far)', "$")
        expect = body.get("n")
        if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool)):
            raise BadInput(f"n must be a whole number, got {expect!r}", "$.n")
        return await self._change(table, seat, table.play, seat, body["move"], expect)

    async def take_back(self, game_id: str, token: str) -> dict[str, Any]:
        table, seat = await self.seat(game_id, token)
        return await self._change(table, seat, table.take_back, seat, self.rng)

    async def _change(self, table: Table, seat: int | None, fn, *args: Any) -> dict[str, Any]:
        """A change asked for by a seat, in the one order: apply, commit, tell the pages, answer the seat."""
        async with table.lock:
            change = await work(table, fn, *args)
            await self._commit(table, change)
            await self._announce(table, change)
            out = await work(table, table.api_answer, seat)
        self.kick(table)
        return out

    async def name(self, game_id: str, token: str, body: Any) -> dict[str, Any]:
        """`POST /api/games/{id}/name`: `{"name": TEXT}`, the seat's name shown to everyone."""
        table, seat = await self.seat(game_id, token)
        if not isinstance(body, dict) or set(body) != {"name"}:
            raise BadInput('the body must be {"name": TEXT}', "$")
        async with table.lock:
            change = table.set_name(seat, body["name"])
            await self._announce(table, change)
        return {"seat": seat, "name": table.names.get(seat, "")}

    async def rematch(self, game_id: str, token: str, origin: str) -> dict[str, Any]:
        """`POST /api/games/{id}/rematch`: the same table again (game, seats, options; a new deal), once; every
        page of the old game is handed its own seat's new link."""
        table, seat = await self.seat(game_id, token)
        async with table.lock:
            body = table.rematch_body(seat)
            if table.rematch is None:
                created = await self.create(body, origin)
                table.rematch = {"id": created["id"], "urls": {s["seat"]: s["url"] for s in created["seats"]},
                                 "spectator": created["spectator_url"]}
                table.rev += 1
                await self._announce(table, Change("rematch", seat, None, table.n, []))
        return {"id": table.rematch["id"], "url": table.rematch_for(seat)}

    async def hint(self, game_id: str, token: str) -> dict[str, Any]:
        """A move suggested for the seat to move, by an AI that sees only what that seat sees."""
        table, seat = await self.seat(game_id, token)
        async with table.lock:
            table.require_turn(seat)
            rev = table.rev
            args = await work(table, self._think_args, table, HINT_AI, seat)
        text = await self.pool.choose(*args)
        async with table.lock:
            if table.rev != rev:
                raise Refused(409, "stale", "the game moved on while the hint was thought out")
            legal = [str(m) for m in await work(table, table.legal)]
        return {"move": text if text in legal else legal[0], "n": table.n}

    async def ghosts(self, game_id: str, token: str, block: str) -> dict[str, Any]:
        table, seat = await self.seat(game_id, token)
        async with table.lock:
            return await work(table, table.ghosts, seat, block)

    async def placements(self, game_id: str, token: str, block: str) -> dict[str, Any]:
        table, seat = await self.seat(game_id, token)
        async with table.lock:
            return await work(table, table.placements, seat, block)

    async def record(self, game_id: str) -> dict[str, Any]:
        table = await self.table(game_id)
        return table.record()

    # --- the pages -----------------------------------------------------------------------------------------
    async def subscribe(self, game_id: str, token: str, sub_factory) -> Subscriber:
        """Register an open page; its first message is the snapshot of its seat."""
        table, seat = await self.seat(game_id, token)
        sub = sub_factory(seat)
        async with table.lock:
            snap = await self._snapshot(table, seat)
            table.subscribers.add(sub)
            sub.push(json.dumps({"type": "snapshot", "event": None, "snapshot": snap}))
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
        captured = await work(table, lambda: {seat: table.capture(seat) for seat in seats})
        events = {}
        for seat in seats:
            event: dict[str, Any] = {"kind": change.kind, "player": change.player, "n": change.n,
                                     "label": table.label(change.player)}
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
        while self.tables.get(table.id) is table:
            async with table.lock:
                if not table.ai_to_move:
                    return
                seat, rev = table.state.current_player, table.rev
                args = await work(table, self._think_args, table, table.seats[seat], None)
            if self.ai_pause:
                await asyncio.sleep(self.ai_pause)
            try:
                text = await self.pool.choose(*args)
            except Exception:  # a crashed search must not stop the game: the seat plays a random move instead
                log.exception("AI %s of game %s failed; playing a random move", table.seats[seat], table.id)
                text = None
            async with table.lock:
                if text is None:
                    text = str(table.state.random_move(random.Random(args[3])))
                try:
                    change = await work(table, table.play_ai, seat, text, rev)
                except Refused:
                    log.error("AI %s of game %s chose an illegal move %r", table.seats[seat], table.id, text)
                    change = await work(table, table.play_ai, seat, str(table.legal()[0]), rev)
                if change is None:
                    continue  # the game changed while the AI thought (a take-back): think again
                await self._commit(table, change)
                await self._announce(table, change)


async def work(table: Table, fn, *args: Any) -> Any:
    """Game work of a table. A construction game (The Climbers) lists thousands of placements, up to a tenth of
    a second: that runs in a thread, so other tables are served meanwhile. A card game's work takes
    microseconds: it runs at once, as a hop to a thread and back would cost more than the work (and would queue
    behind other threads for the interpreter lock)."""
    if table.state.construction:
        return await asyncio.to_thread(fn, *args)
    return fn(*args)


def _plausible_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 64 and all(c.isalnum() or c in "-_" for c in game_id)
