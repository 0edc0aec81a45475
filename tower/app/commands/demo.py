"""`tower demo`: the no-display tour: a start tower checked, pictures, one short AI game of each game."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tower.app.batch import play_one
from tower.app.commands.check import check_document
from tower.app.output import EXIT_OK
from tower.games.errors import BadInput
from tower.games.fileio import atomic_write_text
from tower.games.registry import game_class, game_names


def run(args) -> int:
    from tower.climbers.build import save_build
    from tower.climbers.setup import random_start_tower

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise BadInput("--out: exists and is not a folder", "", args.out)
    out.mkdir(parents=True, exist_ok=True)
    lines = ["# tower-sim demo", ""]
    build = random_start_tower(seed=1)
    save_build(build, out / "start-tower.json")
    doc = check_document(build, statics_only=False)
    atomic_write_text(out / "start-tower.check.json", json.dumps(doc, indent=1) + "\n")
    st = doc.get("stability") or {}
    lines.append(f"start tower (seed 1): {len(build.blocks)} blocks, legal={doc['legal']}, "
                 f"verdict={st.get('verdict', 'n/a')}")
    print(lines[-1])
    try:
        from viewer.demo import demo_pictures
    except ImportError:
        pass
    else:
        from tower.app import stability

        for line in demo_pictures(build, out, stability):
            print(line)
            lines.append(line)
    for game in game_names():
        cls = game_class(game)
        # three seats, one greedy and two random, where the game allows three; else its usual table, all greedy
        seats = ["ai:greedy", "ai:random", "ai:random"] if 3 in cls.allowed_players() \
            else ["ai:greedy"] * cls.default_players
        try:
            r = play_one((game, seats, 1, {}))
        except BadInput as exc:
            line = f"{game}: skipped ({exc.what})"
        else:
            line = f"{game}: AI game finished in {r['length']} moves, winners {r['winners']}"
        print(line)
        lines.append(line)
    atomic_write_text(out / "summary.md", "\n".join(lines) + "\n")
    print(f"wrote {out}/", file=sys.stderr)
    return EXIT_OK
