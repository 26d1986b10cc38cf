"""``wfls export``: nothing lost on the way, readable TOML, round trips.

The expected outputs are written out as text. The properties run over generated
workflows (``tests.test_agreement.workflows``: schemas with quoted and non-ASCII
names, ``anyOf``/``allOf``/``$ref``, nested loops with dotted ids) and over the
examples: exporting to TOML and reading it back gives the same model and the same
findings, exporting the result again changes nothing, and a JSON document comes
back as the same JSON.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.test_agreement import workflows
from wf_core.authoring.builder import END, WorkflowBuilder
from wf_core.authoring.export import dump_toml, export_document, same_model
from wf_core.base.reading import is_workflow_file
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
from wfls.cli import main

ROOT = Path(__file__).parent.parent
EXAMPLES = sorted(filter(is_workflow_file, (ROOT / "examples").iterdir()))


def export(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, target: str
) -> tuple[int, str, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code = main(["export", str(path), "--to", target])
    out, err = capsys.readouterr()
    return code, out, err


def findings(snapshot: DocumentSnapshot) -> list[tuple[str, str, str | None, str]]:
    """What ``wfls check`` says of a document, positions aside."""
    return sorted((p.code, p.severity, p.model_path, p.message) for p in snapshot.issues)


def exported(snapshot: DocumentSnapshot, target: str) -> str:
    return export_document(snapshot.parsed, snapshot.load, target).text


TYPO = """\
name = "typo"
start = "a"
edges = [{ from = "a", outcome = "ok", to = "__end__" }]

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[nodes]]
id = "a"
type = "node"
node = "task"
timout = 3
input = []
"""


def test_an_unknown_key_stays_where_it_was_written(capsys, tmp_path) -> None:
    code, toml_text, _ = export(capsys, tmp_path, "typo.wf.toml", TYPO, "toml")
    assert code == 0
    assert toml_text == TYPO
    code, json_text, _ = export(capsys, tmp_path, "typo.wf.toml", TYPO, "json")
    assert code == 0
    node = json.loads(json_text)["nodes"][0]
    assert list(node)[:4] == ["id", "type", "node", "timout"]  # after the key it followed
    assert node["timout"] == 3
    code, again, _ = export(capsys, tmp_path, "typo.wf.json", json_text, "toml")
    assert code == 0
    assert "\ntimout = 3\n" in again


def test_unknown_keys_at_every_level_survive_a_json_round_trip(capsys, tmp_path) -> None:
    text = TYPO.replace(
        'edges = [{ from = "a", outcome = "ok", to = "__end__" }]',
        'edges = [{ from = "a", outcome = "ok", to = "__end__", label = "done" }]\n'
        'owner = { team = "billing", since = 2024-01-31 }',
    )
    code, json_text, _ = export(capsys, tmp_path, "levels.wf.toml", text, "json")
    assert code == 0
    data = json.loads(json_text)
    assert data["edges"][0]["label"] == "done"
    assert data["owner"] == {"team": "billing", "since": "2024-01-31"}
    assert data["nodes"][0]["timout"] == 3


COMMENTED = """\
# billing.wf.toml: the header comment

# a second block, after a blank line
name = "commented"  # trails the name
start = "a"

edges = [
  # before the first edge
  { from = "a", outcome = "ok", to = "b" },  # trails an edge

  { from = "b", outcome = "ok", to = "__end__" },
  # at the end of the array
]  # after the closing bracket

[input_schema]
type = "object"
# before a dotted key
properties.x = { type = "string" }
properties.y = { type = "string" }  # trails a dotted key

# before a table that only its sub-tables make
[input_schema."$defs".thing]
type = "object"

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = LONG_SCHEMA  # trails a long line
output_schema = { type = "object" }

# before the first node
[[nodes]]  # trails a header
id = "a"
type = "node"
node = "task"
notes = \"\"\"
a text of
two lines
\"\"\"
input = [
  { target = "x", path = "input.x" },  # trails the only binding
  # after it
]

[[nodes]]
id = "b"
type = "node"
node = "task"
input = [{ target = "x", path = "input.y" }]
# at the very end
""".replace(
    "LONG_SCHEMA",
    '{ type = "object", properties = { x = { type = "string", '
    'description = "long enough to be split" } } }',
)

COMMENTED_EXPORTED = """\
# billing.wf.toml: the header comment

# a second block, after a blank line
name = "commented"  # trails the name
start = "a"

edges = [
  # before the first edge
  { from = "a", outcome = "ok", to = "b" },  # trails an edge

  { from = "b", outcome = "ok", to = "__end__" },
  # at the end of the array
]  # after the closing bracket

[input_schema]
type = "object"
# before a dotted key
properties.x = { type = "string" }
properties.y = { type = "string" }  # trails a dotted key

# before a table that only its sub-tables make
[input_schema."$defs".thing]
type = "object"

[[node_defs]]
name = "task"
outcomes = ["ok"]
output_schema = { type = "object" }

[node_defs.input_schema]  # trails a long line
type = "object"
properties = { x = { type = "string", description = "long enough to be split" } }

# before the first node
[[nodes]]  # trails a header
id = "a"
type = "node"
node = "task"
notes = '''
a text of
two lines
'''
input = [
  { target = "x", path = "input.x" },  # trails the only binding
  # after it
]

[[nodes]]
id = "b"
type = "node"
node = "task"
input = [{ target = "x", path = "input.y" }]
# at the very end
"""


def test_toml_to_toml_keeps_comments_with_what_they_precede_and_blank_lines(
    capsys, tmp_path
) -> None:
    code, out, err = export(capsys, tmp_path, "commented.wf.toml", COMMENTED, "toml")
    assert (code, err) == (0, "")
    assert out == COMMENTED_EXPORTED
    code, again, _ = export(capsys, tmp_path, "again.wf.toml", out, "toml")
    assert again == out


def test_toml_to_json_says_how_many_comments_json_cannot_hold(capsys, tmp_path) -> None:
    code, out, err = export(capsys, tmp_path, "commented.wf.toml", COMMENTED, "json")
    assert code == 0
    assert json.loads(out)["name"] == "commented"
    path = tmp_path / "commented.wf.toml"
    assert err == (
        f"wfls: warning: JSON has no comments: the 16 comments of '{path}' are not in the output\n"
    )
    code, out, err = export(capsys, tmp_path, "typo.wf.toml", TYPO, "json")
    assert (code, err) == (0, "")


LONG_JSON = {
    "name": "layout",
    "start": "orders.v2",
    "outcomes": ["ok"],
    "input_schema": {
        "type": "object",
        "properties": {
            "orders": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string"},
                        "qty": {"type": "integer", "minimum": 1},
                        "note": {"type": "string"},
                    },
                },
            },
            "limit": {"type": "number"},
        },
        "required": ["orders"],
    },
    "node_defs": [
        {
            "name": "charge",
            "outcomes": ["ok"],
            "input_schema": {
                "type": "object",
                "properties": {
                    "order": {"type": "object"},
                    "customer": {"type": "string"},
                    "qty": {"type": "integer"},
                },
            },
            "output_schema": {"type": "object", "properties": {"amount": {"type": "number"}}},
        }
    ],
    "nodes": [
        {"id": "orders.v2", "type": "foreach", "over": "input.orders", "as": "order"},
        {
            "id": "charge",
            "type": "node",
            "node": "charge",
            "input": [
                {"target": "order", "path": "context.foreach.'orders.v2'.item"},
                {"target": "qty", "path": "context.order.qty"},
            ],
            "label": "context.foreach.'orders.v2'.item",
        },
    ],
    "edges": [
        {"from": "orders.v2", "outcome": "loop", "to": "charge"},
        {"from": "charge", "outcome": "ok", "to": "orders.v2"},
        {"from": "orders.v2", "outcome": "done", "to": "__end__"},
    ],
}

LONG_TOML = """\
name = "layout"
start = "orders.v2"
edges = [
  { from = "orders.v2", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "orders.v2" },
  { from = "orders.v2", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
required = ["orders"]

[input_schema.properties.orders]
type = "array"

[input_schema.properties.orders.items]
type = "object"
properties.sku = { type = "string" }
properties.qty = { type = "integer", minimum = 1 }
properties.note = { type = "string" }

[input_schema.properties.limit]
type = "number"

[[node_defs]]
name = "charge"
outcomes = ["ok"]
output_schema = { type = "object", properties = { amount = { type = "number" } } }

[node_defs.input_schema]
type = "object"
properties.order = { type = "object" }
properties.customer = { type = "string" }
properties.qty = { type = "integer" }

[[nodes]]
id = "orders.v2"
type = "foreach"
over = "input.orders"
as = "order"

[[nodes]]
id = "charge"
type = "node"
node = "charge"
input = [
  { target = "order", path = 'context.foreach."orders.v2".item' },
  { target = "qty", path = "context.order.qty" },
]
label = "context.foreach.'orders.v2'.item"
"""


def test_json_to_toml_is_laid_out_for_people(capsys, tmp_path) -> None:
    """Lines fit in 100 characters: a long table becomes dotted keys or a table of its
    own (in its order), a list of tables one per line; values equal to the defaults
    are left out; a path is written in its canonical form, in a literal string when it
    quotes a segment, and a string that is no path stays as it is."""
    code, out, err = export(capsys, tmp_path, "layout.wf.json", json.dumps(LONG_JSON), "toml")
    assert (code, err) == (0, "")
    assert out == LONG_TOML


def test_a_node_defs_long_inline_schemas_are_split(capsys, tmp_path) -> None:
    schema = {
        "type": "object",
        "properties": {f"field_{i}": {"type": "string", "minLength": i} for i in range(8)},
    }
    document = {**LONG_JSON, "node_defs": [{**LONG_JSON["node_defs"][0], "input_schema": schema}]}
    code, out, _ = export(capsys, tmp_path, "long.wf.json", json.dumps(document), "toml")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    assert '[node_defs.input_schema]\ntype = "object"\n' in out
    assert 'properties.field_7 = { type = "string", minLength = 7 }\n' in out


@pytest.mark.parametrize(
    "source", [ROOT / "tests/fixtures/billing.canonical.json", ROOT / "examples/approvals.wf.json"]
)
def test_json_to_toml_to_json_gives_the_source_json_back(capsys, tmp_path, source) -> None:
    code, canonical, _ = export(capsys, tmp_path, "source.wf.json", source.read_text(), "json")
    assert code == 0
    code, toml_text, _ = export(capsys, tmp_path, "canonical.wf.json", canonical, "toml")
    assert code == 0
    code, again, _ = export(capsys, tmp_path, "back.wf.toml", toml_text, "json")
    assert code == 0
    assert again == canonical


NULLS = """\
{
  "name": "nulls",
  "start": "c",
  "owner": null,
  "input_schema": { "type": "object", "properties": { "limit": { "type": "number" } } },
  "nodes": [
    {
      "id": "c",
      "type": "condition",
      "check": { "op": "eq", "left": { "path": "input.limit" }, "right": { "value": null } }
    }
  ],
  "edges": [
    { "from": "c", "outcome": "true", "to": "__end__" },
    { "from": "c", "outcome": "false", "to": "__end__" }
  ]
}
"""


def test_a_null_toml_cannot_hold_stops_the_export_naming_its_place(capsys, tmp_path) -> None:
    code, out, err = export(capsys, tmp_path, "nulls.wf.json", NULLS, "toml")
    assert (code, out) == (1, "")
    assert err == (
        f"wfls: cannot export '{tmp_path / 'nulls.wf.json'}': TOML has no null: cannot write "
        "the null at 'owner' at 4:3, 'nodes[0].check.right.value' at 10:76\n"
    )


def test_a_document_with_errors_is_not_exported(capsys, tmp_path) -> None:
    code, out, err = export(capsys, tmp_path, "broken.wf.toml", 'name = "x"\nstart = ', "toml")
    assert (code, out) == (1, "")
    assert "cannot be exported until these errors are fixed" in err


def test_a_file_that_cannot_be_read_exits_2(capsys, tmp_path) -> None:
    missing = tmp_path / "missing.wf.toml"
    assert main(["export", str(missing), "--to", "json"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"wfls: cannot read '{missing}': No such file or directory\n")


SUBGRAPHS = """\
name = "caller"
start = "bare"
edges = [
  { from = "bare", outcome = "ok", to = "half" },
  { from = "half", outcome = "ok", to = "ask" },
  { from = "ask", outcome = "submitted", to = "explicit" },
  { from = "explicit", outcome = "submitted", to = "__end__" },
]

[input_schema]
type = "object"

[output_schema]
type = "object"

[[nodes]]
id = "bare"
type = "subgraph"
workflow = "child"
input = [{ target = "a", path = "input" }]

[[nodes]]
id = "half"
type = "subgraph"
workflow = "child"
input_schema = { type = "object" }
output = [{ source = "b", target = "state.b" }]

[[nodes]]
id = "ask"
type = "interrupt"
kind = "approval"

[[nodes]]
id = "explicit"
type = "interrupt"
kind = "approval"
resume_schema = { type = "object", additionalProperties = true }
"""


def _schema_keys(nodes: list[dict[str, Any]]) -> list[list[str]]:
    return [[key for key in node if key.endswith("_schema")] for node in nodes]


def test_a_schema_a_node_leaves_out_stays_out(capsys, tmp_path) -> None:
    """A side a subgraph node declares no schema for binds to the child's, and an
    interrupt without payload schemas has no explicit contract: the defaults the model
    fills in are not written, in either syntax, and a schema the node writes is kept
    even when it equals the default."""
    code, json_text, _ = export(capsys, tmp_path, "caller.wf.toml", SUBGRAPHS, "json")
    assert code == 0
    assert _schema_keys(json.loads(json_text)["nodes"]) == [
        [],
        ["input_schema"],
        [],
        ["request_schema", "resume_schema"],
    ]
    code, toml_text, _ = export(capsys, tmp_path, "caller.wf.json", json_text, "toml")
    assert code == 0
    # The canonical JSON wrote both of the explicit interrupt's schemas: both stay.
    assert toml_text == SUBGRAPHS.replace(
        'workflow = "child"', 'workflow = { name = "child" }'
    ).replace(
        "resume_schema = ",
        'request_schema = { type = "object", additionalProperties = true }\nresume_schema = ',
    )
    source = analyze_text(SUBGRAPHS, "toml")
    assert same_model(analyze_text(json_text, "json").workflow, source.workflow)
    assert same_model(analyze_text(toml_text, "toml").workflow, source.workflow)


def test_a_declared_default_subgraph_schema_survives_json_to_toml(capsys, tmp_path) -> None:
    document = json.loads(export(capsys, tmp_path, "caller.wf.toml", SUBGRAPHS, "json")[1])
    document["nodes"][0]["output_schema"] = {"type": "object", "properties": {}, "required": []}
    code, toml_text, _ = export(capsys, tmp_path, "c.wf.json", json.dumps(document), "toml")
    assert code == 0
    assert 'output = [{ source = "b", target = "state.b" }]\n' in toml_text
    node = analyze_text(toml_text, "toml").parsed.values["nodes"][0]
    assert node["output_schema"] == {"type": "object"}


def test_the_authoring_api_keeps_the_schemas_a_subgraph_node_declares() -> None:
    builder = WorkflowBuilder("caller")
    call = builder.subgraph("call", "child")
    builder.route(call, "ok", END)
    again = analyze_text(builder.to_toml(), "toml").workflow
    assert again is not None and same_model(again, builder.build())
    assert json.loads(builder.to_json())["nodes"][0]["input_schema"] == {
        "type": "object",
        "properties": {},
        "required": [],
    }


# -- properties ---------------------------------------------------------------


def _mutated(doc: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """Keys lda-wf does not know, at each level; a deprecated input form; long texts."""
    if data.draw(st.booleans()):
        doc["nodes"][-1]["timout"] = 3
        doc["edges"][0]["label"] = data.draw(st.sampled_from(["done", "a'b\"c", "x" * 120]))
        doc["node_defs"][0]["colour"] = {"name": "red", "shades": ["a", "b"]}
        doc["x_note"] = data.draw(st.text(max_size=130))
    if data.draw(st.booleans()):
        use = doc["nodes"][-1]
        use["in_map"] = {b["path"]: b["target"] for b in use.pop("input")}
    if data.draw(st.booleans()):
        doc["input_schema"]["description"] = "d" * data.draw(st.integers(0, 150))
    if data.draw(st.booleans()):
        # A subgraph node declaring none, one or both schemas, some equal to the default.
        call: dict[str, Any] = {"id": "call", "type": "subgraph", "workflow": "child"}
        for key in data.draw(st.sets(st.sampled_from(["input_schema", "output_schema"]))):
            call[key] = data.draw(st.sampled_from([{"type": "object"}, {}, SCHEMA_X]))
        doc["nodes"].append(call)
        doc["edges"].append({"from": "call", "outcome": "ok", "to": "__end__"})
    if data.draw(st.booleans()):
        # An interrupt with no payload schema (no explicit contract), one or both.
        ask: dict[str, Any] = {"id": "ask", "type": "interrupt", "kind": "approval"}
        for key in data.draw(st.sets(st.sampled_from(["request_schema", "resume_schema"]))):
            ask[key] = data.draw(st.sampled_from([OPEN_OBJECT, SCHEMA_X]))
        doc["nodes"].append(ask)
        doc["edges"].append({"from": "ask", "outcome": "submitted", "to": "__end__"})
    return doc


SCHEMA_X = {"type": "object", "properties": {"x": {}}, "required": []}
OPEN_OBJECT = {"type": "object", "additionalProperties": True}


def _round_trips(source: DocumentSnapshot) -> str:
    """The TOML export of ``source``, checked: it reads back to the same model and the
    same findings, and exporting it again changes nothing."""
    assert not source.parsed.issues
    toml_text = exported(source, "toml")
    back = analyze_text(toml_text, "toml")
    assert not back.parsed.issues, toml_text
    assert same_model(back.workflow, source.workflow), toml_text
    assert findings(back) == findings(source), toml_text
    assert exported(back, "toml") == toml_text
    json_text = exported(source, "json")
    assert json.loads(exported(back, "json")) == json.loads(json_text)
    assert same_model(analyze_text(json_text, "json").workflow, source.workflow), json_text
    return toml_text


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(workflows(), st.sampled_from(["json", "toml"]), st.data())
def test_generated_workflows_round_trip_through_toml(
    doc: dict[str, Any], syntax: str, data: st.DataObject
) -> None:
    doc = _mutated(doc, data)
    text = json.dumps(doc, indent=2, ensure_ascii=False) if syntax == "json" else dump_toml(doc)
    _round_trips(analyze_text(text, syntax))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(workflows(), st.data())
def test_generated_canonical_json_comes_back_from_toml_unchanged(
    doc: dict[str, Any], data: st.DataObject
) -> None:
    canonical = exported(analyze_text(json.dumps(_mutated(doc, data)), "json"), "json")
    toml_text = _round_trips(analyze_text(canonical, "json"))
    # Equal as JSON: a schema's keys of its own after a sub-table written as a TOML table
    # come before it (``description`` after ``$defs``).
    assert json.loads(exported(analyze_text(toml_text, "toml"), "json")) == json.loads(canonical)


def _commented(text: str, data: st.DataObject) -> str:
    """``text`` with numbered comment lines and trailing comments put between and after
    its lines, where TOML allows them (the values read the same)."""
    lines: list[str] = []
    count = 0
    for line in text.split("\n"):
        if data.draw(st.booleans()):
            lines.append(f"# c{count}")
            count += 1
        if line.strip() and data.draw(st.booleans()):
            line = f"{line}  # t{count}"
            count += 1
        lines.append(line)
    commented = "\n".join(lines)
    try:
        same = tomllib.loads(commented) == tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        same = False  # after an inline table's line break, inside a multi-line string
    assume(same)
    return commented


_NUMBERED = re.compile(r"# [ct][0-9]+")


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(workflows(), st.data())
def test_every_comment_of_a_toml_document_is_kept(doc: dict[str, Any], data: st.DataObject) -> None:
    text = _commented(dump_toml(_mutated(doc, data)), data)
    source = analyze_text(text, "toml")
    toml_text = _round_trips(source)
    assert sorted(_NUMBERED.findall(toml_text)) == sorted(_NUMBERED.findall(text)), toml_text


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_examples_round_trip_through_toml(example: Path) -> None:
    syntax = "json" if example.suffix == ".json" else "toml"
    toml_text = _round_trips(analyze_text(example.read_text(encoding="utf-8"), syntax))
    assert max(len(line) for line in toml_text.splitlines()) <= 100
