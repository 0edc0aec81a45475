"""Soak of `tower serve` under attack (docs/serve.md, "Limits"): honest bots play while an attacker tries what once
froze the server, for a fixed time, on 127.0.0.1 only.

    python benchmarks/soak_serve.py [--minutes 2] [--calm 40] [--games 50] [--think 1] [--max-rss 1024]

`tower serve` runs in a process of its own with its default limits. GAMES card games are played by bots as in
bench_serve.py (every seat a bot, a random legal move after thinking --think s on average, each game's bots from an
address of their own); a game that ends is followed by a new one until the time is up. The bots play alone for
--calm seconds first: their answer times then are the reference, timed in the same run. Then the attacker,
from a few addresses of its own, loops over: new games with huge `players` and free-text seats, floods of new
games (all-AI games searching 10 s a move, as many as it is let), replays of long records (several at once, pages
from random places), slow clients (connections left idle, headers and bodies never finished, uploads aborted).

The attacker runs in a process of its own at a lower priority (`nice 10`): on a real network its own work (building
bodies, unpacking answers) is done on its machine, not on the server's cores. What the server does for it is not
lowered. Printed: the bots' move answer times (p50, p95, p99), their errors (any answer but 200/201) and lost moves (the
record the server gives out against the moves the bots were told were played); the resident memory (RSS) of the
server and its worker processes, sampled every second (largest, and at the start and end); what the attacker was
answered (status counts). Beside it, for reference: one move with nothing else running, timed in the same run
before the attack. Exit status 1 if an honest client saw an error or lost a move, the bots' p95 is over 100 ms,
or the RSS went over --max-rss MiB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import soak_report as report  # noqa: E402
from bench_serve import CARD_GAMES, Run, pct, start_server  # noqa: E402
from soak import descendants, tree_rss  # noqa: E402

ATTACKERS = [f"127.0.2.{k}" for k in range(1, 5)]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used (from /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu(root: int) -> tuple[float, float]:
    """(CPU seconds of `root`, of its descendants now alive)."""
    return cpu_seconds(root), sum(cpu_seconds(p) for p in descendants(root))


class Attack:
    def __init__(self, url: str, deadline: float, records: list[dict], kinds: set[str]) -> None:
        self.url, self.deadline, self.records, self.kinds = url, deadline, records, kinds
        self.answers: Counter[str] = Counter()
        self.host, self.port = url.removeprefix("http://").split(":")[0], int(url.rsplit(":", 1)[1])

    def note(self, kind: str, status: int | str) -> None:
        self.answers[f"{kind} {status}"] += 1

    async def post(self, session, kind: str, path: str, body) -> None:
        import aiohttp

        try:
            async with session.post(self.url + path, json=body, timeout=aiohttp.ClientTimeout(total=15)) as resp:
                await resp.read()
                self.note(kind, resp.status)
        except Exception as exc:  # the attacker does not care; counted
            self.note(kind, type(exc).__name__)

    async def creation(self, address: str) -> None:
        import aiohttp

        rng = random.Random(address)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0))) as session:
            while time.monotonic() < self.deadline:
                pick = rng.randrange(4)
                if pick == 0:
                    body = {"game": "diabolo", "players": rng.choice([500_000_000, 10**18, 1e18])}
                elif pick == 1:
                    body = {"game": "diabolo", "seats": ["human", "human", "ai:random:" + "x" * 100_000]}
                elif pick == 2:
                    body = {"game": "partners", "options": {"deck": "heart=9999,1/14=9999"}}
                else:
                    body = {"game": "climbers", "seats": ["ai:mcts:time=10,iters=50000"] * 3}
                await self.post(session, "create", "/api/games", body)
                await asyncio.sleep(0.02)

    async def replays(self, address: str) -> None:
        import aiohttp

        rng = random.Random(address)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0))) as session:
            k = 0
            while time.monotonic() < self.deadline:
                body = self.records[k % len(self.records)]  # more records than the worker keeps checked
                k += 1
                total = len(body["moves"]) + 1
                await asyncio.gather(*(self.post(session, "replay", f"/api/replay?seat=public&from="
                                                 f"{rng.randrange(total)}", body) for _ in range(4)))
                await asyncio.sleep(0.05)

    async def slow(self, address: str) -> None:
        starts = [b"", b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\n",
                  b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99\r\n\r\n{"]
        while time.monotonic() < self.deadline:
            writers = []
            for k in range(60):
                try:
                    _, w = await asyncio.open_connection(self.host, self.port, local_addr=(address, 0))
                except OSError as exc:
                    self.note("slow", type(exc).__name__)
                    continue
                w.write(starts[k % 3])
                writers.append(w)
            await asyncio.sleep(3)
            for k, w in enumerate(writers):
                if k % 3 == 2:
                    w.transport.abort()  # an aborted upload
                else:
                    w.close()
                self.note("slow", "closed")

    async def run(self) -> None:
        jobs = {"create": [self.creation(ATTACKERS[0]), self.creation(ATTACKERS[1])],
                "replay": [self.replays(ATTACKERS[2])], "slow": [self.slow(ATTACKERS[3])]}
        await asyncio.gather(*(job for kind, some in jobs.items() for job in some if kind in self.kinds))


class Bots(Run):
    """bench_serve's bots, each game followed by a new one until the deadline."""

    async def forever(self, game: str, players: int, options: dict, seed: int, pages: bool, address: str,
                      until: float) -> None:
        k = 0
        while time.monotonic() < until:
            await self.game(game, players, options, seed * 1000 + k, pages, address)
            k += 1


def long_records(count: int = 8) -> list[dict]:
    """Whole random Partners games (500-900 moves each)."""
    from tower.games.registry import new_game

    out = []
    for seed in range(count):
        state = new_game("partners", 4, seed, {"move_limit": 2000})
        rng = random.Random(seed)
        while not state.is_over:
            state.apply(rng.choice(state.legal_moves()))
        out.append(state.record())
    return out


def attacker(url: str, seconds: float, kinds: str, out) -> None:
    """The attacker, in a process of its own (its work must not slow the bots' own event loop down), at a lower
    priority: on a network the attacker's own work runs on its machine, not on the server's two cores."""
    os.nice(10)
    records = long_records()
    attack = Attack(url, time.monotonic() + seconds, records, set(kinds.split(",")))
    asyncio.run(attack.run())
    out.put(dict(attack.answers))


async def soak(url: str, args, proc_pid: int) -> tuple[Bots, dict, list[float], float, float]:
    """The bots alone for --calm seconds (the reference), then beside the attacker for --minutes."""
    import multiprocessing

    began = time.monotonic() + args.calm
    deadline = began + args.minutes * 60
    bots = Bots(url, args.calm + args.minutes * 60 + 120, args.think)
    ctx = multiprocessing.get_context("spawn")
    answers = ctx.Queue()
    attack = ctx.Process(target=attacker, args=(url, args.minutes * 60, args.attacks, answers), daemon=True)
    rss: list[float] = []

    async def unleash() -> None:
        await asyncio.sleep(max(0.0, began - time.monotonic() - 3))  # the attacker's own start-up: ~3 s
        attack.start()

    async def sample() -> None:
        while time.monotonic() < deadline + 5:
            main_mib, kids_mib, _ = tree_rss(proc_pid)
            rss.append(main_mib + kids_mib)
            await asyncio.sleep(1)

    kinds = [CARD_GAMES[i % len(CARD_GAMES)] for i in range(args.games)]
    await asyncio.gather(sample(), unleash(), *(bots.forever(g, n, opts, 1 + i, i < args.pages, f"127.0.1.{10 + i}", deadline)
                                     for i, (g, n, opts) in enumerate(kinds)))
    try:
        got = await asyncio.to_thread(answers.get, True, 300)
    except Exception as exc:  # the attacker died or hung: say so rather than lose the bots' figures
        got = {"attacker did not report": type(exc).__name__}
    attack.join(30)
    if attack.is_alive():
        attack.terminate()
    return bots, got, rss, began, deadline


async def reference(url: str) -> float:
    """Median answer of one move with nothing else running (the same server, before the soak)."""
    import aiohttp

    times = []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=("127.0.3.1", 0))) as session:
        async with session.post(url + "/api/games", json={"game": "diabolo"}) as resp:
            g = await resp.json()
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        for _ in range(15):
            async with session.get(f"{url}/api/games/{g['id']}?token={tokens[0]}") as resp:
                st = await resp.json()
            p = st["to_move"]
            async with session.get(f"{url}/api/games/{g['id']}?token={tokens[p]}") as resp:
                mine = await resp.json()
            t = time.perf_counter()
            async with session.post(f"{url}/api/games/{g['id']}/moves?token={tokens[p]}",
                                    json={"move": mine["legal_moves"][0], "n": mine["n"]}) as resp:
                await resp.read()
            times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=2.0)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--calm", type=float, default=40.0, help="seconds the bots play alone first (the reference)")
    ap.add_argument("--pages", type=int, default=10, help="of them, games with every seat's page open (default 10)")
    ap.add_argument("--think", type=float, default=1.0)
    ap.add_argument("--attacks", default="create,replay,slow", help="which attacks (default all: create,replay,slow)")
    ap.add_argument("--log-lines", type=int, default=8, help="the server log's most frequent lines shown")
    ap.add_argument("--max-rss", type=float, default=1024.0, help="MiB the server and its workers may use")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp) / "games.sqlite", "full")
        try:
            load0 = os.getloadavg()[0]
            ref = asyncio.run(reference(url))
            rss0 = sum(tree_rss(proc.pid)[:2])
            cpu0 = tree_cpu(proc.pid)
            bots, attack, rss, began, deadline = asyncio.run(soak(url, args, proc.pid))
            cpu1 = tree_cpu(proc.pid)
            load1 = os.getloadavg()[0]
        finally:
            proc.terminate()
            proc.wait(30)
        log = (Path(tmp) / "games.log").read_text()
    # the moves answered while the attack ran (the games going on are then played to their end for the count of
    # lost moves)
    times = [t for when, t in bots.move_log if began <= when <= deadline]
    calm = [t for when, t in bots.move_log if when < began]
    print(f"soak of tower serve: {args.minutes:g} min, {args.games} bot games ({args.pages} with pages open) "
          f"beside the attacker; load average {load0:.1f} at the start, {load1:.1f} at the end (2 cores)")
    print(f"  reference: one move with nothing else running   {ref * 1000:.1f} ms (median of 15)")
    print(f"  reference: the same bots without the attacker, for the first {args.calm:g} s: {len(calm)} moves, "
          f"p50 {pct(calm, 0.5) * 1000:.1f} ms, p95 {pct(calm, 0.95) * 1000:.1f} ms, p99 {pct(calm, 0.99) * 1000:.1f} ms")
    print(f"  bots beside the attacker: {bots.moves} moves in all, {len(times)} during the attack; move answer p50 {pct(times, 0.5) * 1000:.1f} ms, "
          f"p95 {pct(times, 0.95) * 1000:.1f} ms, p99 {pct(times, 0.99) * 1000:.1f} ms (target p95 <= 100 ms)")
    print(f"  honest errors and lost moves: {len(bots.errors)} (target 0)")
    report.errors(bots.errors)
    print(f"  RSS of server + workers: {rss0:.0f} MiB before, largest {max(rss):.0f} MiB, "
          f"{rss[-1]:.0f} MiB at the end (bound {args.max_rss:g} MiB)")
    print(f"  CPU used meanwhile: the server's process {cpu1[0] - cpu0[0]:.0f} s, its workers {cpu1[1] - cpu0[1]:.0f} s "
          f"(the soak lasted {args.minutes * 60:.0f} s and the games' tail after it)")
    print("  " + report.answered(attack))
    report.server_log(log, args.log_lines)
    bad = bots.errors or pct(times, 0.95) > 0.1 or max(rss) > args.max_rss
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
