"""The lab's physics in worker processes of its own, budgeted, one job per client (docs/serve.md, "Limits").

A removal map of a 200-block build takes minutes; in the server's process it held the interpreter and the
threads every other request needs. Here every physics call of the lab (`LabPhysics`, what the lab's controller
is given as its `physics`) is a job in a worker process, in one of three lanes:

- `quick`: one worker at the server's priority for the statics verdicts of builds of at most `lab_quick_blocks`
  blocks, which every edit of an ordinary build asks for (tens of milliseconds), their push tests (as quick: 40 ms
  on the 35-block start tower) and the contact forces of builds of at most `QUICK_FORCES_BLOCKS` blocks (45 ms for
  six; 0.5 s for the start tower, which is heavy work). It starts with the server and works a tiny build
  through each of those judges as it starts (`warm_up`), so a fresh server's first answers cost what later
  ones do;
- `heavy`: `lab_workers` workers at the lowest priority (nice 19) for everything else: verdicts of bigger builds,
  removal maps, drops, forces and pushes of bigger builds;
- `rules`: one worker at nice 10 for the rules' long questions: where the block in hand would be refused
  (`refusals`: 0.2 s of CPU over a 190-block wall) and random start towers (30 ms each). In the server's process
  twenty of them at once held the interpreter from every move (a move's p95 11.9 -> 999 ms).

In a lane, a client has at most one job at a time (another one: 429 with `Retry-After`) and jobs wait in one line,
first come first served: with one job a client that is round-robin by client, so a client's job waits behind at
most one job of each other client. The jobs that make a new lab (its random start, its first verdict) wait in a
second line, the two taking turns: making labs costs an address little (`labs_per_minute`), and from many addresses
it once kept a person's edits of a lab in use waiting behind one new lab of each. At most `lab_queue` clients wait in a lane (then 503 with `Retry-After`): a
bound on threads and memory, far above the clients of a busy server, so a newcomer is not refused while others
each have a job waiting. Each job may use `lab_cpu_seconds` of CPU time
(the kernel's RLIMIT_CPU in the worker, `workers.WorkerPool.call`); past it the worker is stopped and the client
told that the build is too big for this server (413, rule `lab-cpu-seconds`), and the same job on the same build
is refused at once from then on. A heavy worker idle for IDLE_SECONDS exits, giving its memory back; the next
heavy job starts a new one (about a second).

The lab's requests run in threads of their own (`LAB_THREADS`), which wait here for their jobs; the game's work
and every other request never wait for them.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from tower.app.serve.errors import Refused
from tower.app.serve.limits import Limits
from tower.app.serve.workers import OverBudget, WorkerPool
from tower.games.errors import BadInput

#: Seconds a heavy worker may stay idle before it exits (its memory goes back to the system).
IDLE_SECONDS = 30.0
#: Jobs found over budget kept (what, build, arguments), so that asking again is refused at once.
TOO_BIG_KEPT = 256
#: What the workers import as they start: the judges, so the first job does not pay for it.
MODULES = ("tower.app.stability", "physics", "physics.dynamics:load_pybullet")  # pybullet without its banner
#: The quick lane's worker also runs each of its judges once on a tiny build (the solvers' first use costs more
#: than ten of its answers: 0.7 s for the first contact forces, 45 ms for the next).
QUICK_MODULES = (*MODULES, "tower.app.serve.labjobs:warm_up")
#: Builds of at most this many blocks (and figures) have their contact forces worked out in the quick lane: tens
#: of milliseconds, less than a statics verdict of the start tower.
QUICK_FORCES_BLOCKS = 12
#: What each job is, in the words of a refusal.
WHAT = {"judge_build": "verdict", "fall": "drop", "forces": "contact forces", "removal": "removal map",
        "push": "push test"}


def lab_threads(limits: Limits) -> ThreadPoolExecutor:
    """The threads the lab's requests run in: enough for every job the lanes admit (running or waiting) and a
    few requests that need no physics, so a lab request never waits for a thread behind an admitted job."""
    return ThreadPoolExecutor(2 + limits.lab_workers + 3 * limits.lab_queue + 4, thread_name_prefix="tower-lab")


@dataclass(frozen=True)
class Asker:
    """Who asks for a lab job: the client (an address), whether its connection is gone meanwhile (its job is
    then stopped: nobody waits for the answer), and whether the job makes a new lab (`new`: its random start, its
    first verdict), which waits behind the jobs of the labs in use."""

    client: str
    gone: Callable[[], bool] = lambda: False
    new: bool = False


class Lane:
    """Worker processes of one kind and the line of jobs waiting for them."""

    def __init__(self, name: str, workers: int, nice: int, queue: int, idle: float | None,
                 per_client: int = 1, modules: tuple[str, ...] = MODULES) -> None:
        self.name = name
        self.pools = [WorkerPool(1, nice=nice, modules=modules) for _ in range(max(1, workers))]
        self.free = list(self.pools)
        self.queue = queue
        self.idle = idle  # seconds before an idle worker exits (None: it stays)
        self.used: dict[WorkerPool, float] = {}
        self.line: deque[object] = deque()
        self.later: deque[object] = deque()  # the jobs that make new labs: every other turn (`_head`)
        self.later_next = False  # whether a job of `later` has the next turn if both lines wait
        self.owners: dict[object, str] = {}  # a waiting job's ticket -> its client
        self.per_client = per_client
        self.clients: dict[str, int] = {}  # clients with a job running or waiting here, and how many
        self.cond = threading.Condition()
        self.jobs = 0  # jobs run (for tests and figures)

    def run(self, asker: Asker, what: str, fn: Callable, args: tuple, cpu_seconds: float,
            ready: Callable[[], None] = lambda: None) -> Any:
        """`fn(*args)` in a worker of this lane, waited for in the calling thread (see the module's docstring);
        `ready()` is called once it is the job's turn (it may refuse it after all). A job whose asker went away
        leaves the line, or is stopped (ConnectionResetError). A job that makes a new lab (`asker.new`) waits in a
        line of its own, the two lines taking turns (`_head`): fifty addresses each making a lab now and then are
        each lighter than a person editing one a second, so by client alone the person waited behind one new lab
        of each (p95 8-9 s); served only when no job of a lab in use waited, new labs waited for ever behind two
        addresses asking removal maps again and again."""
        client = asker.client
        with self.cond:
            self.admit(client, what)
            waiting = len({who for who in self.owners.values()})  # clients, not jobs, waiting in the line
            if client not in self.owners.values() and waiting >= self.queue:
                raise Refused(503, "lab-queue-full", f"{waiting} clients' lab jobs are waiting for this "
                                                     f"server's workers (lab_queue); try again shortly",
                              retry_after=max(1.0, min(60.0, cpu_seconds)))
            ticket = object()
            line = self.later if asker.new else self.line
            line.append(ticket)
            self.owners[ticket] = client
            self._hold(client)
            try:
                while self._head() is not ticket or not self.free:
                    self.cond.wait(0.5)
                    if asker.gone():
                        raise ConnectionResetError("the client went away while its job waited")
            except BaseException:
                line.remove(ticket)
                self.owners.pop(ticket, None)
                self._let_go(client)
                self.cond.notify_all()
                raise
            line.popleft()
            self.later_next = line is self.line
            self.owners.pop(ticket, None)
            pool = self.free.pop()
            self.jobs += 1
            self.cond.notify_all()
        try:
            ready()
            return pool.call(fn, *args, cpu_seconds=cpu_seconds, gone=asker.gone)
        finally:
            with self.cond:
                self.used[pool] = time.monotonic()
                self.free.append(pool)
                self._let_go(client)
                self.cond.notify_all()

    def admit(self, client: str, what: str) -> None:
        """429 if `client` has its jobs of this lane running or waiting already (checked again by `run`; asked
        first, a refusal costs no body read and no thread: 20 checks at once from each of 30 addresses were 190
        refusals a second)."""
        if self.clients.get(client, 0) >= self.per_client:
            raise Refused(429, "lab-busy", f"a {what} of yours is being worked out (one lab job per client at "
                                           f"a time); ask again when it is done", retry_after=2)

    def _head(self) -> object | None:
        """The job whose turn is next: the two lines take turns while both wait (so a job of a lab in use waits
        behind at most one new lab's, and no new lab waits for ever behind labs kept busy), else the line that
        waits."""
        if self.line and self.later:
            return self.later[0] if self.later_next else self.line[0]
        return self.line[0] if self.line else self.later[0] if self.later else None

    def _hold(self, client: str) -> None:
        self.clients[client] = self.clients.get(client, 0) + 1

    def _let_go(self, client: str) -> None:
        left = self.clients.get(client, 1) - 1
        if left > 0:
            self.clients[client] = left
        else:
            self.clients.pop(client, None)

    def sweep(self) -> None:
        """Stop the workers idle for longer than `idle` seconds."""
        if self.idle is None:
            return
        now = time.monotonic()
        with self.cond:
            idle = [p for p in self.free if p.running and now - self.used.get(p, now) > self.idle]
            for pool in idle:
                self.free.remove(pool)
        for pool in idle:  # outside the lock: stopping a worker takes a moment
            pool.close()
            with self.cond:
                self.free.append(pool)
                self.cond.notify_all()

    def pids(self) -> list[int]:
        return [pid for pool in self.pools for pid in pool.pids()]

    def close(self) -> None:
        for pool in self.pools:
            pool.close()


class LabJobs:
    """The lab's physics lanes of one server (see the module's docstring)."""

    def __init__(self, limits: Limits, ray: Any = None) -> None:
        """`ray`: a `raylab.RayLab`, whose tasks run the heavy lane's jobs (one place per CPU of the cluster)."""
        self.limits = limits
        self.quick = Lane("quick", 1, 0, limits.lab_queue, None, modules=QUICK_MODULES)
        self.heavy = Lane("heavy", limits.lab_workers, 19, limits.lab_queue, IDLE_SECONDS)
        self.ray = ray
        if ray is not None:  # the line stays here, in the server; only the execution goes to Ray
            self.heavy.pools = ray.pools(limits.lab_workers)
            self.heavy.free = list(self.heavy.pools)
        # two per client: the page asks again as soon as the block in hand changes
        self.rules = Lane("rules", 1, 10, limits.lab_queue, IDLE_SECONDS, per_client=2,
                          modules=("tower.app.lab.controller", "viewer.placement", "tower.climbers.setup"))
        self._too_big: OrderedDict[Any, str] = OrderedDict()
        self._lock = threading.Lock()
        self._folder: str | None = None  # where removal maps' workers write what they found (`_progress_file`)

    def physics(self, asker: Asker, watch: MapProgress | None = None, edits: int = 0) -> LabPhysics:
        """The physics a lab's controller uses while it serves a request of `asker`; `watch`: where its removal
        maps tell how far they are (the lab's, read by its progress answer), of its build after `edits` edits."""
        return LabPhysics(self, asker, watch, edits)

    def run(self, asker: Asker, name: str, build: Any, fn: Callable, *args: Any, quick: bool = False,
            watch: MapProgress | None = None, edits: int = 0) -> Any:
        """The job `fn(build, *args)` of `asker` (`name`: which of the judges it is, for the words), in its lane;
        Refused with 413 if it is over `lab_cpu_seconds` (now or before), in words that say how to raise it.
        `watch`: a removal map's progress (`fn` then also takes the file its worker writes each block's entry to);
        what it found before the budget stopped it is kept there, and counted in the refusal; `edits`: the edit
        of the lab's build it is of. A map refused at once (over budget before) leaves the watch as that one left
        it: what it found stays on the page."""
        what = WHAT.get(name, name)
        key = (name, tuple(build.blocks), tuple(build.figures), args)

        def known() -> None:  # the same job was over budget before (perhaps while this one waited): refused now
            with self._lock:
                message = self._too_big.get(key)
            if message is not None:
                raise Refused(413, "lab-cpu-seconds", message)

        known()
        lane = self.quick if quick else self.heavy
        seconds = self.limits.lab_cpu_seconds
        if watch is not None:
            path = self._progress_file()
            watch.queued(edits, len(build.blocks), path)
            args = (*args, path)

        def ready() -> None:
            known()
            if watch is not None:
                watch.working()

        try:
            out = lane.run(asker, what, fn, (build, *args), seconds, ready)
        except OverBudget:
            message = too_big(what, seconds)
            if watch is not None:
                found = len(watch.entries())
                # at the pace it went, about what the whole map needs (with a fifth to spare)
                need = math.ceil(1.2 * seconds * watch.total / found) if found else None
                message = (f"this build is too big for this server: the {what} stopped after {found} of "
                           f"{watch.total} blocks, it needs more than {seconds:g} CPU seconds "
                           f"({how_to_raise(seconds, need)})")
                watch.stopped(message)
            with self._lock:
                self._too_big[key] = message
                while len(self._too_big) > TOO_BIG_KEPT:
                    self._too_big.popitem(last=False)
            raise Refused(413, "lab-cpu-seconds", message) from None
        except BaseException:
            if watch is not None:
                watch.stopped("")
            raise
        if watch is not None:
            watch.finished()
        return out

    def _progress_file(self) -> str:
        """A new file for a removal map's worker to write its entries to (in the lab's own temporary folder,
        removed with it: `close`)."""
        with self._lock:
            if self._folder is None:
                self._folder = tempfile.mkdtemp(prefix="tower-lab-maps-")
            fd, path = tempfile.mkstemp(suffix=".jsonl", dir=self._folder)
        os.close(fd)
        return path

    def ask(self, asker: Asker, what: str, fn: Callable, *args: Any) -> Any:
        """A rules question `fn(*args)` of `asker` in the rules lane (`what`: its name in a refusal's words);
        the IllegalMove or BadInput it raises in the worker is raised here."""
        seconds = self.limits.lab_cpu_seconds
        try:
            out = self.rules.run(asker, what, _asked, (fn, args), seconds)
        except OverBudget:
            raise Refused(413, "lab-cpu-seconds", too_big(what, seconds)) from None
        if isinstance(out, _Failed):
            raise out.error()
        return out

    def sweep(self) -> None:
        self.heavy.sweep()
        self.rules.sweep()

    def start(self) -> None:
        """Start the quick lane's worker if it is not running (as the server starts, and again on a lab page's
        first request should it have stopped), so that no first edit waits for the worker to import the judges."""
        with self.quick.cond:
            if not self.quick.pools[0].running:
                self.quick.pools[0].start()

    def close(self) -> None:
        self.quick.close()
        self.heavy.close()
        self.rules.close()
        if self.ray is not None:
            self.ray.close()
        with self._lock:
            folder, self._folder = self._folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def too_big(what: str, seconds: float) -> str:
    """The words of a lab job over its CPU budget: which limit stopped it, and how to raise it."""
    return (f"this build is too big for this server: its {what} needs more than {seconds:g} CPU seconds "
            f"({how_to_raise(seconds)})")


def how_to_raise(seconds: float, need: float | None = None) -> str:
    """Which limit it is and how to raise it, to `need` seconds if known (else twice the limit)."""
    more = need if need is not None else 2 * seconds
    return (f"the server's limit lab_cpu_seconds; raise it with tower serve --limit lab_cpu_seconds={more:g}, "
            f"or tower lab --limit lab_cpu_seconds={more:g}")


class MapProgress:
    """A lab's removal map being worked out, or its last one: the worker appends each block's entry to a file as
    a line of JSON as soon as it is found (`_removal`), and the lab's progress answer reads that file, so the page
    draws the map block by block. A worker stopped at its CPU budget leaves the file as it was: what it found is
    kept (`state` "stopped", with the refusal's words)."""

    def __init__(self) -> None:
        self.path = ""
        self.total = 0
        self.edits = 0  # the lab's edits when the map was asked for (the page's answers are counted alike)
        self.state = "idle"  # "working", "done", "stopped"
        self.message = ""
        self._lock = threading.Lock()

    def queued(self, edits: int, total: int, path: str) -> None:
        """A map of the lab's build after `edits` edits is asked for (it may wait for a worker), its worker to
        write to `path`: the last one's entries are dropped."""
        with self._lock:
            old, self.path, self.total, self.edits, self.state, self.message = self.path, path, total, edits, \
                "waiting", ""
        if old:
            try:
                os.unlink(old)
            except OSError:
                pass

    def working(self) -> None:
        """Its worker starts."""
        self.state = "working"

    def finished(self) -> None:
        self.state = "done"

    def stopped(self, message: str) -> None:
        self.state, self.message = "stopped", message

    def entries(self) -> list[dict[str, Any]]:
        """The entries found so far (a line still being written is left for the next read)."""
        if not self.path:
            return []
        try:
            with open(self.path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            return []
        out = []
        for line in text.split("\n")[:-1]:  # (the last piece has no newline yet)
            try:
                out.append(json.loads(line))
            except ValueError:
                break
        return out

    def to_json(self) -> dict[str, Any]:
        """How far the map is: the blocks found with their classes, of how many, and the classes' colours."""
        from viewer.scene import ALL_RGB

        found = [{"block": e["block"], "class": e["class"], "verdict": e["verdict"]} for e in self.entries()]
        return {"state": self.state, "done": len(found), "total": self.total, "edits": self.edits,
                "blocks": found, "message": self.message,
                "palette": {k: list(ALL_RGB[k]) for k in ("safe", "risky", "brings-down")}}


@dataclass(frozen=True)
class _Failed:
    """A rules question's refusal, carried back from the worker as plain fields (exceptions with their own
    arguments do not always survive the pipe)."""

    kind: str  # "illegal" or "bad"
    first: str
    second: str

    def error(self) -> Exception:
        from tower.games.errors import BadInput, IllegalMove

        return IllegalMove(self.first, self.second) if self.kind == "illegal" else BadInput(self.first, self.second)


def _asked(fn: Callable, args: tuple) -> Any:
    """In the rules worker: `fn(*args)`, its IllegalMove or BadInput as a `_Failed`."""
    from tower.games.errors import BadInput, IllegalMove

    try:
        return fn(*args)
    except IllegalMove as exc:
        return _Failed("illegal", exc.rule, exc.message)
    except BadInput as exc:
        return _Failed("bad", exc.what, exc.where)


def refusals_job(build: Any, rules: str, max_blocks: int, block: str, shapes: list[tuple], area: tuple,
                 kind: str) -> dict[str, Any]:
    """The lab's `refusals` of the block in hand over `build` (docs/lab.md), worked out in the rules worker."""
    from tower.app.lab.controller import LabController
    from viewer.placement import Shape

    ctl = LabController(build, rules=rules, max_blocks=max_blocks, check=False)
    if block == "new" and kind not in ctl.kinds():
        raise BadInput(f"unknown kind {kind!r}"[:100], "$.kind")
    return ctl.refusals(block, [Shape(*s) for s in shapes], area, kind)


def start_job(seed: int) -> Any:
    """A random start tower of The Climbers (`tower new`), built in the rules worker."""
    from tower.climbers.setup import random_start_tower

    return random_start_tower(seed)


class Done:
    """A judge's answer as its worker turned it into JSON; `to_json(detail)` hands that back. Nothing of it is
    worked out in the server's process: a verdict's lazy parts (how a falling build starts to fall,
    `physics.failure`) are computed in the worker, and only JSON crosses the pipe."""

    def __init__(self, plain: Any, detail: Any = None) -> None:
        self.plain, self.detail = plain, detail

    def to_json(self, detail: bool = False) -> Any:
        return self.detail if detail and self.detail is not None else self.plain


def warm_up() -> None:
    """Run in the quick lane's worker as it starts: a statics verdict, the contact forces and a push test of a
    two-block build, so that the solvers' first use is paid before anyone asks."""
    from tower.app import stability
    from tower.climbers.build import parse_build

    build = parse_build({"format": "tower-build/1", "blocks": [{"id": "a", "origin": [0, 0, 0], "size": [2, 2, 2]},
                                                               {"id": "b", "origin": [0, 0, 2], "size": [2, 2, 2]}]})
    stability.judge_build(build, statics_only=True)
    stability.forces(build).to_json()
    [r.to_json() for r in stability.push(build, "b", ("+x",))]


def _judge(build: Any, statics_only: bool, engine: str) -> Done:
    from tower.app import stability

    verdict = stability.judge_build(build, statics_only=statics_only, engine=engine)
    return Done(verdict.to_json(), verdict.to_json(detail=True))


def _forces(build: Any) -> Done:
    from tower.app import stability

    return Done(stability.forces(build).to_json())


def _removal(build: Any, statics_only: bool, path: str | None = None) -> Done:
    """The removal map; with `path`, each block's entry also appended to that file as it is found (MapProgress)."""
    from tower.app import stability

    try:
        out = open(path, "a", encoding="utf-8") if path is not None else None
    except OSError:  # a Ray node of another machine (`tower serve --ray`): the map comes whole, at its end
        out = None
    if out is None:
        return Done(stability.removal(build, statics_only=statics_only).to_json())
    with out:
        def found(entry: Any) -> None:
            out.write(json.dumps(entry.to_json()) + "\n")
            out.flush()  # a worker stopped at its budget leaves every line written so far

        return Done(stability.removal(build, statics_only=statics_only, found=found).to_json())


def _push(build: Any, block: str, directions: tuple[str, ...]) -> list[Done]:
    from tower.app import stability

    return [Done(r.to_json()) for r in stability.push(build, block, directions)]


def _fall(build: Any, seconds: float) -> Any:
    from tower.app import stability

    return stability.fall(build, seconds=seconds)


class LabPhysics:
    """`tower.app.stability`'s judges as the lab's controller calls them, each a job of `jobs` for `asker`:
    the same answers (`Done`, as JSON), computed in the lab's workers (a statics verdict of a small build in the
    quick lane)."""

    def __init__(self, jobs: LabJobs, asker: Asker, watch: MapProgress | None = None, edits: int = 0) -> None:
        self.jobs = jobs
        self.asker = asker
        self.watch = watch
        self.edits = edits  # the lab's edits so far: which build its removal map's progress is of

    def judge_build(self, build: Any, statics_only: bool = False, engine: str = "pybullet") -> Done:
        small = self._size(build) <= self.jobs.limits.lab_quick_blocks
        return self.jobs.run(self.asker, "judge_build", build, _judge, statics_only, engine,
                             quick=statics_only and small)

    def fall(self, build: Any, seconds: float = 2.0) -> Any:
        return self.jobs.run(self.asker, "fall", build, _fall, seconds)

    def forces(self, build: Any) -> Done:
        return self.jobs.run(self.asker, "forces", build, _forces, quick=self._size(build) <= QUICK_FORCES_BLOCKS)

    def removal(self, build: Any, statics_only: bool = False) -> Done:
        return self.jobs.run(self.asker, "removal", build, _removal, statics_only, watch=self.watch,
                             edits=self.edits)

    def push(self, build: Any, block: str, directions: tuple[str, ...]) -> list[Done]:
        return self.jobs.run(self.asker, "push", build, _push, block, tuple(directions),
                             quick=self._size(build) <= self.jobs.limits.lab_quick_blocks)

    @staticmethod
    def _size(build: Any) -> int:
        return len(build.blocks) + len(build.figures)
