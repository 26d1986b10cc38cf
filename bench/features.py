"""Benchmark of the editor features over the semantic index, on a warm snapshot.

Run: ``.venv/bin/python bench/features.py [NODES...]`` (default 2000 nodes of
``generate.generate_toml``). For each size: the semantic index build (once per
document version; measured on a fresh analysis whose parse, model and
validation are already done), then each feature function on the warm snapshot
(median of several runs, milliseconds of CPU time), with the conversion to the
protocol's form where it is the feature's cost (semantic tokens' relative
encoding). Budgets at 2,000 nodes: semantic tokens of the whole document 150
ms, document symbols 50 ms. The figures go to the ``features`` section of
``docs/performance.md`` (``make bench-features``); timings are never asserted in tests.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate_toml
from report import table, targets, write_section

from wf_core.version.snapshot import analyze_text
from wfls.capabilities import ClientFlags
from wfls.convert import PositionCodec, semantic_tokens_data
from wfls.features.folding import folding_ranges
from wfls.features.inlay_hints import inlay_hints
from wfls.features.selection import selection_chain
from wfls.features.semantic_tokens import semantic_tokens
from wfls.features.symbols import document_symbols

RUNS = 7
BUDGETS = {"semantic tokens": 150.0, "document symbols": 50.0}


def _cpu_ms(action: Callable[[], object]) -> float:
    start = time.process_time()
    action()
    return (time.process_time() - start) * 1000


def _median(action: Callable[[], object]) -> float:
    return statistics.median(_cpu_ms(action) for _ in range(RUNS))


def measure(nodes: int) -> dict[str, float]:
    text = generate_toml(nodes)
    builds = []
    snapshot = None
    for _ in range(3):
        snapshot = analyze_text(text, "toml")
        snapshot.issues  # noqa: B018 - parse, model and validation first
        builds.append(_cpu_ms(lambda s=snapshot: s.index))
    assert snapshot is not None
    codec = PositionCodec(snapshot.lines, "utf-16")
    flags = ClientFlags()
    tokens = semantic_tokens(snapshot)
    middle = text.index("[[nodes]]", len(text) // 2)
    return {
        "lines": text.count("\n"),
        "tokens": len(tokens),
        "index build": statistics.median(builds),
        "semantic tokens": _median(lambda: semantic_tokens(snapshot)),
        "token encoding": _median(lambda: semantic_tokens_data(tokens, codec, flags)),
        "tokens + encoding": _median(
            lambda: semantic_tokens_data(semantic_tokens(snapshot), codec, flags)
        ),
        "document symbols": _median(lambda: document_symbols(snapshot)),
        "inlay hints": _median(lambda: inlay_hints(snapshot)),
        "folding ranges": _median(lambda: folding_ranges(snapshot)),
        "selection range": _median(lambda: selection_chain(snapshot, middle + 40)),
    }


FIGURES = (
    "index build",
    "semantic tokens",
    "token encoding",
    "tokens + encoding",
    "document symbols",
    "inlay hints",
    "folding ranges",
    "selection range",
)


def markdown(results: dict[int, dict[str, float]]) -> str:
    """One column per size, one row per feature; the budgets at 2,000 nodes."""
    sizes = list(results)
    header = [
        "feature",
        *(
            f"{n:,} nodes ({int(results[n]['lines']):,} lines, "
            f"{int(results[n]['tokens']):,} tokens)"
            for n in sizes
        ),
    ]
    rows = [(name, *(f"{results[n][name]:,.1f} ms" for n in sizes)) for name in FIGURES]
    text = (
        f"CPU time on a warm snapshot, median of {RUNS} runs (the index build: of three fresh "
        f"analyses).\n\n{table(header, rows, 'l' + 'r' * len(sizes))}"
    )
    if 2000 in results:
        text += "\n\n" + targets(
            [
                (
                    f"{name} of 2,000 nodes within {budget:.0f} ms",
                    f"{results[2000][name]:.1f} ms",
                    results[2000][name] <= budget,
                )
                for name, budget in BUDGETS.items()
            ]
        )
    return text


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [2000]
    results = {}
    for size in sizes:
        r = results[size] = measure(size)
        print(f"{size} nodes, {int(r['lines'])} lines, {int(r['tokens'])} semantic tokens")
        for name in FIGURES:
            budget = BUDGETS.get(name) if size == 2000 else None
            note = f"  (budget {budget:.0f} ms)" if budget is not None else ""
            print(f"  {name:<18} {r[name]:8.1f} ms{note}")
    write_section("features", markdown(results))


if __name__ == "__main__":
    main(sys.argv[1:])
