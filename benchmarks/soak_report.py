"""What the soaks of `tower serve` print alike (soak_crowd.py, soak_lab.py, soak_serve.py): answer times as counts
and percentiles, the memory of the server and its workers before, at most and after, the attacker's answers, the
honest errors and the server's log."""

from __future__ import annotations

import json
from collections import Counter

from bench_serve import pct


def times(values: list[float], qs: tuple[float, ...] = (0.5, 0.95)) -> str:
    """`N, p50 x ms, p95 y ms` of answer times in seconds."""
    parts = [f"p{round(q * 100)} {pct(values, q) * 1000:.1f} ms" for q in qs]
    return f"{len(values)}, " + ", ".join(parts)


def memory(before: float, peak: float, after: float, settled: str = "after") -> tuple[str, bool]:
    """The RSS of the server and its workers (MiB) before, at most and after, in words, and whether `after` is
    within 20 % of `before` (the soaks' target)."""
    back = after <= 1.2 * before
    return (f"RSS {before:.0f} -> {peak:.0f} MiB at most -> {after:.0f} MiB {settled} ({after / before * 100:.0f} % "
            f"of before; target <= 120 %: {'ok' if back else 'MISSED'})"), back


def answered(answers: dict[str, int]) -> str:
    """What the attacker was answered, by kind and status."""
    return "the attacker was answered: " + json.dumps(dict(sorted(answers.items())))


def errors(found: list[str], shown: int = 8, indent: str = "      ") -> None:
    """The honest errors, the first `shown` of them."""
    for line in found[:shown]:
        print(indent, line)


def server_log(log: str, lines: int = 6) -> None:
    """The server's log: its length, its tracebacks and its most frequent lines."""
    print(f"  the server's log: {len(log.splitlines())} lines, {log.count('Traceback')} tracebacks")
    for line, count in Counter(line for line in log.splitlines() if line and not line.startswith((" ", "Traceback"))
                               ).most_common(lines):
        print(f"    {count:5} x {line[:150]}")
