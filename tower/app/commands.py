"""The bodies of the `tower` subcommands (argument parsing is in tower.app.cli)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from tower.app.cli import EXIT_BAD, EXIT_FOUND, EXIT_OK, check_output_path, print_json
from tower.app.stability import configure_game
from tower.games.errors import BadInput
from tower.games.registry import on_load

# The CLI is where rules meet physics: games under the `support=physical` option get the statics judge here,
# when the registry first hands out The Climbers (simulate's worker processes import this module too).
on_load(configure_game)


# --- tower new ---------------------------------------------------------------------------------------------
def cmd_new(args) -> int:
    from tower.climbers.build import dumps_build, save_build
    from tower.climbers.setup import random_start_tower

    out = check_output_path(args.output, "output")
    build = random_start_tower(args.seed)
    if out is None:
        sys.stdout.write(dumps_build(build))
    else:
        save_build(build, out)
        print(f"wrote {out}: start tower, seed {args.seed}, {len(build.blocks)} blocks", file=sys.stderr)
    return EXIT_OK


# --- tower check -------------------------------------------------------------------------------------------
def check_document(build, statics_only: bool) -> dict[str, Any]:
    """The SPEC section 4 document for a build."""
    from tower.climbers.legality import check_build, is_legal

    violations = check_build(build)
    doc: dict[str, Any] = {"legal": is_legal(violations), "violations": [v.to_json() for v in violations]}
    try:
        from tower.app.stability import judge_build

        doc["stability"] = judge_build(build, statics_only=statics_only).to_json()
    except (ImportError, AttributeError):  # physics not available: legality alone
        doc["stability"] = None
    return doc


def _print_check(path: str, doc: dict[str, Any]) -> None:
    print(f"{path}: {'legal' if doc['legal'] else 'ILLEGAL'}")
    for v in doc["violations"]:
        level = v.get("level", "error")
        cells = " ".join(str(tuple(c)) for c in v["cells"][:6]) + (" ..." if len(v["cells"]) > 6 else "")
        print(f"  {level:7} {v['rule']:22} {v['message']}" + (f"  cells {cells}" if cells else ""))
    st = doc.get("stability")
    if not st:
        return
    print(f"stability: {st['verdict'].upper()}")
    s = st["statics"]
    print(f"  statics  (LP):       {'stands' if s['stable'] else 'falls'}, tilt margin {s['tilt_margin_deg']:.1f} deg"
          f" toward {s['weakest_direction']}, {s['ms']:.0f} ms")
    d = st.get("dynamics")
    if d:
        moved = ", ".join(d["moved"][:8]) + (" ..." if len(d["moved"]) > 8 else "")
        print(f"  dynamics (PyBullet): {'collapses' if d['collapsed'] else 'stands'}, max displacement "
              f"{d['max_displacement_mm']:.1f} mm, max rotation {d['max_rotation_deg']:.1f} deg over "
              f"{d['simulated_s']:.2f} s simulated, {d['ms']:.0f} ms" + (f"; moved: {moved}" if moved else ""))


def cmd_check(args) -> int:
    from tower.climbers.build import load_build

    build = load_build(args.file)
    known = {b.id for b in build.blocks}
    for block_id in args.remove:
        if block_id not in known:
            raise BadInput(f"--remove {block_id}: no block with that id", "", args.file)
    build = build.without(set(args.remove))
    doc = check_document(build, args.statics_only)
    if args.json:
        print_json(doc)
    else:
        _print_check(args.file, doc)
    stable = doc["stability"] is None or doc["stability"]["verdict"] == "stable"
    return EXIT_OK if doc["legal"] and stable else EXIT_FOUND


# --- players -----------------------------------------------------------------------------------------------
def parse_players(spec: str | None, game: str) -> list[str]:
    """`human,ai:greedy,...` -> one entry per seat; the count of entries is the number of players."""
    from tower.games import game_class
    from tower.games.ai import make_agent

    cls = game_class(game)
    if spec is None:
        return ["human"] + ["ai:greedy"] * (cls.default_players - 1)
    seats = [s.strip() for s in spec.split(",")]
    # Each seat first: a typo like `--players foo` should be named, not counted as "1 player".
    for s in seats:
        if s != "human":
            try:
                make_agent(s)
            except BadInput as exc:
                raise BadInput(f"--players: {exc.what}", "") from None
    if len(seats) not in cls.allowed_players():
        raise BadInput(f"--players: {game} is for {cls.players_text()} players, got {len(seats)} ({spec!r})", "")
    return seats


def parse_options(items: list[str], game: str) -> dict[str, Any]:
    """`--option NAME=VALUE` flags -> the game's options. VALUE is read as JSON where it parses (numbers,
    true/false), else as a plain string; the game checks names, types and choices."""
    from tower.games import game_class

    options: dict[str, Any] = {}
    for item in items:
        name, eq, text = item.partition("=")
        if not eq or not name:
            raise BadInput(f"--option: expected NAME=VALUE, got {item!r}", "")
        try:
            options[name] = json.loads(text)
        except ValueError:
            options[name] = text
    try:
        game_class(game).resolve_options(options)
    except BadInput as exc:
        raise BadInput(f"--option: {exc.what}", "") from None
    return options


# --- tower play --text -------------------------------------------------------------------------------------
HELP = """commands: a move in its text form | moves | hint | undo | status | save FILE | help | quit"""


def cmd_play(args) -> int:
    from tower.games import load_record, new_game
    from tower.games.ai import make_agent

    if args.load:
        state = load_record(args.load)
        seats = parse_players(args.players, args.game) if args.players else ["human"] * state.num_players
        if state.name != args.game:
            raise BadInput(f"the record is a {state.name} game, not {args.game}", "$.game", args.load)
    else:
        seats = parse_players(args.players, args.game)
        state = new_game(args.game, len(seats), args.seed, parse_options(args.option, args.game))
    if not args.text:
        try:
            from viewer.play import play_window
        except ImportError:
            raise BadInput("the 3D window is not available in this installation; use --text", "") from None
        return play_window(state, seats, save_path=args.load)
    agents = {i: make_agent(s, seed=args.seed * 31 + i) for i, s in enumerate(seats) if s != "human"}
    return text_loop(state, seats, agents)


def text_loop(state, seats: list[str], agents: dict[int, Any], stdin=None) -> int:
    from tower.games import save_record
    from tower.games.errors import IllegalMove

    stdin = stdin or sys.stdin
    print(f"{state.name}: {state.num_players} players ({', '.join(seats)}), seed {state.seed}. {HELP}")
    shown = -1  # the history length whose position was last printed: answers to commands don't repeat it
    while not state.is_over:
        p = state.current_player
        if p in agents:
            move = agents[p].choose(state)
            state.apply(move)
            print(f"player {p} ({seats[p]}): {move}")
            continue
        if shown != len(state.history):
            print()
            print(state.describe(p))
            shown = len(state.history)
        print(f"player {p} to move> ", end="", flush=True)
        line = stdin.readline()
        if not line:
            print("\nend of input: leaving the game")
            return EXIT_OK
        text = line.strip()
        if not text:
            continue
        word, _, rest = text.partition(" ")
        if word in ("quit", "exit"):
            return EXIT_OK
        if word == "help":
            print(HELP)
        elif word == "status":
            shown = -1
        elif word == "moves":
            moves = state.legal_moves()
            print(f"{len(moves)} legal moves: " + ", ".join(map(str, moves[:60])) + (" ..." if len(moves) > 60 else ""))
        elif word == "hint":
            from tower.games.ai import make_agent

            print("hint:", make_agent("mcts:time=1.0", seed=len(state.history)).choose(state))
        elif word == "undo":
            # take back to the last human decision, skipping the AIs' replies
            if not state.history:
                print("nothing to undo")
                continue
            state = state.undo()
            while state.history and state.current_player in agents:
                state = state.undo()
            shown = -1
        elif word == "save":
            if not rest:
                print("save needs a file name")
                continue
            try:
                save_record(state, rest.strip(), seats)
                print(f"saved to {rest.strip()}")
            except OSError as exc:
                print(f"cannot save: {exc.strerror}")
        else:
            try:
                state.apply_text(text)
            except BadInput as exc:
                print(f"not understood: {exc.what}")
            except IllegalMove as exc:
                print(f"illegal ({exc.rule}): {exc.message}")
    res = state.result()
    print("game over:", json.dumps(res))
    return EXIT_OK


# --- tower simulate ----------------------------------------------------------------------------------------
def _one_game(job: tuple[str, list[str], int, dict[str, Any]]) -> dict[str, Any]:
    from tower.games import new_game
    from tower.games.ai import make_agent

    game, seats, seed, options = job
    state = new_game(game, len(seats), seed, options)
    agents = [make_agent(s, seed=seed * 7919 + i) for i, s in enumerate(seats)]
    while not state.is_over:
        state.apply(agents[state.current_player].choose(state))
    res = state.result()
    return {"seed": seed, "winners": res.get("winners", []), "shares": state.win_shares(),
            "scores": res.get("scores", []), "length": len(state.history)}


def cmd_simulate(args) -> int:
    from tower.games import game_class

    cls = game_class(args.game)
    if args.games < 1:
        raise BadInput("--games must be at least 1", "")
    if args.jobs < 1:
        raise BadInput("--jobs must be at least 1", "")
    seats = parse_players(args.players, args.game) if args.players else ["ai:greedy"] * cls.default_players
    if "human" in seats:
        raise BadInput("--players: simulate plays AIs only (no 'human')", "")
    options = parse_options(args.option, args.game)
    jobs = [(args.game, seats, args.seed + i, options) for i in range(args.games)]
    start = time.perf_counter()
    results: list[dict[str, Any]] = []
    from tqdm import tqdm

    bar = tqdm(total=len(jobs), desc=f"{args.game}", unit="game", file=sys.stderr, disable=args.json or None)
    if args.jobs == 1:
        for job in jobs:
            results.append(_one_game(job))
            bar.update()
    else:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(args.jobs) as pool:
            for r in pool.imap(_one_game, jobs, chunksize=max(1, len(jobs) // (args.jobs * 20))):
                results.append(r)
                bar.update()
    bar.close()
    elapsed = time.perf_counter() - start
    summary = summarise(args.game, seats, results, elapsed)
    if args.json:
        print_json(summary)
    else:
        print(f"{args.game}: {len(results)} games, {len(seats)} players, {summary['games_per_s']:.1f} games/s")
        for seat in summary["seats"]:
            print(f"  seat {seat['seat']} {seat['player']:>14}: wins {seat['win_rate'] * 100:5.1f} %"
                  f"  mean score {seat['mean_score']:.2f}")
        for name, rate in summary["by_ai"].items():
            print(f"  {name:>20}: win rate {rate * 100:.1f} %")
        print(f"  game length: mean {summary['length']['mean']:.1f} moves (min {summary['length']['min']}, "
              f"max {summary['length']['max']})")
    return EXIT_OK


def summarise(game: str, seats: list[str], results: list[dict[str, Any]], elapsed: float) -> dict[str, Any]:
    n = len(results)
    wins = [0.0] * len(seats)
    scores = [0.0] * len(seats)
    for r in results:
        for i, share in enumerate(r["shares"][: len(seats)]):
            wins[i] += share
        for i, s in enumerate(r["scores"][: len(seats)]):
            scores[i] += float(s)
    by_ai: dict[str, list[float]] = {}
    for i, s in enumerate(seats):
        by_ai.setdefault(s, []).append(wins[i] / n)
    lengths = [r["length"] for r in results]
    return {
        "game": game, "games": n, "players": seats, "seconds": elapsed, "games_per_s": n / elapsed if elapsed else 0.0,
        "seats": [{"seat": i, "player": s, "win_rate": wins[i] / n, "mean_score": scores[i] / n}
                  for i, s in enumerate(seats)],
        "by_ai": {k: sum(v) / len(v) for k, v in by_ai.items()},
        "length": {"mean": sum(lengths) / n, "min": min(lengths), "max": max(lengths)},
    }


# --- tower replay (text) -----------------------------------------------------------------------------------
def cmd_replay(args) -> int:
    from tower.games import replay
    from tower.games.fileio import read_json

    record = read_json(args.record)
    try:
        final = replay(record)
    except BadInput as exc:
        raise exc.in_source(args.record) from None
    if args.gif:
        check_output_path(args.gif, "--gif")
        from viewer.replay import render_gif

        render_gif(record, args.gif)
        print(f"wrote {args.gif}", file=sys.stderr)
        return EXIT_OK
    if not args.text:
        try:
            from viewer.replay import replay_window
        except ImportError:
            args.text = True
        else:
            return replay_window(record)
    from tower.games import new_game

    state = new_game(final.name, final.num_players, final.seed, final.options)
    print(f"{final.name}, {final.num_players} players, seed {final.seed}: {len(final.history)} moves")
    for i, move in enumerate(final.history):
        p = state.current_player
        state.apply(move)
        print(f"{i + 1:4}. player {p}: {move}")
    print("result:", json.dumps(final.result()) if final.is_over else "(game not finished)")
    return EXIT_OK


# --- tower view --------------------------------------------------------------------------------------------
def cmd_view(args) -> int:
    for opt in ("screenshot", "gltf", "html"):
        check_output_path(getattr(args, opt), f"--{opt}")
    from viewer.view import view_file

    return view_file(args.file, screenshot=args.screenshot, gltf=args.gltf, html=args.html)


# --- tower demo --------------------------------------------------------------------------------------------
def cmd_demo(args) -> int:
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
    (out / "start-tower.check.json").write_text(json.dumps(doc, indent=1) + "\n")
    st = doc.get("stability") or {}
    lines.append(f"start tower (seed 1): {len(build.blocks)} blocks, legal={doc['legal']}, "
                 f"verdict={st.get('verdict', 'n/a')}")
    print(lines[-1])
    try:
        from viewer.demo import demo_pictures
    except ImportError:
        pass
    else:
        for line in demo_pictures(build, out):
            print(line)
            lines.append(line)
    for game in ("climbers", "seventh-heaven", "partners", "diabolo"):
        try:
            r = _one_game((game, ["ai:greedy", "ai:random", "ai:random"] if game != "partners"
                           else ["ai:greedy"] * 4, 1, {}))
        except BadInput as exc:
            line = f"{game}: skipped ({exc.what})"
        else:
            line = f"{game}: AI game finished in {r['length']} moves, winners {r['winners']}"
        print(line)
        lines.append(line)
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out}/", file=sys.stderr)
    return EXIT_OK


__all__ = ["EXIT_BAD", "cmd_new", "cmd_check", "cmd_play", "cmd_simulate", "cmd_view", "cmd_replay", "cmd_demo"]
