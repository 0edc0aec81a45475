"""Shared lines served round-robin by client (docs/serve.md, "Limits"): the hints' worker, the AI seats' searches,
the games' heavy work. A first-come line let the clients with the most requests in flight take every place: hints
of 50 addresses kept an honest client's hint out (503 on 24 of 39).

A `FairLine` has `slots` places at work. Jobs that wait are kept per client, and when a place frees the next
client in turn gets it: a client with ten jobs waiting is served once, then every other client waiting is served
once, then it again. A client may have at most `per_client` jobs waiting or at work (one more: Refused 429), and
at most `clients` clients may wait at once (one more: 503), a bound on memory, not on fairness: a newcomer is
refused only when that many others each have a job waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque
from collections.abc import AsyncIterator

from tower.app.serve.errors import Refused


class FairLine:
    """`slots` places at work, waiting jobs served round-robin by client (see the module's docstring)."""

    def __init__(self, slots: int, per_client: int | None = 1, clients: int = 256, what: str = "job",
                 busy_rule: str = "busy", full_rule: str = "line-full") -> None:
        self.slots = max(1, slots)
        self.per_client = per_client
        self.clients = max(1, clients)
        self.what, self.busy_rule, self.full_rule = what, busy_rule, full_rule
        self.working = 0
        self.held: dict[str, int] = {}  # client -> its jobs waiting or at work
        self._waiting: OrderedDict[str, deque[asyncio.Future]] = OrderedDict()  # in turn order
        self.order: deque[str] = deque(maxlen=256)  # the clients given a place, latest last (tests, figures)

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._waiting.values())

    def _admit(self, client: str) -> None:
        mine = self.held.get(client, 0)
        if self.per_client is not None and mine >= self.per_client:
            raise Refused(429, self.busy_rule, f"a {self.what} of yours is being worked out or waits; ask again "
                                               f"when it is done", retry_after=1)
        if client not in self._waiting and len(self._waiting) >= self.clients:
            raise Refused(503, self.full_rule, f"{len(self._waiting)} clients' {self.what}s are waiting; try again "
                                               f"shortly", retry_after=2)
        self.held[client] = mine + 1

    def _release(self, client: str) -> None:
        left = self.held.get(client, 1) - 1
        if left > 0:
            self.held[client] = left
        else:
            self.held.pop(client, None)

    def _next(self) -> None:
        """Give the free places to the waiting clients in turn."""
        while self.working < self.slots and self._waiting:
            client, line = next(iter(self._waiting.items()))
            fut = line.popleft()
            if line:
                self._waiting.move_to_end(client)  # its next job waits for every other client's turn
            else:
                del self._waiting[client]
            if fut.done():  # its asker gave up meanwhile
                continue
            self.working += 1
            fut.set_result(None)

    @contextlib.asynccontextmanager
    async def turn(self, client: str) -> AsyncIterator[None]:
        """Wait for the client's turn, then hold a place for the block's work."""
        self._admit(client)
        try:
            if self.working < self.slots and not self._waiting:
                self.working += 1
            else:
                fut = asyncio.get_running_loop().create_future()
                self._waiting.setdefault(client, deque()).append(fut)
                try:
                    await fut
                except BaseException:
                    if fut.done() and not fut.cancelled():  # given a place just as it was cancelled: pass it on
                        self.working -= 1
                        self._next()
                    else:
                        fut.cancel()
                        line = self._waiting.get(client)
                        if line is not None and fut in line:
                            line.remove(fut)
                            if not line:
                                del self._waiting[client]
                    raise
        except BaseException:
            self._release(client)
            raise
        self.order.append(client)
        try:
            yield
        finally:
            self.working -= 1
            self._release(client)
            self._next()
