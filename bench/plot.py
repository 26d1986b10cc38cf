"""Plot the latest peer and scaling results against document size.

Run: ``make bench-plot`` or ``.venv/bin/python bench/plot.py [--out PATH]``
(default ``docs/images/bench.png``). Reads ``bench/results/peers-latest.json``
(``bench/peers.py``, with ``--scale``: every server measured the same way on
documents of several sizes) and, when present, ``bench/results/scaling-latest.json``
(``bench/lsp.py``: wfls alone up to 16,000 nodes), which is drawn dashed in the
panels whose figure both measure the same way (initialize, open, edit, memory).
Completion and hover differ: the peer runs time them warm, the scaling run
right after an edit, so those panels show the peer runs only.

``--latency`` draws instead ``docs/images/latency.png`` from the latest runs of
``bench/latency.py`` and ``bench/edit_kinds.py`` (both part of ``make bench-scaling``):
the 95th percentile of each request kind against document size (the targets' limits
marked), the slowest kind of each group with the findings document and full sync,
and each kind of edit's edit → diagnostics beside yaml-language-server's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PANELS = (
    ("initialize", "initialize (ms)", True),
    ("open", "open → diagnostics (ms)", True),
    ("edit", "edit → diagnostics (ms)", True),
    ("completion", "completion, warm (ms)", False),
    ("hover", "hover, warm (ms)", False),
    ("peak_rss_mb", "peak resident memory (MB)", True),
)
LINE_TICKS = (2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000)
STYLE = {
    "wfls (incremental sync)": ("tab:blue", "o"),
    "wfls (full sync)": ("tab:cyan", "s"),
    "yaml-language-server": ("tab:orange", "^"),
    "Taplo": ("tab:green", "D"),
}


def series(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Rows by server, by size; of two rows of the same size the first is kept."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        points = out.setdefault(row["server"], [])
        if all(p["lines"] != row["lines"] for p in points):
            points.append(row)
    for points in out.values():
        points.sort(key=lambda r: r["lines"])
    return out


def plot(peers: dict[str, Any], scaling: dict[str, Any] | None, out: Path) -> None:
    rows = peers["rows"] + peers.get("scale", [])
    by_server = series(rows)
    wide = series(
        [{**r, "server": f"wfls ({r['sync']} sync)"} for r in (scaling or {}).get("rows", [])]
    )
    fig, axes = plt.subplots(2, 3, figsize=(11, 6.4), dpi=64)
    for ax, (key, title, with_scaling) in zip(axes.flat, PANELS, strict=True):
        for server, points in by_server.items():
            colour, marker = STYLE.get(server, ("tab:gray", "."))
            ax.plot(
                [p["lines"] for p in points],
                [p[key] for p in points],
                color=colour,
                marker=marker,
                markersize=4,
                label=server,
            )
        if with_scaling:
            for server, points in wide.items():
                colour, _ = STYLE.get(server, ("tab:gray", "."))
                ax.plot(
                    [p["lines"] for p in points],
                    [p[key] for p in points],
                    color=colour,
                    linestyle="--",
                    linewidth=1,
                    label=f"{server}, scaling run",
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(FixedLocator(LINE_TICKS))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:g}k"))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_minor_formatter(NullFormatter())
        ax.set_title(title, fontsize=10)
        ax.tick_params(labelsize=8)
        ax.grid(True, which="both", linewidth=0.3)
    for ax in axes[1]:
        ax.set_xlabel("document lines", fontsize=9)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    stamp = peers.get("date", "")
    date = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}"
    fig.suptitle(
        f"wfls beside yaml-language-server and Taplo (2-core machine, {date})",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0.08, 1, 0.96))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


LIMITS = {
    "point": {5000: 50, 16000: 100},
    "document": {5000: 250, 16000: 800},
    "tokens": {5000: 50, 16000: 50},
}
"""The targets' limits on the 95th percentile (ms) by request group and size."""
COLOURS = {
    ("point", False): "tab:blue",
    ("point", True): "navy",
    ("document", False): "tab:orange",
    ("document", True): "saddlebrown",
}
"""Panel of the slowest kinds: by request group, and whether the document has findings."""


def _log_axes(ax: Any, title: str, sizes: list[int]) -> None:
    """Log scales, the measured sizes as the x ticks, 1-2-5 steps on the y axis."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_formatter(NullFormatter())
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("document nodes", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="both", linewidth=0.3)


def _limits(ax: Any, groups: tuple[str, ...], sizes: list[int]) -> None:
    """The targets' limits of ``groups`` at the sizes measured, as short black bars."""
    marks = {
        (n, v)
        for group in groups
        for n, v in LIMITS[group].items()
        if min(sizes) <= n <= max(sizes)
    }
    if marks:
        ax.scatter(
            *zip(*sorted(marks), strict=True), marker="_", s=300, color="black", label="target"
        )


def plot_latency(latency: dict[str, Any], edits: dict[str, Any] | None, out: Path) -> None:
    rows = latency.get("requests", [])
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), dpi=64)
    plain = [r for r in rows if not r["findings"] and r["sync"] == "incremental"]
    sizes = sorted({r["nodes"] for r in rows}) or [1]
    for ax, groups, title in (
        (axes[0][0], ("point",), "point requests, p95 (ms)"),
        (axes[0][1], ("document", "tokens"), "document-wide requests, p95 (ms)"),
    ):
        kinds = [n for n, k in (plain[0]["kinds"].items() if plain else []) if k["group"] in groups]
        for kind in kinds:
            ax.plot(
                [r["nodes"] for r in plain],
                [r["kinds"][kind]["p95"] for r in plain],
                marker="o",
                markersize=3,
                label=kind,
            )
        _limits(ax, groups, sizes)
        _log_axes(ax, f"{title}, incremental sync", sizes)
        ax.legend(fontsize=7, frameon=False)
    ax = axes[1][0]
    for findings in sorted({r["findings"] for r in rows}):
        for sync, style in (("incremental", "-"), ("full", "--")):
            mine = sorted(
                (r for r in rows if r["findings"] == findings and r["sync"] == sync),
                key=lambda r: r["nodes"],
            )
            for group in ("point", "document"):
                if not mine:
                    continue
                worst = [
                    max(k["p95"] for k in r["kinds"].values() if k["group"] == group) for r in mine
                ]
                what = f"{findings:,} findings" if findings else "as generated"
                ax.plot(
                    [r["nodes"] for r in mine],
                    worst,
                    linestyle=style,
                    color=COLOURS[(group, bool(findings))],
                    marker="s" if findings else "o",
                    markersize=3,
                    label=f"{group}, {what}, {sync}",
                )
    _limits(ax, ("point", "document"), sizes)
    _log_axes(ax, "the slowest kind's p95 (ms)", sizes)
    ax.legend(fontsize=7, frameon=False)
    ax = axes[1][1]
    edit_rows = (edits or {}).get("rows", [])
    wfls = sorted(
        (r for r in edit_rows if r["server"].startswith("wfls") and r["sync"] == "incremental"),
        key=lambda r: r["nodes"],
    )
    peers = sorted(
        (r for r in edit_rows if not r["server"].startswith("wfls")), key=lambda r: r["nodes"]
    )
    for kind in wfls[0]["kinds"] if wfls else []:
        ax.plot(
            [r["nodes"] for r in wfls],
            [statistics.median(r["kinds"][kind]) for r in wfls],
            marker="o",
            markersize=3,
            label=kind,
        )
    if peers:
        ax.fill_between(
            [r["nodes"] for r in peers],
            [min(statistics.median(t) for t in r["kinds"].values()) for r in peers],
            [max(statistics.median(t) for t in r["kinds"].values()) for r in peers],
            color="tab:gray",
            alpha=0.3,
            label="yaml-language-server, every kind",
        )
    _log_axes(
        ax,
        "edit → diagnostics by kind, median (ms), wfls incremental",
        sorted({r["nodes"] for r in wfls + peers}) or [1],
    )
    ax.legend(fontsize=7, frameon=False)
    stamp = latency.get("date", "")
    fig.suptitle(
        f"wfls latency against document size (2-core machine, {stamp[:4]}-{stamp[4:6]}-"
        f"{stamp[6:8]})",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=Path, default=RESULTS / "peers-latest.json")
    parser.add_argument("--scaling", type=Path, default=RESULTS / "scaling-latest.json")
    parser.add_argument("--out", type=Path, help="default docs/images/bench.png or latency.png")
    parser.add_argument("--latency", action="store_true", help="draw the latency plot instead")
    args = parser.parse_args(argv)
    if args.latency:
        latency_path, edits_path = (
            RESULTS / "latency-latest.json",
            RESULTS / "edit-kinds-latest.json",
        )
        if not latency_path.exists():
            print(f"{latency_path} not found: run bench/latency.py first", file=sys.stderr)
            return 1
        out = args.out or ROOT / "docs" / "images" / "latency.png"
        edits = json.loads(edits_path.read_text()) if edits_path.exists() else None
        plot_latency(json.loads(latency_path.read_text()), edits, out)
        print(f"wrote {out} ({out.stat().st_size // 1024} KB)")
        return 0
    args.out = args.out or ROOT / "docs" / "images" / "bench.png"
    if not args.peers.exists():
        print(f"{args.peers} not found: run make bench-peers first", file=sys.stderr)
        return 1
    peers = json.loads(args.peers.read_text())
    scaling = json.loads(args.scaling.read_text()) if args.scaling.exists() else None
    plot(peers, scaling, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
