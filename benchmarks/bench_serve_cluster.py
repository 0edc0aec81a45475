"""Several `tower serve` processes on PostgreSQL (docs/serve.md, "Several processes"): moves per second and the move
answers' p95 with 1 and 2 processes on one PostgreSQL database, beside 1 process on SQLite timed in the same run
(the reference: the ratios carry across machines), and how long a move made on one process takes to reach a page
open on the other.

The load is `bench_serve.py`'s: GAMES card games at once, every seat a bot on an address of its own, PAGES of them
with every seat's page open. With two processes each request goes to the next process in turn, as a round-robin
load balancer sends them (so a game's moves alternate between the processes and every page sees moves made on
the other), and the pages open on the processes alternately. Counted as there: errors, lost moves (the record
against the moves the bots were told were played), moves per second, the move answers' p50/p95/p99; here also
the feed's delay: from a move's answer to its event on each open page (p50/p95, pages on the other process
only). Bounded: --timeout seconds a run.

    python benchmarks/bench_serve_cluster.py [--games 50] [--pages 10] [--think 0] [--runs 1] [--route request]
                                             [--db URL]

Without --db a throwaway PostgreSQL cluster is started (tests/pg_support.py: initdb in a temporary folder, a Unix
socket; Debian's postgresql) and removed at the end. Prints the machine's load average (other jobs share the
cores).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

import bench_serve  # noqa: E402
from bench_serve import Run, pct  # noqa: E402


def start(db: str, log: Path) -> tuple[subprocess.Popen, str]:
    out = open(log, "w")  # noqa: SIM115  (closed with the temporary directory)
    proc = subprocess.Popen([sys.executable, "-m", "tower", "serve", "--db", db, "--port", "0", "--host",
                             "127.0.0.1", "--ai-pause", "0", "--workers", "1"], stdout=subprocess.PIPE,
                            stderr=out, text=True)
    line = proc.stdout.readline()
    if "lobby is at" not in line:
        raise SystemExit(f"the server did not start: {line}{log.read_text()[-2000:]}")
    return proc, line.split("lobby is at ")[1].split("/ ")[0]


class ClusterRun(Run):
    """bench_serve's run, its requests sent to the processes in turn; the feeds' delays noted."""

    def __init__(self, urls: list[str], timeout: float, think: float, route: str = "request") -> None:
        super().__init__(urls[0], timeout, think)
        self.urls, self.route = urls, route
        self._next = itertools.cycle(range(len(urls)))
        self._pages = itertools.cycle(range(len(urls)))
        self.answered: dict[tuple[str, int], tuple[float, int]] = {}  # (game, n) -> (when answered, process)
        self.seen: list[tuple[str, int, float, int]] = []  # (game, n, when a page got it, the page's process)

    async def request(self, session, method: str, path: str, body=None):
        parts = path.split("?")[0].split("/")
        if self.route == "game" and len(parts) > 3:  # a balancer routing by game: each game to one process
            k = int(parts[3].encode().hex(), 16) % len(self.urls)
        else:
            k = next(self._next)
        async with session.request(method, self.urls[k] + path, json=body) as resp:
            data = await resp.json(content_type=None)
            if resp.status not in (200, 201):
                self.errors.append(f"{method} {path.split('?')[0]} -> {resp.status} {data}")
            elif method == "POST" and "/moves" in path:
                self.answered[(path.split("/")[3], data["n"])] = (time.monotonic(), k)
            return resp.status, data

    async def page(self, session, gid: str, token: str) -> None:
        k = next(self._pages)
        ws_url = self.urls[k].replace("http://", "ws://") + f"/api/games/{gid}/ws?token={token}"
        async with session.ws_connect(ws_url) as ws:
            async for msg in ws:
                event = json.loads(msg.data).get("event")
                if event and event.get("kind") == "move":
                    self.seen.append((gid, event["n"], time.monotonic(), k))


async def one_run(urls: list[str], args) -> ClusterRun:
    run = ClusterRun(urls, args.timeout, args.think, args.route)
    kinds = [bench_serve.CARD_GAMES[i % len(bench_serve.CARD_GAMES)] for i in range(args.games)]
    began = time.perf_counter()
    await asyncio.gather(*(run.game(g, n, opts, args.seed + i, i < args.pages, f"127.0.{i // 240}.{10 + i % 240}")
                           for i, (g, n, opts) in enumerate(kinds)))
    run.seconds = time.perf_counter() - began
    return run


def cpu_seconds(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes have used so far."""
    total = 0.0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def postgres_pids() -> list[int]:
    """The PostgreSQL server's processes on this machine (its backends do the database's share of each move)."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if open(f"/proc/{pid}/comm").read().strip() == "postgres":
                    out.append(int(pid))
            except OSError:
                pass
    return out


def measure(label: str, dbs: list[str], args, tmp: Path) -> dict:
    procs = [start(db, tmp / f"{label}-{k}.log") for k, db in enumerate(dbs)]
    try:
        load = os.getloadavg()[0]
        servers = [p.pid for p, _url in procs]
        pg = postgres_pids()
        cpu0, pg0 = cpu_seconds(servers), cpu_seconds(pg)
        run = asyncio.run(one_run([url for _p, url in procs], args))
        cpu = cpu_seconds(servers) - cpu0
        # the backends of the connections made during the run count from nothing
        pg_cpu = cpu_seconds([*pg, *(p for p in postgres_pids() if p not in pg)]) - pg0 \
            if "PostgreSQL" in label else 0.0
    finally:
        for proc, _url in procs:
            proc.terminate()
            proc.wait(30)
    times = [t for ts in run.move_times.values() for t in ts]
    other = [when - run.answered[(gid, n)][0] for gid, n, when, k in run.seen
             if (gid, n) in run.answered and run.answered[(gid, n)][1] != k]
    row = {"label": label, "moves": run.moves, "errors": len(run.errors), "moves_per_s": run.moves / run.seconds,
           "p50": pct(times, 0.5), "p95": pct(times, 0.95), "p99": pct(times, 0.99), "load": load,
           "feed_p50": pct(other, 0.5), "feed_p95": pct(other, 0.95), "feed_n": len(other),
           "cpu_ms": 1000 * cpu / max(1, run.moves), "pg_ms": 1000 * pg_cpu / max(1, run.moves)}
    feed = (f"; a move to a page on the other process p50 {row['feed_p50'] * 1000:.1f} ms, p95 "
            f"{row['feed_p95'] * 1000:.1f} ms ({len(other)} events)") if other else ""
    print(f"{label:24} {run.moves} moves in {run.seconds:.1f} s = {row['moves_per_s']:.0f} moves/s; move answer "
          f"p50 {row['p50'] * 1000:.1f} ms, p95 {row['p95'] * 1000:.1f} ms, p99 {row['p99'] * 1000:.1f} ms; "
          f"errors {len(run.errors)}{feed}; CPU per move: the server process(es) {row['cpu_ms']:.1f} ms, "
          f"PostgreSQL {row['pg_ms']:.1f} ms; load {load:.1f}", flush=True)
    for e in run.errors[:5]:
        print("   ", e)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--pages", type=int, default=10)
    ap.add_argument("--think", type=float, default=0.0, help="mean seconds a bot thinks (default 0: saturation)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--route", choices=("request", "game"), default="request",
                    help="request: each request to the next process (round robin, the default); game: each game's "
                         "requests to one process (a balancer hashing the game's id), its pages still alternating")
    ap.add_argument("--db", help="a PostgreSQL URL to use (its games are added to); default: a throwaway cluster")
    args = ap.parse_args()
    cluster = None
    if args.db is None:
        from pg_support import Cluster

        cluster = Cluster()
    rows: dict[str, list[dict]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(args.runs):
                args.seed += 1000 * r
                url = args.db or cluster.database()
                for label, dbs in (("1 process, SQLite", [str(Path(tmp) / f"g{r}.sqlite")]),
                                   ("1 process, PostgreSQL", [url]), ("2 processes, PostgreSQL", [url, url])):
                    rows.setdefault(label, []).append(measure(label, dbs, args, Path(tmp)))
    finally:
        if cluster is not None:
            cluster.stop()
    ref = statistics.median(r["moves_per_s"] for r in rows["1 process, SQLite"])
    print(f"\n{args.games} card games at once ({args.pages} with every seat's page open), bots thinking "
          f"{args.think:g} s, requests routed by {args.route}; medians of {args.runs} run(s); the reference is 1 process on SQLite:")
    for label, rs in rows.items():
        med = {k: statistics.median(r[k] for r in rs) for k in ("moves_per_s", "p95", "feed_p95", "cpu_ms", "pg_ms")}
        print(f"  {label:24} {med['moves_per_s']:6.0f} moves/s ({med['moves_per_s'] / ref:.2f}x), move p95 "
              f"{med['p95'] * 1000:6.1f} ms, CPU a move {med['cpu_ms']:.1f} ms in tower serve + {med['pg_ms']:.1f} "
              f"ms in PostgreSQL" + (f", feed to the other process p95 {med['feed_p95'] * 1000:.1f} ms"
                                     if rs[0]["feed_n"] else ""))
    print(f"  errors, lost moves {sum(r['errors'] for rs in rows.values() for r in rs)}; load average "
          f"{statistics.median(r['load'] for rs in rows.values() for r in rs):.1f} (2 cores)")


if __name__ == "__main__":
    main()
