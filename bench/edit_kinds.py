"""Edit → diagnostics for every kind of edit, wfls beside yaml-language-server.

Run: ``.venv/bin/python bench/edit_kinds.py --peers DIR [NODES...]`` (default 2000
16000; part of ``make bench-scaling``, which installs the peers with
``bench/peers/install.sh``); without ``--peers``, wfls alone.

At each size, wfls (``bench/peers.py``'s target: the generated workflow alone in a
folder, incremental and full sync) takes one session, and so does
yaml-language-server (the peers' target: the same workflow as YAML, validated against
the workflow format's schema, full sync) on the peers' reference document
(``--reference`` lines, as ``make bench-peers`` measures) and on one of as many lines
as wfls's document, at most ``--peer-max-lines`` (on 155,000 lines it took over a
minute per edit, its memory growing by about 600 MB with each). Each session is:
open, then ``--edits`` edits of each kind of ``EDIT_KINDS`` in turn, each timed from
sending it to the diagnostics of its version (for yaml-language-server, the first
publication after it that still carries the document's deliberate schema error,
wherever the edits moved it). Each kind edits a group of the generated workflow of
its own near the middle of the document, where both syntaxes have the same nodes;
the YAML edit is the same change in YAML's spelling (the same node, key and value).
Every edit makes a text no earlier version had.

Per kind: the median of its edits for each server, wfls's over
yaml-language-server's on either document, and wfls's cost per node at the largest
size over that at the smallest. The tables and the targets go to the
``scaling-edit-kinds`` section of ``docs/performance.md`` (``--page``: another copy of
it); raw results to ``bench/results/edit-kinds-*.json``. Timings are never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import statistics
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsp import save
from peers import RESULTS, Target, _log, peer_targets, wfls_target
from report import PAGE, table, targets, write_section

SIZES = (2000, 16000)
RATIO_LIMIT = 0.5
"""wfls's edit → diagnostics over yaml-language-server's, for every kind."""
PER_NODE_LIMIT = 1.5
"""wfls's cost per node at the largest size over that at the smallest, for every kind."""
TIMES = "\N{MULTIPLICATION SIGN}"

Edits = Iterator[tuple[int, int, str]]
"""(offset, length, new text) against the document as the previous edit left it."""


def _key(name: str, syntax: str) -> str:
    """A key and the opening quote of its string value, in either syntax."""
    return f'{name} = "' if syntax == "toml" else f'{name}: "'


def _node(text: str, node_id: str, syntax: str) -> int:
    return text.index(f'{_key("id", syntax)}{node_id}"')


def path_segment(current: Callable[[], str], syntax: str, g: int) -> Edits:
    """The last segment of a task's customer path typed over (``name`` → ``n000``...)."""
    text = current()
    lead = f"context.foreach.g{g}_customers.item."
    at = text.index(lead, _node(text, f"g{g}_t7", syntax)) + len(lead)
    for i in count():
        yield at, 4, f"n{i:03d}"


def invalid_read(current: Callable[[], str], syntax: str, g: int) -> Edits:
    """A valid read made invalid: ``qty`` → ``qtx`` in the next task of the group."""
    for i in count():
        text = current()
        lead = f"context.order{g}."
        yield text.index(lead, _node(text, f"g{g}_t{i}", syntax)) + len(lead), 3, "qtx"


def alias(current: Callable[[], str], syntax: str, g: int) -> Edits:
    """The inner loop's alias renamed, which the group's ``context.order{g}`` reads use."""
    text = current()
    at = text.index(_key("as", syntax), _node(text, f"g{g}_orders.v2", syntax)) + len(
        _key("as", syntax)
    )
    length = text.index('"', at) - at
    for i in count():
        new = f"alias{i:03d}"
        yield at, length, new
        length = len(new)


def node_id(current: Callable[[], str], syntax: str, g: int) -> Edits:
    """A task's id renamed (its edges still name the old one)."""
    old = f"g{g}_t4"
    at = _node(current(), old, syntax) + len(_key("id", syntax))
    length = len(old)
    for i in count():
        new = f"g{g}_r{i:03d}"
        yield at, length, new
        length = len(new)


def node_added(current: Callable[[], str], syntax: str, g: int) -> Edits:
    """A task node added (with no edge) before the group's first task."""
    text = current()
    first = _node(text, f"g{g}_t0", syntax)
    at = text.rindex("[[nodes]]", 0, first) if syntax == "toml" else text.rindex("\n", 0, first) + 1
    for i in count():
        if syntax == "toml":
            yield at, 0, f'[[nodes]]\nid = "added{i:03d}"\ntype = "node"\nnode = "charge_order"\n\n'
        else:
            yield at, 0, f'  - id: "added{i:03d}"\n    type: "node"\n    node: "charge_order"\n'


def edge(current: Callable[[], str], syntax: str, g: int) -> Edits:
    """In turn: the edge leaving the next task of the group removed; an edge added from the
    group's last task on an outcome its node def does not have."""
    sep = " = " if syntax == "toml" else ": "
    for i in count():
        text = current()
        if i % 2 == 0:
            line = text.rindex("\n", 0, text.index(f'{{ from{sep}"g{g}_t{i // 2}", ')) + 1
            yield line, text.index("\n", line) + 1 - line, ""
        else:
            marker = f'{{ from{sep}"g{g}_customers", outcome{sep}"loop"'
            line = text.rindex("\n", 0, text.index(marker)) + 1
            added = f'{{ from{sep}"g{g}_t7", outcome{sep}"extra{i:03d}", to{sep}"__end__" }}'
            yield line, 0, (f"  {added},\n" if syntax == "toml" else f"  - {added}\n")


def outcomes(current: Callable[[], str], syntax: str, g: int) -> Edits:
    """The node def's outcomes changed (one added), which every task uses."""
    text = current()
    definition = text.index(f'{_key("name", syntax)}charge_order"')
    at = text.index("[", text.index("outcomes", definition))
    length = text.index("]", at) + 1 - at
    for i in count():
        new = f'["ok", "o{i:03d}"]'
        yield at, length, new
        length = len(new)


def line_break(current: Callable[[], str], syntax: str, g: int) -> Edits:
    """A line break typed at the end of a task's id line (a blank line in either syntax)."""
    for i in count():
        text = current()
        yield text.index("\n", _node(text, f"g{g}_t{i % 8}", syntax)), 0, "\n"


@dataclass(frozen=True)
class EditKind:
    name: str
    edits: Callable[[Callable[[], str], str, int], Edits]


EDIT_KINDS = (
    EditKind("a path segment typed", path_segment),
    EditKind("a read that becomes invalid", invalid_read),
    EditKind("an alias changed", alias),
    EditKind("a node id renamed", node_id),
    EditKind("a node added", node_added),
    EditKind("an edge removed or added", edge),
    EditKind("a node def's outcomes changed", outcomes),
    EditKind("a line break typed", line_break),
)
MAX_EDITS = 8
"""Edits per kind at most: a kind edits the eight tasks of its own group."""


def groups(text: str) -> int:
    """The complete groups of a generated document (a peer's is cut anywhere)."""
    return len(re.findall(r'id(?: =|:) "g\d+_t7"', text))


def group_of(kind: int, complete: int) -> int:
    """The group kind number ``kind`` edits: consecutive groups around the middle."""
    base = max(0, (complete - len(EDIT_KINDS)) // 2)
    return (base + kind) % complete


async def measure(target: Target, edits: int) -> dict[str, Any]:
    syntax = "yaml" if target.language_id == "yaml" else "toml"
    server = target.make_server(_log(target))
    row: dict[str, Any] = {
        "server": target.label,
        "sync": "incremental" if target.incremental else "full",
        "nodes": target.nodes,
        "lines": target.text.count("\n"),
        "kinds": {},
    }
    try:
        await server.start(target.path.parent)
        session = target.open_in(server)
        row["open"] = await session.open_time() * 1000
        document = target.document
        if document is not None:
            # Edits move the deliberate error's line: a validating pass is known by its message.
            messages = {
                d.message
                for d in session.diagnostics(1)
                if document.in_error_node(d.range.start.line)
            }
            session.accept = lambda found: any(d.message in messages for d in found)
        complete = groups(session.text)
        for number, kind in enumerate(EDIT_KINDS):
            made = kind.edits(lambda: session.text, syntax, group_of(number, complete))
            row["kinds"][kind.name] = [
                await session.edit_time(*next(made)) * 1000 for _ in range(edits)
            ]
        row["peak_rss_mb"] = server.rss()
    finally:
        await server.close()
    return row


def median(row: dict[str, Any], kind: str) -> float:
    return float(statistics.median(row["kinds"][kind]))


def print_row(row: dict[str, Any]) -> None:
    print(f"{row['server']} on {row['lines']:,} lines ({row['nodes']:,} nodes):", flush=True)
    for kind, times in row["kinds"].items():
        print(
            f"  {kind:<32} median {statistics.median(times):7.0f} ms "
            f"(max {max(times):,.0f}, of {len(times)})",
            flush=True,
        )


def _ratio(value: float) -> str:
    return f"{value:.2f}{TIMES}"


def _peer_for(lines: int, cap: int) -> int:
    """The lines of yaml-language-server's same-size document beside a wfls document."""
    return min(lines, cap) if cap else lines


def markdown(rows: list[dict[str, Any]], edits: int, reference: int, cap: int) -> str:
    """The medians, the ratios to yaml-language-server and per node, and the targets."""
    wfls = [r for r in rows if r["server"].startswith("wfls")]
    peers = {r["lines"]: r for r in rows if not r["server"].startswith("wfls")}
    syncs = [s for s in ("incremental", "full") if any(r["sync"] == s for r in wfls)]
    sizes = sorted({r["nodes"] for r in wfls})
    kinds = [k.name for k in EDIT_KINDS]

    def mine(nodes: int, sync: str) -> dict[str, Any]:
        return next(r for r in wfls if r["nodes"] == nodes and r["sync"] == sync)

    def both(nodes: int, value: Callable[[dict[str, Any]], str]) -> str:
        return " / ".join(value(mine(nodes, s)) for s in syncs)

    lines = {n: mine(n, syncs[0])["lines"] for n in sizes}
    header = ["edit"]
    header += [f"wfls, {n:,} nodes ({lines[n]:,} lines)" for n in sizes]
    header += [f"yaml-language-server, {n:,} lines" for n in sorted(peers)]
    cells = [
        (
            kind,
            *(both(n, lambda r, k=kind: f"{median(r, k):,.0f} ms") for n in sizes),
            *(f"{median(peers[n], kind):,.0f} ms" for n in sorted(peers)),
        )
        for kind in kinds
    ]
    parts = [
        f"Median of {edits} edits of each kind, each until the diagnostics of its version "
        "(wfls: incremental / full sync). Each kind edits a group of nodes of its own near "
        "the middle of the document. yaml-language-server gets each edit's YAML counterpart, "
        "the same change to the same node, key and value of the workflow written as YAML "
        "(every kind has one), on the peers' document of "
        f"{reference:,} lines (`make bench-peers`' reference) and on a document of as many "
        "lines as wfls's"
        + (f", at most {cap:,}" if cap and any(lines[n] > cap for n in sizes) else "")
        + ".",
        table(header, cells, "l" + "r" * (len(header) - 1)),
    ]
    # Ratios: to the reference document and to the same-size one, then per node.
    columns: list[tuple[str, str, float, Callable[[str, str], float]]] = []
    for n in sizes:
        for peer_lines in dict.fromkeys((reference, _peer_for(lines[n], cap))):
            if peer_lines in peers:
                columns.append(
                    (
                        f"{n:,} nodes ÷ yaml-language-server on {peer_lines:,} lines",
                        f"every kind of edit ≤ {RATIO_LIMIT}{TIMES} yaml-language-server's edit "
                        f"→ diagnostics, at {n:,} nodes against its {peer_lines:,} lines",
                        RATIO_LIMIT,
                        lambda kind, sync, n=n, p=peers[peer_lines]: (
                            median(mine(n, sync), kind) / median(p, kind)
                        ),
                    )
                )
    if len(sizes) > 1:
        small, large = sizes[0], sizes[-1]
        columns.append(
            (
                f"per node, {large:,} ÷ {small:,} nodes",
                f"every kind of edit ≤ {PER_NODE_LIMIT}{TIMES} per node from {small:,} to "
                f"{large:,} nodes",
                PER_NODE_LIMIT,
                lambda kind, sync: (
                    (median(mine(large, sync), kind) / large)
                    / (median(mine(small, sync), kind) / small)
                ),
            )
        )
    goals: list[tuple[str, str, bool]] = []
    if columns:
        ratio_cells = [
            (kind, *(" / ".join(_ratio(f(kind, s)) for s in syncs) for *_, f in columns))
            for kind in kinds
        ]
        header = ["edit", *(title for title, *_ in columns)]
        parts.append(table(header, ratio_cells, "l" + "r" * len(columns)))
        for _, goal, limit, f in columns:
            for sync in syncs:
                values = {kind: f(kind, sync) for kind in kinds}
                worst = max(values, key=lambda k: values[k])
                over = [k for k, v in values.items() if v > limit]
                goals.append(
                    (
                        f"{goal}, {sync} sync",
                        f"the highest: {worst}, {_ratio(values[worst])}"
                        + (f"; {len(over)} of {len(kinds)} kinds over" if over else ""),
                        not over,
                    )
                )
        parts.append(targets(goals))
    return "\n\n".join(parts)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nodes", nargs="*", type=int, help=f"sizes (default {SIZES})")
    parser.add_argument("--peers", type=Path, help="folder with node_modules (see peers.py)")
    parser.add_argument(
        "--reference",
        type=int,
        default=2169,
        help="lines of yaml-language-server's reference document (0: none)",
    )
    parser.add_argument(
        "--peer-max-lines",
        type=int,
        default=22430,
        help="the longest same-size document yaml-language-server gets (0: no limit)",
    )
    parser.add_argument("--edits", type=int, default=5, help=f"per kind, at most {MAX_EDITS}")
    parser.add_argument("--sync", choices=("incremental", "full", "both"), default="both")
    parser.add_argument("--page", type=Path, default=PAGE, help="the page the section goes to")
    args = parser.parse_args(argv)
    if not 1 <= args.edits <= MAX_EDITS:
        parser.error(f"--edits: from 1 to {MAX_EDITS}")
    (RESULTS / "peers").mkdir(parents=True, exist_ok=True)
    syncs = [True, False] if args.sync == "both" else [args.sync == "incremental"]
    rows = []
    peer_lines = {args.reference} - {0}
    for nodes in args.nodes or SIZES:
        chosen = [wfls_target(nodes, incremental) for incremental in syncs]
        peer_lines.add(_peer_for(chosen[0].text.count("\n"), args.peer_max_lines))
        for target in chosen:
            rows.append(asyncio.run(measure(target, args.edits)))
            print_row(rows[-1])
    if args.peers:
        for lines in sorted(peer_lines):
            for target in peer_targets(args.peers.resolve(), lines, syntaxes=("yaml",)):
                rows.append(asyncio.run(measure(target, args.edits)))
                print_row(rows[-1])
    settings = {**vars(args), "peers": str(args.peers), "page": str(args.page)}
    path = save("edit-kinds", {"rows": rows, "settings": settings})
    print(f"raw results: {path.relative_to(path.parent.parent.parent)}")
    if args.page != PAGE and not args.page.exists():
        shutil.copyfile(PAGE, args.page)
    section = markdown(rows, args.edits, args.reference, args.peer_max_lines)
    write_section("scaling-edit-kinds", section, page=args.page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
