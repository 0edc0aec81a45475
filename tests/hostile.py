"""Hostile inputs for the loaders and move parsers, drawn from any source of choices.

`tests/test_fuzz.py` draws them through hypothesis (so failures shrink); `benchmarks/bench_fuzz.py` draws tens of
thousands through a seeded `random.Random`. Both see the same kinds of input: valid documents and move texts with
values of the wrong type put at any JSON path, keys dropped or added, wrong format versions, NaN and Infinity,
huge and deeply nested values, unicode look-alikes of digits and letters, truncated and corrupted bytes.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

#: How the accepted outcomes of each target are named; anything else raised is a crash.
ACCEPTED, CLEAN = "accepted", "clean error"


class Source(Protocol):
    """Where the choices come from."""

    def pick(self, options: Sequence[T]) -> T: ...

    def number(self, lo: int, hi: int) -> int: ...


class RandomSource:
    """Choices from a seeded generator (the benchmark)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def number(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class DataSource:
    """Choices drawn through hypothesis's `st.data()` (the tests), so a failing input shrinks."""

    def __init__(self, data: Any) -> None:
        from hypothesis import strategies as st

        self.data, self.st = data, st

    def pick(self, options: Sequence[T]) -> T:
        return self.data.draw(self.st.sampled_from(options))

    def number(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))


# --- values -------------------------------------------------------------------------------------------------

NUMBERS: list[Any] = [0, 1, -1, 2, 3, 7, 1000, 10_001, -10_001, 2**31, -(2**63), 10**40, 0.5, -0.0, 2.0, 1e308,
                      math.nan, math.inf, -math.inf, True, False]
STRINGS: list[str] = ["", " ", "a", "red", "RED", "0", "-1", "NaN", "Infinity", "null", "tower-build/1",
                      "game-record/1", "\x00", "\u202e", "é", "🙂", "\ud800", "ＲＥＤ", "İ", "٣", "²", "x" * 5000,
                      "\n", "b0", "climbers", "partners", "diabolo", "seventh-heaven"]
FORMATS: list[str] = ["tower-build/0", "tower-build/2", "tower-build/1.0", "Tower-Build/1", "tower-build/1 ",
                      "game-record/0", "game-record/2", "game-record/1.1", "GAME-RECORD/1", "tower-build",
                      "game-record", "tower-build/1", "game-record/1"]


def scalar(src: Source) -> Any:
    kind = src.number(0, 3)
    if kind == 0:
        return src.pick(NUMBERS)
    if kind == 1:
        return src.pick(STRINGS)
    if kind == 2:
        return src.pick([None, src.number(-20, 60), src.number(-(10**12), 10**12)])
    return src.pick(FORMATS)


def value(src: Source, depth: int = 0) -> Any:
    """Any JSON-like value, sometimes huge or deeply nested."""
    kind = src.number(0, 9) if depth < 3 else 0
    if kind <= 4:
        return scalar(src)
    if kind <= 6:
        return [value(src, depth + 1) for _ in range(src.number(0, 4))]
    if kind == 7:
        return {src.pick(STRINGS[:12] + ["id", "origin", "size", "faces", "moves", "fig", "path"]): value(src, depth + 1)
                for _ in range(src.number(0, 4))}
    if kind == 8:
        return nested(src.number(50, 400), src.pick([[], {}, 0, "x"]))
    return [src.pick(NUMBERS)] * src.number(1000, 20_000)  # huge


MAX_NODES = 50_000  # values in one generated document, counting shared ones each time they occur


def size(doc: Any, cap: int = MAX_NODES) -> int:
    """Values in `doc` as its JSON text would hold them (counting stops past `cap`)."""
    count, stack = 0, [doc]
    while stack and count <= cap:
        node = stack.pop()
        count += 1
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


def nested(depth: int, core: Any) -> Any:
    for i in range(depth):
        core = [core] if i % 2 else {"a": core}
    return core


# --- documents ----------------------------------------------------------------------------------------------

Path_ = tuple[Any, ...]


def paths(doc: Any, prefix: Path_ = (), limit: int = 5000) -> list[Path_]:
    """JSON paths of `doc` (breadth-first, at most `limit`): where a hostile value may be put."""
    out: list[Path_] = [prefix]
    queue = [(doc, prefix)]
    while queue and len(out) < limit:
        node, at = queue.pop(0)
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in children:
            out.append((*at, key))
            queue.append((child, (*at, key)))
    return out[:limit]


def _parent(doc: Any, path: Path_) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


def mutate(src: Source, doc: Any, rounds: int | None = None) -> Any:
    """A copy of `doc` with 1-3 hostile changes at random JSON paths."""
    doc = copy.deepcopy(doc)
    for _ in range(rounds if rounds is not None else src.number(1, 3)):
        path = src.pick(paths(doc))
        op = src.pick(["replace", "replace", "replace", "delete", "add-key", "wrap", "repeat", "retype"])
        if not path:  # the whole document
            doc = value(src) if op in ("replace", "delete") else [doc] if op == "wrap" else doc
            continue
        parent, key = _parent(doc, path), path[-1]
        old = parent[key]
        if op == "replace":
            parent[key] = value(src)
        elif op == "delete":
            del parent[key]
        elif op == "add-key":
            target = old if isinstance(old, dict) else parent if isinstance(parent, dict) else None
            if target is not None:
                target[src.pick(["extra", "Format", "id", "seed", "", "🙂", "a\nb", "x\u2028y", "\x85"])] = value(src)
        elif op == "wrap":
            parent[key] = src.pick([[old], {"value": old}, nested(src.number(2, 300), old)])
        elif op == "repeat" and isinstance(old, list) and old and MAX_NODES // size(doc) >= 2:
            # repeats share their items: keep the whole within MAX_NODES, or its repr alone takes minutes
            parent[key] = old * src.number(2, MAX_NODES // size(doc))
        elif op == "retype":
            parent[key] = retyped(src, old)
    return doc


def retyped(src: Source, old: Any) -> Any:
    """`old` as a look-alike of another type: 3 -> 3.0 / "3", "red" -> ["red"], a list -> its text."""
    if isinstance(old, bool):
        return int(old)
    if isinstance(old, int):
        return src.pick([float(old), str(old), [old], old + 0.5, -old, old * 10**6])
    if isinstance(old, str):
        return src.pick([[old], old.upper(), old + "\x00", old[:-1], old * 3, {"text": old}])
    return src.pick([json.dumps(old), None, 0])


# --- bytes of a file ------------------------------------------------------------------------------------------

def hostile_bytes(src: Source, doc: Any) -> bytes:
    """The file of `doc`, damaged: truncated, corrupted, NaN/Infinity, BOM, invalid UTF-8, nested, huge."""
    text = json.dumps(mutate(src, doc) if src.number(0, 1) else doc, indent=src.pick([None, 1]))
    op = src.number(0, 9)
    if op == 0:
        return text.encode()[: src.number(0, len(text))]
    if op == 1:  # a token replaced by something strict JSON refuses or that stretches a number
        at = src.number(0, len(text))
        junk = src.pick(["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "9" * 5000, "1" * 4301, "0x10",
                         "'x'", "undefined", "\\", '"\\ud800"', ",", "]", "}", "//", "\x00"])
        return (text[:at] + junk + text[at + src.number(0, 8):]).encode("utf-8", "surrogatepass")
    if op == 2:
        return b"\xef\xbb\xbf" + text.encode()
    if op == 3:
        data = bytearray(text.encode())
        for _ in range(src.number(1, 4)):
            data[src.number(0, len(data) - 1)] = src.number(0, 255)
        return bytes(data)
    if op == 4:
        depth = src.number(500, 200_000)
        return ("[" * depth + "]" * depth).encode() if src.number(0, 1) else ('{"a":' * depth + "1" + "}" * depth).encode()
    if op == 5:
        return src.pick([b"", b" ", b"null", b"[]", b"{}", b"0", b'"x"', b"\xff\xfe", b"\x00" * 64, text.encode("utf-16")])
    if op == 6:
        return text.encode() + src.pick([b"garbage", b"{}", b"\n\n", b" ", b"\x00"])
    return text.encode("utf-8", "surrogatepass")


# --- move texts ---------------------------------------------------------------------------------------------

TOKENS: list[str] = ["", "0", "-0", "-1", "1", "3", "14", "15", "99999999999999999999", "1" * 5000, "²", "٣", "𝟗",
                     "½", "Ⅻ", "1_0", "0x10", "+3", "-4", "1e9", "NaN", "inf", "\x00", "é", "🙂", "\u202e", "\ud800",
                     "ＲＥＤ", "İ", ",", ",,", "+", ">", ":", "x", "2x2x2", "2x2x99999", "1,2", "1,2,3,4",
                     "-10001,0,0", "99999999,99999999,99999999", "y1+²", "y1+1" + "0" * 5000, "give", "push", "out"]


ODD_NUMBERS = [0, 1, -1, 2, 5, 9, 10, 14, 15, 40, 99, -4, -7, 1000, -10_001, 99_999, 10**12, -(10**12)]
MAX_WORDS = 5_000  # a long line, far past any real move, but not a memory test


@dataclass
class Vocabulary:
    """Words of a game's move texts, gathered from real legal moves."""

    texts: list[str]
    words: list[str]

    @classmethod
    def of(cls, texts: Sequence[str]) -> Vocabulary:
        words = sorted({w for t in texts for w in t.split()} | {p for t in texts for w in t.split()
                                                                for p in w.replace(",", " ").replace("+", " ").split()})
        return cls(sorted(set(texts)), words)


def move_text(src: Source, vocab: Vocabulary) -> str:
    """A text close to a real move (tokens swapped, dropped, added, recased) or plain noise."""
    kind = src.number(0, 9)
    if kind == 0:
        return "".join(src.pick(TOKENS + vocab.words[:40] + [" ", "\t", "\n"]) for _ in range(src.number(0, 8)))
    words = src.pick(vocab.texts).split() if vocab.texts else []
    for _ in range(src.number(0, 3)):
        op = src.number(0, 7)
        i = src.number(0, len(words)) if words else 0
        token = src.pick(TOKENS) if src.number(0, 2) == 0 else src.pick(vocab.words or TOKENS)
        if op == 0 and words:
            words[min(i, len(words) - 1)] = token
        elif op == 1 and words:
            del words[min(i, len(words) - 1)]
        elif op == 2:
            words.insert(i, token)
        elif op == 3 and words:  # damage inside a word: a digit or letter replaced
            j = min(i, len(words) - 1)
            w = words[j]
            at = src.number(0, len(w))
            words[j] = w[:at] + src.pick(TOKENS) + w[at + 1:]
        elif op == 4:
            words = [w.upper() if src.number(0, 1) else w for w in words]
        elif op == 5 and words:  # well-formed but odd: a number of the move replaced by another
            j = min(i, len(words) - 1)
            words[j] = re.sub(r"-?\d+", lambda _: str(src.pick(ODD_NUMBERS)), words[j], count=src.number(0, 3))
        elif op == 6:
            words = words * src.number(2, 500)
        del words[MAX_WORDS:]
    return src.pick([" ", "  ", "\t", " \u00a0 "]).join(words)


def move_json(src: Source, vocab: Vocabulary, samples: Sequence[Any]) -> Any:
    """A JSON move form: a mutated real one, a hostile text, or any value."""
    kind = src.number(0, 3)
    if kind == 0 and samples:
        return mutate(src, src.pick(samples))
    if kind == 1:
        return move_text(src, vocab)
    if kind == 2:
        return value(src)
    return src.pick(samples) if samples else value(src)


# --- running one input ----------------------------------------------------------------------------------------

def outcome(call: Callable[[], Any], clean: tuple[type[BaseException], ...]) -> tuple[str, Any]:
    """(ACCEPTED, result) or (CLEAN, error); any other exception propagates: that is a crash."""
    try:
        return ACCEPTED, call()
    except clean as exc:
        return CLEAN, exc


# --- what each loader is given ----------------------------------------------------------------------------------

@dataclass
class GameSamples:
    """Real material of one game to damage: states along a seeded playout, move texts and JSON forms, a record."""

    game: str
    states: list[Any]
    vocab: Vocabulary
    move_json: list[Any]
    record: dict[str, Any]


def game_samples(game: str, seed: int = 7, steps: int = 60) -> GameSamples:
    from tower.games import new_game

    state = new_game(game, None, seed)
    rng = random.Random(seed)
    states, texts, forms = [], [], []
    for i in range(steps):
        if state.is_over:
            break
        legal = state.legal_moves()
        picked = rng.sample(legal, min(8, len(legal)))
        texts += [str(m) for m in picked]
        forms += [m.to_json() for m in picked]
        if i % 10 == 0:
            states.append(state.clone())
        state.apply(rng.choice(legal))
    return GameSamples(game, states, Vocabulary.of(texts), forms, json.loads(json.dumps(state.record())))


def build_samples() -> list[dict[str, Any]]:
    from tower.climbers.build import build_to_json
    from tower.climbers.setup import random_start_tower

    docs = [build_to_json(random_start_tower(seed)) for seed in (1, 2)]
    docs.append({"format": "tower-build/1",
                 "blocks": [{"id": "c1", "origin": [0, 0, 0], "size": [2, 2, 2]}],
                 "figures": [{"color": "red", "cell": [5, 5, 0]}], "stones": [{"color": "yellow", "block": "c1"}]})
    return docs


def try_move(state: Any, move: Any, check_unchanged: bool = True) -> None:
    """Apply a parsed move to a copy of `state`: it applies or is refused as IllegalMove, changing nothing."""
    from tower.games.errors import IllegalMove

    copy_ = state.clone()
    before = json.dumps(copy_.to_json(), sort_keys=True) if check_unchanged else None
    try:
        copy_.apply(move)
    except IllegalMove as exc:
        assert exc.rule, f"refusing {move!r} names no rule"
        if check_unchanged:
            assert json.dumps(copy_.to_json(), sort_keys=True) == before, f"refusing {move!r} changed the state"
