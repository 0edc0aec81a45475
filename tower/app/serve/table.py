"""One game on the server: the referee between its seats, and what each of them is shown.

Everything a seat receives is built here from what that seat may see: `state.view(seat)` for a player,
`state.public_view()` for a spectator, other players' moves in the words of `state.public_move(move, player)`.
Nothing else about the state (the generator, the seed, the deal, the draw pile) is ever put into an answer.

The methods are plain synchronous code: the HTTP layer calls them in a worker thread, one call at a time per
table (its `lock`), and writes what they return to the store before answering.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass
from typing import Any

from tower.app.serve.errors import Refused
from tower.app.serve.store import GameRow, Op, Store, Stored, token_hash
from tower.app.serve.takeback import plan_take_back
from tower.games.base import GameState, Move
from tower.games.errors import BadInput, IllegalMove
from tower.games.registry import new_game

LOG_TAIL = 40  # log entries a snapshot carries; the page appends later ones as they come
NAME_MAX = 24  # characters of a seat's name


def clean_name(text: Any) -> str:
    """A seat's name as people typed it (at most NAME_MAX characters), made plain: printable characters only,
    spaces squeezed; BadInput for anything else. The pages show it as text, never as markup."""
    if not isinstance(text, str):
        raise BadInput(f"a name is text, got {text!r}", "$.name")
    if len(text) > NAME_MAX:  # as sent, before squeezing: the OpenAPI document's maxLength
        raise BadInput(f"a name has at most {NAME_MAX} characters, got {len(text)}", "$.name")
    plain = "".join(c if c.isprintable() else " " for c in text)
    return " ".join(plain.split())


@dataclass(frozen=True)
class Change:
    """What a move or a take-back did: written to the store, then announced to every seat."""

    kind: str  # "move", "undo", "abandon", "name" or "rematch"
    player: int  # who moved (who asked, for an undo)
    move: Move | None
    n: int  # moves played after the change
    ops: list[Op]


def replay_row(row: GameRow, moves: list[tuple[int, str]], judge: Any = None) -> GameState:
    """The game of a stored row after its stored moves; BadInput if a move no longer replays."""
    state = new_game(row.game, row.players, row.seed, row.options, judge=judge)
    for i, (_player, text) in enumerate(moves):
        try:
            state.apply(state.move_type.parse(text, state))
        except (BadInput, IllegalMove) as exc:
            raise BadInput(f"game {row.id}: stored move {i} {text!r} does not replay: {exc}", f"$.moves[{i}]") from None
    return state


@dataclass(frozen=True)
class Capture:
    """What a page of one seat shows, read from the state at one moment (see `Table.capture`)."""

    layout: str
    view: dict[str, Any]
    overlays: dict[str, Any]
    page: dict[str, Any]


def render(capture: Capture) -> dict[str, Any]:
    """The page's snapshot: the captured facts plus the scene built from the captured view (the scene the desktop
    viewer draws for that view), as JSON."""
    from viewer.games import scene_for_view
    from viewer.scene_json import scene_to_json

    scene = scene_for_view(capture.layout, capture.view, title=capture.page["title"], **capture.overlays)
    return {**capture.page, "scene": scene_to_json(scene)}


def render_messages(items: list[tuple[int | None, Capture, dict[str, Any] | None]]) -> dict[int | None, str]:
    """The WebSocket messages of one change, per seat: its event and its page's snapshot, as JSON text (run in
    the render worker)."""
    return {seat: json.dumps({"type": "snapshot", "event": event, "snapshot": render(capture)})
            for seat, capture, event in items}


_position: tuple[Any, GameState] | None = None  # in the placements' worker: the last position asked about


def _worker_position(key: Any, game: str, state_json: Any) -> GameState:
    """In the placements' worker: the position `state_json` of game `game` (`key` names it: the last one asked
    about is kept, so its second question does not rebuild it, and dropped before another is built)."""
    global _position
    from tower.app.stability import statics_stands
    from tower.games.registry import game_class

    if _position is None or _position[0] != key:
        _position = None  # the last position's moves go before the next one's are built
        state = game_class(game).from_json(json.loads(state_json) if isinstance(state_json, str) else state_json)
        state.judge = statics_stands
        _position = (key, state)
    return _position[1]


def listing_job(key: Any, game: str, state_json: Any) -> tuple[list[str], list[str]]:
    """In the placements' worker: the legal moves of a position that are not block placements (as text) and the
    blocks that have placements (`Table.split_legal`), so that a big block step's hundreds of thousands of moves
    are listed there, never in the server's process."""
    return split_moves(_worker_position(key, game, state_json).legal_moves(), text=True)


def split_moves(legal: Any, text: bool = False) -> tuple[list[Any], list[str]]:
    """The moves of `legal` that are not block placements, and the blocks that have placements. A block step's
    move list answers without building its moves (`MoveList.blocks`): iterating hundreds of thousands of them
    would hold the interpreter for a second."""
    blocks = getattr(legal, "blocks", None)
    if callable(blocks):
        return [], blocks()
    others = [m for m in legal if not _placement(m)]
    return ([str(m) for m in others] if text else others), sorted({m.block for m in legal if _placement(m)})


def placements_job(key: Any, game: str, state_json: Any, block: str, ghosts: bool, n: int) -> bytes | None:
    """In a worker process: the legal placements of `block` in a position (`state_json` of game `game`; `key`
    names the position, so a second block of it is not rebuilt), grouped for pointing as `Table.placements`
    answers, or as ghost blocks (`ghosts`), as the answer's gzipped JSON (with `n`, the moves played): hundreds of
    kilobytes of JSON, encoded here rather than in the server's event loop; None if the block cannot move. Only
    the block's own moves are built (`MoveList.of_block`)."""
    import gzip
    import json

    st = _worker_position(key, game, state_json)
    legal = st.legal_moves()
    of_block = getattr(legal, "of_block", None)
    mine = of_block(block) if callable(of_block) else [m for m in legal if _placement(m) and m.block == block]
    if not mine:
        return None
    build = st.to_build()
    if ghosts:
        from viewer.scene import ghost_from_move
        from viewer.scene_json import _item

        out: dict[str, Any] = {"block": block, "n": n, "ghosts": [_item(ghost_from_move(m, build)) for m in mine]}
    else:
        from viewer.placement import BlockPlacements, explainer

        ps = BlockPlacements.from_moves(block, mine, build, words=st.move_words)
        ps.explain_with(explainer(st))
        out = {"n": n, **ps.to_json()}
    return gzip.compress(json.dumps(out).encode(), 5)


def _nbytes(obj: Any) -> int:
    """Bytes an object holds, estimated: arrays by their `nbytes`, containers from a sample of their items (at most
    a few thousand objects are looked at, so the estimate costs well under a millisecond)."""
    seen: set[int] = set()
    budget = [800]

    def size(o: Any, depth: int) -> float:
        budget[0] -= 1
        n = getattr(o, "nbytes", None)
        if isinstance(n, int):
            return n
        if o is None or isinstance(o, (int, float, bool)):
            return 16
        if isinstance(o, (str, bytes)):
            return 48 + len(o)
        if depth > 4 or budget[0] <= 0 or id(o) in seen:
            return 64
        seen.add(id(o))
        if isinstance(o, dict):
            o = [*o.keys(), *o.values()]
        if isinstance(o, (list, tuple, set, frozenset)):
            items = o if isinstance(o, (list, tuple)) else list(o)
            count = min(16, len(items))
            sample = [items[k * len(items) // count] for k in range(count)]
            each = sum(size(x, depth + 1) for x in sample) / max(1, len(sample))
            return 56 + len(items) * (8 + each)
        fields = getattr(o, "__dict__", None)
        if fields is None:
            fields = {name: getattr(o, name, None) for cls in type(o).__mro__ for name in getattr(cls, "__slots__", ())}
        return 64 + sum(size(v, depth + 1) for v in fields.values())

    return int(size(obj, 0))


def _placement(move: Move) -> bool:
    """A construction game's block placement (listed per block: `Table.placements`)."""
    return getattr(move, "kind", None) == "block"


class Table:
    """A live game: its state, who sits where, who made each move, and caches of what each seat is shown."""

    def __init__(self, row: GameRow, state: GameState, movers: list[int], tokens: dict[str, int | None]) -> None:
        self.row = row
        self.tokens = tokens  # token hash -> seat (None: spectator)
        self.id = row.id
        self.state = state
        self.seats = list(row.seats)
        self.movers = movers  # the player who made each move of state.history
        self.lock = asyncio.Lock()  # one change or read at a time
        self.rev = 0  # bumped by every change: the key of the caches
        self._legal: tuple[int, list[Move]] | None = None
        self._snapshots: dict[int | None, tuple[int, dict[str, Any]]] = {}
        self._first: dict[int | None, tuple[int, str]] = {}  # seat -> (rev, a new page's first message)
        self.subscribers: set[Any] = set()  # the open WebSockets of this game (the HTTP layer's)
        self.outbox: asyncio.Queue = asyncio.Queue()  # announcements to render and send, in order
        self.sender: asyncio.Task | None = None
        self.ai_task: asyncio.Task | None = None
        self.dead = False  # left memory (evicted, or a write failed): a request holding it takes the live one
        self.abandoned = row.abandoned  # its seats left it (or it reached the server's length cap): over
        self.max_moves: int | None = None  # the server's cap on the game's length (`limits.game_moves`)
        self.used = 0.0  # when it was last asked for (monotonic clock; the server's memory bound)
        self.ai_seconds = 0.0  # AI thinking this game has used (the server's budget per game)
        self._json: tuple[int, str] | None = None  # (rev, the state's to_json() as text) for the placements' worker
        # (rev, moves that are not placements, blocks with placements): listed by the placements' worker
        self._listing: tuple[int, list[Move], list[str]] | None = None
        self.budget: Any = None  # the server's `CacheBudget` (a construction game's worked-out positions)
        self.line: Any = None  # the server's line of heavy game work (`server.game_line`)
        self.said: dict[int, str] = {}  # move index -> the move in words, for its mover's log (moves made here)
        self.names: dict[int, str] = dict(row.names)  # seat -> the name its player chose (stored with the game)
        self.rematch: dict[str, Any] | None = row.rematch  # the rematch, once a seat asked for one (`set_rematch`)
        # seat -> its token, as shown to this process: a rematch's link carries it (the database has its hash)
        self.plain: dict[int | None, str] = {}
        self.version = row.version  # the stored game's changes this table holds (a shared database's check)

    @classmethod
    def load(cls, store: Store, row: GameRow, judge: Any = None) -> Table:
        moves = store.moves(row.id)
        return cls(row, replay_row(row, moves, judge), [p for p, _ in moves], store.tokens(row.id))

    def seat_of(self, token: str) -> tuple[bool, int | None]:
        """(known, seat) of a token: seat None is a spectator's link. A known token is kept for the seat's link to
        the rematch (`rematch_for`)."""
        h = token_hash(token)
        if h not in self.tokens:
            return (False, None)
        seat = self.tokens[h]
        self.plain[seat] = token
        return (True, seat)

    # --- facts ---------------------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.state.history)

    def is_human(self, seat: int | None) -> bool:
        return seat is not None and self.seats[seat] == "human"

    @property
    def over(self) -> bool:
        """Over by the rules, or abandoned."""
        return self.state.is_over or self.abandoned

    @property
    def ai_to_move(self) -> bool:
        p = self.state.current_player
        return p is not None and not self.is_human(p) and not self.abandoned

    def legal(self) -> list[Move]:
        if self._legal is None or self._legal[0] != self.rev:
            self._legal = (self.rev, self.state.legal_moves())
        return self._legal[1]

    def is_legal_text(self, text: str) -> bool:
        """Whether `text` is a legal move now (a binary search in a block step's sorted moves: none is built)."""
        try:
            return self.state.move_type.parse(text, self.state) in self.legal()
        except BadInput:
            return False

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """The one gate: a player's own view, or the public view for a spectator."""
        return self.state.public_view() if seat is None else self.state.view(seat)

    def label(self, p: int) -> str:
        """How a player is named on the pages: the game's label, with the name the seat chose."""
        name = self.names.get(p)
        return f"{self.state.player_label(p)} ({name})" if name else self.state.player_label(p)

    def move_text(self, move: Move, player: int, seat: int | None) -> str:
        """A move as `seat` is told it: its own moves in full, the others' as the game words them publicly (until
        the game is over: then the record, every move in it, is public)."""
        if player == seat or self.state.is_over:
            return str(move)
        return self.state.public_move(move, player)

    def set_name(self, seat: int | None, text: Any) -> Change:
        """A seat names its player (shown to everyone); an empty name clears it."""
        if seat is None:
            raise Refused(403, "spectator", "a spectator's link has no seat to name")
        name = clean_name(text)
        if name:
            self.names[seat] = name
        else:
            self.names.pop(seat, None)
        self.rev += 1
        return Change("name", seat, None, self.n, Store.names_ops(self.id, self.names))

    def set_rematch(self, seat: int, game_id: str, origin: str, ops: list[Op]) -> Change:
        """The rematch `game_id` asked for by `seat`, its game written by `ops`: kept with this game, in the same
        transaction; its links are `origin`'s (`rematch_for`)."""
        self.rematch = {"id": game_id, "origin": origin, "seat": seat}
        self.rev += 1
        return Change("rematch", seat, None, self.n, ops + Store.rematch_ops(self.id, self.rematch))

    # --- answers -------------------------------------------------------------------------------------------
    def api_answer(self, seat: int | None) -> dict[str, Any]:
        """`GET /api/games/{id}`: the seat's view, whose turn, its legal moves, and the result once over. A
        construction game's block placements are not listed (a position may have hundreds of thousands): `blocks`
        names the blocks that may be placed, and `placements` gives one block's (as the page asks for them)."""
        st = self.state
        cur = None if self.abandoned else st.current_player
        others, blocks = self.split_legal() if seat is not None and cur == seat else ([], [])
        out = {
            "id": self.id,
            "game": st.name,
            "seat": seat,
            "view": self.view_for(seat),
            "to_move": cur,
            "legal_moves": [str(m) for m in others],
            "n": self.n,
            "over": self.over,
            "abandoned": self.abandoned,
            "result": self.result(),
            "outcome": self.outcome(),
        }
        if st.construction:
            out["blocks"] = blocks
        return out

    def split_legal(self) -> tuple[list[Move], list[str]]:
        """The legal moves that are not block placements, and the blocks that have placements (`split_moves`):
        as the placements' worker listed them for this position (`keep_listing`), else worked out here."""
        if self._listing is not None and self._listing[0] == self.rev:
            return self._listing[1], self._listing[2]
        return split_moves(self.legal())

    def listing_args(self) -> tuple | None:
        """The arguments of `listing_job` when this position's moves are best listed in the placements' worker (a
        construction game's block step: hundreds of thousands of placements, 25 MiB and a tenth of a second of
        the interpreter for a 200-cube start), None when they are listed already or cheap to list here."""
        st = self.state
        if (not st.construction or getattr(st, "phase", None) != "block" or self.over
                or (self._listing is not None and self._listing[0] == self.rev)
                or (self._legal is not None and self._legal[0] == self.rev)):
            return None
        return self._position_args()

    def keep_listing(self, rev: int, others: list[str], blocks: list[str]) -> None:
        """What `listing_job` answered for position `rev` (ignored if the game moved on meanwhile)."""
        if rev == self.rev:
            self._listing = (rev, [self.state.move_type.parse(t, self.state) for t in others], list(blocks))

    def result(self) -> dict[str, Any] | None:
        if self.state.is_over:
            return self.state.result()
        return {"abandoned": True, "winners": []} if self.abandoned else None

    def outcome(self) -> str | None:
        if self.state.is_over:
            return self.state.outcome_text()
        return f"abandoned after {self.n} moves" if self.abandoned else None

    def snapshot(self, seat: int | None) -> dict[str, Any]:
        """What the game page of `seat` shows now, built here (the server builds it in its render worker)."""
        snap = self.cached_snapshot(seat)
        if snap is None:
            snap = render(self.capture(seat))
            self.keep_snapshot(seat, snap)
        return snap

    def cached_snapshot(self, seat: int | None) -> dict[str, Any] | None:
        cached = self._snapshots.get(seat)
        return cached[1] if cached is not None and cached[0] == self.rev else None

    def keep_snapshot(self, seat: int | None, snap: dict[str, Any]) -> None:
        self._snapshots[seat] = (self.rev, snap)

    def first_message(self, seat: int | None) -> str | None:
        """A new page's first WebSocket message for `seat` (its snapshot as JSON text), if kept for this position."""
        kept = self._first.get(seat)
        return kept[1] if kept is not None and kept[0] == self.rev else None

    def keep_first_message(self, seat: int | None, text: str) -> str:
        self._first[seat] = (self.rev, text)
        return text

    def capture(self, seat: int | None) -> Capture:
        """Everything the page of `seat` needs, read from the state now: the seat's view (the only thing the scene
        is built from), the moves it may choose, the log as it may read it, the players, and the result in words
        once over. Cheap: the scene itself is built later by `render`, outside the table's lock."""
        st = self.state
        cur = None if self.abandoned else st.current_player
        mine = self.is_human(seat) and cur == seat
        overlays: dict[str, Any] = {}
        moves: list[str] = []
        blocks: list[str] = []
        cells: list[dict[str, Any]] = []
        stuck: dict[str, str] = {}  # The Climbers: what a click on a block that chooses nothing says
        words: dict[str, str] = {}
        pointing: dict[str, Any] | None = None  # a card game: the click paths of the seat's moves
        if mine:
            legal, blocks = self.split_legal()
            # every move the page lists, in words a newcomer understands (block placements: `placements`)
            words = {str(m): st.move_words(m) for m in legal}
            moves = [str(m) for m in legal]
            if st.construction:
                # a construction game lists thousands of block placements: the page asks for one block's
                # placements when that block is clicked (`placements`), and gets the other moves here
                from viewer.climbers_pointing import move_cells, refusal

                # and where each other move is pointed at: a figure's destination, a free top for the stone
                by_cell = move_cells(st, legal)
                cells = [{"cell": list(c), "moves": ms} for c, ms in by_cell.items()]
                overlays = {"movable": blocks, "targets": list(by_cell)}
                stuck = {b: refusal(st, b) for b in st.ids if b not in blocks} | {"": refusal(st, None)}
            else:
                pointing = self.pointing(seat)
        first = max(0, self.n - LOG_TAIL)
        log = []
        for k, (m, p) in enumerate(zip(st.history[first:], self.movers[first:], strict=True)):
            text = self.move_text(m, p, seat)
            # in words wherever the seat may read the move itself (a hidden one stays in its public sentence)
            log.append({"n": first + k, "player": p, "label": self.label(p), "text": text,
                        "words": self.said.get(first + k, "") if text == str(m) else ""})
        page = {
            "id": self.id,
            "game": st.name,
            "title": st.title or st.name,
            "credit": st.credit,
            "seat": seat,
            "rev": self.rev,
            "n": self.n,
            "players": [{"seat": p, "label": self.label(p), "kind": self.seats[p], "name": self.names.get(p, "")}
                        for p in range(st.num_players)],
            "to_move": cur,
            "your_turn": mine,
            "over": self.over,
            "result": self.result(),
            "outcome": self.outcome(),
            "construction": st.construction,
            "perfect_information": st.perfect_information,
            "moves": moves,
            "words": words,
            "prompt": st.prompt() if mine else None,
            "how_to_play": st.how_to_play,
            "rematch": self.rematch_for(seat),
            "blocks": blocks,
            "cells": cells,
            "stuck": stuck,
            "pointing": pointing,
            "log": log,
            "undo": self.may_ask_take_back(seat),
        }
        return Capture(st.layout, self.view_for(seat), overlays, page)

    def pointing(self, seat: int) -> dict[str, Any]:
        """A card game's click paths for the seat to move (`viewer.cards.clickpaths`): the page walks them itself
        (static/js/cardpoint.js), so pointing asks the server nothing until a move is played."""
        from viewer.cards.clickpaths import card_table

        return card_table(self.state, seat).to_json()

    def rematch_for(self, seat: int | None) -> str | None:
        """The link of the rematch for this seat's page (its own seat's, or the spectators'), once there is one: the
        rematch's seats have this game's tokens (`Store.create_ops`), so any process that was shown the seat's
        token gives the same link."""
        token = self.plain.get(seat)
        if self.rematch is None or token is None:
            return None
        return f"{self.rematch['origin']}/play/{self.rematch['id']}?token={token}"

    def rematch_body(self, seat: int | None) -> dict[str, Any]:
        """The `POST /api/games` body of a rematch: the same game, seats and options, a new deal."""
        if seat is None:
            raise Refused(403, "spectator", "a spectator's link cannot ask for a rematch")
        if not self.state.is_over:
            raise Refused(409, "game-running", "a rematch is offered once the game is over")
        return {"game": self.row.game, "seats": list(self.seats), "options": dict(self.row.options)}

    def placement_args(self, seat: int | None, block: str, ghosts: bool) -> tuple:
        """The arguments of `placements_job` for one block of this position (checked: the seat to move, a
        construction game): the placements are worked out in a worker process, so the hundreds of thousands of
        moves of a big position are never built in the server's (they once held 135 MiB a game)."""
        self.require_turn(seat)
        if not self.state.construction:
            raise Refused(409, "no-blocks", f"{self.state.name} has no blocks to place")
        return (*self._position_args(), block, ghosts, self.n)

    def _position_args(self) -> tuple:
        """(key, game, position as JSON text) of this position for the placements' worker, kept per position: as
        text, one block of 51 KB for a 200-cube position rather than 216 KiB of small objects, which pinned the
        interpreter's arenas after the game left memory."""
        if self._json is None or self._json[0] != self.rev:
            self._json = (self.rev, json.dumps(self.state.to_json()))
        return ((self.id, self.rev), self.state.name, self._json[1])

    def cache_bytes(self) -> int:
        """Bytes (estimated) of what the position keeps worked out: its legal moves, placements, block tables
        (`state._cache`), the position as JSON and the pages' snapshots. The server keeps these within
        `construction_cache_bytes`."""
        return (_nbytes(getattr(self.state, "_cache", None)) + (_nbytes(self._json[1]) if self._json else 0)
                + _nbytes(self._snapshots) + _nbytes(self._first))

    def forget_caches(self) -> None:
        """Drop what the position keeps worked out (it is worked out again when next asked for)."""
        if isinstance(getattr(self.state, "_cache", None), dict):
            self.state._cache = {}  # type: ignore[attr-defined]
        self._legal = None
        self._json = None
        self._listing = None
        self._snapshots = {}
        self._first = {}

    # --- changes -------------------------------------------------------------------------------------------
    def require_turn(self, seat: int | None) -> None:
        st = self.state
        if seat is None:
            raise Refused(403, "spectator", "a spectator's link cannot play")
        if st.is_over:
            raise Refused(409, "game-over", "the game is over")
        if self.abandoned:
            raise Refused(409, "abandoned", "the game was abandoned")
        if st.current_player != seat:
            raise Refused(409, "out-of-turn", f"it is {self.label(st.current_player)}'s turn, not "
                                              f"{self.label(seat)}'s")

    def play(self, seat: int | None, text: str, expect: int | None = None) -> Change:
        """Apply a move of `seat` given as text. Refused (nothing changed) with 409: out of turn, stale `expect`,
        illegal, and a text that is no move of the game (`bad-move-text`): the document's `Move` is any string,
        as a record's moves are, whose unreadable moves the replay endpoint refuses with 409 alike."""
        self.require_turn(seat)
        if expect is not None and expect != self.n:
            raise Refused(409, "stale", f"the move was meant for position {expect}, the game is at {self.n}")
        try:
            move = self.state.move_type.parse(text, self.state)
        except BadInput as exc:
            raise Refused(409, "bad-move-text", f"not a move: {exc.what}") from None
        return self._apply(seat, move)  # type: ignore[arg-type]

    def play_ai(self, seat: int, text: str, rev: int) -> Change | None:
        """Apply an AI seat's chosen move, unless the game changed while it thought (None then)."""
        if rev != self.rev or self.state.current_player != seat:
            return None
        move = self.state.move_type.parse(text, self.state)
        return self._apply(seat, move)

    def _apply(self, seat: int, move: Move) -> Change:
        said = self.state.move_words(move)  # in words, as its mover chose it (before it changes the state)
        try:
            self.state.apply(move)
        except IllegalMove as exc:
            raise Refused(409, exc.rule, exc.message) from None
        self.said[self.n - 1] = said
        self.movers.append(seat)
        self.rev += 1
        n = self.n
        ops = Store.move_ops(self.id, n - 1, seat, str(move), self.state.is_over)
        if self.max_moves is not None and n >= self.max_moves and not self.state.is_over:
            self.abandoned = True  # the server's length cap: the game ends here (docs/serve.md, limits)
            ops += Store.end_ops(self.id)
        return Change("move", seat, move, n, ops)

    def catch_up(self, stored: Stored, version: int) -> Change | None:
        """One step towards the stored game (at `version`: another process changed it): the next stored move
        applied, or, where the stored moves no longer begin with this table's (a take-back there), the game
        replayed from its record; then its abandon, each seat's name and the rematch as stored; None once the
        table holds the stored game."""
        moves = stored.moves
        mine = [str(m) for m in self.state.history]
        if [text for _p, text in moves[:len(mine)]] != mine:
            state = replay_row(self.row, moves, getattr(self.state, "judge", None))
            keep = next((k for k, (a, (_p, b)) in enumerate(zip(mine, moves, strict=False)) if a != b),
                        min(len(mine), len(moves)))
            asker = self.movers[keep] if keep < len(self.movers) else -1
            self.state, self.movers = state, [p for p, _t in moves]
            self.said = {k: v for k, v in self.said.items() if k < keep}
            self.rev += 1
            return Change("undo", asker, None, self.n, [])
        if len(moves) > len(mine):
            player, text = moves[len(mine)]
            try:
                move = self.state.move_type.parse(text, self.state)
                said = self.state.move_words(move)
                self.state.apply(move)
            except (BadInput, IllegalMove) as exc:
                raise BadInput(f"game {self.id}: stored move {len(mine)} {text!r} does not replay: {exc}",
                               f"$.moves[{len(mine)}]") from None
            self.said[self.n - 1] = said
            self.movers.append(player)
            self.rev += 1
            return Change("move", player, move, self.n, [])
        if stored.abandoned and not self.abandoned:
            self.abandoned = True
            self.rev += 1
            return Change("abandon", -1, None, self.n, [])
        renamed = [s for s in sorted(set(stored.names) | set(self.names)) if stored.names.get(s) != self.names.get(s)]
        if renamed:  # named (or cleared) on another process: told one seat at a time, as a name set here is
            seat = renamed[0]
            if seat in stored.names:
                self.names[seat] = stored.names[seat]
            else:
                del self.names[seat]
            self.rev += 1
            return Change("name", seat, None, self.n, [])
        if stored.rematch is not None and stored.rematch != self.rematch:  # asked for on another process
            self.rematch = stored.rematch
            self.rev += 1
            return Change("rematch", stored.rematch.get("seat", -1), None, self.n, [])
        self.version = version
        return None

    def abandon(self, seat: int | None) -> Change:
        """End the game as abandoned: asked by a human seat, or by the spectators' link of a game without one
        (its creator's only link). The moves played stay; the record is given out like a finished game's."""
        if self.over:
            raise Refused(409, "game-over", "the game is over")
        if seat is None and any(kind == "human" for kind in self.seats):
            raise Refused(403, "spectator", "a spectator's link cannot abandon a game that has players")
        if seat is not None and not self.is_human(seat):
            raise Refused(403, "not-a-player", "only a player's link can abandon the game")
        self.abandoned = True
        self.rev += 1
        return Change("abandon", -1 if seat is None else seat, None, self.n, Store.end_ops(self.id))

    def may_ask_take_back(self, seat: int | None) -> bool:
        """The undo button's state: the seat made a move that nobody else human has answered (the full rule,
        which also replays the position, is applied when it is asked: `take_back`)."""
        if not self.is_human(seat) or self.over or seat not in self.movers:
            return False
        last = len(self.movers) - 1 - self.movers[::-1].index(seat)
        return all(not self.is_human(p) for p in self.movers[last + 1:])

    def take_back(self, seat: int | None, rng: random.Random) -> Change:
        """Take back the seat's last move (and the AI moves after it) under the rule of `takeback`."""
        if seat is None:
            raise Refused(403, "spectator", "a spectator's link cannot take moves back")
        if self.abandoned:
            raise Refused(409, "abandoned", "the game was abandoned: its moves stand")
        keep = plan_take_back(self.state, self.movers, self.seats, seat, rng)
        state = self.state.restart()
        for move in self.state.history[:keep]:
            state.apply(move)
        self.state = state
        del self.movers[keep:]
        self.said = {k: v for k, v in self.said.items() if k < keep}
        self.rev += 1
        return Change("undo", seat, None, keep, Store.truncate_ops(self.id, keep))

    def record(self) -> dict[str, Any]:
        """The game's `game-record/1`, with who sat where; only once the game is over (it holds the seed)."""
        if not self.over:
            raise Refused(409, "game-running", "the record (which holds the seed of the deal) is given out once "
                                               "the game is over")
        rec = self.state.record()
        rec["agents"] = list(self.seats)
        return rec
