"""The `tower` command line: wires the rules packages, the physics judges and the viewer together.

Heavy packages (physics, vtk) are imported inside the commands that need them, so `tower --help` and the
rules stay fast. Bad input of any kind ends in one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tower.app.output import EXIT_BAD, EXIT_OK
from tower.app.seats import players_help
from tower.games.errors import BadInput
from tower.games.registry import game_names

GAMES = tuple(game_names())


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2 (argparse prints a usage block otherwise)."""

    args: list[str] = []

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        self.args = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        sub = self.prog.partition(" ")[2]
        if "--remove" in self.args and "required: file" in message:  # `--remove a b FILE`: the ids took FILE too
            message += " (the ids after --remove run to the next option: give FILE before them)"
        raise BadInput(f"{sub}: {message}" if sub else message, "")


class _Version(argparse.Action):
    """`tower --version`: the installed package's version, looked up only when asked for."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("tower-sim")
        except PackageNotFoundError:  # run from a source tree that was never installed
            number = "unknown"
        print(f"tower {number}")
        parser.exit(0)


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tower", description="Block-tower builds in 3D and four tabletop games.")
    p.add_argument("--version", action=_Version)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("demo", help="generate a tower, check it, play short AI games, write screenshots")
    s.add_argument("--out", default="tower-demo", help="output folder (default ./tower-demo)")

    s = sub.add_parser("new", help="a random legal start tower as tower-build/1")
    s.add_argument("--seed", type=int, help="the same tower for the same seed (default: a fresh one, printed)")
    s.add_argument("-o", "--output", help="file to write (default: stdout)")

    s = sub.add_parser("check", help="legality and stability of a build")
    s.add_argument("file")
    s.add_argument("--json", action="store_true", help="print one JSON document")
    s.add_argument("--statics-only", action="store_true", help="skip the PyBullet judge")
    s.add_argument("--remove", nargs="+", action="extend", default=[], metavar="ID",
                   help="judge without these blocks: one or more ids (--remove a b, or --remove a --remove b; "
                        "give FILE before them)")
    s.add_argument("--judge", choices=("pybullet", "mujoco"), default="pybullet",
                   help="the dynamics judge: pybullet (default) or mujoco (the optional extra)")
    s.add_argument("--forces", action="store_true",
                   help="the contact forces: what every contact must and may carry, the friction the build needs")
    s.add_argument("--witnesses", action="store_true",
                   help="with --forces --json: every force distribution a bound names, in full (large)")
    s.add_argument("--removal-map", action="store_true", help="which blocks can be taken away, which bring others down")
    s.add_argument("--push", metavar="BLOCK[:DIR]",
                   help="smallest push on BLOCK that fails the build; DIR one of +x -x +y -y (default all four)")
    s.add_argument("--certificate", metavar="OUT",
                   help="write the statics verdict's proof (tower-certificate/1) to OUT; `tower verify OUT` checks it")

    s = sub.add_parser("verify", help="check a statics verdict's certificate with numpy alone")
    s.add_argument("file", help="a tower-certificate/1 file (`tower check FILE --certificate OUT`)")
    s.add_argument("--build", metavar="FILE", help="also check that the certificate is about this tower-build/1 file")

    s = sub.add_parser("play", help="play a game in the 3D window or the terminal")
    s.add_argument("game", choices=GAMES)
    s.add_argument("--players", help=players_help("human,normal,strong or human,easy,mcts:time=0.5")
                   + "; default: you against greedy")
    s.add_argument("--seed", type=int, help="the deal (default: a fresh one, printed, and kept in the saved game)")
    s.add_argument("--text", action="store_true", help="play in the terminal")
    s.add_argument("--load", help="resume a saved game record")
    s.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule option of the game (repeatable), e.g. support=physical")
    s.add_argument("--build", metavar="FILE", help="start from this tower-build/1 file (The Climbers)")

    s = sub.add_parser("simulate", help="AI-vs-AI batch statistics")
    s.add_argument("game", choices=GAMES)
    s.add_argument("--games", type=int, required=True)
    s.add_argument("--players", help=players_help("strong,normal,easy or greedy,greedy,mcts:time=0.5", human=False) +
                   "; default: greedy in every seat")
    s.add_argument("--seed", type=int, default=0,
                   help="game i is dealt from (SEED, i): the same batch for the same seed (default 0)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule option of the game (repeatable), e.g. track_length=30")
    s.add_argument("--build", metavar="FILE", help="start every game from this tower-build/1 file (The Climbers)")
    _batch_flags(s, "game")

    s = sub.add_parser("sweep", help="stability verdicts of many builds: random ones or a folder's")
    s.add_argument("folder", nargs="?", help="judge every build file (*.json) in this folder")
    s.add_argument("--random", type=int, metavar="N", help="judge N random builds instead")
    s.add_argument("--seed", type=int, default=0,
                   help="random build i is made from (SEED, i): the same builds for the same seed (default 0)")
    s.add_argument("--kind", default="start,played", metavar="KINDS",
                   help="random builds: start, played, boxes (comma-separated; default start,played)")
    s.add_argument("--statics-only", action="store_true", help="skip the PyBullet judge")
    s.add_argument("--disagreements", metavar="DIR", default="sweep-disagreements",
                   help="where builds the two judges disagree on are written (default ./sweep-disagreements)")
    s.add_argument("--json", action="store_true")
    _batch_flags(s, "build")

    s = sub.add_parser("view", help="show a build, a saved game or a record")
    s.add_argument("file")
    s.add_argument("--screenshot", metavar="PNG")
    s.add_argument("--gltf", metavar="FILE", help="write glTF: FILE.glb binary, FILE.gltf JSON text")
    s.add_argument("--html", metavar="FILE")
    s.add_argument("--remove", nargs="+", action="extend", default=[], metavar="ID",
                   help="take these blocks away first (a build): one or more ids (--remove a b, or --remove a "
                        "--remove b; give FILE before them); the glTF then holds the fall")
    s.add_argument("--fall", action="store_true",
                   help="the glTF holds the PyBullet run of the build as an animation (with --gltf)")
    s.add_argument("--edit", action="store_true", help="edit the build in the window (the lab; w saves to FILE)")
    s.add_argument("--rules", choices=("strict", "flag", "free"), default="strict",
                   help="with --edit: strict refuses illegal edits, flag outlines them, free judges physics only")
    overlay = s.add_mutually_exclusive_group()  # one colouring of the blocks at a time, with its legend
    overlay.add_argument("--forces", action="store_true", help="draw the contact forces (arrows scaled by newtons)")
    overlay.add_argument("--removal-map", action="store_true",
                         help="colour each block by what taking it away does (safe, risky, brings others down)")

    s = sub.add_parser("serve", help="play in the browser: one seat per screen, the server as the referee")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    s.add_argument("--db", default="tower-games.sqlite",
                   help="SQLite file of the games (default ./tower-games.sqlite), or a PostgreSQL URL "
                        "(postgresql://USER@HOST/DB) shared by any number of tower serve processes")
    s.add_argument("--workers", type=int, help="processes for AI seats and hints (default: one per core)")
    s.add_argument("--ai-pause", type=float, default=0.4, metavar="SECONDS",
                   help="pause before each AI move, so people can follow (default 0.4)")
    s.add_argument("--sync", choices=("full", "normal"), default="full",
                   help="full: every move is on disk before its answer (survives a power cut); normal: "
                        "survives a killed server, answers a few ms sooner (default full)")
    s.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="change one of the server's limits (docs/serve.md, Limits), e.g. games_per_minute=20")
    s.add_argument("--trust-proxy", action="store_true",
                   help="behind a reverse proxy: a client's address is the last X-Forwarded-For entry")
    s.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="the lab's heavy physics (removal maps, forces and verdicts of big builds) as tasks on the "
                        "Ray cluster at ADDRESS, or on a local Ray started for the server")
    s.add_argument("--list-games", action="store_true", help="list the database's games and exit (operator)")
    s.add_argument("--delete-game", action="append", default=[], metavar="ID",
                   help="delete a game with its moves and links from the database and exit (operator)")

    s = sub.add_parser("schema", help="print the JSON Schema of a file format or --json output")
    s.add_argument("name", nargs="?", help="tower-build, game-record, tower-scene, tower-check, tower-simulate, "
                                           "tower-sweep, tower-batch or tower-certificate (a format such as tower-build/1 "
                                           "works too); "
                                           "none: list them")

    s = sub.add_parser("lab", help="build and change a tower by hand in the browser, judged live")
    s.add_argument("file", nargs="?", help="start from this tower-build/1 file (default: an empty table)")
    s.add_argument("--port", type=int, default=0, help="port (default 0: a free one)")
    s.add_argument("--db", default="tower-games.sqlite", help="SQLite file the labs are kept in (default "
                   "./tower-games.sqlite, shared with tower serve)")
    s.add_argument("--rules", choices=("strict", "flag", "free"), default="strict",
                   help="strict: refuse edits the game's rules forbid; flag: allow them, outlined; free: physics only")
    s.add_argument("--no-browser", action="store_true", help="print the address only")
    s.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="change one of the server's limits (docs/serve.md, Limits), e.g. lab_cpu_seconds=60 for "
                        "the removal map of a big build")

    s = sub.add_parser("replay", help="step through a game record")
    s.add_argument("record")
    s.add_argument("--gif", metavar="FILE")
    s.add_argument("--text", action="store_true", help="step through it in the terminal")
    return p


def _batch_flags(s: argparse.ArgumentParser, unit: str) -> None:
    """What `simulate` and `sweep` share: where the work runs, the results file, the plot."""
    s.add_argument("--jobs", type=int, metavar="J", help=f"{unit}s at once (local processes, or Ray CPUs)")
    s.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="run on Ray: the cluster at ADDRESS, or a local Ray started for the run")
    s.add_argument("--out", metavar="FILE", help=f"stream one JSON line a {unit} to FILE")
    s.add_argument("--resume", metavar="FILE", help="continue the interrupted run whose results are in FILE")
    s.add_argument("--plot", metavar="PNG", help="write the run's charts")


def main(argv: list[str] | None = None) -> int:
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        command = importlib.import_module(f"tower.app.commands.{args.command}")
        return command.run(args)
    except BadInput as exc:
        print(f"tower: {exc}", file=sys.stderr)
        return EXIT_BAD
    except KeyboardInterrupt:
        print("tower: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # an output that cannot be written (no permission, disk full); saves are atomic
        print(f"tower: {BadInput(exc.strerror or str(exc), '', str(exc.filename or ''))}", file=sys.stderr)
        return EXIT_BAD
