"""Soak of `tower serve` while one client attacks with the lab's physics (docs/serve.md, "Limits"; issue 36), on
127.0.0.1 only, for a fixed time.

    python benchmarks/soak_lab.py [--minutes 2] [--calm 20] [--after 60] [--honest 2] [--attackers 1]

`tower serve` runs in a process of its own with its default limits. The attacker (one address unless --attackers
says more, in a process of its own at nice 10: on a network its own work runs on its machine) holds six labs of 200
half cubes stacked in a column and asks for each one's removal map twice at once (twelve requests), again and
again; each round loads a slightly different column into every lab first, so no map is ever known already and the
lab's heavy worker never idles. Before the lab's physics had workers of its own, this held every thread of the
server: another address's `POST /api/games` got no answer within 120 s.

Meanwhile --honest other clients (an address each) play: each creates a Diabolo game (every seat its own, one new
game every 10 s: within `games_per_minute`) and plays it move by move (the state, then the move), thinking 0.2-0.6 s
between moves; one more client edits a lab of the 35-block start tower of the reference (moving its top block one
unit back and forth, a second or so apart: every edit answered with the new statics verdict). They play alone for
--calm seconds first (the answer times without the attack), then beside the attack for --minutes; then the server's
memory settles for --after seconds.

Targets (exit status 1 if one is missed): during the attack, the honest clients' game creations and moves answered
with p95 <= 100 ms, their lab edits with p95 <= 2 statics verdicts of the start tower (the reference, timed in the
same run by a process of its own beside the soak, one verdict every 2 s, so under the same load of the machine:
its median during the attack), no honest error; the resident memory of
the server and its workers (RSS, sampled every second) back within 20 % of its value before the attack, --after
seconds after the attack ends.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import soak_report as report  # noqa: E402
from bench_serve import pct, start_server  # noqa: E402
from soak import _rss_mib, descendants, tree_rss  # noqa: E402

TIMEOUT = 60.0  # seconds any one request may take before the soak counts it as an error


def column(n: int, shift: int) -> dict:
    """n half cubes in a column; every `shift` the top one stands one unit aside (a new build, same work)."""
    return {"format": "tower-build/1", "blocks": [
        {"id": f"h{i}", "origin": [1 if i == n - 1 and shift % 2 else 0, 0, i], "size": [2, 2, 1]}
        for i in range(n)]}


# --- the attacker ----------------------------------------------------------------------------------------------

async def attack(url: str, address: str, seconds: float, labs: int, answers: Counter) -> None:
    import aiohttp

    deadline = time.monotonic() + seconds
    timeout = aiohttp.ClientTimeout(total=600)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, local_addr=(address, 0)),
                                     timeout=timeout) as session:
        async def call(kind: str, method: str, path: str, body=None):
            try:
                async with session.request(method, url + path, json=body) as resp:
                    data = await resp.json(content_type=None)
                    answers[f"{kind} {resp.status}"] += 1
                    return resp.status, data
            except Exception as exc:  # counted: the attacker does not care
                answers[f"{kind} {type(exc).__name__}"] += 1
                return 0, None

        ids = []
        for k in range(labs):
            status, lab = await call("create", "POST", "/api/lab", {"build": column(200, k), "rules": "free"})
            if status == 201:
                ids.append(lab["id"])
        async def rounds() -> None:
            shift = labs
            while ids:
                for lab_id in ids:
                    shift += 1
                    await call("load", "POST", f"/api/lab/{lab_id}/edits",
                               {"op": "load", "build": column(200, shift)})
                await asyncio.gather(*(call("removal", "GET", f"/api/lab/{lab_id}/removal")
                                       for lab_id in ids for _ in range(2)))
                await asyncio.sleep(0.5)

        try:  # at the deadline the attacker hangs up, whatever it is waiting for
            await asyncio.wait_for(rounds(), max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            pass


def attacker(url: str, addresses: list[str], seconds: float, out) -> None:
    os.nice(10)
    answers: Counter = Counter()

    async def main() -> None:
        await asyncio.gather(*(attack(url, a, seconds, 6, answers) for a in addresses))

    asyncio.run(main())
    out.put(dict(answers))


# --- the honest clients ----------------------------------------------------------------------------------------

class Honest:
    """Honest clients' answer times: (when, seconds) by kind, and their errors."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.times: dict[str, list[tuple[float, float]]] = {"create": [], "move": [], "edit": []}
        self.errors: list[str] = []
        self.processes: list[tuple[int, int]] = []  # (MiB, nice) of the server's processes at the end
        self.verdicts: list[tuple[float, float]] = []  # the reference beside the soak: (when, seconds)

    async def timed(self, session, kind: str | None, method: str, path: str, body=None):
        t = time.perf_counter()
        try:
            async with session.request(method, self.url + path, json=body) as resp:
                data = await resp.json(content_type=None)
        except Exception as exc:
            self.errors.append(f"{method} {path.split('?')[0]}: {type(exc).__name__}")
            return None
        seconds = time.perf_counter() - t
        if resp.status not in (200, 201):
            self.errors.append(f"{method} {path.split('?')[0]} -> {resp.status} {str(data)[:120]}")
            return None
        if kind:
            self.times[kind].append((time.monotonic(), seconds))
        return data

    async def edit(self, address: str, until: float) -> None:
        """Edits of a lab of the reference's start tower, a second or so apart."""
        import aiohttp

        from tower.climbers.build import build_to_json

        rng = random.Random(address)
        timeout = aiohttp.ClientTimeout(total=TIMEOUT)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, local_addr=(address, 0)),
                                         timeout=timeout) as session:
            start = build_to_json(START())
            lab = await self.timed(session, None, "POST", "/api/lab", {"build": start, "rules": "free"})
            top = max(start["blocks"], key=lambda b: b["origin"][2])
            x, y, z = top["origin"]
            k = 0
            while lab is not None and time.monotonic() < until:
                k += 1
                await self.timed(session, "edit", "POST", f"/api/lab/{lab['id']}/edits",
                                 {"op": "move", "block": top["id"], "origin": [x + k % 2, y, z]})
                await asyncio.sleep(rng.uniform(0.5, 1.5))

    async def play(self, address: str, until: float, seed: int) -> None:
        import aiohttp

        rng = random.Random(seed)
        timeout = aiohttp.ClientTimeout(total=TIMEOUT)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, local_addr=(address, 0)),
                                         timeout=timeout) as session:
            game, tokens, next_game = None, {}, 0.0
            while time.monotonic() < until:
                if game is None or time.monotonic() >= next_game:
                    if game is not None:
                        await self.timed(session, None, "POST", f"/api/games/{game}/abandon?token={tokens[0]}", {})
                    made = await self.timed(session, "create", "POST", "/api/games", {"game": "diabolo"})
                    next_game = time.monotonic() + 10
                    if made is None:
                        game = None
                        await asyncio.sleep(1)
                        continue
                    game, tokens = made["id"], {s["seat"]: s["token"] for s in made["seats"]}
                state = await self.timed(session, None, "GET", f"/api/games/{game}?token={tokens[0]}")
                if state is not None and not state["over"]:
                    token = tokens[state["to_move"]]
                    mine = await self.timed(session, None, "GET", f"/api/games/{game}?token={token}")
                    if mine is not None and mine["legal_moves"]:
                        await self.timed(session, "move", "POST", f"/api/games/{game}/moves?token={token}",
                                         {"move": rng.choice(mine["legal_moves"]), "n": mine["n"]})
                elif state is not None:
                    next_game = 0.0
                await asyncio.sleep(rng.uniform(0.2, 0.6))  # people think between moves


def nice_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[16])
    except OSError:
        return 0


def START():
    """The 35-block start tower of the reference and of the honest lab."""
    from tower.climbers.setup import random_start_tower

    return random_start_tower(1)


def moved_ref(count: int = 15) -> float:
    """`reference` of the start tower with its top block moved one unit, as every other edit leaves it."""
    from dataclasses import replace

    from tower.climbers.build import Build

    build = START()
    top = max(build.blocks, key=lambda b: b.origin[2])
    x, y, z = top.origin
    moved = [replace(b, origin=(x + 1, y, z)) if b is top else b for b in build.blocks]
    return reference(count, Build(moved, list(build.figures), list(build.stones)))


def timer(until: float, out) -> None:
    """The reference beside the soak: (when, seconds) of one verdict of the start tower every 2 s until `until`
    (time.monotonic() is the same clock in every process of the machine)."""
    from tower.app import stability

    build = START()
    stability.judge_build(build, statics_only=True)
    times = []
    while time.monotonic() < until:
        t = time.perf_counter()
        stability.judge_build(build, statics_only=True)
        times.append((time.monotonic(), time.perf_counter() - t))
        time.sleep(2)
    out.put(times)


def reference(count: int = 15, build=None) -> float:
    """Median seconds of one statics verdict of the 35-block start tower (or `build`), in this process."""
    from tower.app import stability

    build = build or START()
    stability.judge_build(build, statics_only=True)  # imports, warm caches
    times = []
    for _ in range(count):
        t = time.perf_counter()
        stability.judge_build(build, statics_only=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


async def soak(url: str, args, pid: int) -> tuple[Honest, dict, list[tuple[float, float]], float, float, float]:
    began = time.monotonic() + args.calm
    ended = began + args.minutes * 60
    until = ended + args.after
    honest = Honest(url)
    ctx = multiprocessing.get_context("spawn")
    answers = ctx.Queue()
    addresses = [f"127.0.2.{k + 1}" for k in range(args.attackers)]
    proc = ctx.Process(target=attacker, args=(url, addresses, args.minutes * 60, answers), daemon=True)
    verdicts = ctx.Queue()
    clock = ctx.Process(target=timer, args=(ended, verdicts), daemon=True)
    clock.start()
    rss: list[tuple[float, float, float]] = []  # (when, MiB of the server's process, of its workers)

    async def unleash() -> None:
        await asyncio.sleep(max(0.0, began - time.monotonic()))
        proc.start()

    async def sample() -> None:
        while time.monotonic() < until:
            main, kids, _ = await asyncio.to_thread(tree_rss, pid)  # a scan of /proc: not on the clients' loop
            rss.append((time.monotonic(), main, kids))
            await asyncio.sleep(1)
        honest.processes = sorted((round(_rss_mib(p)), nice_of(p)) for p in descendants(pid))

    await asyncio.gather(sample(), unleash(), honest.edit("127.0.3.100", ended),
                         *(honest.play(f"127.0.3.{k + 1}", ended, 100 + k) for k in range(args.honest)),
                         asyncio.sleep(until - time.monotonic()))
    try:
        got = await asyncio.to_thread(answers.get, True, 120)
    except Exception as exc:
        got = {"the attacker did not report": type(exc).__name__}
    proc.join(30)
    if proc.is_alive():
        proc.terminate()
    honest.verdicts = await asyncio.to_thread(verdicts.get, True, 120)
    clock.join(30)
    return honest, got, rss, began, ended, until


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=2.0, help="minutes of attack (default 2)")
    ap.add_argument("--calm", type=float, default=20.0, help="seconds the honest clients play alone first")
    ap.add_argument("--after", type=float, default=60.0, help="seconds after the attack before memory is compared")
    ap.add_argument("--honest", type=int, default=2, help="honest players (an address each; default 2)")
    ap.add_argument("--attackers", type=int, default=1, help="attacking addresses, six labs each (default 1)")
    args = ap.parse_args()
    ref0 = reference()
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp) / "games.sqlite", "full")
        try:
            load0 = os.getloadavg()[0]
            honest, attack, rss, began, ended, until = asyncio.run(soak(url, args, proc.pid))
            load1 = os.getloadavg()[0]
        finally:
            proc.terminate()
            proc.wait(30)
        log = (Path(tmp) / "games.log").read_text()
    ref1 = reference()
    beside = [s for when, s in honest.verdicts if began <= when <= ended]
    quiet = [s for when, s in honest.verdicts if when < began]
    ref = statistics.median(beside) if beside else statistics.median([ref0, ref1])

    def during(kind: str) -> list[float]:
        return [s for when, s in honest.times[kind] if began <= when <= ended]

    def calm(kind: str) -> list[float]:
        return [s for when, s in honest.times[kind] if when < began]

    def settled(lo: float, hi: float) -> tuple[float, float]:
        """Medians of the server's and its workers' RSS sampled between lo and hi."""
        some = [(m, k) for when, m, k in rss if lo <= when < hi] or [rss[-1][1:]]
        return statistics.median(m for m, _ in some), statistics.median(k for _, k in some)

    main0, kids0 = settled(began - 5, began)
    main1, kids1 = settled(ended + args.after - 5, until + 5)
    rss0, rss1 = main0 + kids0, main1 + kids1
    peak = max(m + k for _, m, k in rss)
    print(f"soak of tower serve under the lab attack: {args.minutes:g} min of attack ({args.attackers} address(es), "
          f"six 200-block removal maps each, twice at once), {args.honest} honest clients; load average "
          f"{load0:.1f} at the start, {load1:.1f} at the end (2 cores)")
    print(f"  reference: one statics verdict of the 35-block start tower, timed beside the soak: "
          f"{ref * 1000:.1f} ms (median of {len(beside)} during the attack; {statistics.median(quiet or [0]) * 1000:.1f} "
          f"ms before it; alone, median of 15: {ref0 * 1000:.1f} before the soak, {ref1 * 1000:.1f} after it, "
          f"{moved_ref() * 1000:.1f} with its top block moved as the edits move it)")
    bad = bool(honest.errors)
    for kind, label, bound in (("create", "game creations", 0.1), ("move", "moves", 0.1),
                               ("edit", "lab edits of the start tower", 2 * ref)):
        quiet, loud = calm(kind), during(kind)
        p95 = pct(loud, 0.95)
        ok = loud and p95 <= bound
        bad |= not ok
        print(f"  {label:<30} calm: {len(quiet):4} p50 {pct(quiet, 0.5) * 1000:6.1f} ms p95 "
              f"{pct(quiet, 0.95) * 1000:6.1f} ms | attack: {len(loud):4} p50 {pct(loud, 0.5) * 1000:6.1f} ms p95 "
              f"{p95 * 1000:6.1f} ms, max {max(loud, default=float('nan')) * 1000:6.1f} ms  (target p95 <= "
              f"{bound * 1000:.0f} ms{' = 2 verdicts' if kind == 'edit' else ''}: {'ok' if ok else 'MISSED'})")
    print(f"  honest errors: {len(honest.errors)} (target 0)")
    report.errors(honest.errors)
    memory, back = report.memory(rss0, peak, rss1, f"{args.after:g} s after the attack")
    bad |= not back
    print(f"  {memory}: the server's own process {main0:.0f} -> {main1:.0f} MiB, its workers {kids0:.0f} -> "
          f"{kids1:.0f} MiB")
    print("  the server's workers at the end (MiB, nice): " + ", ".join(f"{m} ({n})" for m, n in honest.processes))
    print("  " + report.answered(attack))
    report.server_log(log, 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
