"""`tower lab [FILE]`: the tower lab in the browser, served from this machine (docs/lab.md)."""

from __future__ import annotations

import json
import sys
import threading
import urllib.request
from typing import Any

from tower.games.errors import BadInput


def _open_lab(url: str, build: Any, rules: str, open_browser: bool) -> None:
    """Create the lab (with the file's build) on the server just started, then open it in a browser; the address
    is printed either way, and said so when no browser could be opened."""
    body: dict[str, Any] = {"rules": rules}
    if build is not None:
        body["build"] = build
    req = urllib.request.Request(url + "api/lab", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as answer:
            lab = json.loads(answer.read())
    except Exception as exc:  # noqa: BLE001 - the server still runs: the lab can be opened by hand
        print(f"tower lab: cannot create the lab ({exc}); open {url}lab", file=sys.stderr, flush=True)
        return
    address = url.rstrip("/") + lab["url"]
    opened = False
    if open_browser:
        import webbrowser

        try:
            opened = webbrowser.open(address)
        except Exception:  # noqa: BLE001 - no browser is no error: the address is printed
            opened = False
    if opened:
        print(f"tower lab: opened {address} in your browser; Ctrl+C stops", flush=True)
    else:
        print(f"tower lab: open {address} in a browser; Ctrl+C stops", flush=True)


def run(args) -> int:
    from tower.app.serve.limits import Limits
    from tower.app.serve.run import run_server
    from tower.climbers.build import read_build

    build = None
    if args.file:
        from tower.app.lab.controller import LabController
        from tower.climbers.build import build_to_json
        from tower.games.errors import IllegalMove

        found = read_build(args.file)  # a bad file: one line, exit 2, before anything starts
        try:  # checked as the lab checks a file opened in it (the rule set chosen)
            LabController(found, rules=args.rules, opens="--rules flag")
        except IllegalMove as exc:
            raise BadInput(f"the lab refuses it ({args.rules} rules): {exc.rule}: {exc.message}", "",
                           args.file) from None
        build = build_to_json(found)
    limits = Limits().with_changes(getattr(args, "limit", []))  # a bad NAME=VALUE: one line, exit 2
    if not 0 <= args.port <= 65535:
        raise BadInput(f"--port must be 0 to 65535, got {args.port}", "")

    def ready(url: str) -> None:
        threading.Thread(target=_open_lab, args=(url, build, args.rules, not args.no_browser), daemon=True).start()

    try:
        run_server(args.db, "127.0.0.1", args.port, ready=ready, workers=1, ai_pause=0.4, limits=limits)
    except OSError as exc:
        raise BadInput(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}", "") from None
    print("tower lab: stopped", file=sys.stderr)
    return 0
