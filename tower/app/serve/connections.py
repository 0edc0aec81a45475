"""Connections that take too long are closed: the watchdog of `tower serve` (docs/serve.md, "Limits").

aiohttp closes an idle keep-alive connection, but it waits for ever for a request whose headers never end, and it
keeps any number of connections of one client. The guard gives every connection a deadline: a new one must have
its first request's headers read within `header_seconds`; after an answer the next request must begin within
`idle_seconds`; while a request is handled there is none (the body has `body_seconds`, a WebSocket its
heartbeat). A client may hold `connections_per_client` connections; one more is answered `429` and closed as it
opens, before it can send a request (so no request, WebSocket or slow body keeps it open). A client whose
connections the server closed for a broken limit `refused_connections_per_minute` times (`penalize`: a refused
WebSocket upgrade, a frame too long; burst `websockets_per_client`) has its new connections wait a second unread,
then answered `429` and closed the same way: a client that opens connections again as fast as they are refused
then costs an accept and a write a second, not a request's parsing and handling each time (200 sockets of 30
addresses once made 800 refused upgrades a second).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from aiohttp import web

from tower.app.serve.limits import Bucket, Limits

log = logging.getLogger("tower.serve")

#: What a connection over its client's limit is told before it is closed.
def _answer(message: bytes, rule: bytes) -> bytes:
    body = b'{"error": "%s", "rule": "%s"}' % (message, rule)
    return (b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 5\r\n"
            b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))


#: Seconds a connection of a client past its `refused_connections_per_minute` waits, unread, for its 429 (an
#: attacker's sockets then each open about one connection a second, not as many as the server can refuse), while at
#: most REFUSED_HELD wait so; one over `connections_per_client` is refused at once (it holds a place of the client's
#: own).
REFUSE_SECONDS = 1.0
REFUSED_HELD = 2048
TOO_MANY = _answer(b"this address has too many connections open", b"connections-per-client")
TOO_OFTEN = _answer(b"this address broke the server's limits too often (refused_connections_per_minute)",
                    b"refused-connections")


def _refuse(transport: Any, answer: bytes = TOO_MANY) -> None:
    """Tell a connection over its client's limit so, and close it."""
    if not transport.is_closing():
        transport.write(answer)
        transport.close()


class Guard:
    """Deadlines of the open connections of one aiohttp `web.Server` (see the module's docstring)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.deadline: dict[Any, float | None] = {}  # protocol -> when it is closed (None: a request runs)
        self.client: dict[Any, str] = {}
        self.per_client: dict[str, int] = {}
        self.by_peer = True  # clients are their connections' addresses (not behind a trusted proxy)
        self.penalties = Bucket(limits.refused_connections_per_minute / 60, max(1, limits.websockets_per_client))
        self.refused: set[Any] = set()  # connections over their client's limit, being closed
        self.closed = 0  # connections closed by the guard (for tests and figures)
        self._task: asyncio.Task | None = None

    def install(self, server: Any) -> None:
        """Wrap the `connection_made` / `connection_lost` of aiohttp's `web.Server` (the protocols' manager)."""
        made, lost = server.connection_made, server.connection_lost

        def connection_made(handler: Any, transport: Any) -> None:
            made(handler, transport)
            peer = transport.get_extra_info("peername")
            client = str(peer[0]) if peer else "?"
            self.client[handler] = client
            self.per_client[client] = self.per_client.get(client, 0) + 1
            over = self.per_client[client] > self.limits.connections_per_client
            if over or self.penalties.used(client) > self.penalties.burst - 1:
                # closed at once, but after aiohttp has made the connection's task (closing it before would
                # fail that task)
                self.refused.add(handler)
                self.closed += 1
                transport.pause_reading()  # nothing it sends is read
                wait = 0 if over or len(self.refused) > REFUSED_HELD else REFUSE_SECONDS
                asyncio.get_running_loop().call_later(wait, _refuse, transport, TOO_MANY if over else TOO_OFTEN)
            else:
                self.deadline[handler] = time.monotonic() + self.limits.header_seconds

        def connection_lost(handler: Any, exc: BaseException | None) -> None:
            lost(handler, exc)
            self.deadline.pop(handler, None)
            self.refused.discard(handler)
            client = self.client.pop(handler, None)
            if client is not None:
                left = self.per_client.get(client, 1) - 1
                if left > 0:
                    self.per_client[client] = left
                else:
                    self.per_client.pop(client, None)

        server.connection_made, server.connection_lost = connection_made, connection_lost

    def penalize(self, client: str) -> None:
        """A connection of `client` is closed for a broken limit: one of its `refused_connections_per_minute`
        (not behind a trusted proxy, whose address every client shares)."""
        if self.by_peer:
            self.penalties.take(client)

    def busy(self, handler: Any) -> None:
        """A request of this connection is being handled: no deadline meanwhile (a connection being closed
        stays closed)."""
        if handler in self.deadline and handler not in self.refused:
            self.deadline[handler] = None

    def answered(self, handler: Any) -> None:
        """The answer is sent: the next request must come within `idle_seconds`."""
        if handler in self.deadline and handler not in self.refused:
            self.deadline[handler] = time.monotonic() + self.limits.idle_seconds

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._watch())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _watch(self) -> None:
        every = max(0.05, min(1.0, self.limits.header_seconds / 4, self.limits.idle_seconds / 4))
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            late = [h for h, d in self.deadline.items() if d is not None and d < now]
            for handler in late:
                self.deadline.pop(handler, None)
                self.closed += 1
                try:
                    handler.force_close()
                except Exception as exc:  # already closing: nothing left to do
                    log.debug("closing a late connection: %s", exc)


class Feed(web.WebSocketResponse):
    """A game page's WebSocket, bounded as the page uses it: the page sends nothing but the answers to the
    heartbeat's pings (and a bot perhaps `ping`), so a message may be at most `websocket_message_bytes`
    (`max_msg_size`: a longer frame is refused from its header, before its payload is buffered), and a frame begun
    must end within `websocket_frame_seconds` (`watch`: else the connection is cut). 200 unfinished frames of 4 MiB
    once held 846 MiB, and kept most of it after they closed."""

    def __init__(self, limits: Limits) -> None:
        super().__init__(heartbeat=20, compress=False, autoping=False, timeout=2.0,
                         max_msg_size=max(16, limits.websocket_message_bytes))
        self.frame_seconds = limits.websocket_frame_seconds
        self.begun: float | None = None  # when bytes of a message not yet whole first came

    def _on_data_received(self) -> None:  # aiohttp's hook for every chunk the connection receives
        if self.begun is None:
            self.begun = time.monotonic()
        super()._on_data_received()

    def received(self) -> None:
        """A whole message (a ping or pong too) came: no frame is left unfinished."""
        self.begun = None

    async def watch(self, transport: Any) -> None:
        """Cut the connection when a frame stays unfinished for `frame_seconds` (run beside the reading loop)."""
        while not self.closed:
            await asyncio.sleep(min(1.0, self.frame_seconds / 4))
            if self.begun is not None and time.monotonic() - self.begun > self.frame_seconds:
                log.info("a WebSocket frame stayed unfinished for %g s: connection closed", self.frame_seconds)
                if transport is not None:
                    transport.abort()
                return
