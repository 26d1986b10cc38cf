"""Diagnostics a user can trust: lda-wf's locations and quoting, one mistake one error,
unknown keys, and the command line's rough edges.

Each test states a behaviour as a user meets it, through ``wfls check`` or the
analysis of a small document.
"""

from __future__ import annotations

import io
import json
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest

from wf_core.analysis.inventory import readable_sources_for_node
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
from wfls.cli import main, reporting
from wfls.cli.reporting import findings_for, render_text
from wfls.features.completion import complete
from wfls.features.hover import hover

ROOT = Path(__file__).parent.parent
BILLING = (ROOT / "examples" / "billing.wf.toml").read_text()

TASKS = """
name = "t"
start = "a"
edges = [
  { from = "a", outcome = "ok", to = "b" },
  { from = "b", outcome = "ok", to = "__end__" },
]

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object", properties = { value = { type = "object" } } }
output_schema = { type = "object", properties = { result = { type = "object" } } }

[[nodes]]
id = "a"
type = "node"
node = "task"

[[nodes]]
id = "b"
type = "node"
node = "task"
"""


def check(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, *args: str):
    path = tmp_path / "doc.wf.toml"
    path.write_text(text)
    code = main(["check", "--format", "json", *args, str(path)])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def errors(snapshot: DocumentSnapshot) -> list[tuple[str, str | None, str]]:
    return [(p.code, p.model_path, p.message) for p in snapshot.issues if p.severity == "error"]


# -- lda-wf's locations and quoting ------------------------------------------------------


def test_graph_level_findings_name_the_node_by_id_not_by_index(capsys, tmp_path) -> None:
    text = TASKS.replace('id = "b"', 'id = "b"\n\n[[nodes]]\nid = "lost"\ntype = "join"', 1)
    code, findings = check(capsys, tmp_path, text)
    lost = [f for f in findings if f["code"] == "unreachable_node"]
    assert [f["model_path"] for f in lost] == ["nodes[lost]"]
    assert code == 1


def test_an_id_holding_brackets_keeps_its_location() -> None:
    text = TASKS.replace('"b"', '"x]y"')
    text += '\n[[nodes]]\nid = "o]r.p"\ntype = "join"\n'
    snapshot = analyze_text(text, "toml")
    (lost,) = [p for p in snapshot.issues if p.code == "unreachable_node"]
    assert lost.model_path == "nodes[o]r.p]"
    assert snapshot.text[lost.span.start : lost.span.end] == '"o]r.p"'


def test_messages_quote_like_python_repr() -> None:
    text = TASKS.replace('"b"', '"it\'s"').replace(
        'id = "it\'s"\ntype = "node"\nnode = "task"',
        'id = "it\'s"\ntype = "node"\nnode = "task"\n'
        'input = [{ target = "value", path = "context.foreach.\\"it\'s\\".bogus" }]',
    )
    found = errors(analyze_text(text, "toml"))
    assert (
        "invalid_context_path",
        "nodes[1].input[0].path",
        "invalid context path 'context.foreach.\"it\\'s\".bogus' at \"it's\": unknown segment "
        '"it\'s"',
    ) in found
    cut = analyze_text(
        text.replace('{ from = "it\'s", outcome = "ok", to = "__end__" },', ""), "toml"
    )
    (missing,) = [p for p in cut.issues if p.code == "missing_outcome_edge"]
    assert (missing.model_path, missing.message) == (
        "nodes[it's]",
        "reachable node is missing edges for outcomes ['ok']",
    )
    unknown = analyze_text(TASKS.replace('start = "a"', 'start = "it\'s"'), "toml")
    assert ("unknown_start", "start", 'unknown start node "it\'s"') in errors(unknown)


def test_binding_field_errors_name_the_whole_target_and_source() -> None:
    text = TASKS.replace(
        'id = "a"\ntype = "node"\nnode = "task"',
        'id = "a"\ntype = "node"\nnode = "task"\n'
        'input = [{ target = "valeu.sub", path = "input" }]\n'
        'output = [{ source = "reslt.x", target = "state.q" }]',
    )
    found = errors(analyze_text(text, "toml"))
    assert (
        "invalid_node_input_field",
        "nodes[0].input[0].target",
        "destination field 'valeu.sub' is not declared in node input schema",
    ) in found
    assert (
        "invalid_node_output_field",
        "nodes[0].output[0].source",
        "source field 'reslt.x' is not declared in node output schema",
    ) in found


def test_legacy_fields_refining_a_field_are_accepted() -> None:
    text = BILLING.replace(
        '[state_schema]\ntype = "object"\nproperties.total = { type = "number" }',
        '[state_schema]\nfields = [\n  { path = "state.total", schema = { type = "number" } },\n'
        '  { path = "state.person", schema = { type = "object" } },\n'
        '  { path = "state.person.name", schema = { type = "string" } },\n]',
    )
    assert "fields = [" in text
    snapshot = analyze_text(text, "toml")
    assert errors(snapshot) == []
    assert [p.code for p in snapshot.issues] == ["deprecated_input_form"]


def test_condition_path_messages_match_lda_wf() -> None:
    text = TASKS.replace(
        '[[nodes]]\nid = "b"',
        '[[nodes]]\nid = "c"\ntype = "condition"\n'
        'check = { op = "exists", path = "input.nope" }\n\n[[nodes]]\nid = "b"',
    ).replace(
        '{ from = "a", outcome = "ok", to = "b" }',
        '{ from = "a", outcome = "ok", to = "c" },\n'
        '  { from = "c", outcome = "true", to = "b" },\n'
        '  { from = "c", outcome = "false", to = "b" }',
    )
    found = errors(analyze_text(text, "toml"))
    assert (
        "invalid_condition_path",
        "nodes[1].check",
        "invalid condition path GraphSourcePath(root='input', parts=('nope',))",
    ) in found


ANY_OF_INPUT = TASKS.replace(
    'start = "a"',
    'start = "a"\n\n[input_schema]\ntype = "object"\n'
    'anyOf = [{ properties = { a = { type = "string" } } }]\n'
    'properties = { b = { type = "string" } }\n',
    1,
)


def test_one_navigator_for_input_roots_in_completion_validation_and_inventory() -> None:
    # TOML needs the top-level table after the plain keys: move it to the end.
    head, table = ANY_OF_INPUT.split("\n\n[input_schema]", 1)
    table_text, rest = table.split("\n\n", 1)
    document = head + "\n\n" + rest + "\n[input_schema]" + table_text + "\n"
    reading = document.replace(
        'id = "b"\ntype = "node"\nnode = "task"',
        'id = "b"\ntype = "node"\nnode = "task"\ninput = [{ target = "value", path = "input.a" }]',
    )
    snapshot = analyze_text(reading, "toml")
    assert errors(snapshot) == []
    offset = reading.index('"input.a"') + len('"input.')
    assert {"a", "b"} <= {c.label for c in complete(snapshot, offset)}
    paths = [
        o["path"] for o in readable_sources_for_node(snapshot.workflow, "b", model=snapshot.context)
    ]
    assert {"input.a", "input.b"} <= set(paths)


def test_context_types_and_schemas_resolve_on_their_own(capsys) -> None:
    code = main(["context", str(ROOT / "examples" / "billing.wf.toml"), "charge", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    orders = next(
        o for o in result["paths"] if o["path"] == "context.foreach.customers.item.orders"
    )
    assert orders["type"] == "array<object>"
    validator = jsonschema.Draft202012Validator(orders["schema"])
    assert validator.is_valid([{"sku": "a", "qty": 1}])
    assert not validator.is_valid([{"sku": "a", "extra": 1}])  # the $ref really resolves
    main(["context", str(ROOT / "examples" / "billing.wf.toml"), "charge"])
    text = capsys.readouterr().out
    assert "context.foreach.customers.item.orders      array<object>" in text


def test_hover_shows_no_internal_ids_or_copied_defs() -> None:
    snapshot = analyze_text(BILLING, "toml")
    offset = BILLING.index("context.foreach.customers.item.name") + len("context.foreach.cus")
    result = hover(snapshot, offset)
    assert result is not None and "foreach `customers`" in result.markdown
    assert "urn:wf:schema" not in result.markdown and '"$defs": {' not in result.markdown


# -- one mistake, one error ---------------------------------------------------------------


def test_a_typo_in_start_is_one_error_with_its_consequences_tied_to_it() -> None:
    snapshot = analyze_text(BILLING.replace('start = "customers"', 'start = "customer"'), "toml")
    assert errors(snapshot) == [("unknown_start", "start", "unknown start node 'customer'")]
    (start,) = [p for p in snapshot.issues if p.code == "unknown_start"]
    assert start.issue.data == {"suggestion": "customers"}
    follow = [p for p in snapshot.issues if p.code == "invalid_context_path"]
    assert len(follow) == 3
    assert {p.severity for p in follow} == {"information"}
    assert all(p.related and p.related[-1].span == start.span for p in follow)


def test_the_checker_nests_the_consequences_under_their_cause() -> None:
    snapshot = analyze_text(BILLING.replace('start = "customers"', 'start = "customer"'), "toml")
    findings = findings_for("billing.wf.toml", snapshot)
    (start,) = [i for i, f in enumerate(findings) if f.code == "unknown_start"]
    follow = [i for i, f in enumerate(findings) if f.code == "invalid_context_path"]
    assert findings[start].cause is None
    assert findings[start].consequences == follow
    assert [findings[i].cause for i in follow] == [start] * 3
    text = render_text(findings)
    for i in follow:
        assert f"    billing.wf.toml:{findings[i].start.line}:" in text


def test_findings_whose_causes_run_into_a_cycle_are_shown_on_their_own() -> None:
    """0 and 1 follow from each other, 2 from 0: all three are shown at the top level,
    and 4 under 3 as any consequence."""
    assert reporting._linked([1, 0, 0, None, 3]) == (
        [None, None, None, None, 3],
        [[], [], [], [4], []],
    )


def test_an_unknown_node_def_does_not_also_report_its_outcomes() -> None:
    snapshot = analyze_text(
        BILLING.replace('node = "charge_order"', 'node = "charge_ordr"'), "toml"
    )
    assert [(c, m) for c, _, m in errors(snapshot)] == [
        ("unknown_node_def", "unknown node def 'charge_ordr'")
    ]
    (outcome,) = [p for p in snapshot.issues if p.code == "undeclared_edge_outcome"]
    assert outcome.severity == "information"


def test_an_edge_into_a_loop_body_is_one_error_and_the_edge_is_marked() -> None:
    text = BILLING.replace('start = "customers"', 'start = "intro"').replace(
        '  { from = "customers", outcome = "done", to = "__end__" },',
        '  { from = "customers", outcome = "done", to = "__end__" },\n'
        '  { from = "intro", outcome = "ok", to = "charge" },',
    )
    text += '\n[[nodes]]\nid = "intro"\ntype = "node"\nnode = "charge_order"\n'
    snapshot = analyze_text(text, "toml")
    assert [(c, p) for c, p, _ in errors(snapshot)] == [
        ("foreach_region_conflict", "nodes[charge]")
    ]
    (edge,) = [p for p in snapshot.issues if p.code == "region_breaking_edge"]
    assert edge.model_path == "edges[5]" and edge.severity == "information"
    assert "enters the body of foreach 'orders.v2' from outside it" in edge.message


def test_an_empty_file_is_one_error(capsys, tmp_path) -> None:
    code, findings = check(capsys, tmp_path, "")
    assert [(f["severity"], f["message"]) for f in findings if f["severity"] == "error"] == [
        ("error", "the document is empty: a workflow needs 'name', 'start', 'nodes' and 'edges'")
    ]
    assert code == 1


def test_exit_status_counts_errors_only(capsys, tmp_path) -> None:
    # Only information findings (a consequence whose cause is a warning) never fail the check.
    code, findings = check(
        capsys, tmp_path, BILLING.replace("# billing", "descripton = 'x'\n# billing", 1)
    )
    assert [f["code"] for f in findings] == ["unknown_key"]
    assert code == 0


def test_reading_an_inactive_loop_points_at_that_loop() -> None:
    text = (ROOT / "examples" / "store_audit.wf.toml").read_text()
    snapshot = analyze_text(text, "toml")
    inactive = next(p for p in snapshot.issues if "unknown segment 'stores'" in p.message)
    assert inactive.related[0].message == (
        "foreach 'stores' is not active at 'report': its body does not contain this node"
    )
    assert text[inactive.related[0].span.start : inactive.related[0].span.end] == '"stores"'


@pytest.mark.parametrize(
    ("old", "new", "code", "suggestion"),
    [
        ('start = "customers"', 'start = "customer"', "unknown_start", "customers"),
        ('to = "charge" }', 'to = "chrage" }', "unknown_edge_destination", "charge"),
        ('node = "charge_order"', 'node = "charge_ordr"', "unknown_node_def", "charge_order"),
        (
            'outcome = "done", to = "customers"',
            'outcome = "dnoe", to = "customers"',
            "undeclared_edge_outcome",
            "done",
        ),
        ("customers.item.name", "customers.item.nmae", "invalid_context_path", "name"),
        ("# billing.wf.toml", 'strat = "x"', "unknown_key", "start"),
    ],
)
def test_every_unknown_name_gets_did_you_mean(old, new, code, suggestion, capsys, tmp_path) -> None:
    assert old in BILLING
    _, findings = check(capsys, tmp_path, BILLING.replace(old, new, 1))
    found = next(f for f in findings if f["code"] == code)
    assert found["help"] == f"did you mean {suggestion!r}?"


@pytest.mark.parametrize(
    ("path", "hint"),
    [
        ("context.foreach.", "a segment is missing after the last '.'"),
        ("context.foreach.customers.item.skü", 'quote the segment "skü"'),
        ("input.a b", "quote path segments containing dots or spaces"),
    ],
)
def test_the_quoting_hint_only_when_a_segment_needs_quotes(path: str, hint: str) -> None:
    text = BILLING.replace('"context.foreach.customers.item.name"', json.dumps(path))
    (issue,) = [p for p in analyze_text(text, "toml").issues if p.code == "invalid_model"]
    assert hint in issue.message


# -- keys lda-wf ignores ------------------------------------------------------------------


def test_unknown_keys_are_warnings_and_schemas_stay_open(capsys, tmp_path) -> None:
    text = '"$schema" = "https://example.org/wf.json"\n' + BILLING.replace(
        'type = "foreach"\nover = "input.customers"',
        'type = "foreach"\nover = "input.customers"\ntimout = 3',
    ).replace(
        'properties.sku = { type = "string" }', 'properties.sku = { type = "string", "x-ui" = 1 }'
    )
    code, findings = check(capsys, tmp_path, text)
    assert [(f["code"], f["severity"], f["message"], f.get("help")) for f in findings] == [
        ("unknown_key", "warning", "unknown key 'timout': lda-wf ignores it", None)
    ]
    assert code == 0
    line = text.splitlines()[findings[0]["start"]["line"] - 1]
    assert line[findings[0]["start"]["column"] - 1 : findings[0]["end"]["column"] - 1] == "timout"


def test_schema_command_closes_fixed_tables(capsys) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["NodeUse"]["additionalProperties"] is False
    assert schema["$defs"]["NodeUse"]["properties"]["in_map"]["deprecated"] is True
    assert schema["$defs"]["SchemaRef"].get("additionalProperties", True) is not False
    validator = jsonschema.Draft202012Validator(schema)
    import tomllib

    document = tomllib.loads(BILLING)
    assert validator.is_valid(document)
    document["nodes"][0]["timout"] = 3
    assert not validator.is_valid(document)


# -- the command line ---------------------------------------------------------------------


def test_check_reads_stdin(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"name": "x"}')))
    code = main(["check", "-", "--stdin-filename", "piped.wf.json", "--format", "json"])
    findings = json.loads(capsys.readouterr().out)
    assert code == 1
    assert {f["file"] for f in findings} == {"piped.wf.json"}
    assert findings[0]["message"] == "missing required keys 'start', 'nodes' and 'edges'"


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_unreadable_paths_exit_2_with_one_line_each(capsys, tmp_path, fmt) -> None:
    (tmp_path / "empty").mkdir()
    code = main(
        ["check", "--format", fmt, str(tmp_path / "empty"), "/dev/null", str(tmp_path / "nope")]
    )
    out, err = capsys.readouterr()
    assert code == 2
    assert err.splitlines() == [
        f"wfls: cannot read {str(tmp_path / 'empty')!r}: no workflow documents "
        "(*.wf.toml, *.wf.json) in this folder",
        "wfls: cannot read '/dev/null': not a regular file",
        f"wfls: cannot read {str(tmp_path / 'nope')!r}: no such file or directory",
    ]
    if fmt == "json":
        assert [f["code"] for f in json.loads(out)] == ["read_error"] * 3
    if fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        assert [r["ruleId"] for r in results] == ["read_error"] * 3


def test_the_same_file_twice_is_checked_once(capsys, tmp_path) -> None:
    path = tmp_path / "doc.wf.toml"
    path.write_text(BILLING.replace('start = "customers"', 'start = "x"'))
    main(["check", "--format", "json", str(path), str(path), str(tmp_path)])
    assert (
        len([f for f in json.loads(capsys.readouterr().out) if f["code"] == "unknown_start"]) == 1
    )


def test_text_output_cuts_long_lines(capsys, tmp_path) -> None:
    document = json.loads(json.dumps(__import__("tomllib").loads(BILLING)))
    document["start"] = "nope"
    path = tmp_path / "min.wf.json"
    path.write_text(json.dumps(document, separators=(",", ":")))
    main(["check", str(path)])
    out = capsys.readouterr().out
    assert len(path.read_text()) > 1000
    excerpts = [line for line in out.splitlines() if str(path) not in line and "^" not in line]
    assert excerpts and max(len(line) for line in excerpts) <= 110


def test_a_non_utf8_file_reports_that_first_and_only(capsys, tmp_path) -> None:
    path = tmp_path / "bytes.wf.toml"
    path.write_bytes(b'name = "caf\xe9"\nstart = "a"\n')
    code = main(["check", "--format", "json", str(path)])
    findings = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [f["code"] for f in findings] == ["syntax_error"]
    assert "not valid UTF-8" in findings[0]["message"]


def test_sarif_has_encoded_uris_a_real_home_and_every_rule(capsys, tmp_path) -> None:
    folder = tmp_path / "my flows"
    folder.mkdir()
    (folder / "a b.wf.toml").write_text(BILLING.replace('start = "customers"', 'start = "x"'))
    main(["check", "--format", "sarif", str(folder)])
    sarif = json.loads(capsys.readouterr().out)
    driver = sarif["runs"][0]["tool"]["driver"]
    assert (
        driver["informationUri"].startswith("https://")
        and "example.invalid" not in driver["informationUri"]
    )
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert {"unknown_start", "invalid_context_path", "unknown_key", "read_error"} <= set(rules)
    assert all(rule["shortDescription"]["text"] for rule in rules.values())
    uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"][
        "uri"
    ]
    assert "my%20flows/a%20b.wf.toml" in uri and " " not in uri


def test_toml_export_leaves_out_defaults_and_writes_inline_tables(capsys) -> None:
    assert main(["export", str(ROOT / "examples" / "billing.wf.toml"), "--to", "toml"]) == 0
    out = capsys.readouterr().out
    assert 'mode = "serial"' not in out and "item_error" not in out and "required = []" not in out
    assert '  { from = "customers", outcome = "loop", to = "orders.v2" },' in out
    assert 'output = [{ target = "total", path = "state.total" }]' in out
    assert tomllib.loads(out) == tomllib.loads(BILLING)  # nothing added, nothing lost
