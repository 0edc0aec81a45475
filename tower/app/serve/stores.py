"""Which store a database name opens: a SQLite file, or a PostgreSQL database named by its URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tower.app.serve.store import Store, StoreError, is_url


def open_store(db: str | Path, synchronous: str = "full", lock_seconds: float = 3.0, check: bool = True) -> Any:
    """The SQLite file `db`, or the PostgreSQL database at the URL `db` (`pgstore.PgStore`, shared by any number of
    server processes)."""
    if is_url(str(db)):
        try:
            from tower.app.serve.pgstore import PgStore
        except ImportError:
            raise StoreError("a PostgreSQL database needs psycopg 3: pip install 'tower-sim[postgres]'") from None

        return PgStore(str(db), synchronous, lock_seconds=lock_seconds)
    return Store(db, synchronous, lock_seconds=lock_seconds, check=check)
