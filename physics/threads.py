"""Two pieces of work side by side: one on a worker thread, one in the caller's.

It pays where the work leaves the GIL: HiGHS releases it while it solves, pybullet between steps. The statics
judge's ray chains, the removal map's rays and `judge`'s statics beside PyBullet's first run all go through here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
U = TypeVar("U")


def side_by_side(there: Callable[[], T], here: Callable[[], U], name: str) -> tuple[T, U]:
    """`there()` on a daemon thread called `name` while `here()` runs in the caller's thread; both results.
    The worker is always waited for; an exception of `here` wins, else one of `there` is raised in the caller's
    thread."""
    done: list[T] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            done.append(there())
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(e)

    thread = threading.Thread(target=worker, name=name, daemon=True)
    thread.start()
    try:
        mine = here()
    finally:
        thread.join()
    if errors:
        raise errors[0]
    return done[0], mine
