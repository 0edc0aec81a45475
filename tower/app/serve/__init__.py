"""`tower serve`: the four games in the browser, one seat per screen, the server as the referee (docs/serve.md).

An application beside the command line: it wires the games (through the kit), the viewer's pure scenes (as
JSON for the browser's three.js renderer) and the physics judge together, keeps every game in SQLite, and sends
each seat only what that seat may see.

- `store`: the SQLite file (games, tokens, moves), group-committed by one writer thread
- `table`: one live game: the referee and what each seat is shown
- `takeback`: the undo rule
- `workers`: AI seats and hints in a pool of worker processes
- `lobby`: reading a new game's request; the catalogue of games and AIs
- `server`: all tables: requests, AI turns, the pages' live feed
- `http`: routes, JSON errors, WebSockets, the pages; `run`: foreground or background thread
"""
