"""What the card games' moves share: the kit's `Move` with its text worked out once, and reading a typed move's
first word."""

from __future__ import annotations

from typing import Any

from tower.games.base import Move
from tower.games.errors import BadInput


class CardMove(Move):
    """A card game's move: the kit's one move style (`str` and `parse`; the JSON form is the text, from `Move`),
    with the text computed once in `__post_init__` (`_set_text`), because legal_moves() sorts by it, records store
    it and the search hashes moves a lot.

    Subclasses are ``@dataclass(frozen=True)``: equality is the fields', the hash the text's (equal fields give
    equal texts). A frozen dataclass would replace an inherited `__hash__`, so each subclass repeats
    ``__hash__ = CardMove.__hash__`` in its body.
    """

    def _set_text(self, text: str) -> None:
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_hash", hash(text))

    def __str__(self) -> str:
        return self._text  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    def sort_key(self) -> Any:
        return self._text  # type: ignore[attr-defined]


def split_move(text: Any, verbs: tuple[str, ...] | dict[str, Any]) -> tuple[str, list[str]]:
    """A typed move -> (its verb, the other words), lower case; BadInput unless it is text starting with a verb."""
    if not isinstance(text, str):
        raise BadInput(f"a move is text, got {text!r}")
    words = text.strip().lower().split()
    if not words or words[0] not in verbs:
        raise BadInput(f"a move starts with one of {', '.join(verbs)}: {text!r}")
    return words[0], words[1:]
