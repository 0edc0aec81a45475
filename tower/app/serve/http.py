"""The HTTP face of the server (aiohttp): the JSON API, the WebSocket feed and the pages (docs/serve.md).

Every error is a JSON object `{"error": "one line", "rule": ...}` with its status: 400 unreadable input, 403 a
token that opens nothing, 404 no such game or path, 409 a refused move (out of turn, illegal: the rule broken),
413 a body over the limit, 503 a write the database refused. Nothing is changed by a refused request.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from tower.app.serve.errors import Refused
from tower.app.serve.server import GameServer, Subscriber
from tower.games.errors import BadInput

log = logging.getLogger("tower.serve")

STATIC = Path(__file__).parent / "static"
MAX_BODY = 1 << 20  # 1 MiB: a move is a few bytes, a long game's record a few tens of kilobytes
SERVER_KEY = web.AppKey("server", GameServer)
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


def _error(status: int, message: str, **extra: Any) -> web.Response:
    return web.json_response({"error": message, **extra}, status=status)


@web.middleware
async def errors_as_json(request: web.Request, handler) -> web.StreamResponse:
    """Refusals, bad input and HTTP errors as one-line JSON; anything unexpected as a 500 (logged), never a
    crash of the server."""
    try:
        return await handler(request)
    except Refused as exc:
        return web.json_response(exc.to_json(), status=exc.status)
    except BadInput as exc:
        return _error(400, exc.what, where=exc.where or "$")
    except web.HTTPRequestEntityTooLarge:
        return _error(413, f"the body is larger than {MAX_BODY} bytes")
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _error(exc.status, exc.reason)
    except Exception:
        log.exception("internal error on %s %s", request.method, request.path)
        return _error(500, "internal error (logged by the server)")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def read_json(request: web.Request) -> Any:
    """The request body as JSON; BadInput (400) for anything else, 413 past MAX_BODY."""
    raw = await request.read()
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise BadInput("the body is not UTF-8 text", "$") from None
    except (ValueError, RecursionError) as exc:
        raise BadInput(f"the body is not JSON: {str(exc)[:120]}", "$") from None


def _token(request: web.Request) -> str:
    return request.query.get("token", "")


def _origin(request: web.Request) -> str:
    return f"{request.scheme}://{request.host}"


def make_app(server: GameServer) -> web.Application:
    app = web.Application(middlewares=[errors_as_json], client_max_size=MAX_BODY)
    app[SERVER_KEY] = server
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

    @routes.get("/api/catalogue")
    async def catalogue(_request: web.Request) -> web.Response:
        from tower.app.serve.lobby import catalogue as cat

        return web.json_response(cat())

    @routes.post("/api/games")
    async def create(request: web.Request) -> web.Response:
        return web.json_response(await server.create(await read_json(request), _origin(request)), status=201)

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
        return web.json_response(await server.take_back(request.match_info["id"], _token(request)))

    @routes.get("/api/games/{id}/hint")
    async def hint(request: web.Request) -> web.Response:
        return web.json_response(await server.hint(request.match_info["id"], _token(request)))

    @routes.get("/api/games/{id}/snapshot")
    async def snapshot(request: web.Request) -> web.Response:
        return web.json_response(await server.snapshot(request.match_info["id"], _token(request)))

    @routes.get("/api/games/{id}/ghosts")
    async def ghosts(request: web.Request) -> web.Response:
        block = request.query.get("block", "")
        return web.json_response(await server.ghosts(request.match_info["id"], _token(request), block))

    @routes.get("/api/games/{id}/record")
    async def record(request: web.Request) -> web.Response:
        rec = await server.record(request.match_info["id"])
        name = f"{rec['game']}-{request.match_info['id']}.json"
        return web.Response(text=json.dumps(rec, indent=1) + "\n", content_type="application/json",
                            headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @routes.get("/api/games/{id}/replay")
    async def replay_game(request: web.Request) -> web.StreamResponse:
        rec = await server.record(request.match_info["id"])
        return await _frames(request, rec)

    @routes.post("/api/replay")
    async def replay_upload(request: web.Request) -> web.StreamResponse:
        return await _frames(request, await read_json(request))

    async def _frames(request: web.Request, rec: Any) -> web.StreamResponse:
        from tower.app.serve.replay import replay_frames

        text = request.query.get("seat", "public")
        if text == "public":
            seat = None
        elif text.isdigit() and len(text) < 4:
            seat = int(text)
        else:
            raise BadInput(f"seat must be a seat number or 'public', got {text!r}", "$.seat")
        doc = await asyncio.to_thread(replay_frames, rec, seat, server.judge)
        resp = web.json_response(doc)
        resp.enable_compression()  # frames repeat most of each other: gzip shrinks them tenfold
        return resp

    @routes.get("/api/games/{id}/ws")
    async def websocket(request: web.Request) -> web.StreamResponse:
        game_id, token = request.match_info["id"], _token(request)
        await server.seat(game_id, token)  # refuse before upgrading: a plain 403/404 the page can read
        ws = web.WebSocketResponse(heartbeat=20, compress=False)
        await ws.prepare(request)

        async def close() -> None:
            await ws.close()

        sub = await server.subscribe(game_id, token, lambda seat: Subscriber(seat, ws.send_str, close))
        sender = asyncio.create_task(sub.run())
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT and msg.data == "ping":
                    await ws.send_str('{"type": "pong"}')
        finally:
            server.unsubscribe(sub)
            sender.cancel()
        return ws

    from tower.app.serve.lab import add_lab_routes

    add_lab_routes(app, routes, server, page, read_json)
    app.add_routes(routes)
    app.router.add_static("/static/", STATIC, append_version=False)

    async def on_startup(_app: web.Application) -> None:
        await server.start()

    async def on_shutdown(_app: web.Application) -> None:
        await server.close_pages()  # before the listener waits for open handlers: the WebSockets end now

    async def on_cleanup(_app: web.Application) -> None:
        await server.close()

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app
