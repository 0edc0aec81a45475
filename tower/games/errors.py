"""Error types shared by every game and loader."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class IllegalMove(ValueError):
    """A move that breaks a rule. `rule` names the rule; the state is left unchanged."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class BadInput(ValueError):
    """Malformed user input (file, record, move text).

    `source` is the file or argument, `where` a JSON path like ``$.blocks[3].size``; `str()` is the
    one line the CLI prints before exiting with status 2.
    """

    def __init__(self, what: str, where: str = "$", source: str = "") -> None:
        self.what = what
        self.where = where
        self.source = source
        super().__init__(self._line())

    def _line(self) -> str:
        head = f"{self.source}: " if self.source else ""
        place = f"at {self.where}: " if self.where else ""
        # a JSON key or a file name may hold a line break: the message stays one line all the same; a message
        # quoting a huge input keeps its start (what is wrong) and its end, not megabytes of the input
        return _shorten(f"{head}{place}{self.what}".translate(_LINE_BREAKS))

    def in_source(self, source: str) -> BadInput:
        """The same error, naming the file it came from."""
        return BadInput(self.what, self.where, source)


#: Every character `str.splitlines` breaks at, written as its escape.
_LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}

#: Longest error line printed; longer ones keep both ends around an elision mark.
MAX_LINE = 400


def _shorten(line: str) -> str:
    if len(line) <= MAX_LINE:
        return line
    keep = (MAX_LINE - 30) // 2
    return f"{line[:keep]} ... [{len(line) - 2 * keep} characters left out] ... {line[-keep:]}"


def unknown_id(what: str, name: str, known: Iterable[str]) -> str:
    """"no block with id 'D2' (did you mean 'd2'?)": the words for a name that is not there, with the nearest
    known one (the same letters in another case first) when one is close."""
    known = sorted(known)
    near = [k for k in known if k.lower() == name.lower()] or difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f"no {what} with id {name!r}" + (f" (did you mean {near[0]!r}?)" if near else "")
