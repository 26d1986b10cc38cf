"""The command line, run as a user would: check, export, context, schema."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from inline_snapshot import snapshot

from wf_core.authoring.generate import generate_toml
from wf_core.base.reading import is_workflow_file
from wf_core.models import Workflow
from wf_core.version.snapshot import analyze_text
from wfls.cli import main
from wfls.cli.reporting import findings_for, render_text, text_for

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
BILLING = EXAMPLES / "billing.wf.toml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def check_text(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, str, str]:
    """``wfls check`` of ``paths`` in the text format: the exit status, stdout and stderr,
    each path written as its file name (the output does not depend on where it runs)."""
    code, out, err = run(capsys, "check", *map(str, paths))
    for path in paths:
        out, err = out.replace(str(path), path.name), err.replace(str(path), path.name)
    return code, out, err


def check_json(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, list[dict]]:
    code, out, _ = run(capsys, "check", "--format", "json", str(path))
    return code, json.loads(out)


def covered(path: Path, finding: dict) -> str:
    """The text a finding's range covers (1-based lines, code-point columns)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    start, end = finding["start"], finding["end"]
    assert start["line"] == end["line"], finding
    return lines[start["line"] - 1][start["column"] - 1 : end["column"] - 1]


def test_export_json_equals_hand_written_canonical_json(capsys) -> None:
    code, out, _ = run(capsys, "export", str(BILLING), "--to", "json")
    assert code == 0
    expected = json.loads((ROOT / "tests/fixtures/billing.canonical.json").read_text())
    assert json.loads(out) == expected


def test_export_toml_of_json_parses_back_to_an_equal_model(capsys, tmp_path) -> None:
    canonical = ROOT / "tests/fixtures/billing.canonical.json"
    source = tmp_path / "billing.wf.json"
    source.write_text(canonical.read_text())
    code, toml_text, _ = run(capsys, "export", str(source), "--to", "toml")
    assert code == 0
    assert "path = 'context.foreach.\"orders.v2\".item'" in toml_text
    target = tmp_path / "billing.wf.toml"
    target.write_text(toml_text)
    code, json_text, _ = run(capsys, "export", str(target), "--to", "json")
    assert code == 0
    original = Workflow.model_validate(json.loads(canonical.read_text()))
    assert Workflow.model_validate(json.loads(json_text)) == original


def test_examples_round_trip_through_both_syntaxes(capsys, tmp_path) -> None:
    for example in sorted(filter(is_workflow_file, EXAMPLES.iterdir())):
        code, json_text, _ = run(capsys, "export", str(example), "--to", "json")
        assert code == 0, example
        code, toml_text, _ = run(capsys, "export", str(example), "--to", "toml")
        assert code == 0, example
        again = tmp_path / f"{example.name}.again.wf.toml"
        again.write_text(toml_text)
        code, json_again, _ = run(capsys, "export", str(again), "--to", "json")
        assert json.loads(json_again) == json.loads(json_text), example


THREE_PROBLEMS = """\
name = "broken"
start = "a"

[[nodes]]
id = "a"
type = "node"
node = "task"
input = [{ target = "x", path = "input.open }]

[[nodes]]
id = "b"
type = "node"
node = 42

[[nodes]]
id = "c"
type = "join"
id = "again"

[[nodes]]
id = "d"
type = "join"
"""


def test_three_broken_nodes_are_all_reported_and_the_rest_survive(capsys, tmp_path) -> None:
    path = tmp_path / "broken.wf.toml"
    path.write_text(THREE_PROBLEMS)
    code, findings = check_json(capsys, path)
    assert code == 1
    by_line = {(f["start"]["line"], f["code"]) for f in findings}
    assert (8, "syntax_error") in by_line  # the unterminated string
    wrong_type = [f for f in findings if f["model_path"] == "nodes[1].node"]
    assert wrong_type and wrong_type[0]["code"] == "invalid_model"
    assert covered(path, wrong_type[0]) == "42"
    duplicate = [f for f in findings if f["message"] == "duplicate key 'id'"]
    assert duplicate and duplicate[0]["start"]["line"] == 18
    assert covered(path, duplicate[0]) == "id"
    from wfls.cli.check import load_file

    snapshot = load_file(path)
    assert "d" in [node.id for node in snapshot.workflow.nodes]


def test_alias_conflict_range_is_the_inner_as_value(capsys) -> None:
    path = EXAMPLES / "store_audit.wf.toml"
    code, findings = check_json(capsys, path)
    assert code == 1
    conflict = [f for f in findings if f["code"] == "foreach_context_alias_conflict"]
    assert [f["model_path"] for f in conflict] == ["nodes[1].as"]
    assert covered(path, conflict[0]) == '"region"'
    assert conflict[0]["start"]["line"] == 59
    typo = next(f for f in findings if "nmae" in f["message"])
    assert covered(path, typo) == "nmae"
    inactive = next(f for f in findings if f["model_path"] == "nodes[3].input[0].path")
    assert covered(path, inactive) == "stores"
    hint = next(f for f in findings if f["code"] == "deprecated_context_key")
    assert hint["severity"] == "hint" and covered(path, hint) == "loop_item"


def test_segment_ranges_through_escapes_and_non_ascii(capsys, tmp_path) -> None:
    text = (
        BILLING.read_text()
        .replace(
            "path = 'context.foreach.\"orders.v2\".item' },",
            'path = "context.foreach.\\"orders.v2\\".itme" }, # é😀',
        )
        .replace('name = "billing"', 'name = "billing" # café 😀')
    )
    text = text.replace('{ target = "order",', """{ target = '"é😀"',""", 1)
    path = tmp_path / "escaped.wf.toml"
    path.write_text(text, encoding="utf-8")
    _, findings = check_json(capsys, path)
    bad = [f for f in findings if f["code"] == "invalid_context_path"]
    assert bad and covered(path, bad[0]) == "itme"


def test_text_format_shows_the_line_and_a_caret(capsys) -> None:
    code, out, err = check_text(capsys, EXAMPLES / "store_audit.wf.toml")
    assert code == 1
    assert out == snapshot("""\
store_audit.wf.toml:13:32: error[undeclared_edge_outcome]: outcome 'retry' is not declared by node 'report'
    { from = "report", outcome = "retry", to = "regions" },
                                 ^^^^^^^
store_audit.wf.toml:59:6: error[foreach_context_alias_conflict]: foreach alias 'region' for node 'stores' collides with active alias from 'regions'
  as = "region"
       ^^^^^^^^
  = note: alias 'region' of the enclosing foreach 'regions' (store_audit.wf.toml:52:6)
store_audit.wf.toml:66:61: error[invalid_context_path]: invalid context path 'context.foreach.regions.item.nmae' at 'tally': unknown segment 'nmae' (available: name,stores)
    { target = "region", path = "context.foreach.regions.item.nmae" },  # a typo
                                                              ^^^^
  = help: did you mean 'name'?
store_audit.wf.toml:67:40: hint[deprecated_context_key]: 'context.loop_item' is a convenience key; read 'context.foreach.stores.item.revenue' instead
    { target = "amount", path = "context.loop_item.revenue" },  # a convenience key
                                         ^^^^^^^^^
store_audit.wf.toml:77:55: error[invalid_context_path]: invalid context path 'context.foreach.stores.item.revenue' at 'report': unknown segment 'stores'
  input = [{ target = "amount", path = "context.foreach.stores.item.revenue" }]
                                                        ^^^^^^
  = note: foreach 'stores' is not active at 'report': its body does not contain this node (store_audit.wf.toml:56:6)
""")
    assert err == snapshot("1 file(s) checked: 4 error(s), 0 warning(s), 1 hint\n")


@pytest.mark.parametrize(
    ("old", "new", "nested"),
    [
        (".item.name", ".item.nam", False),  # one mistake, alone
        ('start = "g0_customers"', 'start = "g0_customer"', True),  # reads that follow from it
    ],
)
def test_check_prints_a_files_findings_as_render_text_does(
    old: str, new: str, nested: bool
) -> None:
    """``wfls check`` prints a file's findings without keeping them (``text_for``): the
    text and the counts are those of the findings ``render_text`` prints, consequences
    indented under their cause."""
    snapshot = analyze_text(generate_toml(40).replace(old, new, 1), "toml")
    found = findings_for("g.wf.toml", snapshot)
    assert found
    assert any(f.consequences for f in found) == nested
    report = text_for("g.wf.toml", snapshot)
    assert report.text == render_text(found)
    assert report.severities == Counter(f.severity for f in found)


def test_an_undeclared_root_field_is_placed_on_it_with_the_declared_ones(capsys, tmp_path) -> None:
    """lda-wf's "must start with input., state., or context." is kept; the range and the
    help note say that the root is fine and the field after it is not."""
    text = (
        BILLING.read_text()
        .replace('path = "state.total" }]', 'path = "state.totl" }]')
        .replace('over = "input.customers"', 'over = "input.clients"')
    )
    path = tmp_path / "typo.wf.toml"
    path.write_text(text)
    code, out, _ = check_text(capsys, path)
    assert code == 1
    assert out == snapshot("""\
typo.wf.toml:14:45: error[invalid_source_path]: source path must start with input., state., or context. and reference a declared root field when applicable
  output = [{ target = "total", path = "state.totl" }]
                                              ^^^^
  = help: 'totl' is not declared in state_schema (its root fields: 'total'); did you mean 'total'?
typo.wf.toml:52:15: error[invalid_foreach_source]: foreach source path must start with input., state., or context. and reference a declared root field when applicable
  over = "input.clients"
                ^^^^^^^
  = help: 'clients' is not declared in input_schema (its root fields: 'customers')
""")


def test_a_duplicate_node_id_notes_the_first_node(capsys, tmp_path) -> None:
    path = tmp_path / "twice.wf.toml"
    path.write_text(BILLING.read_text().replace('id = "charge"', 'id = "customers"'))
    _, out, _ = check_text(capsys, path)
    assert out == snapshot("""\
twice.wf.toml:8:48: error[unknown_edge_destination]: unknown destination node 'charge'
    { from = "orders.v2", outcome = "loop", to = "charge" },
                                                 ^^^^^^^^
twice.wf.toml:9:12: error[unknown_edge_source]: unknown source node 'charge'
    { from = "charge", outcome = "ok", to = "orders.v2" },
             ^^^^^^^^
twice.wf.toml:62:6: error[duplicate_node_id]: duplicate node id 'customers'
  id = "customers"
       ^^^^^^^^^^^
  = note: the first node with id 'customers' (twice.wf.toml:50:6)
twice.wf.toml:66:47: error[invalid_context_path]: invalid context path 'context.foreach."orders.v2".item' at 'customers': unknown segment 'orders.v2'
    { target = "order", path = 'context.foreach."orders.v2".item' },
                                                ^^^^^^^^^^^
  = note: foreach 'orders.v2' is not active at 'customers': its body does not contain this node (twice.wf.toml:56:6)
twice.wf.toml:67:50: error[invalid_context_path]: invalid context path 'context.foreach.customers.item.name' at 'customers': unknown segment 'customers'
    { target = "customer", path = "context.foreach.customers.item.name" },
                                                   ^^^^^^^^^
  = note: foreach 'customers' is not active at 'customers': its body does not contain this node (twice.wf.toml:50:6)
""")


def test_clean_examples_pass_and_exit_codes(capsys, tmp_path) -> None:
    assert run(capsys, "check", str(BILLING), str(EXAMPLES / "approvals.wf.json"))[0] == 0
    assert run(capsys, "check", str(tmp_path / "missing.wf.toml"))[0] == 2
    warn = tmp_path / "warn.wf.toml"
    warn.write_text(
        BILLING.read_text()
        .replace(
            'path = "context.foreach.customers.item.name"',
            'path = "context.foreach.customers.item.name"',
        )
        .replace(
            'output = [{ target = "total", path = "state.total" }]',
            'output = [{ target = "total", path = "state.total.cents" }]',
        )
        .replace(
            'properties.total = { type = "number" }\n\n[output',
            'properties.total = { type = "object", properties = {} }\n\n[output',
        )
    )
    code, findings = check_json(capsys, warn)
    assert [f["code"] for f in findings] == ["undeclared_property"]
    assert code == 0
    assert run(capsys, "check", "--strict", str(warn))[0] == 1


def test_folder_check_and_machine_formats(capsys) -> None:
    code, out, _ = run(capsys, "check", "--format", "sarif", str(EXAMPLES))
    sarif = json.loads(out)
    assert code == 1 and sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"invalid_context_path", "undeclared_edge_outcome"}
    code, out, _ = run(capsys, "check", "--format", "github", str(EXAMPLES))
    assert "::error file=" in out and "title=foreach_context_alias_conflict" in out


def test_non_utf8_file_gets_a_diagnostic(capsys, tmp_path) -> None:
    path = tmp_path / "bytes.wf.toml"
    path.write_bytes(b'name = "caf\xe9"\nstart = "a"\n')
    code, findings = check_json(capsys, path)
    assert code == 1
    assert any(f["code"] == "syntax_error" and "UTF-8" in f["message"] for f in findings)


def test_context_json_lists_active_loops(capsys) -> None:
    code, out, _ = run(capsys, "context", str(BILLING), "charge", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["owner_stack"] == ["customers", "orders.v2"]
    paths = [option["path"] for option in result["paths"]]
    assert "context.foreach.customers.item.name" in paths
    assert 'context.foreach."orders.v2".item.sku' in paths
    sku = next(o for o in result["paths"] if o["path"] == 'context.foreach."orders.v2".item.sku')
    assert sku["schema"] == {"type": "string"} and sku["origin"] == "runtime_context"
    item = next(o for o in result["paths"] if o["path"] == 'context.foreach."orders.v2".item')
    assert item["schema"]["properties"]["qty"] == {"type": "integer"}
    assert result["schema"]["properties"]["foreach"]["required"] == ["customers", "orders.v2"]


def test_context_after_the_loops_lists_no_entries(capsys) -> None:
    code, out, _ = run(capsys, "context", str(EXAMPLES / "store_audit.wf.toml"), "report", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["owner_stack"] == []
    assert not [o for o in result["paths"] if o["path"].startswith("context.foreach.")]
    code, text, _ = run(capsys, "context", str(BILLING), "charge")
    assert 'owner stack: customers > "orders.v2"\n' in text  # the id as its path segment
    code, text, _ = run(capsys, "context", str(EXAMPLES / "store_audit.wf.toml"), "report")
    assert "owner stack: no active loop\n" in text


def test_context_for_unknown_and_unreachable_nodes(capsys, tmp_path) -> None:
    assert run(capsys, "context", str(BILLING), "nope")[0] == 1
    path = tmp_path / "lost.wf.toml"
    path.write_text(BILLING.read_text() + '\n[[nodes]]\nid = "lost"\ntype = "join"\n')
    code, out, _ = run(capsys, "context", str(path), "lost", "--json")
    result = json.loads(out)
    assert code == 0 and result["owner_stack"] is None and result["schema"] is None
    assert "unreachable" in result["reason"]


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        (
            'start = "customers"',
            'start = "custmers"',
            "the workflow's start 'custmers' names no node",
        ),
        ('start = "customers"\n', "", "the workflow's start is not set"),
        (
            'id = "customers"\ntype = "foreach"',
            'id = "customers"\ntype = "foreach"\nitem_error = 5',
            "the workflow's start node 'customers' failed to load",
        ),
        (
            '{ from = "customers", outcome = "loop", to = "orders.v2" }',
            '{ from = "customers", outcome = "loop", to = "customers" }',
            "node 'charge' is unreachable from start 'customers'",
        ),
    ],
)
def test_context_names_the_real_reason_a_node_has_none(capsys, tmp_path, old, new, reason) -> None:
    """Not "unreachable" when there is no start to reach the node from."""
    path = tmp_path / "nostart.wf.toml"
    path.write_text(BILLING.read_text().replace(old, new, 1))
    code, out, _ = run(capsys, "context", str(path), "charge", "--json")
    assert code == 0
    assert json.loads(out)["reason"] == f"no context schema for this program location: {reason}"
    code, out, _ = run(capsys, "context", str(path), "charge")
    assert f"owner stack: none (no context schema for this program location: {reason})\n" in out


def test_schema_command_validates_the_examples(capsys) -> None:
    code, out, _ = run(capsys, "schema")
    assert code == 0
    schema = json.loads(out)
    document = json.loads((ROOT / "tests/fixtures/billing.canonical.json").read_text())
    jsonschema.validate(document, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"name": 1}, schema)


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    """This interpreter run with ``args``, its output captured as text."""
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_console_script_entry_point() -> None:
    result = _python("-m", "wfls", "check", str(BILLING))
    assert result.returncode == 0, result.stderr
    assert "1 file(s) checked: 0 error(s)" in result.stderr


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_executable_delivers_a_batch_commands_whole_output(capsys, fmt: str) -> None:
    """A batch command ends the process without tearing its objects down: everything it
    wrote must still arrive, with the exit status ``main`` returns in process."""
    code, out, err = run(capsys, "check", "--format", fmt, str(ROOT / "examples"))
    result = _python("-m", "wfls", "check", "--format", fmt, str(ROOT / "examples"))
    assert out.count("\n") > 5
    assert (result.returncode, result.stdout, result.stderr) == (code, out, err)


def test_a_closed_pipe_ends_a_batch_command_quietly() -> None:
    command = [sys.executable, "-m", "wfls", "check", str(ROOT / "examples")]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the reader leaves before anything is written
        error = process.stderr.read().decode()
        status = process.wait(timeout=60)
    assert "Traceback" not in error and "Exception ignored" not in error, error
    assert status in (0, 1)


def test_a_batch_command_runs_without_the_collector_and_gives_it_back(
    capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check`` turns the garbage collector off while it works (its analyses are freed
    by reference counting); called in process, it leaves the collector as it found it."""
    import gc

    import wfls.cli.check

    seen: list[bool] = []
    analyse = wfls.cli.check.load_text

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return analyse(*args, **kwargs)

    monkeypatch.setattr(wfls.cli.check, "load_text", spy)
    monkeypatch.setattr(sys, "stdin", type("In", (), {"buffer": BILLING.open("rb")})())
    assert gc.isenabled()
    code, _, _ = run(capsys, "check", "-", "--stdin-filename", "billing.wf.toml")
    assert code == 0 and seen == [False]
    assert gc.isenabled()


@pytest.mark.parametrize("command", ["serve", "run"])
def test_a_long_running_command_collects_after_its_imports(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``serve`` and ``run`` import without the collector, then turn it on with the
    objects their imports built frozen (out of its scans) and the young generation
    collected less often; called in process, the collector is left on."""
    import gc

    import wfls.cli.run
    import wfls.server

    seen: list[tuple[bool, int, int]] = []

    def spy(*args: object, **kwargs: object) -> int:
        seen.append((gc.isenabled(), gc.get_threshold()[0], gc.get_freeze_count()))
        return 0

    monkeypatch.setattr(wfls.server, "serve", spy)
    monkeypatch.setattr(wfls.cli.run, "run_workflow", spy)
    thresholds = gc.get_threshold()
    try:
        arguments = ["serve"] if command == "serve" else ["run", str(BILLING)]
        assert main(arguments) == 0
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    assert len(seen) == 1
    enabled, young, frozen = seen[0]
    assert enabled and young == 50_000 and frozen > 0
    assert gc.isenabled()


def test_the_server_collects_the_classes_attrs_replaced_as_the_protocol_was_imported() -> None:
    """In a fresh interpreter, as ``wfls serve`` imports: after ``_import_protocol`` and
    the server's imports, a full collection finds next to nothing; imported plainly, the
    protocol library leaves thousands of objects in reference cycles behind."""
    found = "import gc; gc.disable(); {}; import wfls.server; print(gc.collect())"
    plain = _python("-c", found.format("import lsprotocol.types"))
    collected = _python("-c", found.format("from wfls.cli import _import_protocol as i; i()"))
    assert plain.returncode == collected.returncode == 0, plain.stderr + collected.stderr
    assert int(plain.stdout) > 10_000
    assert int(collected.stdout) < 1_000


def test_check_holds_its_analyses_only_for_a_caller_about_to_exit(
    capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The executable ends the process holding what ``check`` built (freeing a large
    workspace object by object costs more than the exit); called in process, ``main``
    lets it all go as the command returns."""
    import weakref

    import wfls.cli.check
    from wfls.cli import _run, build_parser

    made: list[weakref.ref[object]] = []

    class Recorded(wfls.cli.check.Workspace):
        """The workspace ``check`` makes, each remembered by a weak reference."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(weakref.ref(self))

    monkeypatch.setattr(wfls.cli.check, "Workspace", Recorded)
    assert main(["check", str(BILLING)]) == 0
    assert made[0]() is None

    kept: list[object] = []
    assert _run(build_parser().parse_args(["check", str(BILLING)]), kept) == 0
    capsys.readouterr()
    held = made[1]()
    assert held is not None and held in kept
    assert held.document(BILLING.resolve().as_uri()) is not None  # type: ignore[attr-defined]


def test_the_executable_keeps_the_collector_off_to_the_end_of_a_batch_command() -> None:
    """Turned back on after ``check``, the collector's next young scan would walk all the
    command made (a second at 14,000 nodes) just before the process ends."""
    script = (
        "import gc, os, sys\n"
        "exit = os._exit\n"
        "def report(status):\n"
        "    print('collector', gc.isenabled(), file=sys.stderr, flush=True)\n"
        "    exit(status)\n"
        "os._exit = report\n"
        "sys.argv = ['wfls', 'check', sys.argv[1]]\n"
        "from wfls.cli import entry\n"
        "entry()\n"
    )
    result = _python("-c", script, str(BILLING))
    assert result.returncode == 0, result.stderr
    assert "collector False" in result.stderr


LONE_SURROGATES = r"""{
  "name": "lone",
  "start": "items",
  "outcomes": ["ok"],
  "input_schema": {"type": "object", "properties": {"items": {"type": "array",
    "items": {"type": "object", "properties": {"n\ud800": {"type": "string"}}}}}},
  "state_schema": {"type": "object"},
  "output_schema": {"type": "object"},
  "node_defs": [{"name": "use", "input_schema": {"type": "object"},
    "output_schema": {"type": "object"}, "outcomes": ["ok"]}],
  "nodes": [
    {"id": "items", "type": "foreach", "over": "input.items", "as": "item"},
    {"id": "use", "type": "node", "node": "use",
     "input": [{"target": "n", "path": "context.foreach.items.item.\"m\udc00\""}]}
  ],
  "edges": [
    {"from": "items", "outcome": "loop", "to": "use"},
    {"from": "use", "outcome": "ok", "to": "items"},
    {"from": "items", "outcome": "done", "to": "__end__"}
  ]
}
"""
"""Lone surrogate escapes (valid JSON, which no UTF-8 output can hold) in a schema's
property name and in a context path that reads it."""


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_lone_surrogate_escapes_are_read_as_replacement_characters(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    path = tmp_path / "lone.wf.json"
    path.write_text(LONE_SURROGATES)
    code, out, err = run(capsys, "check", "--format", fmt, str(path))
    assert code == 1
    out.encode("utf-8"), err.encode("utf-8")  # printable, as every output must be
    expected = "unknown segment 'm\ufffd'"
    if fmt in ("json", "sarif"):
        data = json.loads(out)
        messages = (
            [f["message"] for f in data]
            if fmt == "json"
            else [r["message"]["text"] for r in data["runs"][0]["results"]]
        )
        assert any(expected in m and "n\ufffd" in m for m in messages), messages
    else:
        assert expected in out and "n\ufffd" in out
    code, out, _ = run(capsys, "context", str(path), "use")
    assert code == 0 and '"n\ufffd": {' in out  # in the context schema
    code, out, _ = run(capsys, "context", str(path), "use", "--json")
    item = json.loads(out)["schema"]["properties"]["foreach"]["properties"]["items"]
    assert item["properties"]["item"]["properties"] == {"n\ufffd": {"type": "string"}}
