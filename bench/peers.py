"""Peer benchmark: wfls beside yaml-language-server and Taplo, driven by one client.

Run: ``make bench-peers`` (installs the peers with npm into a cache folder), or
``.venv/bin/python bench/peers.py --peers DIR`` where ``DIR/node_modules`` holds
``yaml-language-server`` and ``@taplo/lsp``.

Each server is started in turn by the same client (``bench/lspclient.py``):

- wfls on the generated workflow (``generate.generate_toml``, 2,000 nodes,
  22,430 lines), with incremental sync and again with full-document sync;
- yaml-language-server on the workflow as a YAML document, and Taplo (through
  ``bench/peers/taplo-stdio.mjs``) on it as a TOML document, each cut to
  ``--lines`` lines (``bench/peer_documents.py``) and validated against the
  workflow format's JSON Schema. Both advertise or need full-document sync
  (Taplo only accepts it), so they get full sync, as many clients send.

Figures: initialize (process start → initialize answer, median of ``STARTS``
processes: all but one started in rotation with the other servers', before the
rest is measured, and the one whose session measures the rest), open → diagnostics
(``didOpen`` → the first diagnostics that carry the validation: for the
peers, the ones with the deliberate schema error; in the table, the median of
the same ``STARTS`` processes, each opening the document once; in the plot's
larger documents, the measured session's; its very first publication is
recorded too), completion and hover warm (median of ``--requests``
requests on the unchanged document after its diagnostics), edit → diagnostics
(median of ``--edits`` edits of a path segment in the last task node, each a
text no earlier version had, each until the diagnostics of its version) and
peak resident memory.

Each peer must prove it validated against the schema: its diagnostics after
open must all lie in the node with the deliberate error (and be at least
one), and the same document with the schema association removed must give
none there (the control). A peer failing that is reported as unverified.

Results are printed as a Markdown table, saved as JSON under ``bench/results/``
and written, with the ``--scale`` runs and the targets, to the ``peers`` section of
``docs/performance.md``. Timings are never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate_toml
from lspclient import Server, Session, median_ms
from peer_documents import PeerDocument, draft07_schema, peer_document
from report import table, targets, write_section

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
WRAPPER = BENCH / "peers" / "taplo-stdio.mjs"


@dataclass
class Target:
    """One server and the document it is measured on."""

    label: str
    make_server: Callable[[Path], Server]
    path: Path
    language_id: str
    text: str
    completion_at: int
    hover_at: int
    edit_at: int
    """Start of a 4-character segment (``name``), replaced by ``n000``, ``n001``, ...: every
    edit makes a text no earlier version had, as typing does (wfls reuses the analysis
    of a text it has seen, so toggling between two texts would flatter it)."""
    incremental: bool
    nodes: int
    document: PeerDocument | None = None
    """For peers: where the deliberate schema error is."""

    @property
    def uri(self) -> str:
        return self.path.as_uri()

    def open_in(self, server: Server) -> Session:
        """Open the document in ``server`` (started), with this target's sync."""
        return server.open(
            self.uri,
            self.language_id,
            self.text,
            incremental=self.incremental,
            accept=self.accept(),
        )

    def accept(self) -> Callable[[list[types.Diagnostic]], bool] | None:
        """Peers publish syntax-only passes too; only a pass with the schema error counts."""
        document = self.document
        if document is None:
            return None
        return lambda diagnostics: any(
            document.in_error_node(d.range.start.line) for d in diagnostics
        )


def wfls_target(nodes: int, incremental: bool) -> Target:
    text = generate_toml(nodes)
    segment = text.rindex(".item.name") + len(".item.")
    # A folder of its own: wfls indexes the workspace folder it is started in, and the
    # peers' documents (and the other sizes') must not count towards its memory.
    folder = RESULTS / "peers" / f"wfls-{nodes}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"generated-{nodes}.wf.toml"
    path.write_text(text)
    sync = "incremental" if incremental else "full"
    return Target(
        label=f"wfls ({sync} sync)",
        make_server=lambda log: Server("wfls", [sys.executable, "-m", "wfls", "serve"], log=log),
        path=path,
        language_id="toml",
        text=text,
        completion_at=segment,
        hover_at=segment - 3,
        edit_at=segment,
        incremental=incremental,
        nodes=nodes,
    )


def peer_targets(
    peers: Path, lines: int, syntaxes: tuple[str, ...] = ("yaml", "toml")
) -> list[Target]:
    """yaml-language-server on the YAML document and Taplo on the TOML one (of those in
    ``syntaxes``), each cut to ``lines`` lines."""
    schema_path = RESULTS / "peers" / "workflow.schema.json"
    schema_path.write_text(json.dumps(draft07_schema(), indent=1))
    schema_uri = schema_path.as_uri()
    targets = []
    yaml_ls = peers / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
    servers: dict[str, Callable[[Path], Server]] = {
        "yaml": lambda log: Server(
            "yaml-language-server",
            ["node", str(yaml_ls), "--stdio"],
            settings={"yaml": {"validate": True, "hover": True, "completion": True}},
            log=log,
        ),
        "toml": lambda log: Server(
            "taplo",
            ["node", str(WRAPPER), str(peers)],
            settings={"evenBetterToml": {"schema": {"enabled": True, "catalogs": []}}},
            initialization_options={"configurationSection": "evenBetterToml"},
            ignore=("taplo/didChangeSchemaAssociation", "taplo/messageWithOutput"),
            log=log,
        ),
    }
    labels = {"yaml": "yaml-language-server", "toml": "Taplo"}
    key_line = {"yaml": "\n    node: ", "toml": "\nnode = "}
    for syntax in syntaxes:
        document = peer_document(syntax, lines, schema_uri)
        text = document.text
        path = RESULTS / "peers" / f"workflow-{lines}.{syntax}"
        path.write_text(text)
        segment = text.rindex(".item.name") + len(".item.")
        # The ``node`` entry of the last task node: completion and hover where each peer
        # answers from the schema (yaml-language-server: on the key, listing the node's
        # properties; Taplo: in the value, as it offers nothing on a key there).
        entry = text.rindex(key_line[syntax]) + 1
        key = entry + len("    ") + 1 if syntax == "yaml" else entry + len('node = "') + 1
        targets.append(
            Target(
                label=labels[syntax],
                make_server=servers[syntax],
                path=path,
                language_id=syntax,
                text=text,
                completion_at=key,
                hover_at=key,
                edit_at=segment,
                incremental=False,
                nodes=document.nodes,
                document=document,
            )
        )
    return targets


async def settle(session: Session, quiet: float = 1.5, deadline: float = 60.0) -> None:
    """Wait for a first publication, then until ``quiet`` seconds pass without another."""
    end = time.perf_counter() + deadline
    seen = 0
    while time.perf_counter() < end:
        await asyncio.sleep(quiet)
        if session.history and len(session.history) == seen:
            return
        seen = len(session.history)


async def control(server: Server, target: Target) -> dict[str, Any]:
    """The same document without its schema association: the error must not be reported."""
    assert target.document is not None
    _directive, _, rest = target.text.partition("\n")
    path = target.path.with_name("control-" + target.path.name)
    text = "# (no schema)\n" + rest
    path.write_text(text)
    session = server.open(path.as_uri(), target.language_id, text, incremental=False)
    await settle(session)
    published = session.history[-1][1].diagnostics if session.history else []
    flagged = [d for d in published if target.document.in_error_node(d.range.start.line)]
    return {
        "publications": len(session.history),
        "diagnostics": len(published),
        "flagged": len(flagged),
    }


STARTS = 9
"""Process starts per server whose ``initialize`` times give its median: one start
varies by a third from the next on this machine, and the medians of five starts of
the same code moved by 10 to 15% from one run to the next."""


def _log(target: Target) -> Path:
    return RESULTS / "peers" / f"{target.label.split()[0]}.log"


async def start_times(
    targets: list[Target], rounds: int, open_too: bool
) -> dict[str, dict[str, list[float]]]:
    """``initialize`` times (ms) of ``rounds`` fresh processes of each target, by label,
    and with ``open_too`` each one's open → diagnostics of its document; each process is
    shut down then. The servers start in rotation, one of each per round: the machine's
    speed drifts over minutes, and a drift then weighs on every server alike instead of
    on whichever was measured while it lasted."""
    times: dict[str, dict[str, list[float]]] = {
        target.label: {"initialize": [], "open": []} for target in targets
    }
    for _ in range(rounds):
        for target in targets:
            server = target.make_server(_log(target))
            try:
                await server.start(target.path.parent)
                times[target.label]["initialize"].append(server.initialize_time * 1000)
                if open_too:
                    session = target.open_in(server)
                    times[target.label]["open"].append(await session.open_time() * 1000)
            finally:
                await server.close()
    return times


async def measure(
    target: Target, requests: int, edits: int, earlier: dict[str, list[float]]
) -> dict[str, Any]:
    """Every figure of one server; ``earlier``: its ``initialize`` (and maybe open)
    times measured in rotation with the other servers' (``start_times``), to which
    those of the session measured here are added."""
    log = _log(target)
    starts = list(earlier["initialize"])
    opens = list(earlier["open"])
    server = target.make_server(log)
    row: dict[str, Any] = {
        "server": target.label,
        "lines": target.text.count("\n"),
        "nodes": target.nodes,
    }
    try:
        await server.start(target.path.parent)
        starts.append(server.initialize_time * 1000)
        row["initialize"] = statistics.median(starts)
        row["initialize_starts"] = starts
        row["sync"] = "incremental" if target.incremental else "full"
        session = target.open_in(server)
        opens.append(await session.open_time() * 1000)
        row["open"] = statistics.median(opens)
        row["open_times"] = opens
        row["first_publication"] = session.first_publication() * 1000
        opened = session.diagnostics(1)
        row["open_diagnostics"] = len(opened)
        if target.document is not None:
            document = target.document
            row["schema_error"] = {
                "line": document.error_line + 1,
                "node_lines": [document.error_node_line + 1, document.error_line + 1],
                "nodes": document.nodes,
                "reported": len(opened),
                "inside_node": sum(document.in_error_node(d.range.start.line) for d in opened),
                "message": opened[0].message[-160:] if opened else None,
            }

        completions = [await session.completion(target.completion_at) for _ in range(requests)]
        hovers = [await session.hover(target.hover_at) for _ in range(requests)]
        row["completion"] = median_ms([t for t, _ in completions])
        row["completion_items"] = completions[-1][1]
        row["hover"] = median_ms([t for t, _ in hovers])
        row["hover_text"] = hovers[-1][1][:120]

        times = []
        for i in range(edits):
            times.append(await session.edit_time(target.edit_at, 4, f"n{i:03d}"))
        row["edit"] = median_ms(times)
        row["edits"] = [t * 1000 for t in times]
        row["peak_rss_mb"] = server.rss()
        if target.document is not None:
            row["control"] = await control(server, target)
            check = row["schema_error"]
            row["verified"] = (
                check["reported"] > 0
                and check["inside_node"] == check["reported"]
                and row["control"]["flagged"] == 0
                and row["control"]["publications"] > 0
            )
    finally:
        await server.close()
    return row


WFLS_LINES_PER_NODE = 11.2
"""Lines per node of the generated workflow (22,430 lines for 2,000 nodes)."""


def wfls_targets(nodes: int) -> list[Target]:
    return [wfls_target(nodes, True), wfls_target(nodes, False)]


def run(targets: list[Target], args: argparse.Namespace, scaled: bool = False) -> list[dict]:
    if args.only:
        targets = [t for t in targets if any(o.lower() in t.label.lower() for o in args.only)]
    requests, edits = (
        (max(3, args.requests // 3), max(3, args.edits // 2))
        if scaled
        else (
            args.requests,
            args.edits,
        )
    )
    rows = []
    # The table's opens too are medians of every start (one open varies by a fifth
    # from the next); the plot's larger documents take one each.
    starts = asyncio.run(start_times(targets, STARTS - 1, open_too=not scaled))
    for target in targets:
        print(f"measuring {target.label} on {target.text.count(chr(10)):,} lines ...", flush=True)
        row = asyncio.run(measure(target, requests, edits, starts[target.label]))
        rows.append(row)
        if "verified" in row:
            check = row["schema_error"]
            print(
                f"  schema check: {check['reported']} diagnostics, {check['inside_node']} in the "
                f"node with the error (lines {check['node_lines'][0]}-{check['node_lines'][1]}); "
                f"without the schema: {row['control']['flagged']}; "
                f"{'verified' if row['verified'] else 'NOT VERIFIED'}",
                flush=True,
            )
    return rows


def ratio(a: float, b: float) -> str:
    if not b:
        return "n/a"
    return f"{a / b:.2f}x" if a / b >= 0.1 else f"{a / b:.1g}x"


COLUMNS = [
    ("initialize", "initialize"),
    ("open", "open → diagnostics"),
    ("completion", "completion (warm)"),
    ("hover", "hover (warm)"),
    ("edit", "edit → diagnostics"),
]


def markdown(rows: list[dict[str, Any]]) -> str:
    columns = COLUMNS
    out = [
        "| server | sync | lines | " + " | ".join(t for _, t in columns) + " | peak RSS |",
        "| --- | --- | ---: | " + " | ".join("---:" for _ in columns) + " | ---: |",
    ]
    for row in rows:
        cells = " | ".join(f"{row[k]:,.0f} ms" for k, _ in columns)
        name = row["server"].split(" (")[0]
        rss = f"{row['peak_rss_mb']:,.0f} MB"
        out.append(f"| {name} | {row['sync']} | {row['lines']:,} | {cells} | {rss} |")
    wfls = next((r for r in rows if r["server"].startswith("wfls") and r["sync"] == "full"), None)
    for peer in ("yaml-language-server", "Taplo"):
        other = next((r for r in rows if r["server"] == peer), None)
        if wfls and other:
            cells = " | ".join(ratio(wfls[k], other[k]) for k, _ in columns)
            rss = ratio(wfls["peak_rss_mb"], other["peak_rss_mb"])
            out.append(f"| wfls (full) / {peer} | | | {cells} | {rss} |")
    return "\n".join(out)


def scale_markdown(rows: list[dict[str, Any]]) -> str:
    """Every server at every size measured, one row each, by server then lines."""
    order = ["wfls (incremental sync)", "wfls (full sync)", "yaml-language-server", "Taplo"]
    ranked = sorted(rows, key=lambda r: (order.index(r["server"]), r["lines"]))
    cells = [
        (
            r["server"].replace(" (", ", ").replace(" sync)", ""),
            f"{r['lines']:,}",
            *(f"{r[k]:,.0f} ms" for k, _ in COLUMNS),
            f"{r['peak_rss_mb']:,.0f} MB",
        )
        for r in ranked
    ]
    header = ["server", "lines", *(title for _, title in COLUMNS), "peak RSS"]
    return table(header, cells, "lr" + "r" * len(COLUMNS) + "r")


def target_rows(rows: list[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    """The targets set against yaml-language-server, and wfls's memory at 2,000 nodes."""
    yaml = next((r for r in rows if r["server"] == "yaml-language-server"), None)
    mine = sorted(
        (r for r in rows if r["server"].startswith("wfls")), key=lambda r: r["sync"] != "full"
    )
    goals: list[tuple[str, str, bool]] = []
    if yaml is not None and mine:
        yaml_lines = f"{yaml['lines']:,} lines"
        for key, goal, limit in (
            ("edit", "edit → diagnostics ≤ half of yaml-language-server's, both sync kinds", 0.5),
            ("open", "open → diagnostics ≤ yaml-language-server's", 1.0),
            ("initialize", "initialize ≤ 1.5 times yaml-language-server's", 1.5),
        ):
            measured = "; ".join(
                f"{ratio(r[key], yaml[key])} with {r['sync']} sync "
                f"({r[key]:,.0f} ms against {yaml[key]:,.0f} ms)"
                for r in mine
            )
            holds = all(r[key] <= limit * yaml[key] for r in mine)
            goals.append(
                (f"{goal}, at {mine[0]['nodes']:,} nodes and {yaml_lines}", measured, holds)
            )
    at_2000 = [r for r in mine if r["nodes"] == 2000]
    if at_2000:
        peaks = [r["peak_rss_mb"] for r in at_2000]
        goals.append(
            (
                "peak RSS at 2,000 nodes ≤ 150 MB",
                f"{min(peaks):,.0f} to {max(peaks):,.0f} MB",
                max(peaks) <= 150,
            )
        )
    return goals


def page_markdown(
    rows: list[dict[str, Any]], scale: list[dict[str, Any]], found: dict[str, str]
) -> str:
    """The section of ``docs/performance.md``: versions, the table, other sizes, targets."""
    parts = [
        f"yaml-language-server {found['yaml-language-server']} and @taplo/lsp "
        f"{found['@taplo/lsp']} from npm, on Node {found['node'].lstrip('v')}.",
        markdown(rows),
    ]
    checks = [
        f"{r['server']} reported {r['schema_error']['reported']} diagnostics "
        f"({r['schema_error']['inside_node']} in the node with the error"
        + (f", `{r['schema_error']['message']}`" if r["schema_error"]["message"] else "")
        + f"; {r['control']['flagged']} there without the schema)"
        for r in rows
        if "schema_error" in r
    ]
    if checks:
        parts[0] += " The schema check: " + "; ".join(checks) + "."
    if scale:
        parts += [
            "At other sizes (fewer requests and edits each; wfls's node counts chosen for "
            "about the same number of lines):",
            scale_markdown(rows + scale),
        ]
    goals = target_rows(rows)
    if goals:
        parts.append(targets(goals))
    unverified = [r["server"] for r in rows + scale if r.get("verified") is False]
    if unverified:
        parts.append(f"**Schema validation not verified for:** {', '.join(unverified)}.")
    return "\n\n".join(parts)


def versions(peers: Path) -> dict[str, str]:
    found = {"node": platform.node() and os.popen("node --version").read().strip()}
    for package in ("yaml-language-server", "@taplo/lsp"):
        manifest = peers / "node_modules" / package / "package.json"
        found[package] = json.loads(manifest.read_text())["version"]
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=Path, required=True, help="folder with node_modules")
    parser.add_argument("--nodes", type=int, default=2000, help="wfls workflow size")
    parser.add_argument("--lines", type=int, default=2169, help="peer document length")
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--only", nargs="*", help="labels to run (wfls, yaml, taplo)")
    parser.add_argument(
        "--scale",
        nargs="*",
        type=int,
        default=[],
        metavar="LINES",
        help="also run every server on documents of about these many lines (for the plot)",
    )
    args = parser.parse_args(argv)
    (RESULTS / "peers").mkdir(parents=True, exist_ok=True)
    peers = args.peers.resolve()

    rows = run(wfls_targets(args.nodes) + peer_targets(peers, args.lines), args)
    print()
    print(markdown(rows))
    scale = []
    for lines in args.scale:  # what the table above measured already is not run again
        nodes = max(10, round(lines / WFLS_LINES_PER_NODE / 10) * 10)
        targets = wfls_targets(nodes) if nodes != args.nodes else []
        targets += peer_targets(peers, lines) if lines != args.lines else []
        scale += run(targets, args, scaled=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    result = {
        "date": stamp,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "versions": versions(args.peers.resolve()),
        "settings": vars(args) | {"peers": str(args.peers)},
        "rows": rows,
        "scale": scale,
    }
    for name in (f"peers-{stamp}.json", "peers-latest.json"):
        (RESULTS / name).write_text(json.dumps(result, indent=1))
    print(f"\nraw results: bench/results/peers-{stamp}.json")
    write_section("peers", page_markdown(rows, scale, result["versions"]))
    unverified = [r["server"] for r in rows + scale if r.get("verified") is False]
    if unverified:
        print(f"schema validation NOT verified for: {', '.join(unverified)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
