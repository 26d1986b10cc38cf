"""Benchmark of the static analysis alone: parse, build the model, validate.

Run: ``.venv/bin/python bench/analysis.py [NODES...]`` (default 500 1000 2000 4000).
Prints the median of several runs per phase and writes it to the ``analysis`` section of
``docs/performance.md`` (``make bench``); timings are never asserted in tests.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from generate import generate_toml
from report import table, write_section

from wf_core.version.snapshot import analyze_text

RUNS = 5


def measure(nodes: int) -> dict[str, float]:
    text = generate_toml(nodes)
    phases: dict[str, list[float]] = {"parse": [], "model": [], "validate": [], "total": []}
    issues = 0
    for _ in range(RUNS):
        t0 = time.perf_counter()
        snapshot = analyze_text(text, "toml")
        t1 = time.perf_counter()
        snapshot.load  # noqa: B018 - forces the model build
        t2 = time.perf_counter()
        issues = len(snapshot.issues)
        t3 = time.perf_counter()
        phases["parse"].append(t1 - t0)
        phases["model"].append(t2 - t1)
        phases["validate"].append(t3 - t2)
        phases["total"].append(t3 - t0)
    result = {name: statistics.median(values) * 1000 for name, values in phases.items()}
    result["lines"] = text.count("\n")
    result["issues"] = issues
    return result


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [500, 1000, 2000, 4000]
    print(
        f"{'nodes':>6} {'lines':>7} {'parse ms':>9} {'model ms':>9} {'validate ms':>12} "
        f"{'total ms':>9} {'issues':>7}"
    )
    rows = []
    for size in sizes:
        r = measure(size)
        print(
            f"{size:>6} {int(r['lines']):>7} {r['parse']:>9.1f} {r['model']:>9.1f} "
            f"{r['validate']:>12.1f} {r['total']:>9.1f} {int(r['issues']):>7}"
        )
        rows.append(
            (
                f"{size:,}",
                f"{int(r['lines']):,}",
                *(f"{r[phase]:,.1f} ms" for phase in ("parse", "model", "validate", "total")),
                f"{int(r['issues']):,}",
            )
        )
    header = ["nodes", "lines", "parse", "model", "validate", "total", "findings"]
    write_section(
        "analysis",
        f"In process, from scratch, median of {RUNS} runs.\n\n{table(header, rows, 'r' * 7)}",
    )


if __name__ == "__main__":
    main(sys.argv[1:])
