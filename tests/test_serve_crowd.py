"""Many addresses at once (docs/serve.md, "Limits"; issue 47): what once broke when an attack came from many
loopback addresses beside an honest client, each repeated small here and now bounded. Every test speaks from
addresses of its own (127.0.0.N, each one client of the server).

1. WebSocket frames: 200 feeds each sending 4 MiB of one unfinished frame held 846 MiB: a message is capped at
   what the page sends (`websocket_message_bytes`, refused from the frame's header) and a frame begun must end
   within `websocket_frame_seconds`.
"""

from __future__ import annotations

import base64
import os
import socket
import struct
import time

import pytest

from tower.app.serve.client import Client
from tower.app.serve.limits import Limits
from tower.app.serve.run import ServerThread

LIMITS = Limits(websocket_frame_seconds=1.0, game_burst=100)
_addresses = iter(range(10, 250))


def fresh() -> str:
    return f"127.0.4.{next(_addresses)}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("crowd") / "games.sqlite"), ai_pause=0, workers=1,
                      limits=LIMITS) as srv:
        yield srv


def _feed(server, game: dict, source: str) -> socket.socket:
    """A WebSocket feed opened by hand (the handshake, then the first message left unread)."""
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5, source_address=(source, 0))
    key = base64.b64encode(os.urandom(16)).decode()
    token = game["spectator_url"].split("token=")[1]
    sock.sendall(f"GET /api/games/{game['id']}/ws?token={token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _cut_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed the connection (None: still open after `seconds`)."""
    began = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - began < seconds:
        try:
            if not sock.recv(65536):
                return time.monotonic() - began
        except TimeoutError:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return time.monotonic() - began
    return None


def _frame_head(length: int) -> bytes:
    """A masked text frame's header declaring `length` payload bytes, and its mask."""
    if length < 126:
        return bytes([0x81, 0x80 | length]) + b"mask"
    if length < 65536:
        return bytes([0x81, 0x80 | 126]) + struct.pack(">H", length) + b"mask"
    return bytes([0x81, 0x80 | 127]) + struct.pack(">Q", length) + b"mask"


def test_websocket_frames_are_capped_at_what_the_page_sends_and_must_finish(server):
    api = Client(server.url, source=fresh())
    game = api.create("diabolo", seats=["human"] * 3)
    attacker = fresh()
    # a frame declaring 4 MiB: refused from its header, nothing of it buffered
    big = _feed(server, game, attacker)
    big.sendall(_frame_head(4 * 1024 * 1024) + b"x" * 60_000)
    assert _cut_within(big, 3.0) is not None
    # a small frame left unfinished, a byte now and then: cut after websocket_frame_seconds
    slow = _feed(server, game, attacker)
    slow.sendall(_frame_head(100) + b"x" * 10)
    began = time.monotonic()
    while time.monotonic() - began < 5 * LIMITS.websocket_frame_seconds:
        try:
            slow.sendall(b"x")
        except OSError:
            break
        if _cut_within(slow, 0.3) is not None:
            break
    assert time.monotonic() - began < 4 * LIMITS.websocket_frame_seconds + 1
    # an honest feed that pings now and then stays open past the frame timeout, and is answered
    honest = _feed(server, game, fresh())
    for _ in range(3):
        honest.sendall(_frame_head(4) + bytes(c ^ m for c, m in zip(b"ping", b"mask", strict=True)))
        time.sleep(LIMITS.websocket_frame_seconds * 0.8)
    honest.settimeout(2)
    got = b""
    while got.count(b'{"type": "pong"}') < 3:
        chunk = honest.recv(65536)
        assert chunk, "the honest feed was closed"
        got += chunk
    for sock in (big, slow, honest):
        sock.close()
