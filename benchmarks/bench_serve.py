"""Load test of `tower serve` (docs/serve.md, docs/benchmarks.md): many games at once, bots playing through the
HTTP API against a server on 127.0.0.1 only.

Each run starts `tower serve` in a process of its own on a fresh database, creates GAMES games of the three card
games (every seat human: the bots are the people), opens the pages (a WebSocket per seat) of PAGES of them, and
plays all games to the end at once: per move the bot asks the seat to move for its state, picks a random legal
move and posts it. Counted: errors (any answer other than 200/201), lost moves (the record the server gives out
at the end differs from the moves the bots were told were played), moves per second over the run, and the
answer times of the move requests (p50, p95, p99). Bounded: at most --timeout seconds a run, then it stops.

    python benchmarks/bench_serve.py [--games 50] [--pages 10] [--runs 3] [--think 1] [--sync full]
                                               [--climbers 0]

Target: no error, no lost move, p95 of a card-game move <= 100 ms on this 2-core machine. Prints medians over
the runs and the machine's load average (other jobs share the cores).

The server runs with its limits on (docs/serve.md, "Limits"): each game's bots connect from an address of their
own (127.0.0.10, 127.0.0.11, ...), as the players of different games would, so no bot is over a per-client limit.

The bots think before each move (--think, 1 s on average, drawn from 0-2 s: quicker than people), so 50 games
offer about 50 moves a second. With --think 0 they fire the next request at once, every game racing the
others: the figures are then the server's saturation, its most moves per second and the answer times of a
queue 50 requests deep (by Little's law, 50 bots / throughput).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: (game, players, rule options): Partners stops as a draw after 60 card plays (its `move_limit` option), so its
#: games last about as many moves as the others' (a random Partners game runs to 500-700 moves)
CARD_GAMES = [("diabolo", 3, {}), ("seventh-heaven", 3, {}), ("partners", 4, {"move_limit": 60})]


def start_server(db: Path, sync: str, url: str | None = None) -> tuple[subprocess.Popen, str]:
    """`tower serve` on a fresh database (the SQLite file `db`, or the PostgreSQL database at `url`); its log
    goes to the file beside `db` (a pipe nobody reads would fill up and stop the server)."""
    log = open(db.with_suffix(".log"), "w")  # noqa: SIM115  (closed with the temporary directory's process)
    proc = subprocess.Popen([sys.executable, "-m", "tower", "serve", "--db", url or str(db), "--port", "0", "--host",
                             "127.0.0.1", "--ai-pause", "0", "--workers", "1", "--sync", sync],
                            stdout=subprocess.PIPE, stderr=log, text=True)
    line = proc.stdout.readline()
    if "lobby is at" not in line:
        raise SystemExit(f"the server did not start: {line}{db.with_suffix('.log').read_text()[-2000:]}")
    return proc, line.split("lobby is at ")[1].split("/ ")[0]


class Run:
    def __init__(self, url: str, timeout: float, think: float) -> None:
        self.url, self.deadline, self.think = url, time.monotonic() + timeout, think
        self.errors: list[str] = []
        self.move_times: dict[str, list[float]] = {}
        self.move_log: list[tuple[float, float]] = []  # (when, answer seconds) of every move
        self.moves = 0

    async def request(self, session, method: str, path: str, body=None):
        async with session.request(method, self.url + path, json=body) as resp:
            data = await resp.json(content_type=None)
            if resp.status not in (200, 201):
                self.errors.append(f"{method} {path.split('?')[0]} -> {resp.status} {data}")
            return resp.status, data

    async def game(self, game: str, players: int, options: dict, seed: int, pages: bool, address: str) -> None:
        import aiohttp

        connector = aiohttp.TCPConnector(limit=0, local_addr=(address, 0))
        async with aiohttp.ClientSession(connector=connector) as session:
            await self._game(session, game, players, options, seed, pages)

    async def _game(self, session, game: str, players: int, options: dict, seed: int, pages: bool) -> None:
        status, g = await self.request(session, "POST", "/api/games",
                                       {"game": game, "seats": ["human"] * players, "seed": seed, "options": options})
        if status != 201:
            return
        gid, tokens = g["id"], {s["seat"]: s["token"] for s in g["seats"]}
        listeners = [asyncio.create_task(self.page(session, gid, t)) for t in tokens.values()] if pages else []
        rng, played = random.Random(seed), []
        status, st = await self.request(session, "GET", f"/api/games/{gid}?token={tokens[0]}")
        while status == 200 and not st["over"] and time.monotonic() < self.deadline:
            p = st["to_move"]  # every answer says whose turn it is: ask that seat for its moves
            status, mine = await self.request(session, "GET", f"/api/games/{gid}?token={tokens[p]}")
            if status != 200:
                break
            if self.think:
                await asyncio.sleep(rng.uniform(0, 2 * self.think))
            options = mine["legal_moves"] + [("block", b) for b in mine.get("blocks", [])]
            text = rng.choice(options)
            if isinstance(text, tuple):  # The Climbers' block step: a block, then one of its placements
                status, doc = await self.request(session, "GET", f"/api/games/{gid}/placements?token={tokens[p]}"
                                                                 f"&block={text[1]}")
                if status != 200:
                    break
                text = rng.choice(doc["placements"])[4]
            t = time.perf_counter()
            status, st = await self.request(session, "POST", f"/api/games/{gid}/moves?token={tokens[p]}",
                                            {"move": text, "n": mine["n"]})
            self.move_times.setdefault(game, []).append(time.perf_counter() - t)
            self.move_log.append((time.monotonic(), time.perf_counter() - t))
            if status != 200:
                break
            played.append(text)
            self.moves += 1
        if status == 200 and not st["over"]:
            self.errors.append(f"{game} {gid}: not over within the time limit")
            return
        status, record = await self.request(session, "GET", f"/api/games/{gid}/record")
        if status == 200 and record["moves"] != played:
            self.errors.append(f"{game} {gid}: lost moves: the record has {len(record['moves'])}, "
                               f"the bots played {len(played)}")
        for task in listeners:
            task.cancel()

    async def page(self, session, gid: str, token: str) -> None:
        """A seat's open page: reads every pushed snapshot until cancelled."""
        ws_url = self.url.replace("http://", "ws://") + f"/api/games/{gid}/ws?token={token}"
        async with session.ws_connect(ws_url) as ws:
            async for msg in ws:
                json.loads(msg.data)


async def one_run(url: str, games: int, pages: int, climbers: int, timeout: float, seed: int,
                  think: float = 0.0) -> Run:
    run = Run(url, timeout, think)
    kinds = [CARD_GAMES[i % len(CARD_GAMES)] for i in range(games)] + [("climbers", 2, {})] * climbers
    start = time.perf_counter()
    await asyncio.gather(*(run.game(g, n, opts, seed + i, i < pages, f"127.0.{i // 240}.{10 + i % 240}")
                           for i, (g, n, opts) in enumerate(kinds)))
    run.seconds = time.perf_counter() - start
    return run


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=50, help="card games played at once (default 50)")
    ap.add_argument("--pages", type=int, default=10, help="of them, games with every seat's page open (default 10)")
    ap.add_argument("--climbers", type=int, default=0, help="Climbers games played besides (default 0)")
    ap.add_argument("--think", type=float, default=1.0,
                    help="mean seconds a bot thinks before a move, drawn from 0..2x (default 1; 0: no pause, "
                         "the server's saturation)")
    ap.add_argument("--sync", choices=("full", "normal"), default="full", help="the server's --sync (default full)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600, help="seconds a run may take at most (default 600)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rows = []
    for r in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            proc, url = start_server(Path(tmp) / "games.sqlite", args.sync)
            try:
                load = os.getloadavg()[0]
                run = asyncio.run(one_run(url, args.games, args.pages, args.climbers, args.timeout,
                                          args.seed + 1000 * r, args.think))
            finally:
                proc.terminate()
                proc.wait(30)
        cards = [t for g, ts in run.move_times.items() if g != "climbers" for t in ts]
        row = {"moves": run.moves, "errors": len(run.errors), "seconds": run.seconds,
               "moves_per_s": run.moves / run.seconds, "p50": pct(cards, 0.5), "p95": pct(cards, 0.95),
               "p99": pct(cards, 0.99), "load": load}
        if args.climbers:
            row["climbers_p95"] = pct(run.move_times.get("climbers", []), 0.95)
        rows.append(row)
        print(f"run {r + 1}: {run.moves} moves in {run.seconds:.1f} s = {row['moves_per_s']:.0f} moves/s; "
              f"card-game move answer p50 {row['p50'] * 1000:.1f} ms, p95 {row['p95'] * 1000:.1f} ms, "
              f"p99 {row['p99'] * 1000:.1f} ms; errors {len(run.errors)}; load average {load:.1f}")
        for e in run.errors[:5]:
            print("   ", e)
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    print(f"\n{args.games} card games at once ({args.pages} with every seat's page open"
          f"{f', plus {args.climbers} Climbers games' if args.climbers else ''}), bots thinking "
          f"{args.think:g} s on average before a move, --sync {args.sync}; medians of {args.runs} runs:")
    print(f"  moves/s            {med['moves_per_s']:.0f}")
    print(f"  move answer p50    {med['p50'] * 1000:.1f} ms")
    print(f"  move answer p95    {med['p95'] * 1000:.1f} ms   (target <= 100 ms)")
    print(f"  move answer p99    {med['p99'] * 1000:.1f} ms")
    if args.climbers:
        print(f"  Climbers move p95  {med['climbers_p95'] * 1000:.1f} ms")
    print(f"  errors, lost moves {sum(r['errors'] for r in rows)} (target 0)")
    print(f"  load average       {med['load']:.1f} at the start of the runs (2 cores)")
    if any(r["errors"] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
