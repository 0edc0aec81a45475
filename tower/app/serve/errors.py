"""The referee's refusal: a request turned down with its HTTP status, the rule's name and a one-line message."""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """A request the referee turns down; nothing was changed. `status` is the HTTP status to answer with."""

    def __init__(self, status: int, rule: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status, self.rule, self.message = status, rule, message
        self.retry_after = retry_after  # seconds, sent as `Retry-After` (429, 503)

    def __reduce__(self) -> tuple[Any, ...]:  # raised in a worker process (a replay), answered by the server
        return (Refused, (self.status, self.rule, self.message, self.retry_after))

    def to_json(self) -> dict[str, Any]:
        return {"error": self.message, "rule": self.rule}
