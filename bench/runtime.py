"""Runtime benchmark: execution throughput, and the cost of rebuilding a frame's context.

1. Throughput: the generated workflow of ``--nodes`` nodes (``bench/generate.py``:
   groups of two nested loops and eight tasks reading both items) runs with
   stand-in handlers over ``--items`` order items (``--customers`` customers
   with an equal share of orders each). Every group iterates every customer
   and order, so the run is a few million activations at the defaults; the
   figure is activations (trace records) per second of ``execute_workflow``,
   set-up (validation, schema compilation) included. The trace is not kept
   (``trace=False``): at millions of activations it would hold every context.
2. ``frame_context_view`` at loop depths 1, 2, 4 and 8: microseconds per view
   of a node frame under that many active loops.

Usage: ``python bench/runtime.py [--nodes 2000] [--items 1000] [--customers 100]``.
Timings are printed and written to the ``runtime`` section of ``docs/performance.md``
(``make bench-runtime``), never asserted.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from generate import generate_toml
from report import table, write_section

from wf_core.runtime import Frame, execute_workflow, frame_context_view, stand_in_handlers
from wf_core.version.snapshot import analyze_text


def throughput(nodes: int, items: int, customers: int) -> str:
    """Runs the workflow; prints and returns one line of figures."""
    workflow = analyze_text(generate_toml(nodes), "toml").workflow
    assert workflow is not None
    per_customer = max(1, items // customers)
    data = {
        "customers": [
            {
                "name": f"customer {c}",
                "orders": [{"sku": f"S-{c}-{o}", "qty": o + 1} for o in range(per_customer)],
            }
            for c in range(customers)
        ]
    }
    handlers = stand_in_handlers(workflow)
    started = time.perf_counter()
    result = execute_workflow(workflow, data, handlers, trace=False)
    elapsed = time.perf_counter() - started
    assert result.status == "completed", result.error
    activations = result.state.recorded
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    line = (
        f"{len(workflow.nodes):,} nodes, {customers * per_customer:,} order items "
        f"({customers} customers): {activations:,} activations in {elapsed:.1f} s = "
        f"{activations / elapsed:,.0f} activations/s (trace not kept; peak RSS {peak:,.0f} MB)"
    )
    print(f"throughput: {line}")
    return line


@dataclass
class _Frames:
    frames: dict[str, Frame] = field(default_factory=dict)


def nested(depth: int) -> tuple[_Frames, Frame]:
    """A root, ``depth`` loops (controller and item frame each), and a node frame inside."""
    store = _Frames()
    parent = Frame("root", None, "root", "root", None, "root")
    store.frames[parent.id] = parent
    for level in range(depth):
        controller = Frame(
            f"c{level}",
            parent.id,
            "root",
            parent.lineage_id,
            None,
            "node",
            f"loop{level}",
            {"prior_outcome": "loop"},
        )
        item = Frame(
            f"i{level}",
            controller.id,
            "root",
            f"lin{level}",
            parent.lineage_id,
            "foreach_iteration",
            f"loop{level}",
            {
                "foreach_node_id": f"loop.v{level}",
                "activation_id": f"act{level}",
                "loop_index": level,
                "loop_item": {"name": f"item {level}", "orders": [{"sku": "A", "qty": 1}]},
                "loop_alias": f"alias{level}",
            },
        )
        store.frames[controller.id] = controller
        store.frames[item.id] = item
        parent = item
    node = Frame(
        "n",
        parent.id,
        "root",
        parent.lineage_id,
        None,
        "node",
        "task",
        {"prior_outcome": "loop", "activated_incoming_edge": "x:loop->task"},
    )
    store.frames[node.id] = node
    return store, node


def view_cost(depth: int, repeat: int = 20_000) -> float:
    store, node = nested(depth)
    view = frame_context_view(store, node)
    assert len(view.foreach) == depth
    started = time.perf_counter()
    for _ in range(repeat):
        frame_context_view(store, node)
    return (time.perf_counter() - started) / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--customers", type=int, default=100)
    args = parser.parse_args()
    costs = {depth: view_cost(depth) for depth in (1, 2, 4, 8)}
    shown = ", ".join(f"depth {d}: {cost:.1f} µs" for d, cost in costs.items())
    print(f"frame_context_view per call: {shown}")
    line = throughput(args.nodes, args.items, args.customers)
    views = table(
        ["active loops", *(str(d) for d in costs)],
        [("`frame_context_view` per call", *(f"{c:.1f} µs" for c in costs.values()))],
        "l" + "r" * len(costs),
    )
    write_section("runtime", f"Throughput: {line}.\n\n{views}")


if __name__ == "__main__":
    main()
