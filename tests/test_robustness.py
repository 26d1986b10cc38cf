"""Whatever an author types, analysis, editor features and every output of ``wfls check``
answer without raising."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from wf_core.authoring.export import dump_toml
from wf_core.base.issues import ProjectCode
from wf_core.base.spans import Span
from wf_core.graph.model import build_graph
from wf_core.validation.codes import CODES
from wf_core.version.snapshot import analyze_text
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.checks import document_issues
from wf_core.workspace.files import Roots
from wfls.capabilities import ClientFlags
from wfls.cli.check import load_text
from wfls.cli.reporting import findings_for, render_github, render_json, render_sarif, text_for
from wfls.convert import PositionCodec
from wfls.diagnostics_memo import DiagnosticsMemo
from wfls.features.code_actions import code_actions
from wfls.features.completion import complete
from wfls.features.definition import definition
from wfls.features.hover import hover
from wfls.features.inlay_hints import inlay_hints
from wfls.features.references import highlights
from wfls.features.semantic_tokens import semantic_tokens
from wfls.features.symbols import document_symbols
from wfls.settings import Settings
from wfls.store import DocumentStore

EXAMPLES = Path(__file__).parent.parent / "examples"
SOURCES = {
    "toml": (EXAMPLES / "billing.wf.toml").read_text(),
    "json": (EXAMPLES / "approvals.wf.json").read_text(),
}
ALPHABET = st.sampled_from([*"\"'.[]{}=,:\n #\\é😀abcxyz0123456789_-", "context.foreach."])


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str]:
    syntax = draw(st.sampled_from(sorted(SOURCES)))
    text = SOURCES[syntax]
    for _ in range(draw(st.integers(1, 6))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 12)))
        insert = "".join(draw(st.lists(ALPHABET, max_size=6)))
        text = text[:start] + insert + text[end:]
    return syntax, text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited(), st.lists(st.integers(0, 10_000), min_size=1, max_size=4))
def test_edits_never_crash_analysis_or_features(doc: tuple[str, str], cursors: list[int]) -> None:
    syntax, text = doc
    snapshot = analyze_text(text, syntax)  # type: ignore[arg-type]
    for placed in snapshot.issues:
        assert 0 <= placed.span.start <= placed.span.end <= len(text)
    for cursor in cursors:
        offset = cursor % (len(text) + 1)
        for candidate in complete(snapshot, offset):
            assert 0 <= candidate.replace.start <= candidate.replace.end <= len(text)
        result = hover(snapshot, offset)
        assert result is None or result.span.end <= len(text)
        for target in definition(snapshot, offset):
            assert target.span.end <= len(text)


def test_pathological_documents() -> None:
    cases = [
        "",
        "\x00\x01\x02",
        "[" * 5000,
        "a = " + "[" * 5000,
        '{"nodes": ' + "[" * 5000,
        "name = '" + "x" * 1_000_000 + "'",
        "nodes = 5\nedges = 'x'\nstart = []",
        '[input_schema]\n"$ref" = "#"\n',
        '[input_schema]\n"$defs".a = { "$ref" = "#/$defs/b" }\n'
        '"$defs".b = { "$ref" = "#/$defs/a" }\nproperties.x = { "$ref" = "#/$defs/a" }\n',
    ]
    for text in cases:
        for syntax in ("toml", "json"):
            snapshot = analyze_text(text, syntax)  # type: ignore[arg-type]
            assert isinstance(snapshot.issues, tuple)
            complete(snapshot, len(text) // 2)
            hover(snapshot, len(text) // 2)


# -- any JSON value at any key ---------------------------------------------------------------

EVERY_PART: dict[str, object] = {
    "name": "parts",
    "start": "items",
    "outcomes": ["ok", "stopped"],
    "input_schema": {
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "object"}}},
    },
    "state_schema": {"type": "object", "properties": {"seen": {"type": "number"}}},
    "output_schema": {"type": "object", "properties": {"seen": {"type": "number"}}},
    "output": [{"target": "seen", "path": "state.seen"}],
    "node_defs": [
        {
            "name": "look",
            "input_schema": {"type": "object", "properties": {"item": {"type": "object"}}},
            "output_schema": {"type": "object", "properties": {"n": {"type": "number"}}},
            "outcomes": ["ok"],
        }
    ],
    "nodes": [
        {"id": "items", "type": "foreach", "over": "input.items", "as": "item"},
        {
            "id": "look",
            "type": "node",
            "node": "look",
            "input": [{"target": "item", "path": "context.foreach.items.item"}],
            "output": [{"source": "n", "target": "state.seen"}],
        },
        {
            "id": "big",
            "type": "condition",
            "check": {"op": "gt", "left": {"path": "state.seen"}, "right": {"value": 3}},
        },
        {"id": "child", "type": "subgraph", "workflow": {"name": "child"}},
        {"id": "both", "type": "join"},
        {"id": "ask", "type": "interrupt", "kind": "go_on", "outcomes": ["yes", "no"]},
        {"id": "stop", "type": "end", "outcome": "stopped"},
    ],
    "edges": [
        {"from": "items", "outcome": "loop", "to": "look"},
        {"from": "look", "outcome": "ok", "to": "items"},
        {"from": "items", "outcome": "done", "to": "big"},
        {"from": "big", "outcome": "true", "to": "child"},
        {"from": "big", "outcome": "false", "to": "both"},
        {"from": "child", "outcome": "ok", "to": "both"},
        {"from": "both", "outcome": "done", "to": "ask"},
        {"from": "ask", "outcome": "yes", "to": "__end__"},
        {"from": "ask", "outcome": "no", "to": "stop"},
    ],
}
"""A workflow with a node of every type, a node def, bindings, a condition and schemas."""


def _tables(value: object, where: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """The location of every table in ``value``: the document, each node, node def, edge,
    binding, condition and schema."""
    found: list[tuple[str | int, ...]] = []
    if isinstance(value, dict):
        found.append(where)
        for key, item in value.items():
            found.extend(_tables(item, (*where, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_tables(item, (*where, index)))
    return found


TABLES = _tables(EVERY_PART)


def _keys() -> list[str]:
    """Keys worth trying anywhere: every model's, common JSON Schema and binding keywords,
    and the deprecated forms the model still reads."""
    from wf_core.models.keys import CONDITION_MODELS, STEP_MODELS, model_keys
    from wf_core.models.schemas import NodeDef
    from wf_core.models.workflow import Edge, Workflow

    keys = {
        key
        for model in (*STEP_MODELS.values(), *CONDITION_MODELS.values(), NodeDef, Edge, Workflow)
        for key in model_keys(model)
    }
    schema_words = {
        "type",
        "properties",
        "items",
        "required",
        "$ref",
        "$defs",
        "enum",
        "const",
        "anyOf",
        "additionalProperties",
        "x-reducer",
    }
    binding_words = {
        "target",
        "path",
        "value",
        "expression",
        "source",
        "kind",
        "fields",
        "name",
        "artifact_id",
        "version",
        "action",
        "collect_to",
    }
    return sorted(
        keys
        | schema_words
        | binding_words
        | {"in_map", "out_map", "request_map", "parallel", "on_item_error"}
    )


KEYS = _keys()
ANY_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
    | st.sampled_from(
        [
            "node",
            "loop",
            "look",
            "items",
            "input.items",
            "context.foreach.items.item",
            "#/$defs/x",
            "\ud800",
            "x\u202ey",
        ]
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(max_size=4) | st.sampled_from([*KEYS, "p\ud800"]), inner, max_size=3
        )
    ),
    max_leaves=6,
)


Case = tuple[str, str, int]
"""A document's syntax, its text, and the offset of the value put into it."""


def with_value(where: tuple[str | int, ...], key: str, value: object, syntax: str) -> Case:
    """``EVERY_PART`` with ``key`` of the table at ``where`` set to ``value``, written in
    ``syntax`` (JSON when TOML cannot hold a null)."""
    document = copy.deepcopy(EVERY_PART)
    table: Any = document
    for part in where:
        table = table[part]
    table[key] = value
    if syntax == "toml" and "null" not in json.dumps(value):
        text = dump_toml(document)
    else:
        syntax, text = "json", json.dumps(document, indent=1)
    entry = analyze_text(text, syntax).parsed.source_map.get((*where, key))  # type: ignore[arg-type]
    return syntax, text, entry.value.start if entry is not None else 0


@st.composite
def any_value_anywhere(draw: st.DrawFn) -> Case:
    """One key of one table of ``EVERY_PART`` (its own, the model's anywhere, or any)
    set to any JSON value."""
    where = draw(st.sampled_from(TABLES))
    table: Any = EVERY_PART
    for part in where:
        table = table[part]
    key = draw(
        st.sampled_from(sorted(table))
        | st.sampled_from(KEYS)
        | st.just("p\ud800")
        | st.text(max_size=4)
    )
    return with_value(where, key, draw(ANY_JSON), draw(st.sampled_from(["json", "toml"])))


def _at(case: Case, location: tuple[str | int, ...]) -> list[int]:
    """A cursor inside the value at ``location`` of a case's text."""
    syntax, text, _ = case
    entry = analyze_text(text, syntax).parsed.source_map.get(location)  # type: ignore[arg-type]
    assert entry is not None
    return [entry.value.start + 1]


ITEM_SCHEMA = ("input_schema", "properties", "items", "items")
SURROGATE_PROPERTY = with_value(ITEM_SCHEMA, "properties", {"p\ud800": {}}, "json")
LIST_EDGE_SOURCE = with_value(("edges", 1), "from", ["look"], "json")
TABLE_NODE_ID = with_value(("nodes", 1), "id", {"x": 1}, "toml")
DEF_OUTCOME = ("node_defs", 0, "outcomes", 0)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_value_anywhere(), st.lists(st.integers(0, 10_000), max_size=6))
@example(SURROGATE_PROPERTY, [])
@example(LIST_EDGE_SOURCE, _at(LIST_EDGE_SOURCE, DEF_OUTCOME))  # hover on an outcome
@example(TABLE_NODE_ID, _at(TABLE_NODE_ID, DEF_OUTCOME))
def test_any_json_value_at_any_key_gives_findings_and_never_raises(
    case: Case, cursors: list[int]
) -> None:
    """What ``wfls check`` does with a document (analysis, the workspace's findings, every
    output format) and what the server does with it (the store's analysis, diagnostics,
    the features at the value)."""
    syntax, text, offset = case
    uri = f"file:///w/parts.wf.{syntax}"
    # Read as ``wfls check`` reads the file's bytes (a lone surrogate in a TOML string
    # cannot be written in UTF-8: it is what an editor's text alone can hold).
    snapshot = load_text(text.encode("utf-8", "surrogatepass"), "parts.wf." + syntax, uri=uri)
    workspace = Workspace(Roots([]))
    workspace.put(uri, snapshot)
    issues = document_issues(workspace, uri)
    assert all(p.code in CODES and p.code != ProjectCode.INTERNAL_ERROR for p in issues)
    assert all(0 <= p.span.start <= p.span.end <= len(text) for p in issues)
    findings = findings_for("parts.wf." + syntax, snapshot, issues)
    outputs = [
        text_for("parts.wf." + syntax, snapshot, issues).text,
        render_json(findings),
        render_github(findings),
        render_sarif(findings, version="0"),
    ]
    for output in outputs:
        output.encode("utf-8")  # printable: no lone surrogate reaches it
    store = DocumentStore()
    store.open(uri, text, 1)
    view = store.snapshot(uri)
    assert view is not None
    served = Workspace(Roots([]))
    served.put(uri, view)
    served_issues = document_issues(served, uri)
    if snapshot.text == view.text:  # (not where the file could not hold the text)
        assert [(p.code, p.span) for p in served_issues] == [(p.code, p.span) for p in issues]
    codec = PositionCodec(view.lines, "utf-16")
    DiagnosticsMemo().convert(served_issues, codec, uri, ClientFlags(), Settings())
    build_graph(view, served)
    semantic_tokens(view)
    document_symbols(view)
    inlay_hints(view)
    code_actions(view, Span(0, len(text)), issues=served_issues)
    for at in (offset, offset + 1, *(cursor % (len(text) + 1) for cursor in cursors)):
        at = min(at, len(text))
        complete(view, at)
        hover(view, at)
        definition(view, at)
        highlights(view, at)
