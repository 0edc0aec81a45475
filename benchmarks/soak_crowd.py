"""Soak of `tower serve` under attacks from many addresses at once (docs/serve.md, "Limits"; issue 47), beside an
honest client, on 127.0.0.0/8 only (all of it is loopback: each 127.x.y.z is one client of the server), for a fixed
time.

    python benchmarks/soak_crowd.py [--attacks all|NAME,...] [--seconds 30] [--after 60] [--calm 30] [--addresses 30]
                                    [--db sqlite|postgres|URL]

`tower serve` runs in a process of its own with its default limits. The honest client has two addresses: one
creates a Diabolo game every 10 s (every seat its own) and plays it move by move (the state, then the move, a think
of 0.2-0.6 s between), the other edits a lab of a 35-block start tower (its top block moved back and forth, a second
or so apart). They run alone for --calm seconds first (the quiet baseline, timed in the same run), then each attack
runs for --seconds, in a process of its own at nice 10 (on a network the attacker's own work is done on its
machine), followed by --after seconds of quiet in which the memory settles. The attacks (issue 47's table), each
from --addresses addresses unless said:

- `refusals1`: 20 refusal checks at once from one address (`POST /api/lab/{id}/refusals`, a double in hand, its 6
  shapes, over a 190-block wall, `flag` rules), again and again;
- `refusals`: the same from every address (one lab each, 20 at once each);
- `labs`: labs of random start towers created as fast as answered, from 50 addresses;
- `frames`: WebSockets each sending one frame declared 4 MiB long and never finished, 7 from each address;
- `climbers`: Climbers games on a legal 200-cube start, as many as each address is let, their placements and
  ghosts asked block after block;
- `hints`: a Diabolo game of each of 50 addresses, its hint asked again and again;
- `removal`: removal maps of 190-block walls (a new wall before each), one at a time per address.

Printed per attack, against the quiet baseline: the honest move answer p50 / p95, game creation p95, lab edit p95
(each with its count), the honest errors (any answer but 200/201, or a timeout), the resident memory (RSS) of the
server and its workers at the attack's start, largest, and --after seconds after it, and what the attacker was
answered. Every honest game's record (a game is abandoned when its 10 s are up) is compared with the moves the
server acknowledged: nothing acknowledged may be lost. Targets (exit status 1 if one is missed): honest
move p95 at most 3x the baseline's and at most 100 ms, no honest error, memory after each attack within 20 % of its
start, nothing lost.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import multiprocessing
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import soak_report as report  # noqa: E402
from bench_serve import pct, start_server  # noqa: E402
from soak import tree_rss  # noqa: E402

TIMEOUT = 60.0  # seconds an honest request may take before it counts as an error
HONEST_GAMES, HONEST_LAB = "127.0.1.10", "127.0.1.11"
ATTACKS = ("refusals1", "refusals", "labs", "frames", "climbers", "hints", "removal")


def wall(shift: int = 0) -> dict:
    """190 cubes in a wall 10 wide and 19 high (every `shift` the top one a unit aside: a new build, same work)."""
    blocks = [{"id": f"w{k}", "origin": [2 * (k % 10) - 10 + (1 if k == 189 and shift % 2 else 0), 0, 2 * (k // 10)],
               "size": [2, 2, 2]} for k in range(190)]
    return {"format": "tower-build/1", "blocks": blocks}


def cubes(n: int = 200) -> dict:
    """A legal start of n cubes, 10 x 10 in two layers: after `skip`, 236,496 placements."""
    return {"format": "tower-build/1", "blocks": [
        {"id": f"c{i}", "origin": [2 * (i % 10) - 10, 2 * (i // 10 % 10) - 10, 2 * (i // 100)], "size": [2, 2, 2]}
        for i in range(n)]}


# --- the attacker ------------------------------------------------------------------------------------------------

class Attacker:
    def __init__(self, url: str, seconds: float) -> None:
        self.url, self.deadline = url, time.monotonic() + seconds
        self.answers: Counter[str] = Counter()
        self.host, self.port = url.removeprefix("http://").split(":")[0], int(url.rsplit(":", 1)[1])

    def session(self, address: str):
        import aiohttp

        return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, local_addr=(address, 0)),
                                     timeout=aiohttp.ClientTimeout(total=120))

    async def call(self, session, kind: str, method: str, path: str, body=None):
        try:
            async with session.request(method, self.url + path, json=body) as resp:
                data = await resp.json(content_type=None)
                self.answers[f"{kind} {resp.status}"] += 1
                return resp.status, data
        except Exception as exc:  # counted: the attacker does not care
            self.answers[f"{kind} {type(exc).__name__}"] += 1
            return 0, None

    def going(self) -> bool:
        return time.monotonic() < self.deadline

    async def refusals(self, address: str, at_once: int = 20) -> None:
        async with self.session(address) as s:
            status, lab = await self.call(s, "lab", "POST", "/api/lab", {"build": wall(), "rules": "flag"})
            if status != 201:
                return
            _, palette = await self.call(s, "palette", "GET", "/api/lab")
            double = next(k for k in palette["kinds"] if k["name"] == "double-cube")
            shapes = [{"size": size, "top": top, "faces": [top] * 6}
                      for size in double["sizes"] for top in double["tops"]["x".join(map(str, size))]][:6]
            body = {"block": "new", "kind": "double-cube", "shapes": shapes, "area": [-14, -4, 14, 6]}
            while self.going():
                await asyncio.gather(*(self.call(s, "refusals", "POST", f"/api/lab/{lab['id']}/refusals", body)
                                       for _ in range(at_once)))

    async def labs(self, address: str) -> None:
        async with self.session(address) as s:
            k = 0
            while self.going():
                k += 1
                status, _ = await self.call(s, "lab", "POST", "/api/lab", {"start": "random", "seed": k})
                await asyncio.sleep(0.05 if status == 201 else 0.5)

    async def frames(self, address: str, feeds: int = 7) -> None:
        async with self.session(address) as s:
            status, game = await self.call(s, "game", "POST", "/api/games", {"game": "diabolo"})
            if status != 201:
                return
        token = game["spectator_url"].split("token=")[1]

        async def one() -> None:
            while self.going():
                try:
                    reader, writer = await asyncio.open_connection(self.host, self.port, local_addr=(address, 0))
                except OSError as exc:
                    self.answers[f"feed {type(exc).__name__}"] += 1
                    await asyncio.sleep(1)
                    continue
                key = base64.b64encode(os.urandom(16)).decode()
                writer.write(f"GET /api/games/{game['id']}/ws?token={token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket"
                             f"\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                             .encode())
                try:
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
                    self.answers[f"feed {head.split()[1].decode()}"] += 1
                    # one text frame declared 4 MiB long, its payload sent but for the last byte
                    writer.write(bytes([0x81, 0xFF]) + (4 * 1024 * 1024).to_bytes(8, "big") + b"mask")
                    chunk = b"x" * 65536
                    for _ in range(63):
                        writer.write(chunk)
                        await writer.drain()
                    writer.write(chunk[:-1])
                    await writer.drain()
                    while self.going() and not reader.at_eof():  # then wait, the frame unfinished
                        if not await asyncio.wait_for(reader.read(65536), max(0.1, self.deadline - time.monotonic())):
                            break
                    self.answers["feed closed by the server" if reader.at_eof() else "feed held"] += 1
                except Exception as exc:
                    self.answers[f"feed {type(exc).__name__}"] += 1
                finally:
                    writer.transport.abort()

        await asyncio.gather(*(one() for _ in range(feeds)))

    async def climbers(self, address: str) -> None:
        async with self.session(address) as s:
            games: list[tuple[str, str]] = []
            made = 0.0
            while self.going():
                if time.monotonic() - made > 10:  # a new game whenever the address is let
                    made = time.monotonic()
                    for _ in range(10):
                        status, g = await self.call(s, "create", "POST", "/api/games",
                                                    {"game": "climbers", "seats": ["human", "human"],
                                                     "options": {"start": cubes()}})
                        if status != 201:
                            break
                        token = g["seats"][0]["token"]
                        await self.call(s, "skip", "POST", f"/api/games/{g['id']}/moves?token={token}",
                                        {"move": "skip"})
                        games.append((g["id"], token))
                for gid, token in list(games):
                    if not self.going():
                        break
                    status, st = await self.call(s, "state", "GET", f"/api/games/{gid}?token={token}")
                    blocks = (st or {}).get("blocks") or []
                    if not blocks:
                        await asyncio.sleep(0.2)
                        continue
                    block = random.choice(blocks)
                    await asyncio.gather(
                        self.call(s, "placements", "GET", f"/api/games/{gid}/placements?token={token}&block={block}"),
                        self.call(s, "ghosts", "GET", f"/api/games/{gid}/ghosts?token={token}&block={block}"))
                await asyncio.sleep(0.05)

    async def hints(self, address: str) -> None:
        async with self.session(address) as s:
            status, g = await self.call(s, "game", "POST", "/api/games", {"game": "diabolo",
                                                                          "seats": ["human"] * 3})
            if status != 201:
                return
            tokens = [x["token"] for x in g["seats"]]
            _, st = await self.call(s, "state", "GET", f"/api/games/{g['id']}?token={tokens[0]}")
            mover = tokens[st["to_move"]]
            while self.going():
                status, _ = await self.call(s, "hint", "GET", f"/api/games/{g['id']}/hint?token={mover}")
                if status != 200:
                    await asyncio.sleep(0.2)

    async def removal(self, address: str) -> None:
        async with self.session(address) as s:
            status, lab = await self.call(s, "lab", "POST", "/api/lab", {"build": wall(), "rules": "free"})
            if status != 201:
                return
            k = 0
            while self.going():
                k += 1
                await self.call(s, "load", "POST", f"/api/lab/{lab['id']}/edits", {"op": "load", "build": wall(k)})
                await self.call(s, "removal", "GET", f"/api/lab/{lab['id']}/removal")

    async def run(self, attack: str, addresses: list[str]) -> None:
        if attack == "refusals1":
            jobs = [self.refusals(addresses[0])]
        else:
            jobs = [getattr(self, attack)(a) for a in addresses]
        try:  # at the deadline the attacker hangs up, whatever it is waiting for
            await asyncio.wait_for(asyncio.gather(*jobs), max(0.1, self.deadline - time.monotonic()) + 5)
        except TimeoutError:
            pass


def attacker(url: str, attack: str, addresses: list[str], seconds: float, out) -> None:
    os.nice(10)
    attack_ = Attacker(url, seconds)
    asyncio.run(attack_.run(attack, addresses))
    out.put(dict(attack_.answers))


def addresses_of(attack: str, count: int, k: int) -> list[str]:
    n = 50 if attack in ("labs", "hints") else 1 if attack == "refusals1" else count
    return [f"127.0.{20 + k}.{i + 1}" for i in range(n)]


# --- the honest client -------------------------------------------------------------------------------------------

class Honest:
    """The honest client's answer times, (when, seconds) by kind, its errors (when, what) and acknowledged moves."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.times: dict[str, list[tuple[float, float]]] = {"create": [], "move": [], "edit": []}
        self.errors: list[tuple[float, str]] = []
        self.acked: dict[str, list[str]] = {}  # game -> the moves the server answered 200 to, in order
        self.lost: list[str] = []  # the games whose record lacks an acknowledged move

    async def timed(self, session, kind: str | None, method: str, path: str, body=None):
        t = time.perf_counter()
        try:
            async with session.request(method, self.url + path, json=body) as resp:
                data = await resp.json(content_type=None)
        except Exception as exc:
            self.errors.append((time.monotonic(), f"{method} {path.split('?')[0]}: {type(exc).__name__}"))
            return None
        seconds = time.perf_counter() - t
        if resp.status not in (200, 201):
            self.errors.append((time.monotonic(), f"{method} {path.split('?')[0]} -> {resp.status} {str(data)[:100]}"))
            return None
        if kind:
            self.times[kind].append((time.monotonic(), seconds))
        return data

    def session(self, address: str):
        import aiohttp

        return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, local_addr=(address, 0)),
                                     timeout=aiohttp.ClientTimeout(total=TIMEOUT))

    async def games(self, until: float) -> None:
        rng = random.Random(1)
        async with self.session(HONEST_GAMES) as s:
            while time.monotonic() < until:
                began = time.monotonic()
                g = await self.timed(s, "create", "POST", "/api/games", {"game": "diabolo", "seats": ["human"] * 3})
                if g is not None:
                    gid, tokens = g["id"], {x["seat"]: x["token"] for x in g["seats"]}
                    self.acked[gid] = []
                    st = await self.timed(s, None, "GET", f"/api/games/{gid}?token={tokens[0]}")
                    while st is not None and not st["over"] and time.monotonic() < min(until, began + 10):
                        mine = await self.timed(s, None, "GET", f"/api/games/{gid}?token={tokens[st['to_move']]}")
                        if mine is None:
                            break
                        await asyncio.sleep(rng.uniform(0.2, 0.6))
                        text = rng.choice(mine["legal_moves"])
                        st = await self.timed(s, "move", "POST", f"/api/games/{gid}/moves?token="
                                                                 f"{tokens[mine['to_move']]}",
                                              {"move": text, "n": mine["n"]})
                        if st is not None:
                            self.acked[gid].append(text)
                    if st is not None and not st["over"]:  # its 10 s are up: abandoned, its record compared
                        await self.timed(s, None, "POST", f"/api/games/{gid}/abandon?token={tokens[0]}", {})
                    await self.check(s, gid)
                await asyncio.sleep(max(0.0, began + 10 - time.monotonic()))

    async def check(self, session, gid: str) -> None:
        """The game's record against the moves the server acknowledged."""
        record = await self.timed(session, None, "GET", f"/api/games/{gid}/record")
        moves = self.acked[gid]
        if record is None or record["moves"] != moves:
            self.lost.append(f"game {gid}: {len(moves)} moves acknowledged, the record has "
                             f"{len(record['moves']) if record else '?'}")

    async def lab(self, until: float) -> None:
        from tower.climbers.build import build_to_json
        from tower.climbers.setup import random_start_tower

        async with self.session(HONEST_LAB) as s:
            start = build_to_json(random_start_tower(3))
            lab = await self.timed(s, None, "POST", "/api/lab", {"build": start, "rules": "free"})
            if lab is None:
                return
            top = max(start["blocks"], key=lambda b: b["origin"][2])
            x, y, z = top["origin"]
            k = 0
            while time.monotonic() < until:
                k += 1
                await self.timed(s, "edit", "POST", f"/api/lab/{lab['id']}/edits",
                                 {"op": "move", "block": top["id"], "origin": [x + k % 2, y, z]})
                await asyncio.sleep(random.uniform(0.8, 1.2))


# --- the soak ------------------------------------------------------------------------------------------------------

async def soak(url: str, pid: int, args) -> tuple[Honest, list[dict], list[tuple[float, float, float]]]:
    honest = Honest(url)
    attacks = list(ATTACKS) if args.attacks == "all" else args.attacks.split(",")
    total = args.calm + len(attacks) * (args.seconds + args.after) + 5
    until = time.monotonic() + total
    rss: list[tuple[float, float, float]] = []  # (when, MiB of the server and its workers, of the server alone)
    phases: list[dict] = []

    async def sample() -> None:
        while time.monotonic() < until:
            main, kids, _ = tree_rss(pid)
            rss.append((time.monotonic(), main + kids, main))
            await asyncio.sleep(1)

    async def attack_all() -> None:
        began = time.monotonic()
        await asyncio.sleep(args.calm)
        phases.append({"name": "quiet", "from": began, "to": time.monotonic()})
        ctx = multiprocessing.get_context("spawn")
        for k, name in enumerate(attacks):
            out = ctx.Queue()
            start = time.monotonic()
            proc = ctx.Process(target=attacker, args=(url, name, addresses_of(name, args.addresses, k), args.seconds,
                                                      out), daemon=True)
            proc.start()
            await asyncio.sleep(args.seconds)
            end = time.monotonic()
            try:
                answers = await asyncio.to_thread(out.get, True, 60)
            except Exception as exc:
                answers = {"the attacker did not report": type(exc).__name__}
            proc.join(10)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)
            await asyncio.sleep(max(0.0, end + args.after - time.monotonic()))
            phases.append({"name": name, "from": start, "to": end, "settled": time.monotonic(), "answers": answers,
                           "addresses": len(addresses_of(name, args.addresses, k))})

    await asyncio.gather(sample(), attack_all(), honest.games(until - 3), honest.lab(until - 3))
    return honest, phases, rss


def window(times: list[tuple[float, float]], a: float, b: float) -> list[float]:
    return [t for when, t in times if a <= when <= b]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--attacks", default="all", help=f"all, or some of {','.join(ATTACKS)}")
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds each attack lasts")
    ap.add_argument("--after", type=float, default=60.0, help="seconds of quiet after each attack")
    ap.add_argument("--calm", type=float, default=30.0, help="seconds of the quiet baseline first")
    ap.add_argument("--addresses", type=int, default=30, help="addresses of each attack (labs, hints: 50)")
    ap.add_argument("--db", default="sqlite",
                    help="sqlite (a fresh file), postgres (a throwaway PostgreSQL cluster: initdb in a temporary "
                         "folder), or a PostgreSQL URL")
    args = ap.parse_args()
    cluster = None
    if args.db == "postgres":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from pg_support import Cluster

        cluster = Cluster()
    with tempfile.TemporaryDirectory() as tmp:
        db_url = cluster.database() if cluster else None if args.db == "sqlite" else args.db
        proc, url = start_server(Path(tmp) / "games.sqlite", "full", db_url)
        try:
            load0 = os.getloadavg()[0]
            honest, phases, rss = asyncio.run(soak(url, proc.pid, args))
            lost = honest.lost
            load1 = os.getloadavg()[0]
        finally:
            proc.terminate()
            proc.wait(30)
            if cluster is not None:
                cluster.stop()
        log = (Path(tmp) / "games.log").read_text()

    def rss_at(when: float, part: int = 1) -> float:
        return min(rss, key=lambda r: abs(r[0] - when))[part]

    quiet = phases[0]
    base = {k: window(v, quiet["from"] + 5, quiet["to"]) for k, v in honest.times.items()}
    base_p95 = pct(base["move"], 0.95)
    print(f"soak of tower serve on {'SQLite' if args.db == 'sqlite' else 'PostgreSQL'} under attacks from many "
          f"addresses: load average {load0:.1f} at the start, "
          f"{load1:.1f} at the end (2 cores, shared)")
    print(f"  quiet baseline ({quiet['to'] - quiet['from']:.0f} s): moves {report.times(base['move'])}; creations "
          f"{report.times(base['create'], (0.95,))}; lab edits {report.times(base['edit'], (0.95,))}; RSS "
          f"{rss_at(quiet['to']):.0f} MiB")
    bad = bool(lost)
    for ph in phases[1:]:
        a, b = ph["from"], ph["to"]
        got = {k: window(v, a, b) for k, v in honest.times.items()}
        errors = [e for when, e in honest.errors if a <= when <= ph["settled"]]
        before, after = rss_at(a), rss_at(ph["settled"])
        largest = max(r[1] for r in rss if a <= r[0] <= ph["settled"])
        move95 = pct(got["move"], 0.95)
        fast = move95 <= max(3 * base_p95, 0.001) and move95 <= 0.1
        memory, back = report.memory(before, largest, after, f"{ph['settled'] - b:.0f} s after")
        ok = fast and not errors and back
        bad |= not ok
        print(f"  {ph['name']} ({ph['addresses']} addresses, {b - a:.0f} s): moves {report.times(got['move'])} "
              f"({move95 / max(base_p95, 1e-9):.1f}x the baseline: {'ok' if fast else 'MISSED'}); creations "
              f"{report.times(got['create'], (0.95,))}; lab edits {report.times(got['edit'], (0.95,))}; honest "
              f"errors {len(errors)}; {memory}; the server's own process {rss_at(a, 2):.0f} -> "
              f"{rss_at(ph['settled'], 2):.0f} MiB")
        report.errors(errors, 4)
        print("      " + report.answered(ph["answers"]))
    print(f"  acknowledged moves: {sum(len(m) for m in honest.acked.values())} in {len(honest.acked)} games, lost: "
          f"{len(lost)}")
    report.errors(lost, 5)
    report.server_log(log)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
