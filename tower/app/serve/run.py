"""Running the server: in the foreground for `tower serve`, or in a background thread for tests and benchmarks."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from tower.app.serve.http import GUARD_KEY, make_app
from tower.app.serve.server import GameServer


class _OneLine(logging.Filter):
    """aiohttp's own log: a client that hung up mid-request is one line, not a traceback; so is a request that
    HTTP itself refuses (a NUL byte in a header, a line too long, bytes that are no HTTP request: answered 400 by
    aiohttp before any handler), which is bad input, not a fault of the server (a flood of them once wrote 48,000
    lines of tracebacks in 30 s)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, (ConnectionError, asyncio.CancelledError)):
            record.msg, record.args, record.exc_info = f"a client went away: {type(exc).__name__}", (), None
            record.levelno, record.levelname = logging.INFO, "INFO"
        elif isinstance(exc, HttpProcessingError):
            what = " ".join(str(exc.message).split())[:200]  # aiohttp's message quotes the line on lines of its own
            # INFO, not WARNING: a flood of them is an attack's noise, not a fault of the server
            record.msg, record.args, record.exc_info = "refused a malformed HTTP request (%s %s)", (exc.code, what), None
            record.exc_text, record.levelno, record.levelname = None, logging.INFO, "INFO"
        return True


logging.getLogger("aiohttp.server").addFilter(_OneLine())

#: The interpreter's switch interval in the server (seconds; Python's default is 0.005).
SWITCH_SECONDS = 0.001


async def _start(db: str, host: str, port: int, trust_proxy: bool = False,
                 **options: Any) -> tuple[web.AppRunner, str]:
    server = GameServer(db, **options)
    app = make_app(server, trust_proxy)
    runner = web.AppRunner(app, access_log=None, handle_signals=False,
                           keepalive_timeout=server.limits.idle_seconds + 5,
                           lingering_time=min(1.0, server.limits.body_seconds))
    await runner.setup()
    app[GUARD_KEY].install(runner.server)
    site = web.TCPSite(runner, host, port, reuse_address=True)
    await site.start()
    sock = site._server.sockets[0]  # type: ignore[union-attr]  # the real port when 0 was asked for
    real_host, real_port = sock.getsockname()[:2]
    shown = f"[{real_host}]" if ":" in real_host else real_host
    return runner, f"http://{shown}:{real_port}"


def run_server(db: str, host: str = "127.0.0.1", port: int = 8000, ready=print, **options: Any) -> None:
    """Serve until SIGINT or SIGTERM; `ready(url)` is called with the lobby's URL once listening."""

    async def main() -> None:
        # the event loop gets the interpreter back from a busy thread of the games' work within 1 ms, not 5 ms:
        # an answer gives it up at every read, write and commit, and once waited 5 ms each time
        sys.setswitchinterval(SWITCH_SECONDS)
        runner, url = await _start(db, host, port, **options)
        ready(url + "/")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            await runner.cleanup()

    asyncio.run(main())


class ServerThread:
    """A server on its own event loop in a background thread (tests, benchmarks): `url`, then `stop()`."""

    def __init__(self, db: str, host: str = "127.0.0.1", port: int = 0, **options: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self.url = ""
        self._thread = threading.Thread(target=self._run, args=(db, host, port, options), daemon=True)
        self._thread.start()
        self._ready.wait(60)
        if self._error is not None:
            raise self._error
        if not self.url:
            raise RuntimeError("the server did not start within 60 s")

    def _run(self, db: str, host: str, port: int, options: dict[str, Any]) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.runner, self.url = self.loop.run_until_complete(_start(db, host, port, **options))
        except BaseException as exc:  # handed to the constructor, which raises it in the caller's thread
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.runner.cleanup())
        pending = asyncio.all_tasks(self.loop)  # e.g. connections still lingering over an unread body
        for task in pending:
            task.cancel()
        self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.loop.close()

    @property
    def server(self) -> GameServer:
        from tower.app.serve.http import SERVER_KEY

        return self.runner.app[SERVER_KEY]

    def call(self, coro, timeout: float = 60) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(30)

    def __enter__(self) -> ServerThread:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
