"""The HTTP face of the server (aiohttp): the JSON API, the WebSocket feed and the pages (docs/serve.md).

Every error is a JSON object `{"error": "one line", "rule": ...}` with its status: 400 unreadable input, 403 a
token that opens nothing, 404 no such game or path, 408 a body sent too slowly, 409 a refused move (out of turn,
illegal: the rule broken), 413 a body over the limit, 415 a POST that is not `application/json`, 429 a client over
its limits (with `Retry-After`), 503 a write the database refused. Nothing is changed by a refused request.
Every limit (`limits.py`) is checked before the work it bounds.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from tower.app.serve.connections import Feed, Guard
from tower.app.serve.errors import Refused
from tower.app.serve.limits import DEFAULT, Bucket
from tower.app.serve.server import GameServer, Subscriber
from tower.games.errors import BadInput
from tower.games.reader import parse_text

log = logging.getLogger("tower.serve")

STATIC = Path(__file__).parent / "static"
MAX_BODY = DEFAULT.body_bytes  # a move is a few bytes, a long game's record a few tens of kilobytes
ERROR_CHARS = 300  # an error message is one line of at most this many characters
RATE_PAUSE = 1.0  # seconds before a request over its client's `requests_per_second` is answered 429
SERVER_KEY = web.AppKey("server", GameServer)
GUARD_KEY = web.AppKey("guard", Guard)
CLIENT_KEY = web.RequestKey("client", str)
PAGES = {"lobby": "lobby.html", "game": "game.html", "replay": "replay.html", "lab": "lab.html"}


def _csp() -> str:
    """The pages' Content-Security-Policy: scripts only from this server (the import map by its hash)."""
    import base64
    import hashlib
    import re

    hashes = set()
    for page in PAGES.values():
        for script in re.findall(r"<script type=\"importmap\">(.*?)</script>", (STATIC / page).read_text(), re.S):
            hashes.add("'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'")
    return ("default-src 'self'; script-src 'self' " + " ".join(sorted(hashes)) +
            "; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; "
            "base-uri 'none'; frame-ancestors 'none'")


def _error(status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> web.Response:
    if len(message) > ERROR_CHARS:  # messages may quote the client's input: never more than a line of it
        message = message[:ERROR_CHARS - 3] + "..."
    extra = {k: v[:ERROR_CHARS] if isinstance(v, str) else v for k, v in extra.items()}
    return web.json_response({"error": message, **extra}, status=status, headers=headers)


def _retry(seconds: float | None) -> dict[str, str] | None:
    return None if seconds is None else {"Retry-After": str(max(1, int(seconds + 0.999)))}


@web.middleware
async def errors_as_json(request: web.Request, handler) -> web.StreamResponse:
    """Refusals, bad input and HTTP errors as one-line JSON; anything unexpected as a 500 (logged), never a
    crash of the server. A client that went away is noted in one line, not a traceback. A refused WebSocket
    upgrade closes its connection: what the client sends next is frames, not a request to read (4 MiB each, once
    parsed as HTTP)."""
    resp = await _errors_as_json(request, handler)
    if resp.status >= 400 and request.headers.get("Upgrade", "").lower() == "websocket":
        resp.force_close()
        request.app[GUARD_KEY].penalize(request.remote or "?")
    return resp


async def _errors_as_json(request: web.Request, handler) -> web.StreamResponse:
    guard = request.app[GUARD_KEY]
    guard.busy(request.protocol)
    try:
        resp = await handler(request)
        if resp.status >= 400 and resp.content_type != "application/json":  # e.g. the static files' 404
            return _error(resp.status, resp.reason or "error")
        return _bounded(request, resp)
    except Refused as exc:
        _log_refusal(request, exc.status, exc.message)
        return _error(exc.status, exc.message, _retry(exc.retry_after), rule=exc.rule)
    except BadInput as exc:
        _log_refusal(request, 400, str(exc))
        return _error(400, exc.what, where=exc.where or "$")
    except web.HTTPRequestEntityTooLarge:
        _log_refusal(request, 413, "body over body_bytes")
        return _error(413, f"the body is larger than {request.app[SERVER_KEY].limits.body_bytes} bytes")
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        _log_refusal(request, exc.status, exc.reason)
        allow = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None  # a 405 names the methods
        return _error(exc.status, exc.reason, allow)
    except (ConnectionError, asyncio.CancelledError) as exc:
        log.info("%s %s: the client went away (%s)", request.method, request.path[:80], type(exc).__name__)
        raise
    except Exception:
        log.exception("internal error on %s %s", request.method, request.path[:80])
        return _error(500, "internal error (logged by the server)")
    finally:
        guard.answered(request.protocol)


def _log_refusal(request: web.Request, status: int, message: str) -> None:
    """One line of the log (level INFO) for a refused request, whatever it held: no traceback, no line break, no
    more than a line of the client's input."""
    what = " ".join(message.split())[:200].encode("ascii", "backslashreplace").decode()
    log.info("refused %s %s: %d %s", request.method, request.path[:80].encode("ascii", "backslashreplace").decode(),
             status, what)


def _bounded(request: web.Request, resp: web.StreamResponse) -> web.StreamResponse:
    """`resp`, unless its body is over `answer_bytes`: then a 500 naming the limit (logged: a bound the server's
    own answers should never reach)."""
    limit = request.app[SERVER_KEY].limits.answer_bytes
    body = resp.body if isinstance(resp, web.Response) else None
    if limit > 0 and isinstance(body, bytes | bytearray) and len(body) > limit:
        log.warning("an answer to %s %s of %d bytes was refused (answer_bytes %d)", request.method,
                    request.path[:80], len(body), limit)
        return _error(500, f"the answer would be {len(body)} bytes, over this server's limit answer_bytes ({limit})",
                      rule="answer-too-large")
    return resp


def _client(request: web.Request, trust_proxy: bool) -> str:
    """The client's address: the peer's, or behind a trusted reverse proxy the last `X-Forwarded-For` entry
    (the one the proxy added)."""
    if trust_proxy:
        forwarded = request.headers.get("X-Forwarded-For", "")
        if forwarded:
            return forwarded.rsplit(",", 1)[-1].strip()[:64]
    return request.remote or "?"


async def read_json(request: web.Request) -> Any:
    """The request body as JSON; BadInput (400) for anything else, 413 past the body limit (from its
    Content-Length, before reading it), 415 for another content type, 408 for a body sent too slowly."""
    server = request.app[SERVER_KEY]
    if request.content_type != "application/json":
        raise Refused(415, "not-json", "a POST body must be sent as Content-Type: application/json")
    if request.content_length is not None and request.content_length > server.limits.body_bytes:
        raise web.HTTPRequestEntityTooLarge(max_size=server.limits.body_bytes, actual_size=request.content_length)
    try:
        async with asyncio.timeout(server.limits.body_seconds):
            raw = await request.read()
    except TimeoutError:
        raise Refused(408, "slow-body", f"the body did not arrive within {server.limits.body_seconds:g} s") from None
    # the files' reader (tower/games/reader.py): I-JSON, no duplicate keys, no refused characters; a whole
    # number may be written 6.0 (JSON Schema's number model, which the OpenAPI document's `integer` follows)
    try:
        return parse_text(raw, whole_floats=True)
    except BadInput as exc:
        raise BadInput(f"the body: {exc.what}" if exc.where in ("", "$") else exc.what, exc.where or "$") from None


def _token(request: web.Request) -> str:
    return request.query.get("token", "")[:100]


def _no_body(request: web.Request) -> None:
    """A POST whose body is optional may come without one, and then without a content type; a body (even an
    empty form's, which always names its type) must be `application/json`. A form of another site is refused
    so, before it does anything; a script of another site can send no body without preflight, but these
    requests need a seat's token or a lab's id, which such a script does not have."""
    if "Content-Type" not in request.headers and not request.body_exists:
        return
    if request.content_type != "application/json":
        raise Refused(415, "not-json", "a POST body must be sent as Content-Type: application/json")


async def no_body(request: web.Request) -> None:
    """`_no_body`, and the body, if any, must be empty or `{}` (the OpenAPI document says so; anything else is a
    client's mistake worth telling)."""
    _no_body(request)
    if request.content_length is not None and request.content_length > 64:
        raise BadInput("this request takes no body (or {})", "$")
    raw = (await request.read()).strip()
    if raw:
        try:
            empty = parse_text(raw) == {}
        except BadInput:
            empty = False
        if not empty:
            raise BadInput("this request takes no body (or {})", "$")


def _origin(request: web.Request) -> str:
    return f"{request.scheme}://{request.host}"


def make_app(server: GameServer, trust_proxy: bool = False) -> web.Application:
    limits = server.limits
    # per process; with a shared database each process grants its share (`GameServer.share`)
    requests = server.share(Bucket(limits.requests_per_second, limits.request_burst))
    replaying: dict[str, int] = {}  # client -> replay computations running
    feeds: dict[Any, int] = {}  # client, and (game, seat) -> open WebSocket feeds
    opens = server.share(Bucket(limits.websocket_opens_per_minute / 60, max(1, limits.websockets_per_client)))

    @web.middleware
    async def per_client(request: web.Request, handler) -> web.StreamResponse:
        """The client's request bucket (API requests only: pages and scripts are cheap and cached)."""
        client = _client(request, trust_proxy)
        request[CLIENT_KEY] = client
        if request.path.startswith("/api/"):
            wait = requests.take(client)
            if wait:
                # answered after a pause: a client asking again as soon as refused (20 at once from one address:
                # 620 refusals a second) is so held to a few refusals a second per connection
                await asyncio.sleep(RATE_PAUSE)
                raise Refused(429, "too-many-requests", f"at most {limits.requests_per_second:g} requests a second "
                                                        f"from one address", retry_after=wait)
        return await handler(request)

    app = web.Application(middlewares=[errors_as_json, per_client], client_max_size=limits.body_bytes)
    app[SERVER_KEY] = server
    app[GUARD_KEY] = Guard(limits)
    app[GUARD_KEY].by_peer = not trust_proxy
    csp = _csp()
    routes = web.RouteTableDef()

    def page(name: str):
        body = (STATIC / PAGES[name]).read_bytes()

        async def handler(_request: web.Request) -> web.Response:
            return web.Response(body=body, content_type="text/html", charset="utf-8", headers={
                "Content-Security-Policy": csp, "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})
        return handler

    routes.get("/")(page("lobby"))
    routes.get("/play/{id}")(page("game"))
    routes.get("/replay")(page("replay"))
    routes.get("/replay/{id}")(page("replay"))

    @routes.get("/favicon.ico")
    async def favicon(_request: web.Request) -> web.Response:
        return web.Response(status=204)

    openapi_body: list[bytes] = []  # built on first request: the document of this server, with its limits

    @routes.get("/api/openapi.json")
    async def openapi(_request: web.Request) -> web.Response:
        if not openapi_body:
            from tower.app.serve.openapi import openapi_document

            openapi_body.append(json.dumps(openapi_document(limits)).encode())
        return web.Response(body=openapi_body[0], content_type="application/json")

    asyncapi_body: list[bytes] = []

    @routes.get("/api/asyncapi.json")
    async def asyncapi(_request: web.Request) -> web.Response:
        if not asyncapi_body:
            from tower.app.serve.openapi import asyncapi_document

            asyncapi_body.append(json.dumps(asyncapi_document(limits)).encode())
        return web.Response(body=asyncapi_body[0], content_type="application/json")

    @routes.get("/api/catalogue")
    async def catalogue(_request: web.Request) -> web.Response:
        from tower.app.serve.lobby import catalogue as cat

        return web.json_response(cat())

    @routes.post("/api/games")
    async def create(request: web.Request) -> web.Response:
        return web.json_response(await server.create(await read_json(request), _origin(request), request[CLIENT_KEY]),
                                 status=201)

    @routes.get("/api/games/{id}")
    async def answer(request: web.Request) -> web.Response:
        return web.json_response(await server.answer(request.match_info["id"], _token(request)))

    @routes.post("/api/games/{id}/moves")
    async def play(request: web.Request) -> web.Response:
        game_id, token = request.match_info["id"], _token(request)
        await server.seat(game_id, token)  # a bad token is 403 whatever the body holds
        return web.json_response(await server.play(game_id, token, await read_json(request)))

    @routes.post("/api/games/{id}/undo")
    async def undo(request: web.Request) -> web.Response:
        await no_body(request)
        return web.json_response(await server.take_back(request.match_info["id"], _token(request)))

    @routes.post("/api/games/{id}/abandon")
    async def abandon(request: web.Request) -> web.Response:
        await no_body(request)
        return web.json_response(await server.abandon(request.match_info["id"], _token(request)))

    @routes.post("/api/games/{id}/name")
    async def name(request: web.Request) -> web.Response:
        game_id, token = request.match_info["id"], _token(request)
        await server.seat(game_id, token)
        return web.json_response(await server.name(game_id, token, await read_json(request)))

    @routes.post("/api/games/{id}/rematch")
    async def rematch(request: web.Request) -> web.Response:
        if await read_json(request) != {}:
            raise BadInput("the body of a rematch request is {}", "$")
        return web.json_response(await server.rematch(request.match_info["id"], _token(request), _origin(request),
                                                      request[CLIENT_KEY]), status=201)

    @routes.get("/api/games/{id}/hint")
    async def hint(request: web.Request) -> web.Response:
        return web.json_response(await server.hint(request.match_info["id"], _token(request), request[CLIENT_KEY]))

    @routes.get("/api/games/{id}/snapshot")
    async def snapshot(request: web.Request) -> web.Response:
        return web.json_response(await server.snapshot(request.match_info["id"], _token(request)))

    def _gzipped(request: web.Request, body: bytes) -> web.Response:
        """A JSON answer the workers encoded and gzipped (hundreds of kilobytes: not in this event loop), sent as
        it is to a client that accepts gzip, unpacked for one that does not."""
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            return web.Response(body=body, content_type="application/json", headers={"Content-Encoding": "gzip"})
        import gzip

        return web.Response(body=gzip.decompress(body), content_type="application/json")

    @routes.get("/api/games/{id}/ghosts")
    async def ghosts(request: web.Request) -> web.Response:
        block = request.query.get("block", "")
        return _gzipped(request, await server.ghosts(request.match_info["id"], _token(request), block,
                                                     request[CLIENT_KEY]))

    @routes.get("/api/games/{id}/placements")
    async def placements(request: web.Request) -> web.Response:
        block = request.query.get("block", "")
        return _gzipped(request, await server.placements(request.match_info["id"], _token(request), block,
                                                         request[CLIENT_KEY]))

    @routes.get("/api/games/{id}/record")
    async def record(request: web.Request) -> web.Response:
        rec = await server.record(request.match_info["id"])
        name = f"{rec['game']}-{request.match_info['id']}.json"
        return web.Response(text=json.dumps(rec, indent=1) + "\n", content_type="application/json",
                            headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @routes.get("/api/games/{id}/replay")
    async def replay_game(request: web.Request) -> web.StreamResponse:
        game_id = request.match_info["id"]
        rec = await server.record(game_id)  # a finished game never changes: its pages are kept (`replays`)
        return await _page(request, "game:" + game_id, rec, cache=True)

    @routes.post("/api/replay")
    async def replay_upload(request: web.Request) -> web.StreamResponse:
        from tower.app.serve.replay import check_record, record_key

        rec = await read_json(request)
        check_record(rec, limits)  # the sizes first, before any move is replayed
        return await _page(request, record_key(rec), rec, cache=False)

    def _int(request: web.Request, name: str, default: int) -> int:
        text = request.query.get(name)
        if text is None:
            return default
        if not (text.isascii() and text.isdigit() and len(text) <= 6):
            raise BadInput(f"{name} must be a whole number, got {text[:20]!r}", f"$.{name}")
        return int(text)

    async def _page(request: web.Request, key: str, rec: Any, cache: bool) -> web.StreamResponse:
        """One page of a replay (`replay.replay_page`), computed in the replay worker: at most
        `replays_per_client` at a time per client, `replays_at_once` on the server; finished games' pages kept."""
        from tower.app.serve.replay import replay_page_gzip

        text = request.query.get("seat", "public")
        if text == "public":
            seat = None
        elif text.isascii() and text.isdigit() and len(text) < 4:
            seat = int(text)
        else:
            raise BadInput(f"seat must be a seat number or 'public', got {text[:20]!r}", "$.seat")
        start, count = _int(request, "from", 0), _int(request, "count", limits.replay_page)
        slot = (key, seat, start, min(count, limits.replay_page))
        body = server.replays.get(slot) if cache else None
        if body is None:
            client = request[CLIENT_KEY]
            if replaying.get(client, 0) >= limits.replays_per_client:
                raise Refused(429, "replay-running", "a replay of yours is being computed; ask again when it is "
                                                     "done", retry_after=1)
            replaying[client] = replaying.get(client, 0) + 1
            try:
                async with server.replay_queue:
                    body = await server.replayer.run(replay_page_gzip, key, rec, seat, start, count, server.judge,
                                                     limits)
            finally:
                if replaying[client] <= 1:
                    del replaying[client]
                else:
                    replaying[client] -= 1
            if cache:
                server.replays.put(slot, body)
        return _gzipped(request, body)

    @routes.get("/api/games/{id}/ws")
    async def websocket(request: web.Request) -> web.StreamResponse:
        game_id, token = request.match_info["id"], _token(request)
        _, seat = await server.seat(game_id, token)  # refuse before upgrading: a plain 403/404 the page can read
        client, place = request[CLIENT_KEY], (game_id, seat)
        if feeds.get(client, 0) >= limits.websockets_per_client:
            raise Refused(429, "too-many-feeds", f"this address has {feeds[client]} game pages open "
                                                 f"(websockets_per_client); close one first", retry_after=5)
        if seat is not None and feeds.get(place, 0) >= limits.websockets_per_seat:
            raise Refused(429, "too-many-feeds", f"this seat has {feeds[place]} pages open (websockets_per_seat); "
                                                 f"close one first", retry_after=5)
        wait = opens.take(client)  # each feed opened costs a snapshot: 250 a second once took the loop's time
        if wait:
            raise Refused(429, "too-many-feeds", f"at most {limits.websocket_opens_per_minute:g} pages opened a "
                                                 f"minute from one address (websocket_opens_per_minute)",
                          retry_after=wait)
        for key in (client, place):
            feeds[key] = feeds.get(key, 0) + 1
        try:
            ws = Feed(limits)
            await ws.prepare(request)

            async def close() -> None:
                await ws.close()

            sub = await server.subscribe(game_id, token, lambda seat: Subscriber(seat, ws.send_str, close))
            sender = asyncio.create_task(sub.run())
            watch = asyncio.create_task(ws.watch(request.transport))
            try:
                async for msg in ws:
                    if msg.type == WSMsgType.ERROR:  # a frame past the limits: cut now, its rest unread
                        if request.transport is not None:
                            request.transport.abort()
                        request.app[GUARD_KEY].penalize(request.remote or "?")
                        break
                    ws.received()
                    if msg.type == WSMsgType.PING:
                        await ws.pong(msg.data)
                    elif msg.type == WSMsgType.TEXT and msg.data == "ping":
                        if requests.take(client):  # a feed's messages count against the client's requests too
                            break
                        await ws.send_str('{"type": "pong"}')
            finally:
                server.unsubscribe(sub)
                sender.cancel()
                watch.cancel()
        finally:
            for key in (client, place):
                if feeds[key] <= 1:
                    del feeds[key]
                else:
                    feeds[key] -= 1
        return ws

    from tower.app.serve.lab import add_lab_routes

    add_lab_routes(app, routes, server, page, read_json, no_body, lambda request: request[CLIENT_KEY])
    root = STATIC.resolve()

    @routes.get("/static/{tail:.+}")
    async def static(request: web.Request) -> web.StreamResponse:
        """The pages' scripts and styles; anything else (a missing file, a path out of the folder) is a JSON 404."""
        try:
            path = (root / request.match_info["tail"]).resolve()
            found = path.is_relative_to(root) and path.is_file()
        except (OSError, ValueError):  # a name too long for the file system, a NUL byte: no such file either
            found = False
        if not found:
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    app.add_routes(routes)

    async def on_startup(_app: web.Application) -> None:
        app[GUARD_KEY].start()
        await server.start()

    async def on_shutdown(_app: web.Application) -> None:
        await server.close_pages()  # before the listener waits for open handlers: the WebSockets end now

    async def on_cleanup(_app: web.Application) -> None:
        app[GUARD_KEY].stop()
        await server.close()

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app
