"""Connections that take too long are closed: the watchdog of `tower serve` (docs/serve.md, "Limits").

aiohttp closes an idle keep-alive connection, but it waits for ever for a request whose headers never end, and it
keeps any number of connections of one client. The guard gives every connection a deadline: a new one must have
its first request's headers read within `header_seconds`; after an answer the next request must begin within
`idle_seconds`; while a request is handled there is none (the body has `body_seconds`, a WebSocket its
heartbeat). A client may hold `connections_per_client` connections; more are closed in the watchdog's next round
(within a second).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from tower.app.serve.limits import Limits

log = logging.getLogger("tower.serve")


class Guard:
    """Deadlines of the open connections of one aiohttp `web.Server` (see the module's docstring)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.deadline: dict[Any, float | None] = {}  # protocol -> when it is closed (None: a request runs)
        self.client: dict[Any, str] = {}
        self.per_client: dict[str, int] = {}
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
            self.deadline[handler] = time.monotonic() + self.limits.header_seconds
            if self.per_client[client] > self.limits.connections_per_client:
                # closed by the watchdog's next round: closing it here, before aiohttp has started the
                # connection's task, would fail that task
                self.deadline[handler] = 0.0

        def connection_lost(handler: Any, exc: BaseException | None) -> None:
            lost(handler, exc)
            self.deadline.pop(handler, None)
            client = self.client.pop(handler, None)
            if client is not None:
                left = self.per_client.get(client, 1) - 1
                if left > 0:
                    self.per_client[client] = left
                else:
                    self.per_client.pop(client, None)

        server.connection_made, server.connection_lost = connection_made, connection_lost

    def busy(self, handler: Any) -> None:
        """A request of this connection is being handled: no deadline meanwhile."""
        if handler in self.deadline:
            self.deadline[handler] = None

    def answered(self, handler: Any) -> None:
        """The answer is sent: the next request must come within `idle_seconds`."""
        if handler in self.deadline:
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
