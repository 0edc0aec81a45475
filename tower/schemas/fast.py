"""A yes/no check of a document against one of our schemas, compiled once into nested Python closures.

`tower.schemas.problem` asks this first: a conforming document (the usual case) is answered here without importing
`jsonschema`; only a document this check refuses goes on to `jsonschema`, which finds the first error and so keeps
the project's messages exactly as they were. The check must therefore agree with our strict flavour of
`jsonschema` (draft 2020-12; an integer is an `int` and never a bool or 1.0; a tuple is an array): a yes where
`jsonschema` says no would let bad input through unreported, and a no where it says yes would cost every such
document the slow path.

Why a compiler of our own and not `fastjsonschema` (2.22, measured on this project's schemas): that library calls
1.0 an integer (our files must not), does not claim draft 2020-12, and was slower here on both counts: compiling
the build schema took it 21 ms a process (0.4 ms here; the check-output schema 45 ms against 0.8 ms), and the
2,000-block build file 30 ms (5-8 ms here). `jsonschema` itself needs about 0.5 s for that file and ~65 ms to
import; benchmarks/bench_tools.py prints the figures.

Only the keywords our schemas use are understood (`SUPPORTED`); pure annotations are skipped (`ANNOTATIONS`).
Any other keyword, a `$ref` other than `#/$defs/NAME` (or the same written absolute, after the root's `$id`), or an
`$id` below the root raises `SchemaNotCompiled`, so a schema edit cannot quietly weaken the check:
tests/test_schemas_fast.py compiles every shipped schema and part.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Check = Callable[[Any], bool]

#: Keywords the compiler turns into checks.
SUPPORTED = frozenset({
    "type", "enum", "const", "oneOf", "$ref",
    "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
    "minProperties", "maxProperties", "if", "then", "else",
    "items", "minItems", "maxItems", "contains",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "pattern",
})
#: Keywords that only annotate (or hold `$ref` targets): `jsonschema` asserts nothing with them either.
ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples"})
REF_PREFIX = "#/$defs/"


class SchemaNotCompiled(ValueError):
    """The schema uses something the fast check does not understand (named, with its place in the schema)."""


# --- types, as our strict `jsonschema` type checker has them ----------------------------------------------------

def _is_integer(x: Any) -> bool:
    return type(x) is int or (isinstance(x, int) and not isinstance(x, bool))


def _is_number(x: Any) -> bool:
    t = type(x)
    return t is int or t is float or (not isinstance(x, bool) and isinstance(x, numbers.Number))


def _is_array(x: Any) -> bool:
    return isinstance(x, list | tuple)


TYPES: dict[str, Check] = {
    "integer": _is_integer,
    "number": _is_number,
    "string": lambda x: isinstance(x, str),
    "object": lambda x: isinstance(x, dict),
    "array": _is_array,
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
}


# --- equality of enum and const, as jsonschema's: True is not 1, [1, 2] equals (1, 2) and [1.0, 2] -------------

_TRUE, _FALSE = object(), object()


def _unbool(x: Any) -> Any:
    return _TRUE if x is True else _FALSE if x is False else x


def equal(one: Any, two: Any) -> bool:
    """JSON Schema's equality, written as `jsonschema` writes it."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(equal(i, j) for i, j in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(key in two and equal(value, two[key]) for key, value in one.items())
    return _unbool(one) == _unbool(two)


def _fast_key(x: Any) -> Any:
    """A hashable stand-in for a string, a plain int, a list of plain ints or an object of strings (None for
    anything else): two keys that are equal mean `equal` holds, so a hit in a set of keys answers yes and only a
    miss needs the slow loop."""
    t = type(x)
    if t is str or t is int:
        return x
    if (t is list or t is tuple) and all(type(e) is int for e in x):
        return tuple(x)
    if t is dict and all(type(k) is str and type(v) is str for k, v in x.items()):  # a face colouring
        return frozenset(x.items())
    return None


def _one_of_values(values: list[Any]) -> Check:
    keys = frozenset(k for k in map(_fast_key, values) if k is not None)

    def check(x: Any) -> bool:
        key = _fast_key(x)
        if key is not None and key in keys:
            return True
        return any(equal(v, x) for v in values)
    return check


# --- the compiler ------------------------------------------------------------------------------------------------

def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        a, b = checks
        return lambda x: a(x) and b(x)
    checks = list(checks)

    def every(x: Any) -> bool:
        for c in checks:
            if not c(x):
                return False
        return True
    return every


class _Compiler:
    """Compiles the nodes of one schema; each `$defs` entry once, shared by every `$ref` to it."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = root.get("$defs", {})
        self.done: dict[str, Check] = {}
        self.busy: set[str] = set()
        root_id = root.get("$id")
        self.prefixes = (REF_PREFIX,) + ((root_id + REF_PREFIX,) if isinstance(root_id, str) and root_id else ())

    def ref(self, ref: Any, where: str) -> Check:
        prefix = next((p for p in self.prefixes if isinstance(ref, str) and ref.startswith(p)), None)
        name = ref[len(prefix):] if prefix is not None else None
        if name is None or "/" in name or "~" in name or "%" in name or name not in self.defs:
            raise SchemaNotCompiled(f"{where}: $ref {ref!r} is not '#/$defs/NAME' of this schema")
        if name in self.done:
            return self.done[name]
        if name in self.busy:  # a recursive schema: look the finished check up when it runs
            return lambda x: self.done[name](x)
        self.busy.add(name)
        self.done[name] = self.node(self.defs[name], f"#/$defs/{name}")
        self.busy.discard(name)
        return self.done[name]

    def node(self, s: Any, where: str) -> Check:
        if s is True:
            return lambda x: True
        if s is False:
            return lambda x: False
        if not isinstance(s, dict):
            raise SchemaNotCompiled(f"{where}: a schema is an object or a boolean, not {s!r}"[:200])
        unknown = sorted(set(s) - SUPPORTED - ANNOTATIONS)
        if unknown:
            raise SchemaNotCompiled(f"{where}: keyword {unknown[0]!r} is not understood by the fast check")
        if "$id" in s and where != "#":
            raise SchemaNotCompiled(f"{where}: an $id below the root changes what $ref means")
        # a node whose `type` is one kind folds that test into the check of the kind's keywords (fewer calls per
        # value: the 2,000 blocks of a large build pass through here 20,000 times)
        names = s.get("type")
        kind = names if isinstance(names, str) else names[0] if isinstance(names, list) and len(names) == 1 else None
        parts = {"string": self.string(s, kind == "string"),
                 "number": self.number(s, kind if kind in ("integer", "number") else None),
                 "array": self.array(s, where, kind == "array"),
                 "object": self.object(s, where, kind == "object")}
        folded = kind is not None and parts.get("number" if kind == "integer" else kind) is not None
        checks: list[Check] = []
        if "type" in s and not folded:
            checks.append(self.type(names, where))
        if "const" in s:
            checks.append(_one_of_values([s["const"]]))
        if "enum" in s:
            checks.append(_one_of_values(list(s["enum"])))
        checks += [part for part in parts.values() if part is not None]
        if "oneOf" in s:
            checks.append(self.one_of(s["oneOf"], where))
        if "if" in s:
            checks.append(self.if_then_else(s, where))
        if "$ref" in s:
            checks.append(self.ref(s["$ref"], where))
        return _all(checks)

    def if_then_else(self, s: dict[str, Any], where: str) -> Check:
        test = self.node(s["if"], f"{where}/if")
        then = self.node(s.get("then", True), f"{where}/then")
        other = self.node(s.get("else", True), f"{where}/else")
        return lambda x: then(x) if test(x) else other(x)

    @staticmethod
    def type(names: Any, where: str) -> Check:
        names = names if isinstance(names, list) else [names]
        if not names or any(not isinstance(n, str) or n not in TYPES for n in names):
            raise SchemaNotCompiled(f"{where}: type {names!r} is not a JSON Schema type")
        preds = [TYPES[n] for n in names]
        if len(preds) == 1:
            return preds[0]
        return lambda x: any(p(x) for p in preds)

    @staticmethod
    def string(s: dict[str, Any], typed: bool) -> Check | None:
        """minLength, maxLength, pattern; `typed`: the node's type is "string", so anything else is refused."""
        lo, hi, pattern = s.get("minLength"), s.get("maxLength"), s.get("pattern")
        if lo is None and hi is None and pattern is None:
            return None
        search = re.compile(pattern).search if pattern is not None else None
        other = not typed

        def check(x: Any) -> bool:
            if not isinstance(x, str):
                return other
            if lo is not None and len(x) < lo:
                return False
            if hi is not None and len(x) > hi:
                return False
            return search is None or search(x) is not None
        return check

    @staticmethod
    def number(s: dict[str, Any], typed: str | None) -> Check | None:
        """The bounds; `typed` "integer" or "number": the node's type, so anything else is refused."""
        # each comparison is written as jsonschema writes it, so NaN and mixed number types fare alike
        bad: list[Check] = []
        lo, hi = s.get("minimum"), s.get("maximum")
        if lo is not None:
            bad.append(lambda x: x < lo)
        if hi is not None:
            bad.append(lambda x: x > hi)
        if "exclusiveMinimum" in s:
            xlo = s["exclusiveMinimum"]
            bad.append(lambda x: x <= xlo)
        if "exclusiveMaximum" in s:
            xhi = s["exclusiveMaximum"]
            bad.append(lambda x: x >= xhi)
        if not bad:
            return None
        is_kind = _is_integer if typed == "integer" else _is_number
        other = typed is None
        if typed and lo is not None and hi is not None and len(bad) == 2:  # a coordinate
            return lambda x: (type(x) is int or is_kind(x)) and not (x < lo or x > hi)

        def check(x: Any) -> bool:
            if type(x) is not int and not is_kind(x):  # an int is both an integer and a number
                return other
            for b in bad:
                if b(x):
                    return False
            return True
        return check

    def array(self, s: dict[str, Any], where: str, typed: bool) -> Check | None:
        """minItems, maxItems, items, contains; `typed`: the node's type is "array", so anything else is
        refused."""
        lo, hi = s.get("minItems"), s.get("maxItems")
        if "items" in s and not isinstance(s["items"], dict | bool):
            raise SchemaNotCompiled(f"{where}: items must be one schema (draft 2020-12), not a list")
        item = self.node(s["items"], f"{where}/items") if "items" in s else None
        contains = self.node(s["contains"], f"{where}/contains") if "contains" in s else None
        if lo is None and hi is None and item is None and contains is None:
            return None
        other = not typed
        lo = 0 if lo is None else lo
        hi = float("inf") if hi is None else hi

        def check(x: Any) -> bool:
            if not isinstance(x, list | tuple):
                return other
            n = len(x)
            if n < lo or n > hi:
                return False
            if contains is not None and not any(map(contains, x)):
                return False
            return item is None or all(map(item, x))
        return check

    def object(self, s: dict[str, Any], where: str, typed: bool) -> Check | None:
        """properties, required, additionalProperties, patternProperties, propertyNames, minProperties and
        maxProperties; `typed`: the node's type is "object"."""
        keywords = ("properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                    "minProperties", "maxProperties")
        if not any(k in s for k in keywords):
            return None
        props = {k: self.node(v, f"{where}/properties/{k}") for k, v in s.get("properties", {}).items()}
        required = tuple(s.get("required", ()))
        patterns = [(re.compile(p).search, self.node(v, f"{where}/patternProperties/{p}"))
                    for p, v in s.get("patternProperties", {}).items()]
        # jsonschema decides "additional" with the patterns joined by "|", so do the same
        joined = re.compile("|".join(s.get("patternProperties", {}))).search if patterns else None
        extra = s.get("additionalProperties", True)
        extra_check = None if extra is True else self.node(extra, f"{where}/additionalProperties")
        names = self.node(s["propertyNames"], f"{where}/propertyNames") if "propertyNames" in s else None
        lo, hi = s.get("minProperties", 0), s.get("maxProperties", float("inf"))
        other = not typed

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return other
            if not lo <= len(x) <= hi:
                return False
            if names is not None and not all(map(names, x)):
                return False
            for k in required:
                if k not in x:
                    return False
            for k, v in x.items():
                c = props.get(k)
                if c is not None:
                    if not c(v):
                        return False
                elif extra_check is not None and not (joined is not None and joined(k)) and not extra_check(v):
                    return False
                if patterns:
                    for search, pc in patterns:
                        if search(k) and not pc(v):
                            return False
            return True
        return check

    def one_of(self, subs: Any, where: str) -> Check:
        if not isinstance(subs, list) or not subs:
            raise SchemaNotCompiled(f"{where}: oneOf must be a non-empty list of schemas")
        checks = [self.node(sub, f"{where}/oneOf/{i}") for i, sub in enumerate(subs)]

        def check(x: Any) -> bool:
            found = 0
            for c in checks:
                if c(x):
                    found += 1
                    if found > 1:
                        return False
            return found == 1
        return check


def compile_check(root: dict[str, Any], part: str | None = None) -> Check:
    """The yes/no check of the whole schema `root`, or of its `$defs` entry `part`. Raises SchemaNotCompiled for a
    schema that uses a keyword or a form the check does not understand; every `$defs` entry is compiled too, so a
    problem in one that no `$ref` reaches yet is found now and not on the day someone refers to it."""
    compiler = _Compiler(root)
    whole = compiler.node(root, "#")
    for name in compiler.defs:
        compiler.ref(REF_PREFIX + name, "#/$defs")
    if part is None:
        return whole
    return compiler.ref(REF_PREFIX + part, f"part {part!r}")
