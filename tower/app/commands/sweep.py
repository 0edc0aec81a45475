"""`tower sweep`: the stability verdicts of many builds (random ones, or every build file of a folder), on this
machine or on Ray: verdict counts, the tilt-margin distribution and the builds the two judges disagree on."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tower.app import batchrun
from tower.app.output import EXIT_FOUND, EXIT_OK, check_output_path, print_json
from tower.app.sweep import (
    folder_files,
    folder_items,
    judge_indexed,
    parse_kinds,
    random_items,
    summarise_sweep,
)
from tower.games.errors import BadInput


def _plan(args) -> tuple[dict[str, Any], list[tuple[int, dict, bool]], str]:
    """The run's identity (the results file's header), its items and a short description."""
    if (args.random is None) == (args.folder is None):
        raise BadInput("give a FOLDER of build files or --random N (one of them)", "")
    if args.random is not None:
        if args.random < 1:
            raise BadInput("--random must be at least 1", "")
        kinds = parse_kinds(args.kind)
        header = {"command": "sweep", "source": {"random": list(kinds), "seed": args.seed},
                  "statics_only": args.statics_only}
        return header, random_items(args.random, args.seed, kinds, args.statics_only), \
            f"random {','.join(kinds)} builds, seed {args.seed}"
    files = folder_files(args.folder)
    root = Path(args.folder)
    header = {"command": "sweep", "source": {"folder": [p.relative_to(root).as_posix() for p in files]},
              "statics_only": args.statics_only}
    return header, folder_items(args.folder, files, args.statics_only), f"the build files of {args.folder}"


def _write_disagreements(results: list[dict[str, Any]], folder: str) -> list[tuple[str, Path]]:
    from tower.app.sweep import disagreement_file
    from tower.climbers.build import parse_build, save_build

    found = sorted((r for r in results if r["disagree"]), key=lambda r: r["index"])
    if not found:
        return []
    out = Path(folder)
    out.mkdir(exist_ok=True)
    written = []
    for r in found:
        path = disagreement_file(out, r["name"])
        save_build(parse_build(r["build"]), path)
        written.append((r["name"], path))
    return written


def run(args) -> int:
    batchrun.check_batch_flags(args)
    check_output_path(args.disagreements, "--disagreements")
    header, items, source = _plan(args)
    log = batchrun.results_log(args, header)
    done = {i: r for i, r in log.done.items() if i < len(items)} if log else {}
    todo = [it for it in items if it[0] not in done]
    try:
        new, elapsed = batchrun.run_batch(judge_indexed, todo, total=len(items), jobs=args.jobs, ray=args.ray,
                                          log=log, what="sweep", unit="build", quiet=args.json)
    except batchrun.BatchStopped as exc:
        print(batchrun.stopped_line("sweep", exc, log), file=sys.stderr)
        return EXIT_FOUND
    except KeyboardInterrupt:
        return batchrun.interrupted("sweep", log)
    results = [*done.values(), *new]
    summary = summarise_sweep(results, elapsed, played=len(new))
    summary["source"] = source
    summary["statics_only"] = args.statics_only
    written = _write_disagreements(results, args.disagreements)
    summary["disagreement_files"] = [str(p) for _, p in written]
    if args.plot:
        from tower.app.plots import plot_margins

        plot_margins(results, args.plot, f"tilt margins of {len(results)} builds ({source})")
    if args.json:
        print_json(summary)
        return EXIT_OK
    _print(summary, written, args)
    return EXIT_OK


def _print(summary: dict[str, Any], written: list[tuple[str, Path]], args) -> None:
    judges = "statics only" if args.statics_only else "statics + PyBullet"
    print(f"sweep: {summary['builds']} builds ({summary['source']}), {judges}, "
          f"{summary['builds_per_s']:.1f} builds/s")
    v = summary["verdicts"]
    print(f"  verdicts: stable {v['stable']}, marginal {v['marginal']}, collapses {v['collapses']}; "
          f"legal {summary['legal']} of {summary['builds']}")
    m = summary["tilt_margin_deg"]
    print(f"  tilt margin (deg): min {m['min']:.2f} ({summary['lowest']['name']}), "
          + ", ".join(f"p{p} {m[f'p{p}']:.2f}" for p in (1, 5, 25, 50, 75, 95)) + f", max {m['max']:.2f}")
    if not args.statics_only:
        print(f"  judges agree on {summary['judges_agree']} of {summary['judged_by_both']} builds")
        for d, (_, path) in zip(summary["disagreements"], written, strict=True):
            statics = "stands" if d["statics_stable"] else "falls"
            dynamics = "collapses" if d["dynamics_collapsed"] else "stands"
            print(f"    {d['name']}: statics {statics} (margin {d['tilt_margin_deg']:.2f} deg), PyBullet "
                  f"{dynamics} (moved {d['max_displacement_mm']:.1f} mm): {path}")
    if args.plot:
        print(f"  plot: {args.plot}")
