"""Hidden hands stay hidden: every byte the server sends to one seat (and to a spectator) over whole games of each
card game is recorded at the socket, and searched for the other seats' hands, the order of the draw pile, the
seed and the random generator's state.

The bytes are caught by a TCP relay between the seat's connections and the server, so everything counts: HTTP
answers (state, moves, hints, snapshots, refused take-backs) and every WebSocket message. The truth is read
afterwards from the game's record (public once the game is over), replayed move by move.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import threading

import pytest
from serve_support import ROOMY  # noqa: E402

from tower.app.serve.client import Client  # noqa: E402
from tower.app.serve.run import ServerThread  # noqa: E402
from tower.games import load_record  # noqa: E402

SEED = 2_079_813_467  # ten digits (seeds are 0..2^31-1): long enough never to appear in a JSON answer by chance
#: the draw pile as a game stores it -> the cards as views name them (tests may know the games)
DECK_NAMES = {
    "diabolo": lambda cards: [__import__("cardgames.diabolo", fromlist=["card_text"]).card_text(k) for k in cards],
    "partners": lambda cards: [__import__("cardgames.partners", fromlist=["card_name"]).card_name(c) for c in cards],
    "seventh-heaven": lambda cards: list(cards),
}
GAMES = [("diabolo", 3), ("seventh-heaven", 3), ("partners", 4)]
RUN = 5  # cards of the draw pile in a row that must never be sent together


class Recorder:
    """A TCP relay to the server that keeps every byte the server sends through it."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.streams: list[bytearray] = []  # one a connection: streams of two connections never interleave
        self.lock = threading.Lock()
        self.recording = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            threading.Thread(target=self._pipe, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, True), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, keep: bool) -> None:
        received = bytearray()
        if keep:
            with self.lock:
                self.streams.append(received)
        try:
            while data := src.recv(65536):
                if keep:
                    with self.lock:
                        if self.recording:
                            received += data
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stop(self) -> bytes:
        """Everything received, each connection's bytes in one piece (NUL between connections)."""
        with self.lock:
            self.recording = False
            return b"\x00".join(bytes(s) for s in self.streams)


def found(patterns: set[bytes], data: bytes) -> list[bytes]:
    """The patterns that occur in `data`. The bytes are cut where a JSON object starts and each distinct piece is
    searched once: no pattern holds a "{", so none is cut, and the same scenes are sent hundreds of times."""
    haystack = b"\x00".join(set(data.split(b"{")))
    return sorted(p for p in patterns if p in haystack)


class Listener:
    """A page's WebSocket (through a recorder) in a thread of its own, reading until the game is over."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.messages: list[dict] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self.thread.start()

    async def _run(self) -> None:
        import aiohttp

        async with aiohttp.ClientSession() as session, session.ws_connect(self.url, autoping=True) as ws:
            async for msg in ws:
                doc = json.loads(msg.data)
                self.messages.append(doc)
                if doc.get("type") == "snapshot" and doc["snapshot"]["over"]:
                    break
        self.done.set()


def _ws(base: str, game_id: str, token: str) -> str:
    return base.replace("http://", "ws://") + f"/api/games/{game_id}/ws?token={token}"


class Truth:
    """What the game really holds at every moment of the run (read from the server's own table between
    requests), taken-back branches included: the secrets to look for, and what each reader may see."""

    def __init__(self, game: str, players: int) -> None:
        self.game, self.players = game, players
        self.secrets: dict[int | None, set[bytes]] = {r: set() for r in (0, None)}
        self.visible: dict[int | None, list[str]] = {r: [] for r in (0, None)}

    def note(self, state) -> None:
        data = state.to_json()
        common = {str(v).encode() for v in data["rng"][1][100:104]}  # numbers of the generator's state
        for deck in (data["deck"], DECK_NAMES[self.game](data["deck"])):  # as stored, and as views name cards
            for i in range(0, max(len(deck) - RUN + 1, 0), 2):
                common.add(", ".join(json.dumps(c) for c in deck[i:i + RUN]).encode())
        for reader in (0, None):
            found = self.secrets[reader]
            found.update(common)
            for q in range(self.players):
                hand = state.view(q)["hand"]
                if q != reader and len(hand) >= 3:
                    found.update((json.dumps(hand).encode(), " ".join(hand).encode()))
            view = state.public_view() if reader is None else state.view(reader)
            self.visible[reader].append(json.dumps(view))
            if reader is not None:
                self.visible[reader].append(" ".join(view["hand"]))

    def patterns(self, reader: int | None, seed: int) -> tuple[set[bytes], set[bytes]]:
        """(patterns that would betray a secret, those of them that also occur in what `reader` may see: its own
        hand may equal another's by chance, and then the pattern proves nothing)."""
        patterns = self.secrets[reader] | {str(seed).encode()}
        seen = "\n".join(self.visible[reader]).encode()
        return patterns, {p for p in patterns if p in seen}


def play_recorded(tmp_path, game: str, players: int, seed: int = SEED):
    """A whole game: seat 0 plays through a recorder (state, moves, hints, take-backs, snapshots, its page's
    WebSocket), a spectator's page listens through another, the other seats play directly. Returns the bytes
    of seat 0, the bytes of the spectator, the record, the truth, and the messages seat 0's page received."""
    truth = Truth(game, players)
    with ServerThread(str(tmp_path / "games.sqlite"), ai_pause=0, workers=1, limits=ROOMY) as srv:
        host, port = srv.url.removeprefix("http://").split(":")
        direct = Client(srv.url)
        created = direct.create(game, seats=["human"] * players, seed=seed)
        gid = created["id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        watch = created["spectator_url"].split("token=")[1]
        mine, spect = Recorder((host, int(port))), Recorder((host, int(port)))
        page0 = Listener(_ws(mine.url, gid, tokens[0]))
        page_s = Listener(_ws(spect.url, gid, watch))
        me, spectator = Client(mine.url), Client(spect.url)
        rng = random.Random(seed % 1000)
        for _ in range(20_000):
            truth.note(srv.server.tables[gid].state)
            st = me.state(gid, tokens[0])
            if rng.random() < 0.05:
                spectator.state(gid, watch)
            if st["over"]:
                break
            p = st["to_move"]
            if p == 0:
                if rng.random() < 0.15:
                    me.hint(gid, tokens[0])
                if rng.random() < 0.05:
                    me.request("GET", f"/api/games/{gid}/snapshot?token={tokens[0]}")
                me.move(gid, tokens[0], rng.choice(st["legal_moves"]), n=st["n"])
                truth.note(srv.server.tables[gid].state)  # the position the answer showed, even if taken back
                if rng.random() < 0.1:  # a take-back asked for: granted or refused, its answer is recorded
                    me.request("POST", f"/api/games/{gid}/undo?token={tokens[0]}")
            else:
                other = direct.state(gid, tokens[p])
                direct.move(gid, tokens[p], rng.choice(other["legal_moves"]), n=other["n"])
        assert me.state(gid, tokens[0])["over"], "the game did not end"
        assert page0.done.wait(30) and page_s.done.wait(30), "a page did not see the end of the game"
        seat_bytes, spectator_bytes = mine.stop(), spect.stop()
        record = direct.record(gid)
    return seat_bytes, spectator_bytes, record, truth, page0.messages


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """`recorded(game, players)`: the recorded game of `play_recorded` (each game played once for this module)."""
    games: dict[tuple[str, int], tuple] = {}

    def get(game: str, players: int) -> tuple:
        if (game, players) not in games:
            games[game, players] = play_recorded(tmp_path_factory.mktemp(game), game, players)
        return games[game, players]

    return get


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_no_byte_sent_to_a_seat_holds_another_seats_secret(recorded, game, players):
    seat_bytes, spectator_bytes, record, truth, messages = recorded(game, players)
    assert record["seed"] == SEED and len(record["moves"]) > 20
    assert load_record(record).is_over  # the record handed out at the end replays the whole game
    # the recordings are real: seat 0's own hand and the public state did reach it
    assert b'"hand"' in seat_bytes and b"HTTP/1.1 200" in seat_bytes and len(messages) > len(record["moves"]) / 2
    for reader, data in ((0, seat_bytes), (None, spectator_bytes)):
        patterns, coincidences = truth.patterns(reader, SEED)
        checked = patterns - coincidences
        assert len(checked) > 50 and len(coincidences) < len(patterns) / 10
        assert not any(b"{" in p for p in checked)
        leaked = found(checked, data)
        assert not leaked, f"{game}: {'seat 0' if reader == 0 else 'the spectator'} was sent {leaked[:3]}"
    # a spectator is sent no hand at all
    assert b'"hand"' not in spectator_bytes


def test_the_others_moves_are_told_in_their_public_words(recorded):
    """In Partners the card given to the partner in the exchange is face down: seat 0's page hears of the others'
    gifts only that a card was passed, and of its own gifts which card it gave."""
    _, _, _, _, messages = recorded("partners", 4)
    events = [m["event"] for m in messages if m.get("event") and m["event"]["kind"] == "move"]
    others = [e["text"] for e in events if e["player"] != 0]
    mine = [e["text"] for e in events if e["player"] == 0]
    assert any(t.endswith("passed a card to the partner") for t in others)
    assert not any(t.startswith("give") for t in others)
    assert any(t.startswith("give ") for t in mine)
