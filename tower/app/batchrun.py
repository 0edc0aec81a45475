"""Running a batch: per-item seeds, chunks sized to the work, results streamed to the results file as they
arrive, and a progress bar (items done, rate, time left). Shared by `tower simulate` and `tower sweep`."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tower.app.output import check_output_path
from tower.app.resultlog import ResultLog
from tower.app.runners import Task, TaskFailed, open_runner
from tower.games.errors import BadInput

#: A task should take about this long: long enough that the per-task cost of a pool or of Ray (a few ms) is
#: noise, short enough that progress and the results file move often and a lost worker costs little.
TARGET_TASK_S = 1.0
#: Chunks in flight per worker: one running, one queued, so no worker waits for the driver.
IN_FLIGHT_PER_WORKER = 2
#: A chunk never holds more than this share of a worker's part of the run (the last chunks must still spread).
MAX_SHARE = 4


def item_seed(seed: int, index: int) -> int:
    """The seed of item `index` of a run seeded `seed`: a hash of both, so runs with neighbouring seeds share no
    games (seed + index would), and 48 bits, exact in any JSON reader."""
    digest = hashlib.blake2b(f"tower-batch/{seed}/{index}".encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")


class BatchStopped(RuntimeError):
    """The run stopped before its end; `done` results are kept (in the results file when there is one)."""

    def __init__(self, message: str, done: int) -> None:
        super().__init__(message)
        self.done = done


@dataclass
class ChunkPlan:
    """How many items the next task takes: one while the cost of an item is unknown, then enough for about
    TARGET_TASK_S, never more than a MAX_SHARE-th of a worker's share of what is left."""

    workers: int
    items_seen: int = 0
    seconds_seen: float = 0.0

    def size(self, left: int) -> int:
        if not self.items_seen:
            return 1
        per_item = self.seconds_seen / self.items_seen
        wanted = int(TARGET_TASK_S / per_item) if per_item > 0 else left
        return max(1, min(wanted, left // (self.workers * MAX_SHARE)))

    def observe(self, items: int, seconds: float) -> None:
        self.items_seen += items
        self.seconds_seen += seconds


def run_items(runner: Any, fn: Task, items: list[Any]) -> Iterator[list[dict[str, Any]]]:
    """`fn` over `items` on `runner`; yields each finished chunk's results as it arrives (any order)."""
    plan = ChunkPlan(runner.workers)
    next_item = 0
    pending: list[Any] = []
    window = runner.workers * IN_FLIGHT_PER_WORKER
    while next_item < len(items) or pending:
        while next_item < len(items) and len(pending) < window:
            size = plan.size(len(items) - next_item)
            # (the in-process runner runs a chunk as it is submitted)
            pending.append(_failing_as_task(runner.submit, fn, items[next_item: next_item + size]))
            next_item += size
        for handle, (results, seconds) in _failing_as_task(runner.wait, pending):
            pending.remove(handle)
            plan.observe(len(results), seconds)
            yield results


def _failing_as_task(call: Any, *args: Any) -> Any:
    """`call(*args)`, with an exception raised by a task (a bug, or input only a game could find wrong) named in
    a TaskFailed, as Ray reports it: the run stops cleanly, whatever runs it."""
    try:
        return call(*args)
    except TaskFailed:
        raise
    except Exception as exc:
        raise TaskFailed(f"{type(exc).__name__}: {exc}") from exc


def run_batch(fn: Task, items: list[Any], *, total: int, jobs: int | None, ray: str | None,
              log: ResultLog | None, what: str, unit: str, quiet: bool) -> tuple[list[dict[str, Any]], float]:
    """Run the items still to do of a batch of `total`, streaming results to `log`; returns the new results and
    the seconds they took (after the runner started). Bad `--ray` is BadInput before any file is touched;
    Ctrl-C stops the workers and keeps what arrived; a failed task ends in BatchStopped.

    While it runs, stdout is stderr: Ray prints its notices (a worker lost and retried) to stdout from a thread
    of its own, and stdout belongs to the command's report (`--json`: one document)."""
    done_before = len(log.done) if log else total - len(items)
    with contextlib.redirect_stdout(sys.stderr):
        if not quiet and ray is not None:
            print(f"{what}: " + (f"connecting to Ray at {ray} ..." if ray else "starting a local Ray ..."))
        runner = open_runner(jobs, ray)
        try:
            if log:
                log.open()
            if not quiet:
                print(f"{what}: {len(items)} {unit}{'' if len(items) == 1 else 's'} to run on {runner.name}"
                      + (f" ({done_before} already in {log.path})" if log and done_before else ""))
            return _stream(runner, fn, items, log, done_before, total, what, unit, quiet)
        finally:
            try:
                if log:
                    log.close()
            finally:
                runner.close()


def _stream(runner: Any, fn: Task, items: list[Any], log: ResultLog | None, done_before: int, total: int,
            what: str, unit: str, quiet: bool) -> tuple[list[dict[str, Any]], float]:
    """The results as they arrive: into the file, the list and the progress bar."""
    from tqdm import tqdm

    results: list[dict[str, Any]] = []
    bar = tqdm(total=total, initial=done_before, desc=what, unit=unit, file=sys.stderr,
               disable=True if quiet else None, smoothing=0.1)
    start = time.perf_counter()
    try:
        for chunk in run_items(runner, fn, items):
            if log:
                log.append(chunk)
            results.extend(chunk)
            bar.update(len(chunk))
    except TaskFailed as exc:
        raise BatchStopped(str(exc), done_before + len(results)) from None
    finally:
        bar.close()
    return results, time.perf_counter() - start


def stopped_line(command: str, exc: BatchStopped, log: ResultLog | None) -> str:
    """The one line printed when a run stops early: what failed, and how to go on."""
    keep = (f"the results so far ({exc.done}) are in {log.path}: continue with --resume {log.path}" if log
            else "use --out FILE to keep results across a stop")
    return f"tower: {command}: stopped: {exc}; {keep}"


def check_batch_flags(args) -> None:
    """The flags `simulate` and `sweep` share: --jobs, --out/--resume, --plot."""
    if args.jobs is not None and args.jobs < 1:
        raise BadInput("--jobs must be at least 1", "")
    if args.out and args.resume:
        raise BadInput("--out and --resume: give one (--resume appends to the file it continues)", "")
    check_output_path(args.plot, "--plot")
    if args.plot and importlib.util.find_spec("matplotlib") is None:  # it comes with VTK; said plainly if not
        raise BadInput("--plot needs matplotlib: pip install matplotlib", "")


def results_log(args, header: dict[str, Any]) -> ResultLog | None:
    if args.resume:
        return ResultLog.resume(args.resume, header)
    if args.out:
        return ResultLog.create(args.out, header)
    return None


def interrupted(command: str, log: ResultLog | None) -> int:
    where = f"; the results so far are in {log.path}: continue with --resume {log.path}" if log else ""
    print(f"tower: {command}: interrupted{where}", file=sys.stderr)
    return 130
