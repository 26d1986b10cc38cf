"""Plot the latest peer and scaling results against document size.

Run: ``make bench-plot`` or ``.venv/bin/python bench/plot.py [--out PATH]``
(default ``docs/images/bench.png``). Reads ``bench/results/peers-latest.json``
(``bench/peers.py``, with ``--scale``: every server measured the same way on
documents of several sizes) and, when present, ``bench/results/scaling-latest.json``
(``bench/lsp.py``: wfls alone up to 16,000 nodes), which is drawn dashed in the
panels whose figure both measure the same way (initialize, open, edit, memory).
Completion and hover differ: the peer runs time them warm, the scaling run
right after an edit, so those panels show the peer runs only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=Path, default=RESULTS / "peers-latest.json")
    parser.add_argument("--scaling", type=Path, default=RESULTS / "scaling-latest.json")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "bench.png")
    args = parser.parse_args(argv)
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
