"""`--plot PNG`: the charts of a batch (matplotlib, drawn without a display, written atomically)."""

from __future__ import annotations

import io
from typing import Any

from tower.games.fileio import atomic_write_bytes

#: Colours of the three verdicts in the margin histogram.
VERDICT_COLOURS = {"stable": "#2e7d32", "marginal": "#f9a825", "collapses": "#c62828"}


def _figure(width: float, height: float) -> Any:
    # the object API with the Agg canvas: no pyplot, so no global state and no display backend is touched
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, path: str) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    atomic_write_bytes(path, buf.getvalue())


def _rates(ax: Any, labels: list[str], rates: list[float], cis: list[list[float]], title: str, fair: float) -> None:
    lo = [max(0.0, r - c[0]) for r, c in zip(rates, cis, strict=True)]
    hi = [max(0.0, c[1] - r) for r, c in zip(rates, cis, strict=True)]
    ax.bar(range(len(rates)), rates, yerr=[lo, hi], capsize=4, color="#5c6bc0")
    ax.axhline(fair, color="grey", linestyle="--", linewidth=1, label=f"equal share {fair:.2f}")
    ax.set_xticks(range(len(rates)), labels, rotation=20, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("win share")
    ax.set_title(title)
    ax.legend(loc="best", fontsize="small")


def plot_games(summary: dict[str, Any], results: list[dict[str, Any]], path: str) -> None:
    """Win shares per seat and per AI with their 95 % intervals, and the histogram of game lengths."""
    fig = _figure(13, 4.2)
    axes = fig.subplots(1, 3)
    seats = summary["seats"]
    fair = 1 / len(seats)
    _rates(axes[0], [f"{s['seat']}: {s['player']}" for s in seats], [s["win_rate"] for s in seats],
           [s["ci95"] for s in seats], "per seat", fair)
    names = list(summary["by_ai"])
    _rates(axes[1], names, [summary["by_ai"][n] for n in names], [summary["by_ai_ci95"][n] for n in names],
           "per AI", fair)
    lengths = [r["length"] for r in results]
    span = max(lengths) - min(lengths) + 1
    axes[2].hist(lengths, bins=min(40, span), color="#78909c")
    axes[2].yaxis.get_major_locator().set_params(integer=True)
    axes[2].set_xlabel("moves")
    axes[2].set_ylabel("games")
    axes[2].set_title(f"game length (mean {summary['length']['mean']:.1f})")
    fig.suptitle(f"{summary['game']}: {summary['games']} games, 95 % Wilson intervals")
    _save(fig, path)


def plot_margins(results: list[dict[str, Any]], path: str, title: str) -> None:
    """The histogram of tilt margins, stacked by verdict, with the 1-degree line below which a build is
    marginal."""
    from physics.verdict import STABLE_MARGIN_DEG

    fig = _figure(8, 4.5)
    ax = fig.subplots()
    margins = [r["tilt_margin_deg"] for r in results]
    lo, hi = min(margins), max(margins)
    bins = 40 if hi > lo else 1
    groups = [(v, [r["tilt_margin_deg"] for r in results if r["verdict"] == v]) for v in VERDICT_COLOURS]
    groups = [(v, m) for v, m in groups if m]
    ax.hist([m for _, m in groups], bins=bins, range=(lo, hi if hi > lo else lo + 1), stacked=True,
            color=[VERDICT_COLOURS[v] for v, _ in groups], label=[f"{v} ({len(m)})" for v, m in groups])
    ax.axvline(STABLE_MARGIN_DEG, color="black", linestyle=":", linewidth=1, label=f"{STABLE_MARGIN_DEG:g} deg")
    ax.set_xlabel("tilt margin (degrees; below 0: falls on a level table)")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("builds")
    ax.set_title(title)
    ax.legend(fontsize="small")
    _save(fig, path)
