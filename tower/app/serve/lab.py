"""The lab on the server: `/lab` pages and the `/api/lab` JSON endpoints (docs/lab.md, docs/serve.md).

Each lab is a `LabController` kept in memory under a random id (72 bits, like a game's: not secret, hard to
stumble upon) and its current build stored in the server's SQLite file (table `labs`), so a lab link reopens the
same build after a restart; a lab nobody opens or edits for `lab_idle_seconds` is deleted. The edit history lives
in memory only (at most `lab_history_bytes` of it). Requests of one lab run one at a time (its lock), in threads
of the lab's own; every physics call (the verdict after an edit, forces, removal map, push, drop) is a job in the
lab's worker processes (`labjobs`), budgeted, one per client at a time, so no other request waits for it.

Errors follow the server's contract: 400 a malformed request or build file (one line naming the place), 404 no
such lab, 409 an edit the rules refuse (`rule` names the rule: also a block the build does not have, a build
whose ids repeat, the lab's block cap), 413 a body over the limit or a physics job over `lab_cpu_seconds`, 429 a
client over its lab limits, 503 the lab's workers have too many jobs waiting (both with `Retry-After`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

from aiohttp import web

from tower.app.lab.controller import LabController, kind_sizes, load_build_doc, top_colours
from tower.app.serve.errors import Refused
from tower.app.serve.labjobs import Asker, LabJobs, MapProgress, lab_threads
from tower.app.serve.limits import Bucket, Limits
from tower.app.serve.store import StoreConflict, StoreError, new_id
from tower.climbers.blocks import KINDS
from tower.climbers.build import build_to_json, dumps_build, parse_build
from tower.games.errors import BadInput, IllegalMove
from tower.games.records import MAX_SEED

log = logging.getLogger("tower.serve")

LAB_ID_BYTES = 9
UNIT_M = 0.02  # a grid unit in metres (physics.units.UNIT_M; the explanations' points are in metres)
#: Labs kept in memory; older ones leave it (their build stays in the database and is reloaded when asked for).
LABS_KEPT = 128
#: A lab in use has its row's `updated` written at most this often (seconds): what `lab_idle_seconds` counts from.
TOUCH_SECONDS = 3600.0
#: Seconds between the lab's chores: idle heavy workers stop; labs idle past `lab_idle_seconds` are deleted.
SWEEP_SECONDS = 5.0
EXPIRE_SECONDS = 600.0
SCHEMA = ("CREATE TABLE IF NOT EXISTS labs (id TEXT PRIMARY KEY, build TEXT NOT NULL, rules TEXT NOT NULL, "
          "created REAL NOT NULL, updated REAL NOT NULL, client TEXT NOT NULL DEFAULT '')")
#: Who asks when nobody in particular does (a lab used from Python, not over HTTP).
NOBODY = Asker("")
#: What a new lab may start from.
STARTS = ("empty", "random")
#: Held by a lab thread while it does work of its own (checking a build, building a scene): one at a time, so the
#: server's event loop shares the interpreter with one such thread at most (fifty new labs at once once left it a
#: sliver: a move's p95 14.6 -> 3,432 ms). Waiting for the lab's workers is done without it.
LAB_CPU = threading.Lock()


@dataclass(eq=False)
class Lab:
    id: str
    ctl: LabController
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    used: float = field(default_factory=time.time)  # when it was last opened or changed
    touched: float = field(default_factory=time.time)  # when its row's `updated` was last written
    client: str = ""  # its creator (`Store.client_key`): `labs_per_client` counts the database's rows
    removal: MapProgress = field(default_factory=MapProgress)  # its removal map as it is worked out
    version: int = 0  # its stored build's version (a shared database: another process may have changed it)
    saved: bool = False  # its row is in the database


def _log_failed_save(fut: Any) -> None:
    if fut.exception() is not None:
        log.warning("a lab's build was not stored: %s", fut.exception())


def _refusal(exc: IllegalMove) -> Refused:
    return Refused(409, exc.rule, exc.message)


class Labs:
    """Every lab of one server: in memory (bounded) and in the server's database. Their physics runs in the lab's
    worker processes (`labjobs`), their requests in threads of their own; each request names its client, who
    is held to the lab's limits (`labs_per_minute`, `labs_per_client`, one physics job at a time)."""

    def __init__(self, store: Any, limits: Limits, jobs: LabJobs | None) -> None:
        self.store = store  # the server's Store: writes go through its one writer thread
        self.limits = limits
        self.jobs = jobs  # None: the lab shows the rules only
        self.max_blocks = limits.blocks_per_build
        self.threads = lab_threads(limits)
        self.labs: OrderedDict[str, Lab] = OrderedDict()
        self.shared = bool(getattr(store, "shared", False))  # PostgreSQL: other processes open the same labs
        if self.shared:  # the rates of new labs hold across the processes
            self.rate: Any = store.bucket("labs", limits.labs_per_minute / 60, limits.lab_burst)
            self.server_rate: Any = store.bucket("server-labs", limits.server_labs_per_minute / 60,
                                                 max(1.0, limits.server_labs_per_minute / 6))
        else:
            self.rate = Bucket(limits.labs_per_minute / 60, limits.lab_burst)
            self.server_rate = Bucket(limits.server_labs_per_minute / 60,
                                      max(1.0, limits.server_labs_per_minute / 6))
        self.making: dict[str, int] = {}  # client key -> its labs being made (not yet in the database)
        self.disk_check: Any = lambda: None  # the server's storage budget (507), set by `add_lab_routes`
        self._schema = False
        self._schema_lock = threading.Lock()
        self._read: sqlite3.Connection | None = None

    async def _thread(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.threads, fn, *args)

    async def _bucket(self, bucket: Any, what: str, key: str) -> Any:
        """`bucket.take/used/give(key)`: a shared bucket's statement in a thread, a local one at once."""
        fn = getattr(bucket, what)
        return await self._thread(fn, key) if self.shared else fn(key)

    def _controller(self, build: Any, rules: str, check: bool = True) -> LabController:
        with LAB_CPU:  # checking a build is the rules' work: one lab thread at a time
            return LabController(build, rules=rules, max_blocks=self.max_blocks, check=check,
                                 max_history_bytes=self.limits.lab_history_bytes)

    def _serve(self, lab: Lab, asker: Asker) -> LabController:
        """The lab's controller, its physics now working for `asker` (call holding the lab's lock)."""
        lab.ctl.physics = self.jobs.physics(asker, lab.removal, lab.ctl.cursor) if self.jobs is not None else None
        return lab.ctl

    # --- the database --------------------------------------------------------------------------------------------
    def _ensure_schema(self) -> None:
        with self._schema_lock:
            if self.shared:  # PostgreSQL's schema holds the labs' table from the start
                self._schema = True
            if not self._schema:
                self.store.write([(SCHEMA, ())])
                have = {r[1] for r in self.store._rows("PRAGMA table_info(labs)")}
                if "client" not in have:  # a file of an older server: its labs count for nobody
                    self.store.write([("ALTER TABLE labs ADD COLUMN client TEXT NOT NULL DEFAULT ''", ())])
                self.store.write([("CREATE INDEX IF NOT EXISTS labs_client ON labs(client, updated)", ())])
                self._read = sqlite3.connect(self.store.path, check_same_thread=False, timeout=30)
                self._schema = True

    def _save(self, lab: Lab, wait: bool = True) -> None:
        """Store the lab's build. An edit's answer does not wait for the disk (`wait=False`): the writes of a lab
        are committed in order by the store's one writer, and a lab is a sketch, not a game whose every move must
        survive a power cut; a new lab is committed before its link is given out."""
        self._ensure_schema()
        now = lab.touched = time.time()
        if self.shared and lab.saved:  # changed only if nobody changed it meanwhile, and committed before the
            # answer: the next request may go to another process
            try:
                self.store.write(self.store.lab_save_ops(lab.id, json.dumps(build_to_json(lab.ctl.build)),
                                                         lab.ctl.rules, now, lab.version))
            except StoreConflict:
                self.labs.pop(lab.id, None)  # reloaded from the database on the next request
                raise Refused(409, "lab-changed", "this lab was changed from another page meanwhile; reload it "
                                                  "and edit again") from None
            except StoreError as exc:
                raise Refused(503, "not-saved", f"the lab was not saved: {exc}"[:200]) from None
            lab.version += 1
            return
        ops = [("INSERT INTO labs (id, build, rules, created, updated, client) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET build = excluded.build, rules = excluded.rules, "
                "updated = excluded.updated",
                (lab.id, json.dumps(build_to_json(lab.ctl.build)), lab.ctl.rules, now, now, lab.client))]
        if wait or self.shared:
            self.store.write(ops)
            lab.saved = True
        else:
            self.store.submit(ops).add_done_callback(_log_failed_save)

    def _load(self, lab_id: str) -> Lab | None:
        self._ensure_schema()
        since = time.time() - self.limits.lab_idle_seconds
        version = 0
        if self.shared:
            got = self.store.lab_row(lab_id, since)
            row = got[:2] if got else None
            version = got[2] if got else 0
        else:
            assert self._read is not None
            with self._schema_lock:
                row = self._read.execute("SELECT build, rules FROM labs WHERE id = ? AND updated >= ?",
                                         (lab_id, since)).fetchone()
        if row is None:
            return None
        lab = Lab(lab_id, self._controller(parse_build(json.loads(row[0])), row[1], check=False), version=version,
                  saved=True)
        self._touch(lab)
        return lab

    def _touch(self, lab: Lab) -> None:
        """Note in the database that the lab is in use (at most every TOUCH_SECONDS): it is not idle."""
        now = lab.used = time.time()
        if now - lab.touched > TOUCH_SECONDS:
            lab.touched = now
            self.store.submit([("UPDATE labs SET updated = ? WHERE id = ?", (now, lab.id))]
                              ).add_done_callback(_log_failed_save)

    def expire(self) -> None:
        """Labs nobody opened or edited for `lab_idle_seconds` leave memory and the database."""
        oldest = time.time() - self.limits.lab_idle_seconds
        for lab_id in [k for k, lab in self.labs.items() if lab.used < oldest and not lab.lock.locked()]:
            del self.labs[lab_id]
        self._ensure_schema()
        self.store.submit([("DELETE FROM labs WHERE updated < ?", (oldest,))]).add_done_callback(_log_failed_save)
        if self.shared:  # the shared buckets' rows of clients full again go (they would start full anyway)
            for bucket in (self.rate, self.server_rate):
                bucket.forget()

    def close(self) -> None:
        self.threads.shutdown(wait=False, cancel_futures=True)
        if self._read is not None:
            self._read.close()

    # --- labs ------------------------------------------------------------------------------------------------------
    def _keep(self, lab: Lab) -> Lab:
        self.labs[lab.id] = lab
        self.labs.move_to_end(lab.id)
        while len(self.labs) > LABS_KEPT:
            oldest = next(iter(self.labs))
            if self.labs[oldest].lock.locked():
                break
            del self.labs[oldest]
        return lab

    def warm(self) -> None:
        """Start the lab's quick worker if it is not running (it imports the judges: a second or so)."""
        if self.jobs is not None:
            self.jobs.start()

    async def get(self, lab_id: str) -> Lab:
        self.warm()
        lab = self.labs.get(lab_id)
        if lab is not None and self.shared and not lab.lock.locked() \
                and await self._thread(self.store.lab_version, lab_id) != lab.version:
            # changed by another process: its build comes from the database (without this one's history)
            lab = self.labs.pop(lab_id, None) and None
        if lab is None:
            plausible = 0 < len(lab_id) <= 32 and all(c.isalnum() or c in "-_" for c in lab_id)
            lab = await self._thread(self._load, lab_id) if plausible else None
            if lab is None:
                raise Refused(404, "no-lab", f"no lab {lab_id!r} on this server"[:200])
            lab = self.labs.get(lab_id) or lab  # loaded twice at once: keep the first
        else:
            self._touch(lab)
        return self._keep(lab)

    def held(self, key: str) -> int:
        """Labs the client (its key) holds: its rows in the database not yet expired (a restart forgets none),
        and those being made."""
        self._ensure_schema()
        rows = self.store._rows("SELECT COUNT(*) FROM labs WHERE client = ? AND updated >= ?",
                                (key, time.time() - self.limits.lab_idle_seconds)) if key else [(0,)]
        return rows[0][0] + self.making.get(key, 0)

    async def _quota(self, client: str) -> str:
        """A new lab of `client`: within `labs_per_minute` (burst `lab_burst`), `labs_per_client` and the server's
        `server_labs_per_minute` (429); the client's key, its lab counted as being made (`_made` ends that)."""
        self.disk_check()
        key = self.store.client_key(client)
        if await self._thread(self.held, key) >= self.limits.labs_per_client:
            raise Refused(429, "too-many-labs", f"this address holds {self.limits.labs_per_client} labs; another "
                                                f"one as they expire (labs_per_client)", retry_after=3600)
        wait = await self._bucket(self.rate, "take", client)
        if wait:
            raise Refused(429, "too-many-labs", f"at most {self.limits.labs_per_minute:g} new labs a minute from "
                                                f"one address (labs_per_minute)", retry_after=wait)
        wait = await self._bucket(self.server_rate, "take", "")
        if wait and await self._bucket(self.rate, "used", client) > 1.5:  # never to a client making one lab now
            await self._bucket(self.rate, "give", client)  # and then
            raise Refused(429, "server-busy", f"this server makes at most {self.limits.server_labs_per_minute:g} "
                                              f"labs a minute, and many addresses are making labs now; try again "
                                              f"shortly", retry_after=wait)
        self.making[key] = self.making.get(key, 0) + 1
        return key

    def _made(self, key: str) -> None:
        left = self.making.get(key, 1) - 1
        if left > 0:
            self.making[key] = left
        else:
            self.making.pop(key, None)

    async def create(self, body: Any, asker: Asker = NOBODY) -> dict[str, Any]:
        """A new lab from `{"start": "empty"|"random", "seed", "build", "rules"}` (all optional)."""
        if not isinstance(body, dict):
            raise BadInput("expected a JSON object", "$")
        for key in body:
            if key not in ("start", "seed", "build", "rules"):
                raise BadInput(f"unknown key {key!r} (allowed: build, rules, seed, start)"[:200], f"$.{key}")
        rules = body.get("rules", "strict")
        # start and seed are checked with a build too: a wrong value is a mistake even where it is not used
        start = body.get("start", "empty")
        if not isinstance(start, str) or start not in STARTS:
            raise BadInput(f"start must be one of {', '.join(STARTS)}, got {start!r}"[:200], "$.start")
        seed = body.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise BadInput(f"seed must be a whole number from 0 to {MAX_SEED}", "$.seed")
        build = None
        if "build" in body:  # checked before the quotas, as any malformed request is
            try:
                build = await self._thread(load_build_doc, body["build"])
                ctl = await self._thread(self._controller, build, rules)
            except IllegalMove as exc:
                raise _refusal(exc) from None
        key = await self._quota(asker.client)
        asker = replace(asker, new=True)  # its jobs wait behind those of the labs in use (`labjobs.Lane.run`)
        try:
            if build is None:
                if start == "random":  # 30 ms of the rules: in the rules worker, not the server's process
                    from tower.app.serve.labjobs import start_job

                    build = await self._thread(self.jobs.ask, asker, "random start", start_job, seed) \
                        if self.jobs is not None else await self._thread(start_job, seed)
                else:
                    from tower.climbers.build import Build

                    build = Build()
                try:
                    ctl = await self._thread(self._controller, build, rules)
                except IllegalMove as exc:
                    raise _refusal(exc) from None
            self.warm()
            lab = Lab(new_id(LAB_ID_BYTES), ctl, client=key)
            async with lab.lock:
                self._serve(lab, asker)
                state = await self._thread(self._state_saved, lab)
        except BaseException:
            await self._bucket(self.rate, "give", asker.client)  # nothing was made: the allowance is not spent
            raise
        finally:
            self._made(key)
        self._keep(lab)
        return state

    def _state_saved(self, lab: Lab, wait: bool = True) -> dict[str, Any]:
        """The lab's state, then its build stored (a build the physics refuses, e.g. over `lab_cpu_seconds`, is
        not stored)."""
        state = state_json(lab)
        self._save(lab, wait)
        return state

    async def change(self, lab_id: str, what: str, body: Any = None, asker: Asker = NOBODY) -> dict[str, Any]:
        """An edit (`what` = "edit", body: the edit), "undo", "redo" or "rules" (body {"rules"}); the new state.
        A refused change changes nothing (409 naming the rule), nor does one whose verdict the lab's workers
        refuse (413 over `lab_cpu_seconds`, 429, 503)."""
        lab = await self.get(lab_id)
        async with lab.lock:
            ctl = self._serve(lab, asker)

            def run() -> dict[str, Any]:
                before = (list(ctl.history), ctl.cursor, ctl.selected, ctl.rules)
                try:
                    with LAB_CPU:  # the edit's rules check is this thread's own work
                        words = _changed(ctl, what, body)
                except IllegalMove as exc:
                    raise _refusal(exc) from None
                try:
                    state = self._state_saved(lab, wait=False)
                except Refused:
                    ctl.history, ctl.cursor, ctl.selected, ctl.rules = before
                    raise
                state["did"] = words
                return state

            return await self._thread(run)

    async def refusals(self, lab_id: str, body: Any, asker: Asker = NOBODY) -> dict[str, Any]:
        """Where the rules would refuse the block in hand (`LabController.refusals`), so the page's ghost says so
        before the click: `{"block": "new" | ID, "kind", "shapes": [{"size", "top", "faces"}], "area": [x0, y0,
        x1, y1]}` -> `{"edits", "refused": {placement text: "rule: words"}, "elsewhere": ["rule: words" | null per
        shape]}`: the placements that touch something one by one, those that touch nothing once per shape (so the
        answer and the work are bounded by the build, not by the area)."""
        from tower.app.serve.labjobs import refusals_job

        lab = await self.get(lab_id)
        shapes, area, block, kind = _hand(body)
        async with lab.lock:  # the build as it is now; the question is answered outside the lock
            build, rules, edits = lab.ctl.build, lab.ctl.rules, lab.ctl.cursor

        def run() -> dict[str, Any]:
            try:
                if self.jobs is None:
                    return {"edits": edits, **refusals_job(build, rules, self.max_blocks, block, shapes, area, kind)}
                # 0.2 s of CPU over a big build: in the rules worker, so no move waits for the interpreter
                return {"edits": edits, **self.jobs.ask(asker, "check of the block in hand", refusals_job, build,
                                                        rules, self.max_blocks, block, shapes, area, kind)}
            except IllegalMove as exc:  # a block the build does not have
                raise _refusal(exc) from None
        return await self._thread(run)

    async def state(self, lab_id: str, asker: Asker = NOBODY) -> dict[str, Any]:
        lab = await self.get(lab_id)
        async with lab.lock:
            self._serve(lab, asker)
            return await self._thread(state_json, lab)

    async def drop(self, lab_id: str, asker: Asker = NOBODY) -> dict[str, Any]:
        """PyBullet's run of the build: the scene with the trajectory as its `frames` and the blocks that moved,
        and the verdict of both judges (`tower check`'s)."""
        from viewer.scene_json import scene_to_json

        lab = await self.get(lab_id)
        async with lab.lock:
            ctl = self._serve(lab, asker)

            def run() -> dict[str, Any]:
                try:
                    dropped = ctl.drop()
                except IllegalMove as exc:
                    raise _refusal(exc) from None
                scene = scene_to_json(ctl.drop_scene(dropped))
                return {"scene": scene, "moved": dropped["moved"], "collapsed": dropped["collapsed"],
                        "stability": dropped["stability"], "words": dropped["words"]}
            return await self._thread(run)

    async def explain(self, lab_id: str, what: str, body: Any = None, asker: Asker = NOBODY) -> dict[str, Any]:
        """The contact forces ("forces"), the removal map ("removal") or a push test ("push", body {"block",
        "direction"}) of the lab's current build."""
        lab = await self.get(lab_id)
        if what == "push":
            if not isinstance(body, dict) or set(body) != {"block", "direction"}:
                raise BadInput('expected {"block": ID, "direction": "+x" | "-x" | "+y" | "-y"}', "$")
        async with lab.lock:
            ctl = self._serve(lab, asker)

            def run() -> dict[str, Any]:
                try:
                    if what == "push":
                        return ctl.push(body["block"], body["direction"])
                    return ctl.forces() if what == "forces" else ctl.removal()
                except IllegalMove as exc:
                    raise _refusal(exc) from None
            out = await self._thread(run)
        return {**out, "unit_m": UNIT_M, "edits": lab.ctl.cursor}

    async def overlays(self, lab_id: str, show: list[str], pushes: list[tuple[str, str]],
                       asker: Asker = NOBODY) -> dict[str, Any]:
        """The lab's scene with the physics overlays asked for (`show`: forces, removal; `pushes`: (block,
        direction)) and their words: what the page's toggles and push test draw."""
        from viewer.scene_json import scene_to_json

        lab = await self.get(lab_id)
        async with lab.lock:
            ctl = self._serve(lab, asker)

            def run() -> dict[str, Any]:
                try:
                    scene = ctl.scene(title="tower lab", show=show, pushes=pushes)
                    words = []
                    if "forces" in show:
                        words += ctl.forces()["words"]
                    if "removal" in show:
                        words += ctl.removal()["words"]
                    for b, d in pushes:
                        words += ctl.push(b, d)["words"]
                except IllegalMove as exc:
                    raise _refusal(exc) from None
                return {"scene": scene_to_json(scene), "words": words, "edits": ctl.cursor}
            return await self._thread(run)

    async def build_file(self, lab_id: str) -> str:
        lab = await self.get(lab_id)
        return dumps_build(lab.ctl.build)


def _changed(ctl: LabController, what: str, body: Any) -> str:
    """Apply an edit ("edit", body: the edit), "undo", "redo" or "rules" (body {"rules"}) to the lab's controller;
    its words. IllegalMove (nothing changed) for an edit the rules refuse."""
    if what == "edit":
        return ctl.edit(body)
    if what == "undo":
        return ctl.undo()
    if what == "redo":
        return ctl.redo()
    if not isinstance(body, dict) or set(body) != {"rules"}:
        raise BadInput('expected {"rules": "strict" | "flag" | "free"}', "$")
    ctl.set_rules(body["rules"])
    return f"rules: {ctl.rules}"


def _hand(body: Any) -> tuple[list[tuple[tuple[int, ...], str, tuple[str, ...]]], tuple[int, ...], str, str]:
    """The block in hand of a `refusals` request, checked: (shapes as (size, top, faces), area, block, kind)."""
    from tower.climbers.blocks import COLOUR_INDEX

    if not isinstance(body, dict) or not set(body) <= {"block", "kind", "shapes", "area"}:
        raise BadInput('expected {"block", "kind", "shapes", "area"}', "$")
    block, kind = body.get("block", "new"), body.get("kind", "")
    if not isinstance(block, str) or not isinstance(kind, str) or len(block) > 64:
        raise BadInput("block and kind are short texts", "$.block")
    shapes = body.get("shapes")
    if not isinstance(shapes, list) or not 1 <= len(shapes) <= 6:
        raise BadInput("shapes: 1 to 6 ways the block can lie", "$.shapes")
    out = []
    for i, sh in enumerate(shapes):
        if not isinstance(sh, dict) or set(sh) != {"size", "top", "faces"}:
            raise BadInput('a shape is {"size", "top", "faces"}', f"$.shapes[{i}]")
        size, faces = sh["size"], sh["faces"]
        if not isinstance(size, list) or len(size) != 3 or \
                any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6 for v in size):
            raise BadInput("a size is three whole numbers 1-6", f"$.shapes[{i}].size")
        if not isinstance(faces, list) or len(faces) != 6 or \
                any(not isinstance(f, str) or f not in COLOUR_INDEX for f in [*faces, sh["top"]]):
            raise BadInput("faces are six colour names, top one of them", f"$.shapes[{i}].faces")
        out.append((tuple(size), sh["top"], tuple(faces)))
    area = body.get("area")
    if not isinstance(area, list) or len(area) != 4 or \
            any(isinstance(v, bool) or not isinstance(v, int) or abs(v) > 100 for v in area):
        raise BadInput("area is [x0, y0, x1, y1], whole numbers within the lab's table (|v| <= 100)", "$.area")
    return out, tuple(area), block, kind


def palette_json() -> dict[str, Any]:
    """The kinds of block the page offers, with their orientations and the colours each can show on top."""
    return {"kinds": [{"name": k.name, "sizes": [list(s) for s in kind_sizes(k.name)],
                       "tops": {"x".join(map(str, s)): top_colours(s) for s in kind_sizes(k.name)}}
                      for k in KINDS]}


def state_json(lab: Lab) -> dict[str, Any]:
    """What the lab page shows: the build, its analysis (problems, verdict, words), the scene to draw, and what
    undo and redo would do."""
    from viewer.scene_json import scene_to_json

    ctl = lab.ctl
    analysis = ctl.analysis()  # the verdict waits for the lab's workers; what follows is this thread's own work
    with LAB_CPU:
        return {"id": lab.id, "url": f"/lab/{lab.id}", "rules": ctl.rules, "edits": ctl.cursor,
                "can_undo": ctl.can_undo, "can_redo": ctl.can_redo,
                "undo": ctl.history[ctl.cursor].words if ctl.can_undo else None,
                "redo": ctl.history[ctl.cursor + 1].words if ctl.can_redo else None,
                "max_blocks": ctl.max_blocks, "build": build_to_json(ctl.build), "analysis": analysis,
                "scene": scene_to_json(ctl.scene(title="tower lab"))}


LABS_KEY = web.AppKey("labs", Labs)


def add_lab_routes(app: web.Application, routes: web.RouteTableDef, server: Any, page: Any,
                   read_json: Any, no_body: Any, client_of: Any = lambda request: request.remote or "?") -> None:
    """The lab's pages and API on the server's app (`page(name)` serves a static page, `read_json` reads a body,
    `await no_body(request)` refuses a body other than none or `{}`, and a POST that is not `application/json`, as
    a form from another site would be,
    `client_of(request)` is the client a request counts for)."""
    labs = Labs(server.store, server.limits, LabJobs(server.limits, server.ray))
    labs.disk_check = server.disk_check
    app[LABS_KEY] = labs

    def asker(request: web.Request) -> Asker:
        """The request's client, and whether its connection is gone (then its physics job is stopped)."""
        return Asker(client_of(request), lambda: request.transport is None or request.transport.is_closing())

    routes.get("/lab")(page("lab"))
    routes.get("/lab/{id}")(page("lab"))

    @routes.get("/api/lab")
    async def lab_palette(_request: web.Request) -> web.Response:
        labs.warm()  # the page's first request: its first edit will want the quick lane's worker
        return web.json_response(palette_json())

    @routes.post("/api/lab")
    async def lab_create(request: web.Request) -> web.Response:
        return web.json_response(await labs.create(await read_json(request), asker(request)), status=201)

    @routes.get("/api/lab/{id}")
    async def lab_state(request: web.Request) -> web.Response:
        return web.json_response(await labs.state(request.match_info["id"], asker(request)))

    @routes.post("/api/lab/{id}/edits")
    async def lab_edit(request: web.Request) -> web.Response:
        lab_id = request.match_info["id"]
        await labs.get(lab_id)  # no such lab: 404 whatever the body holds
        return web.json_response(await labs.change(lab_id, "edit", await read_json(request), asker(request)))

    @routes.post("/api/lab/{id}/undo")
    async def lab_undo(request: web.Request) -> web.Response:
        await no_body(request)
        return web.json_response(await labs.change(request.match_info["id"], "undo", asker=asker(request)))

    @routes.post("/api/lab/{id}/redo")
    async def lab_redo(request: web.Request) -> web.Response:
        await no_body(request)
        return web.json_response(await labs.change(request.match_info["id"], "redo", asker=asker(request)))

    @routes.post("/api/lab/{id}/rules")
    async def lab_rules(request: web.Request) -> web.Response:
        lab_id = request.match_info["id"]
        await labs.get(lab_id)
        return web.json_response(await labs.change(lab_id, "rules", await read_json(request), asker(request)))

    @routes.post("/api/lab/{id}/refusals")
    async def lab_refusals(request: web.Request) -> web.Response:
        lab_id = request.match_info["id"]
        await labs.get(lab_id)
        if labs.jobs is not None:  # a client with its checks running is told so before its body is read
            labs.jobs.rules.admit(client_of(request), "check of the block in hand")
        resp = web.json_response(await labs.refusals(lab_id, await read_json(request), asker(request)))
        resp.enable_compression()
        return resp

    @routes.post("/api/lab/{id}/drop")
    async def lab_drop(request: web.Request) -> web.Response:
        await no_body(request)
        resp = web.json_response(await labs.drop(request.match_info["id"], asker(request)))
        resp.enable_compression()
        return resp

    @routes.get("/api/lab/{id}/forces")
    async def lab_forces(request: web.Request) -> web.Response:
        return web.json_response(await labs.explain(request.match_info["id"], "forces", asker=asker(request)))

    @routes.get("/api/lab/{id}/removal")
    async def lab_removal(request: web.Request) -> web.Response:
        return web.json_response(await labs.explain(request.match_info["id"], "removal", asker=asker(request)))

    @routes.get("/api/lab/{id}/removal/progress")
    async def lab_removal_progress(request: web.Request) -> web.Response:
        # not behind the lab's lock: it is read while the map's own request holds it
        lab = await labs.get(request.match_info["id"])
        return web.json_response(await labs._thread(lab.removal.to_json))

    @routes.post("/api/lab/{id}/push")
    async def lab_push(request: web.Request) -> web.Response:
        lab_id = request.match_info["id"]
        await labs.get(lab_id)
        return web.json_response(await labs.explain(lab_id, "push", await read_json(request), asker(request)))

    @routes.get("/api/lab/{id}/overlays")
    async def lab_overlays(request: web.Request) -> web.Response:
        show = [w for w in request.query.get("show", "").split(",") if w]
        for w in show:
            if w not in ("forces", "removal"):
                raise BadInput(f"show takes forces and removal, not {w!r}"[:200], "$.show")
        pushes = []
        for text in [p for p in request.query.get("push", "").split(",") if p]:
            block, _, direction = text.rpartition(":")
            if direction not in ("+x", "-x", "+y", "-y") or not block:
                raise BadInput(f"push takes BLOCK:DIR with DIR +x, -x, +y or -y, not {text!r}"[:200], "$.push")
            pushes.append((block, direction))
        pushes = pushes[:4]  # the first four are drawn
        resp = web.json_response(await labs.overlays(request.match_info["id"], show, pushes, asker(request)))
        resp.enable_compression()
        return resp

    @routes.get("/api/lab/{id}/build")
    async def lab_build(request: web.Request) -> web.Response:
        lab_id = request.match_info["id"]
        return web.Response(text=await labs.build_file(lab_id), content_type="application/json",
                            headers={"Content-Disposition": f'attachment; filename="lab-{lab_id}.json"'})

    chores: list[asyncio.Task] = []

    async def sweep() -> None:
        """Now and then: idle heavy workers stop (`labjobs.IDLE_SECONDS`), idle labs expire."""
        expired = 0.0
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                if labs.jobs is not None:
                    await labs._thread(labs.jobs.sweep)
                if time.monotonic() - expired > EXPIRE_SECONDS:
                    expired = time.monotonic()
                    await labs._thread(labs.expire)
            except Exception:  # a chore that failed once is tried again next round
                log.exception("the lab's sweep failed")

    async def on_startup(_app: web.Application) -> None:
        chores.append(asyncio.get_running_loop().create_task(sweep()))
        labs.warm()  # the quick lane's worker starts with the server: a fresh server's first lab answers at once

    async def on_cleanup(_app: web.Application) -> None:
        for task in chores:
            task.cancel()
        if labs.jobs is not None:
            labs.jobs.close()
        labs.close()

    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
