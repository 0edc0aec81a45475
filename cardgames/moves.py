"""What the card games' moves share: a text form that is also the move's identity, and reading its first word."""

from __future__ import annotations

from typing import Any, Self

from tower.games.base import Move
from tower.games.errors import BadInput


class TextMove(Move):
    """A move whose text is computed once in `__post_init__` (`_set_text`): legal_moves() sorts by it, records
    store it as the JSON form, and search hashes moves a lot. Subclasses still define `__hash__` in their own
    body, or @dataclass would replace it with a field hash."""

    def _set_text(self, text: str, key: Any) -> None:
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_hash", hash(key))

    def __str__(self) -> str:
        return self._text  # type: ignore[attr-defined]

    def sort_key(self) -> str:
        return self._text  # type: ignore[attr-defined]

    def to_json(self) -> str:
        return str(self)

    @classmethod
    def from_json(cls, data: Any) -> Self:
        return cls.parse(data)


def split_move(text: Any, verbs: tuple[str, ...] | dict[str, Any]) -> tuple[str, list[str]]:
    """A typed move -> (its verb, the other words), lower case; BadInput unless it is text starting with a verb."""
    if not isinstance(text, str):
        raise BadInput(f"a move is text, got {text!r}")
    words = text.strip().lower().split()
    if not words or words[0] not in verbs:
        raise BadInput(f"a move starts with one of {', '.join(verbs)}: {text!r}")
    return words[0], words[1:]
