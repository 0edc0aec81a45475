"""A small synchronous client of the server's JSON API, for scripts and bots (and the tests and benchmark).

    from tower.app.serve.client import Client

    api = Client("http://127.0.0.1:8000")
    game = api.create("diabolo", seats=["human", "human", "ai:greedy"])
    me = game["seats"][0]
    while not (state := api.state(game["id"], me["token"]))["over"]:
        if state["legal_moves"]:
            api.move(game["id"], me["token"], state["legal_moves"][0], n=state["n"])

One keep-alive connection per client; a dropped connection (a restarted server) is opened again once.
"""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import quote, urlsplit


class ApiError(RuntimeError):
    """An answer with an error status: `status`, and the server's `data` ({"error", "rule", ...})."""

    def __init__(self, status: int, data: Any) -> None:
        super().__init__(f"{status}: {data.get('error') if isinstance(data, dict) else data}")
        self.status, self.data = status, data


class Client:
    def __init__(self, url: str, timeout: float = 60, source: str | None = None) -> None:
        """`source`: the local address to connect from (e.g. 127.0.0.7: the server counts each address as one
        client)."""
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self.source = None if source is None else (source, 0)
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout,
                                                    source_address=self.source)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def raw(self, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """One request with a raw body; (status, raw answer)."""
        hdrs = {"Content-Type": "application/json"} if body is not None else {}
        hdrs.update(headers or {})
        for attempt in range(2):
            conn = self._connection()
            try:
                conn.request(method, path, body=body, headers=hdrs)
                resp = conn.getresponse()
                return resp.status, resp.read()
            except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
                self.close()
                if attempt:
                    raise
            except BaseException:  # the connection is in an unknown state: the next request opens a new one
                self.close()
                raise
        raise AssertionError("unreachable")

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request with a JSON body; (status, parsed answer)."""
        status, data = self.raw(method, path, None if body is None else json.dumps(body).encode())
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, data.decode("utf-8", "replace")

    def _ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = self.request(method, path, body)
        if status >= 400:
            raise ApiError(status, data)
        return data

    # --- the API -------------------------------------------------------------------------------------------
    def create(self, game: str, seats: list[str] | None = None, seed: int | None = None,
               options: dict[str, Any] | None = None, players: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"game": game}
        for key, value in (("seats", seats), ("seed", seed), ("options", options), ("players", players)):
            if value is not None:
                body[key] = value
        return self._ok("POST", "/api/games", body)

    def state(self, game_id: str, token: str) -> dict[str, Any]:
        """`GET /api/games/{id}`: the seat's view, to_move, legal_moves, over, result."""
        return self._ok("GET", f"/api/games/{quote(game_id)}?token={quote(token)}")

    def placements(self, game_id: str, token: str, block: str) -> list[str]:
        """The Climbers: the move texts of one block's legal placements (the state answer names the blocks)."""
        doc = self._ok("GET", f"/api/games/{quote(game_id)}/placements?token={quote(token)}&block={quote(block)}")
        return [p[4] for p in doc["placements"]]

    def random_move(self, game_id: str, token: str, rng: Any, state: dict[str, Any] | None = None) -> str:
        """A legal move of the seat to move, drawn with `rng`: one of `legal_moves`, or in The Climbers a block of
        `blocks` and then one of its placements (a block step's placements are asked block by block)."""
        state = state if state is not None else self.state(game_id, token)
        options: list[Any] = list(state["legal_moves"]) + [("block", b) for b in state.get("blocks", [])]
        pick = rng.choice(options)
        return rng.choice(self.placements(game_id, token, pick[1])) if isinstance(pick, tuple) else pick

    def move(self, game_id: str, token: str, text: str, n: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"move": text}
        if n is not None:
            body["n"] = n
        return self._ok("POST", f"/api/games/{quote(game_id)}/moves?token={quote(token)}", body)

    def undo(self, game_id: str, token: str) -> dict[str, Any]:
        return self._ok("POST", f"/api/games/{quote(game_id)}/undo?token={quote(token)}", {})

    def abandon(self, game_id: str, token: str) -> dict[str, Any]:
        return self._ok("POST", f"/api/games/{quote(game_id)}/abandon?token={quote(token)}", {})

    def hint(self, game_id: str, token: str) -> dict[str, Any]:
        return self._ok("GET", f"/api/games/{quote(game_id)}/hint?token={quote(token)}")

    def record(self, game_id: str) -> dict[str, Any]:
        return self._ok("GET", f"/api/games/{quote(game_id)}/record")
