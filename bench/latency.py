"""Every request an editor sends, at scale: the first after open and after each edit included.

Run: ``.venv/bin/python bench/latency.py [NODES...]`` (default 5000 16000; part of
``make bench-scaling``). Four parts, each its own section of ``docs/performance.md``
with the targets it measures (``--parts`` picks some):

- ``requests``: per generated workflow (``generate.generate_toml``), sync kind and
  document (as generated, and with ``--findings`` of its reads misspelt,
  ``generate.with_findings``; ``wfls check`` counts the errors of that document), one
  ``wfls serve`` whose client declares what an editor does
  (``lspclient.EDITOR_CAPABILITIES``). For each request kind (``KINDS``) a document of
  its own is opened (a fresh URI and text, so nothing of another kind's analysis is
  reused), the request is sent right after ``didOpen``, then after each of ``--edits``
  edits (the four characters of a path segment in the middle of the document replaced
  by ``n000``, ``n001``, ...: every edit a text no earlier version had), each request
  right after its edit, the edit's diagnostics awaited untimed afterwards, and the
  document is closed. Every sample is thus the first request after an open or an
  edit; the delta of semantic tokens has no sample after open (it needs the full
  answer before it), and takes that full answer untimed. Before the first kind the
  server opens a small document, untimed, so that none is the process's first
  analysis. A request is timed from sending it to its answer's last byte read, before
  this client decodes it, and the publications' diagnostics are only counted
  (``Server(slim=True)``), so no decoding by this client is counted. p50 / p95 / max
  per kind, and the first after open.
- ``workspace-symbol``: the first ``workspace/symbol`` answer, the request sent right
  after ``initialized`` in a folder of three ``--symbol-nodes`` documents and in the
  ``--symbol-documents`` workspace of ``bench/workspace.py``, whether it held the node
  asked for from every document, and when an answer first did.
- ``export``: ``wfls export`` against ``wfls check`` on the same document
  (``bench/export.py``) at each size.
- ``run``: ``wfls run`` without ``--trace`` of the loop over ``--run-items`` items of
  ``bench/runtime_memory.py`` (one task each, stand-in handlers), as that benchmark
  measures it: wall clock and peak resident memory of the process.

Raw results go to ``bench/results/latency-*.json`` (``bench/plot.py --latency`` draws
them); ``--page`` writes the sections into another copy of the page, for trial runs at
small sizes whose figures must not reach the documentation. Timings are never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))

import export
from generate import generate_toml, with_findings
from lsp import save
from lspclient import EDITOR_CAPABILITIES, Answer, Server, Session, p95_ms, position
from report import PAGE, table, targets, write_section
from workspace import write_workspace

SIZES = (5000, 16000)
PARTS = ("requests", "workspace-symbol", "export", "run")
SCREEN = 60
"""Lines of a screen: the range of the inlay hints and of the semantic tokens by range."""


def wfls_server(**options: Any) -> Server:
    return Server(
        "wfls",
        [sys.executable, "-m", "wfls", "serve"],
        client_capabilities=EDITOR_CAPABILITIES,
        **options,
    )


# -- where the requests point ---------------------------------------------------------------


@dataclass(frozen=True)
class Cursor:
    """The places of one generated document the requests are about: a task of the middle
    group, ``g{group}_t7``, whose customer path is typed into."""

    group: int
    segment: int
    """The last segment (four characters) of the task's ``...item.name`` path: where each
    edit types, and where completion and selection range ask."""
    finding: int
    """At the start of the task's finding, where code actions at the cursor ask: its
    ``context.orderN.qty`` read's convenience key (a hint), or, with that read misspelt
    (``generate.with_findings``), the property after it (an error)."""
    node_id: int
    """Inside the task's id: references, highlight and prepare rename."""
    reference: int
    """Inside the outer loop's id in that path: definition."""

    @classmethod
    def of(cls, text: str) -> Cursor:
        group = text.count('type = "foreach"') // 2 // 2  # two loops a group
        id_at = text.index(f'id = "g{group}_t7"')
        lead = f'path = "context.foreach.g{group}_customers.item.'
        path = text.index(lead, id_at)
        key = text.index('path = "context.', path + len(lead)) + len('path = "context.')
        misspelt = text.index(".", key) + 1
        return cls(
            group,
            segment=path + len(lead),
            finding=misspelt if text.startswith('qtx"', misspelt) else key,
            node_id=id_at + len('id = "') + 1,
            reference=path + len('path = "context.foreach.') + 2,
        )


def _screen(session: Session, offset: int) -> types.Range:
    line = position(session.text, offset).line
    last = session.text.count("\n")
    top = max(0, line - SCREEN // 2)
    return types.Range(
        start=types.Position(line=top, character=0),
        end=types.Position(line=min(last, top + SCREEN), character=0),
    )


def _whole(session: Session) -> types.Range:
    return types.Range(
        start=types.Position(line=0, character=0), end=position(session.text, len(session.text))
    )


Params = Callable[[Session, Cursor, dict[str, Any]], Any]


@dataclass(frozen=True)
class Kind:
    """One kind of request: its name in the tables, its method, its parameters."""

    name: str
    group: str
    """``point``, ``document`` (document-wide) or ``tokens`` (semantic tokens delta, range)."""
    method: str
    params: Params
    after_open: bool = True
    may_be_empty: bool = False
    """Whether an empty answer is a right one (a delta after an edit that changed no token)."""


def _doc(session: Session) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=session.uri)


def _at(session: Session, offset: int) -> types.Position:
    return position(session.text, offset)


def _no_context() -> types.CodeActionContext:
    # The server computes its fixes from its own findings; the diagnostics a client sends
    # along are not read (so this client does not encode thousands of them).
    return types.CodeActionContext(diagnostics=[])


FULL_TOKENS = Kind(
    "semantic tokens (full)",
    "document",
    types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
    lambda s, c, _: types.SemanticTokensParams(text_document=_doc(s)),
)

KINDS = (
    Kind(
        "completion",
        "point",
        types.TEXT_DOCUMENT_COMPLETION,
        lambda s, c, _: types.CompletionParams(text_document=_doc(s), position=_at(s, c.segment)),
    ),
    Kind(
        "hover",
        "point",
        types.TEXT_DOCUMENT_HOVER,
        lambda s, c, _: types.HoverParams(text_document=_doc(s), position=_at(s, c.segment - 3)),
    ),
    Kind(
        "definition",
        "point",
        types.TEXT_DOCUMENT_DEFINITION,
        lambda s, c, _: types.DefinitionParams(text_document=_doc(s), position=_at(s, c.reference)),
    ),
    Kind(
        "references",
        "point",
        types.TEXT_DOCUMENT_REFERENCES,
        lambda s, c, _: types.ReferenceParams(
            text_document=_doc(s),
            position=_at(s, c.node_id),
            context=types.ReferenceContext(include_declaration=True),
        ),
    ),
    Kind(
        "highlight",
        "point",
        types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT,
        lambda s, c, _: types.DocumentHighlightParams(
            text_document=_doc(s), position=_at(s, c.node_id)
        ),
    ),
    Kind(
        "prepare rename",
        "point",
        types.TEXT_DOCUMENT_PREPARE_RENAME,
        lambda s, c, _: types.PrepareRenameParams(
            text_document=_doc(s), position=_at(s, c.node_id)
        ),
    ),
    Kind(
        "code actions at the cursor",
        "point",
        types.TEXT_DOCUMENT_CODE_ACTION,
        lambda s, c, _: types.CodeActionParams(
            text_document=_doc(s),
            range=types.Range(start=_at(s, c.finding), end=_at(s, c.finding)),
            context=_no_context(),
        ),
    ),
    Kind(
        "selection range",
        "point",
        types.TEXT_DOCUMENT_SELECTION_RANGE,
        lambda s, c, _: types.SelectionRangeParams(
            text_document=_doc(s), positions=[_at(s, c.segment)]
        ),
    ),
    Kind(
        "document symbols",
        "document",
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
        lambda s, c, _: types.DocumentSymbolParams(text_document=_doc(s)),
    ),
    Kind(
        "folding ranges",
        "document",
        types.TEXT_DOCUMENT_FOLDING_RANGE,
        lambda s, c, _: types.FoldingRangeParams(text_document=_doc(s)),
    ),
    FULL_TOKENS,
    Kind(
        f"inlay hints of {SCREEN} lines",
        "document",
        types.TEXT_DOCUMENT_INLAY_HINT,
        lambda s, c, _: types.InlayHintParams(text_document=_doc(s), range=_screen(s, c.segment)),
    ),
    Kind(
        "code actions of the document",
        "document",
        types.TEXT_DOCUMENT_CODE_ACTION,
        lambda s, c, _: types.CodeActionParams(
            text_document=_doc(s), range=_whole(s), context=_no_context()
        ),
    ),
    Kind(
        "semantic tokens (delta)",
        "tokens",
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA,
        lambda s, c, state: types.SemanticTokensDeltaParams(
            text_document=_doc(s), previous_result_id=state["result_id"]
        ),
        after_open=False,
        may_be_empty=True,
    ),
    Kind(
        f"semantic tokens of {SCREEN} lines",
        "tokens",
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE,
        lambda s, c, _: types.SemanticTokensRangeParams(
            text_document=_doc(s), range=_screen(s, c.segment)
        ),
    ),
)

LIMITS = {5000: {"point": 50.0, "document": 250.0, "tokens": 50.0}}
"""The targets' p95 in ms by request group, up to each size (larger: ``LIMITS_ABOVE``)."""
LIMITS_ABOVE = {"point": 100.0, "document": 800.0, "tokens": 50.0}
GROUPS = {
    "point": "point requests",
    "document": "document-wide requests",
    "tokens": "semantic tokens delta and range",
}


def limits(nodes: int) -> dict[str, float]:
    for up_to, found in sorted(LIMITS.items()):
        if nodes <= up_to:
            return found
    return LIMITS_ABOVE


def answer_size(result: Any) -> int:
    """How much an answer holds (items, locations, tokens...): 0 for an empty one."""
    if result is None:
        return 0
    if isinstance(result, list | tuple):
        return len(result)
    for name in ("items", "data", "edits"):
        value = getattr(result, name, None)
        if isinstance(value, list | tuple):
            return len(value) // 5 if name == "data" else len(value)
    if isinstance(result, types.Hover):
        return 1 if result.contents else 0
    return 1


# -- part 1: the requests -------------------------------------------------------------------


async def _sample(
    server: Server, session: Session, kind: Kind, cursor: Cursor, state: dict[str, Any]
) -> Answer:
    answer = await server.request(kind.method, kind.params(session, cursor, state))
    result_id = getattr(answer.result, "result_id", None)
    if result_id is not None:
        state["result_id"] = result_id
    return answer


async def measure_requests(
    nodes: int, incremental: bool, findings: int, edits: int
) -> dict[str, Any]:
    """Every kind of request on one document, in one server."""
    base = generate_toml(nodes)
    text = with_findings(base, findings) if findings else base
    server = wfls_server(slim=True)
    row: dict[str, Any] = {
        "nodes": nodes,
        "lines": text.count("\n"),
        "sync": "incremental" if incremental else "full",
        "findings": findings,
        "kinds": {},
    }
    try:
        await server.start()
        row["initialize"] = server.initialize_time * 1000
        # A small document first, untimed: what follows is not the process's first analysis.
        warm = server.open("file:///bench/warm-up.wf.toml", "toml", generate_toml(20))
        await warm.open_time()
        warm.close()
        for index, kind in enumerate(KINDS):
            # A text and a URI of its own: every kind's first request meets a fresh open.
            own = text.replace('name = "generated"', f'name = "generated{index}"', 1)
            slug = kind.name.replace(" ", "-").replace(",", "")
            session = server.open(
                f"file:///bench/latency-{nodes}-{slug}.wf.toml",
                "toml",
                own,
                incremental=incremental,
            )
            cursor = Cursor.of(own)
            state: dict[str, Any] = {}
            answers: list[Answer] = []
            first = None
            if kind.after_open:
                first = await _sample(server, session, kind, cursor, state)
                answers.append(first)
            opened = await session.open_time()
            row.setdefault("open", []).append(opened * 1000)
            row["published"] = session.published.get(1, 0)
            if not kind.after_open:  # the delta needs a full answer first (untimed)
                await _sample(server, session, FULL_TOKENS, cursor, state)
            for i in range(edits):
                published = session.expect(session.version + 1)
                session.edit(cursor.segment, 4, f"n{i:03d}")
                answers.append(await _sample(server, session, kind, cursor, state))
                await session.wait(published)
            session.close()
            times = [a.seconds * 1000 for a in answers]
            row["kinds"][kind.name] = {
                "group": kind.group,
                "samples": times,
                "first": first.seconds * 1000 if first else None,
                "p50": statistics.median(times),
                "p95": p95_ms([t / 1000 for t in times]),
                "max": max(times),
                "errors": [a.error for a in answers if a.error],
                "empty": 0
                if kind.may_be_empty
                else sum(1 for a in answers if not a.error and not answer_size(a.result)),
                "size": answer_size(answers[-1].result),
            }
        row["peak_rss_mb"] = server.rss()
    finally:
        await server.close()
    return row


def count_errors(text: str) -> dict[str, int]:
    """``wfls check --format json`` of ``text`` (alone in a folder): findings by severity."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "findings.wf.toml"
        path.write_text(text, encoding="utf-8")
        done = subprocess.run(
            [*export._command(), "check", "--format", "json", str(path)],
            capture_output=True,
            timeout=600,
            check=False,
        )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"wfls check failed: {done.stderr.decode()[-500:]}")
    counts: dict[str, int] = {}
    for finding in json.loads(done.stdout):
        counts[finding["severity"]] = counts.get(finding["severity"], 0) + 1
    return counts


def _label(row: dict[str, Any]) -> str:
    document = f"{row['findings']:,} findings" if row["findings"] else "as generated"
    return f"{row['nodes']:,} nodes, {row['sync']} sync, {document}"


def print_requests(row: dict[str, Any]) -> None:
    print(
        f"\n{_label(row)} ({row['lines']:,} lines, {row['published']:,} diagnostics at open; "
        f"peak RSS {row['peak_rss_mb']:,.0f} MB)"
    )
    print(f"  {'request':<32} {'p50':>8} {'p95':>8} {'max':>8} {'first':>8}  answer")
    for name, k in row["kinds"].items():
        first = f"{k['first']:8.0f}" if k["first"] is not None else f"{'-':>8}"
        notes = f"{k['size']:,}" + (f", {k['empty']} empty" if k["empty"] else "")
        notes += f", {len(k['errors'])} errors ({k['errors'][0]})" if k["errors"] else ""
        print(
            f"  {name:<32} {k['p50']:8.0f} {k['p95']:8.0f} {k['max']:8.0f} {first}  {notes}",
            flush=True,
        )


def _cell(k: dict[str, Any]) -> str:
    cell = f"{k['p50']:,.0f} / {k['p95']:,.0f} / {k['max']:,.0f}"
    if k["first"] is not None:
        cell += f" ({k['first']:,.0f})"
    return cell + (" ⚠" if k["errors"] or k["empty"] else "")


def request_goals(rows: list[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    goals = []
    for row in rows:
        limit = limits(row["nodes"])
        for group, title in GROUPS.items():
            mine = {n: k for n, k in row["kinds"].items() if k["group"] == group}
            if not mine:
                continue
            worst = max(mine, key=lambda n: mine[n]["p95"])
            over = [n for n, k in mine.items() if k["p95"] > limit[group]]
            broken = [n for n, k in mine.items() if k["errors"] or k["empty"]]
            measured = f"slowest: {worst} {mine[worst]['p95']:,.0f} ms"
            if over:
                measured += f"; over: {', '.join(over)}"
            if broken:
                measured += f"; empty or failed answers: {', '.join(broken)}"
            goals.append(
                (
                    f"{title}, p95 ≤ {limit[group]:,.0f} ms ({_label(row)})",
                    measured,
                    not over and not broken,
                )
            )
    return goals


def requests_markdown(
    rows: list[dict[str, Any]], edits: int, checked: dict[int, dict[str, int]]
) -> str:
    parts = [
        f"Each cell: p50 / p95 / max in ms of {edits + 1} requests of the kind (the first "
        f"after `didOpen`, in brackets, and the first after each of {edits} edits; the delta "
        f"of semantic tokens: {edits}, after the edits only), timed from sending to the "
        "answer's last byte read. ⚠: some answers were empty or errors (see the raw results)."
    ]
    for findings in sorted({r["findings"] for r in rows}):
        mine = [r for r in rows if r["findings"] == findings]
        if findings:
            counted = ", ".join(
                f"{c.get('error', 0):,} errors at {n:,} nodes" for n, c in checked.items()
            )
            parts.append(
                f"With {findings:,} of the tasks' reads misspelt "
                f"(`bench/generate.py NODES {findings}`; `wfls check`: {counted}):"
            )
        else:
            parts.append("The document as generated:")
        header = ["request", *(f"{r['nodes']:,} nodes, {r['sync']}" for r in mine)]
        cells = [(name, *(_cell(r["kinds"][name]) for r in mine)) for name in mine[0]["kinds"]]
        parts.append(table(header, cells, "l" + "r" * len(mine)))
        parts.append(
            "Diagnostics published at open: "
            + ", ".join(f"{r['published']:,} ({r['nodes']:,}, {r['sync']})" for r in mine)
            + "; the server's peak RSS: "
            + ", ".join(f"{r['peak_rss_mb']:,.0f} MB" for r in mine)
            + "."
        )
    parts.append(targets(request_goals(rows)))
    return "\n\n".join(parts)


# -- part 2: workspace/symbol ---------------------------------------------------------------


def _found(answer: Answer, query: str) -> int:
    """In how many documents the answer has a symbol named ``query`` exactly."""
    uris = {getattr(s.location, "uri", None) for s in answer.result or () if s.name == query}
    return len(uris - {None})


async def first_symbols(root: Path, query: str, documents: int) -> dict[str, Any]:
    """``workspace/symbol`` right after ``initialized``; then again every quarter second
    until the answer holds the node of every document (or a minute has passed)."""
    server = wfls_server()
    try:
        await server.start(root)
        started = time.perf_counter()
        params = types.WorkspaceSymbolParams(query=query)
        first = await server.request(types.WORKSPACE_SYMBOL, params)
        found, complete = _found(first, query), None
        while found < documents and time.perf_counter() - started < 60:
            await asyncio.sleep(0.25)
            answer = await server.request(types.WORKSPACE_SYMBOL, params)
            found = _found(answer, query)
        if found == documents:
            complete = (time.perf_counter() - started) * 1000
        again = await server.request(types.WORKSPACE_SYMBOL, params)
    finally:
        await server.close()
    return {
        "query": query,
        "documents": documents,
        "initialize": server.initialize_time * 1000,
        "first": first.seconds * 1000,
        "first_symbols": answer_size(first.result),
        "first_found": _found(first, query),
        "first_error": first.error,
        "complete": complete,
        "again": again.seconds * 1000,
    }


def measure_symbols(nodes: int, documents: int) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="wfls-bench-symbols-") as folder:
        root = Path(folder)
        for i in range(3):
            text = generate_toml(nodes).replace('name = "generated"', f'name = "w{i}"', 1)
            (root / f"w{i}.wf.toml").write_text(text)
        group = nodes // 10 // 2
        row = asyncio.run(first_symbols(root, f"g{group}_t5", 3))
        rows.append({"folder": f"three documents of {nodes:,} nodes", **row})
    with tempfile.TemporaryDirectory(prefix="wfls-bench-symbols-") as folder:
        root = Path(folder)
        sizes = write_workspace(root, documents, 50)
        row = asyncio.run(first_symbols(root, "g1_t5", documents))
        described = (
            f"{documents:,} documents of {min(sizes)} to {max(sizes)} nodes and 51 small ones "
            "(`bench/workspace.py`)"
        )
        rows.append({"folder": described, **row})
    for r in rows:
        print(
            f"workspace/symbol {r['query']!r} in {r['folder']}: first answer {r['first']:,.0f} ms "
            f"({r['first_symbols']:,} symbols, the node from {r['first_found']} of "
            f"{r['documents']} documents); every document's node answered after "
            f"{_ms(r['complete'])}; once indexed {r['again']:,.0f} ms",
            flush=True,
        )
    return rows


SYMBOL_BUDGET_MS = 1000.0


def _ms(value: float | None) -> str:
    return "not within a minute" if value is None else f"{value:,.0f} ms"


def symbols_markdown(rows: list[dict[str, Any]]) -> str:
    header = [
        "folder",
        "query",
        "first answer",
        "symbols",
        "the node found in",
        "every document's node answered after",
        "an answer once indexed",
    ]
    cells = [
        (
            r["folder"],
            f"`{r['query']}`",
            f"{r['first']:,.0f} ms",
            f"{r['first_symbols']:,}",
            f"{r['first_found']:,} of {r['documents']:,} documents",
            _ms(r["complete"]),
            f"{r['again']:,.0f} ms",
        )
        for r in rows
    ]
    goals = [
        (
            f"first `workspace/symbol` answer ≤ {SYMBOL_BUDGET_MS / 1000:.0f} s, holding every "
            f"document's node, in a folder of {r['folder']}",
            f"{r['first']:,.0f} ms, the node from {r['first_found']} of {r['documents']} documents",
            r["first"] <= SYMBOL_BUDGET_MS and r["first_found"] == r["documents"],
        )
        for r in rows
    ]
    return (
        "The request is sent right after `initialized`, while the server indexes the "
        "folder, and timed until its answer's last byte was read; then it is sent again "
        "every quarter second until the answer holds the node asked for from every "
        "document (timed from the first request), and once more.\n\n"
        + table(header, cells, "llrrrrr")
        + "\n\n"
        + targets(goals)
    )


# -- part 4: wfls run -----------------------------------------------------------------------


_RUN_ALONE = """
import dataclasses, json, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[2])
import runtime_memory
case = runtime_memory.cases(int(sys.argv[1]), 1)[0]
with tempfile.TemporaryDirectory(prefix="wfls-bench-run-") as folder:
    result = runtime_memory.measure(case, Path(folder))
found = dataclasses.asdict(result)
found["case"] = case.label
print(json.dumps(found))
"""


def measure_run(items: int) -> dict[str, Any]:
    """``wfls run`` of ``bench/runtime_memory.py``'s loop over ``items`` items, without
    ``--trace``, measured as that benchmark measures it: wall clock, status, peak RSS.

    Measured from a small process of its own: Linux counts in a child's peak resident
    memory what its parent had resident when it forked (the child's image before its
    ``exec``), and this benchmark holds its large documents by then (it read 469 MB for a
    run that peaks at 92 MB)."""
    import runtime_memory

    here = str(Path(__file__).resolve().parent)
    done = subprocess.run(
        [sys.executable, "-c", _RUN_ALONE, str(items), here],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    row = {
        "case": result["case"],
        "items": items,
        "seconds": result["seconds"],
        "status": result["status"],
        "peak_rss_mb": result["peak_mb"],
        "stderr": result["last_error"],
        "target_mb": runtime_memory.TARGET_MB,
    }
    print(
        f"wfls run of {row['case']}: {row['seconds']:,.1f} s, exit status {row['status']}, "
        f"peak RSS {row['peak_rss_mb']:,.0f} MB",
        flush=True,
    )
    return row


def run_markdown(row: dict[str, Any]) -> str:
    failed = f" ({row['stderr']})" if row["status"] and row["stderr"] else ""
    text = (
        f"`wfls run` without `--trace` of {row['case']} (`bench/runtime_memory.py`'s, stand-in "
        f"handlers): {row['seconds']:,.1f} s, exit status {row['status']}{failed}, peak "
        f"resident memory {row['peak_rss_mb']:,.0f} MB."
    )
    goal = f"`wfls run` without `--trace` of {row['case']} within {row['target_mb']} MB"
    holds = row["peak_rss_mb"] <= row["target_mb"] and row["status"] == 0
    return text + "\n\n" + targets([(goal, f"{row['peak_rss_mb']:,.0f} MB", holds)])


# -- the run --------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nodes", nargs="*", type=int, help=f"sizes (default {SIZES})")
    parser.add_argument("--sync", choices=("incremental", "full", "both"), default="both")
    parser.add_argument("--edits", type=int, default=12, help="edits per request kind")
    parser.add_argument("--findings", type=int, default=4000, help="0: skip that document")
    parser.add_argument("--parts", nargs="*", choices=PARTS, default=list(PARTS))
    parser.add_argument("--symbol-nodes", type=int, default=5000)
    parser.add_argument("--symbol-documents", type=int, default=1000)
    parser.add_argument("--run-items", type=int, default=1_000_000)
    parser.add_argument("--page", type=Path, default=PAGE, help="the page the sections go to")
    args = parser.parse_args(argv)
    sizes = args.nodes or list(SIZES)
    syncs = [True, False] if args.sync == "both" else [args.sync == "incremental"]
    variants = [0, args.findings] if args.findings else [0]
    result: dict[str, Any] = {"settings": {**vars(args), "page": str(args.page)}}

    def write(name: str, markdown: str) -> None:
        if args.page != PAGE:
            args.page.parent.mkdir(parents=True, exist_ok=True)
            if not args.page.exists():
                shutil.copyfile(PAGE, args.page)
        write_section(f"scaling-{name}", markdown, page=args.page)

    if "requests" in args.parts:
        rows = []
        checked = {}
        for nodes in sizes:
            if args.findings:
                counts = count_errors(with_findings(generate_toml(nodes), args.findings))
                checked[nodes] = counts
                print(f"wfls check of {nodes:,} nodes with {args.findings:,} findings: {counts}")
            for findings in variants:
                for incremental in syncs:
                    row = asyncio.run(measure_requests(nodes, incremental, findings, args.edits))
                    rows.append(row)
                    print_requests(row)
        result["requests"] = rows
        result["checked"] = {str(n): c for n, c in checked.items()}
        write("requests", requests_markdown(rows, args.edits, checked))
    if "workspace-symbol" in args.parts:
        result["workspace_symbol"] = measure_symbols(args.symbol_nodes, args.symbol_documents)
        write("workspace-symbol", symbols_markdown(result["workspace_symbol"]))
    if "export" in args.parts:
        exports = {}
        with tempfile.TemporaryDirectory() as folder:
            for nodes in sizes:
                exports[nodes] = export.measure(nodes, Path(folder))
                for syntax, r in exports[nodes].items():
                    print(
                        f"{nodes:,} nodes, {syntax}: check {r['check']:.2f} s, export to TOML "
                        f"{r['export --to toml']:.2f} s, to JSON {r['export --to json']:.2f} s",
                        flush=True,
                    )
        result["export"] = {str(n): r for n, r in exports.items()}
        write("export", export.markdown(exports))
    if "run" in args.parts:
        result["run"] = measure_run(args.run_items)
        write("run", run_markdown(result["run"]))
    path = save("latency", result)
    print(f"raw results: {path.relative_to(path.parent.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
