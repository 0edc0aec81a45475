"""`tower serve`: the four games in the browser, one seat per screen (docs/serve.md)."""

from __future__ import annotations

import sys

from tower.games.errors import BadInput


def admin(args) -> int:
    """`--list-games`, `--delete-game ID`: the operator's work on the database, without serving."""
    import time

    from tower.app.serve.store import Store, StoreError
    from tower.app.serve.stores import open_store

    try:
        store = open_store(args.db, lock_seconds=10)
    except StoreError as exc:
        raise BadInput(f"cannot use the database: {exc}", "", args.db) from None
    try:
        if args.list_games:
            for game_id, game, moves, created, state in store.listing():
                when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(created))
                print(f"{game_id}  {game:15} {moves:5} moves  {state:9}  created {when} UTC")
        for game_id in args.delete_game:
            if store.game(game_id) is None:
                raise BadInput(f"no game {game_id[:40]!r} in the database", "", args.db)
            store.write(Store.delete_ops(game_id))
            print(f"deleted game {game_id}")
    except StoreError as exc:
        raise BadInput(f"cannot change the database: {exc}", "", args.db) from None
    finally:
        store.close()
    return 0


def run(args) -> int:
    from tower.app.serve.limits import Limits
    from tower.app.serve.run import run_server

    if args.list_games or args.delete_game:
        return admin(args)
    limits = Limits().with_changes(args.limit)

    if not 0 <= args.port <= 65535:
        raise BadInput(f"--port must be 0 to 65535, got {args.port}", "")
    if args.workers is not None and args.workers < 1:
        raise BadInput(f"--workers must be at least 1, got {args.workers}", "")
    if args.ai_pause < 0:
        raise BadInput(f"--ai-pause must not be negative, got {args.ai_pause}", "")

    from tower.app.serve.store import redacted

    def ready(url: str) -> None:
        print(f"tower serve: the lobby is at {url} (games are kept in {redacted(args.db)}); Ctrl+C stops",
              flush=True)

    try:
        run_server(args.db, args.host, args.port, ready=ready, workers=args.workers, ai_pause=args.ai_pause,
                   synchronous=args.sync, limits=limits, trust_proxy=args.trust_proxy, ray=args.ray)
    except OSError as exc:
        raise BadInput(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", "") from None
    except Exception as exc:
        from tower.app.serve.store import StoreError

        if isinstance(exc, StoreError) or type(exc).__module__.split(".")[0] in ("sqlite3", "psycopg"):
            from tower.app.serve.store import redacted

            raise BadInput(f"cannot use the database: {redacted(str(exc))}", "", redacted(args.db)) from None
        raise
    print("tower serve: stopped", file=sys.stderr)
    return 0
