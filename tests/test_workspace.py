"""The workspace: subgraphs across files, scope isolation, confinement, and wfls check folders."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from wf_core.version.snapshot import analyze_text
from wf_core.workspace.catalog import Workspace, quick_name
from wf_core.workspace.checks import document_issues
from wf_core.workspace.files import Roots, path_of_uri
from wfls.cli import main
from wfls.features.completion import complete
from wfls.features.definition import definition
from wfls.features.hover import hover
from wfls.features.references import references
from wfls.features.rename import rename_everywhere

CHILD = """
name = "child"
start = "rows"
edges = [
  { from = "rows", outcome = "loop", to = "use" },
  { from = "use", outcome = "ok", to = "rows" },
  { from = "rows", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
required = ["customers", "tag"]
additionalProperties = false
properties.customers = { type = "array", items = { type = "object", properties = { name = { type = "string" } } } }
properties.tag = { type = "string" }

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object", properties = { x = {} } }
output_schema = { type = "object" }

[[nodes]]
id = "rows"
type = "foreach"
over = "input.customers"
as = "row"

[[nodes]]
id = "use"
type = "node"
node = "task"
input = [{ target = "x", path = "context.foreach.rows.item.name" }]
"""  # noqa: E501

CALLER = """
name = "caller"
start = "rows"
edges = [
  { from = "rows", outcome = "loop", to = "bill" },
  { from = "bill", outcome = "ok", to = "rows" },
  { from = "rows", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
properties.rows = { type = "array", items = { type = "object", properties = { customers = { type = "array" } } } }

[[nodes]]
id = "rows"
type = "foreach"
over = "input.rows"
as = "row"

[[nodes]]
id = "bill"
type = "subgraph"
workflow = { name = "child" }
input = [
  { target = "customers", path = "context.foreach.rows.item.customers" },
  { target = "tag", value = "x" },
]
"""  # noqa: E501


def workspace(tmp_path: Path, **files: str) -> Workspace:
    for name, text in files.items():
        (tmp_path / f"{name}.wf.toml").write_text(textwrap.dedent(text).lstrip())
    ws = Workspace(Roots([tmp_path]))
    assert ws.scan().skipped == []
    return ws


def findings(ws: Workspace, name: str) -> list[tuple[str, str, str]]:
    (document,) = ws.by_name(name)
    return [
        (p.code, p.model_path or "", p.message)
        for p in document_issues(ws, document.uri)
        if p.severity in ("error", "warning")
    ]


def uri_of(ws: Workspace, name: str) -> str:
    return ws.by_name(name)[0].uri


def test_a_caller_with_a_fitting_child_is_clean(tmp_path: Path) -> None:
    ws = workspace(tmp_path, child=CHILD, caller=CALLER)
    assert findings(ws, "caller") == []
    assert findings(ws, "child") == []
    # lda-wf alone would check the bindings against the subgraph's empty default schema
    # and reject both; the document alone leaves a side it declares no schema for to the
    # child's contract, which only the workspace knows:
    alone = analyze_text(textwrap.dedent(CALLER).lstrip(), "toml")
    assert [p.code for p in alone.issues if p.severity == "error"] == []


def test_bindings_are_checked_against_the_child(tmp_path: Path) -> None:
    caller = CALLER.replace('{ target = "tag", value = "x" },', '{ target = "tga", value = "x" },')
    ws = workspace(tmp_path, child=CHILD, caller=caller)
    assert findings(ws, "caller") == [
        (
            "subgraph_binding",
            "nodes[1].workflow.name",
            "child workflow 'child' requires input 'tag', which no binding provides",
        ),
        (
            "subgraph_binding",
            "nodes[1].input[1].target",
            "child workflow 'child' does not accept input field 'tga'",
        ),
    ]
    (bad,) = [p for p in document_issues(ws, uri_of(ws, "caller")) if "'tga'" in p.message]
    assert bad.help == "did you mean 'tag'?"


MAILER = """
name = "mailer"
start = "send"
edges = [{ from = "send", outcome = "ok", to = "__end__" }]
output = [{ target = "sent", path = "state.sent" }]
output_schema = { type = "object", properties = { sent = { type = "integer" } } }
state_schema = { type = "object", properties = { sent = { type = "integer" } } }

[[node_defs]]
name = "send"
outcomes = ["ok"]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[nodes]]
id = "send"
type = "node"
node = "send"
"""

NOTIFY = """
name = "notify"
start = "mail"
edges = [{ from = "mail", outcome = "ok", to = "__end__" }]
state_schema = { type = "object", properties = { count = { type = "integer" } } }

[[nodes]]
id = "mail"
type = "subgraph"
workflow = { name = "mailer" }
output = [{ source = "SOURCE", target = "state.count" }]
"""


@pytest.mark.parametrize("declared", [False, True], ids=["child's schema", "node's schema"])
def test_an_output_source_the_child_does_not_produce_is_an_error_both_ways(
    tmp_path: Path, declared: bool
) -> None:
    caller = NOTIFY.replace("SOURCE", "snet")
    if declared:
        caller = caller.replace(
            'workflow = { name = "mailer" }',
            'workflow = { name = "mailer" }\n'
            'output_schema = { type = "object", properties = { sent = {} } }',
        )
    ws = workspace(tmp_path, mailer=MAILER, notify=caller)
    code, message = (
        ("invalid_node_output_field", "source field 'snet' is not declared in node output schema")
        if declared
        else ("subgraph_binding", "child workflow 'mailer' does not produce output field 'snet'")
    )
    assert findings(ws, "notify") == [(code, "nodes[0].output[0].source", message)]
    (bad,) = [p for p in document_issues(ws, uri_of(ws, "notify")) if "'snet'" in p.message]
    assert bad.help == "did you mean 'sent'?"
    fixed = workspace(tmp_path, notify=caller.replace("snet", "sent"))
    assert findings(fixed, "notify") == []


def test_a_binding_its_own_schema_does_not_declare_is_an_error_whatever_the_child(
    tmp_path: Path,
) -> None:
    """An unknown child explains only what depends on it: a side the node declares keeps
    lda-wf's error; a side left to the child has no finding of its own."""
    caller = NOTIFY.replace("SOURCE", "sent").replace("mailer", "mialer")
    caller = caller.replace(
        'output = [{ source = "sent", target = "state.count" }]',
        'output = [{ source = "sent", target = "state.count" }]\n'
        'input = [{ target = "adress", value = "x" }]\n'
        'input_schema = { type = "object", properties = { address = {} } }',
    )
    ws = workspace(tmp_path, mailer=MAILER, notify=caller)
    (document,) = ws.by_name("notify")
    assert [
        (p.severity.value, p.code, p.model_path)
        for p in document_issues(ws, document.uri)
        if p.severity.value != "hint"
    ] == [
        ("error", "unknown_subgraph", "nodes[0].workflow.name"),
        ("error", "invalid_node_input_field", "nodes[0].input[0].target"),
    ]


def test_a_declared_subgraph_schema_must_fit_the_child(tmp_path: Path) -> None:
    caller = CALLER.replace(
        'workflow = { name = "child" }',
        'workflow = { name = "child" }\n'
        'input_schema = { type = "object", properties = { customers = {}, tag = {}, extra = {} } }',
    )
    ws = workspace(tmp_path, child=CHILD, caller=caller)
    assert findings(ws, "caller") == [
        (
            "subgraph_binding",
            "nodes[1].input_schema.properties.extra",
            "the subgraph declares input field 'extra', which child workflow 'child' does not have",
        )
    ]


CONTRACT_CASES = {
    "input left to the child": (
        CHILD,
        CALLER.replace('target = "tag"', 'target = "FIELD"'),
        ("caller", "tag", "nodes[1].input[1].target"),
        ["customers", "tag"],
        "**tag**: `string`",
    ),
    "input the node declares": (
        CHILD,
        CALLER.replace('target = "tag"', 'target = "FIELD"').replace(
            'workflow = { name = "child" }',
            'workflow = { name = "child" }\ninput_schema = { type = "object", properties = '
            '{ customers = {}, tag = { type = "string", description = "as the node has it" } } }',
        ),
        ("caller", "tag", "nodes[1].input[1].target"),
        ["customers", "tag"],
        "**tag**: `string`\n\nas the node has it",
    ),
    "output left to the child": (
        MAILER,
        NOTIFY.replace("SOURCE", "FIELD"),
        ("notify", "sent", "nodes[0].output[0].source"),
        ["sent"],
        "**sent**: `integer`",
    ),
    "a child schema that does not load": (
        CHILD.replace('properties.tag = { type = "string" }', "properties.tag = { type = 1 }"),
        CALLER.replace('target = "tag"', 'target = "FIELD"'),
        ("caller", "tag", "nodes[1].input[1].target"),
        [],
        None,
    ),
}


@pytest.mark.parametrize(
    ("child", "caller", "written", "offered", "hovered"),
    CONTRACT_CASES.values(),
    ids=CONTRACT_CASES.keys(),
)
def test_binding_fields_offered_and_hovered_are_those_check_accepts(
    tmp_path: Path,
    child: str,
    caller: str,
    written: tuple[str, str, str],
    offered: list[str],
    hovered: str | None,
) -> None:
    """Completion and hover of a subgraph node's binding fields read the contract check
    applies: the schema a side declares, else the child's as the child's model has it (a
    schema that does not load is the empty object there, so nothing is offered)."""
    name, field, at = written
    ws = workspace(tmp_path, child=child, caller=caller.replace("FIELD", field))
    typed = analyze_text(textwrap.dedent(caller).lstrip().replace("FIELD", ""), "toml")
    assert [c.label for c in complete(typed, typed.text.index('= ""') + 3, ws)] == offered
    accepted = not [f for f in findings(ws, name) if f[1] == at]
    assert accepted == (field in offered)
    document = ws.by_name(name)[0].snapshot
    result = hover(document, document.text.index(f'"{field}"') + 2, ws)
    assert (result.markdown.split("\n\n```")[0] if result else None) == hovered


def test_an_unknown_child_gets_did_you_mean_and_artifacts_are_accepted(tmp_path: Path) -> None:
    caller = CALLER.replace('{ name = "child" }', '{ name = "chidl" }')
    caller += '\n[[nodes]]\nid = "published"\ntype = "subgraph"\nworkflow = "workflow.billing.v3"\n'
    caller = caller.replace(
        '{ from = "rows", outcome = "done", to = "__end__" },',
        '{ from = "rows", outcome = "done", to = "published" },\n'
        '  { from = "published", outcome = "ok", to = "__end__" },',
    )
    ws = workspace(tmp_path, child=CHILD, caller=caller)
    found = [f for f in findings(ws, "caller") if f[0] == "unknown_subgraph"]
    assert found == [
        ("unknown_subgraph", "nodes[1].workflow.name", "no workflow named 'chidl' in the workspace")
    ]
    document = ws.by_name("caller")[0]
    offset = document.snapshot.text.index("workflow.billing.v3") + 3
    result = hover(document.snapshot, offset, ws)
    assert result is not None and "cannot see the registry" in result.markdown


CYCLE = """
name = "{name}"
start = "call"
outcomes = ["ok"]
edges = [{{ from = "call", outcome = "ok", to = "__end__" }}]

[[nodes]]
id = "call"
type = "subgraph"
workflow = {{ name = "{child}" }}
"""


def test_a_cycle_is_reported_once_on_each_workflow_value(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        a=CYCLE.format(name="a", child="b"),
        b=CYCLE.format(name="b", child="c"),
        c=CYCLE.format(name="c", child="a"),
        d=CYCLE.format(name="d", child="a"),  # calls into the cycle, is not part of it
    )
    for name in "abc":
        assert findings(ws, name) == [
            (
                "subgraph_cycle",
                "nodes[0].workflow.name",
                "subgraphs call each other in a cycle: a -> b -> c -> a",
            )
        ]
    assert [f[0] for f in findings(ws, "d")] == []


def test_duplicate_names_are_reported_on_both(tmp_path: Path) -> None:
    ws = workspace(tmp_path, one=CHILD, two=CHILD)
    for document in ws.documents():
        codes = [p.code for p in document_issues(ws, document.uri)]
        assert codes.count("duplicate_workflow_name") == 1


def test_a_child_reading_a_callers_loop_is_told_how_to_pass_it(tmp_path: Path) -> None:
    child = CHILD.replace(
        'path = "context.foreach.rows.item.name"', 'path = "context.foreach.regions.item.name"'
    )
    caller = CALLER.replace('"rows"', '"regions"').replace("foreach.rows", "foreach.regions")
    ws = workspace(tmp_path, child=child, caller=caller)
    (issue,) = [p for p in document_issues(ws, uri_of(ws, "child")) if p.severity == "error"]
    assert issue.code == "invalid_context_path"
    assert issue.help is not None
    assert "runs as a subgraph of 'caller' in its own scope" in issue.help
    assert '{ target = "regions", path = "context.foreach.regions.item" }' in issue.help
    assert "read it here as 'input.regions'" in issue.help
    (related,) = [r for r in issue.related if r.uri is not None]
    assert related.uri == uri_of(ws, "caller")


def test_parent_and_child_may_reuse_a_loop_id(tmp_path: Path) -> None:
    ws = workspace(tmp_path, child=CHILD, caller=CALLER)  # both have a foreach "rows"
    assert findings(ws, "child") == findings(ws, "caller") == []
    child = ws.by_name("child")[0].snapshot
    offset = child.text.index("foreach.rows.item") + len("foreach.ro")
    found = references(child, offset, workspace=ws)
    assert {t.uri for t in found} == {None}  # the child's own loop, never the caller's
    edits = rename_everywhere(child, offset, "lines", ws)
    assert [e.uri for e in edits] == [None]


def test_definition_hover_completion_and_rename_of_workflow_names(tmp_path: Path) -> None:
    ws = workspace(tmp_path, child=CHILD, caller=CALLER)
    caller = ws.by_name("caller")[0].snapshot
    offset = caller.text.index('name = "child"') + 9
    [target] = definition(caller, offset, ws)
    assert target.uri == uri_of(ws, "child")
    result = hover(caller, offset, ws)
    assert result is not None and '"required": [' in result.markdown
    typed = caller.text.replace('{ name = "child" }', '{ name = "" }')
    edited = analyze_text(typed, "toml")
    labels = [c.label for c in complete(edited, typed.index('{ name = "') + 10, ws)]
    assert labels == ["child"]
    targets = analyze_text(caller.text.replace('target = "tag"', 'target = ""'), "toml")
    at = targets.text.index('target = ""') + 10
    assert [c.label for c in complete(targets, at, ws)] == ["customers", "tag"]
    edits = rename_everywhere(caller, offset, "billing", ws)
    assert {e.uri for e in edits} == {None, uri_of(ws, "child")}


def test_a_child_changed_on_disk_affects_its_caller(tmp_path: Path) -> None:
    ws = workspace(tmp_path, child=CHILD, caller=CALLER)
    (tmp_path / "child.wf.toml").write_text(
        textwrap.dedent(CHILD).lstrip().replace('"customers", "tag"', '"customers", "label"')
    )
    affected: set[str] = set()
    assert ws.load(tmp_path / "child.wf.toml", affected) is None
    assert uri_of(ws, "caller") in affected
    assert [f[2] for f in findings(ws, "caller")] == [
        "child workflow 'child' requires input 'label', which no binding provides"
    ]


def test_open_documents_override_disk_until_closed(tmp_path: Path) -> None:
    ws = workspace(tmp_path, child=CHILD, caller=CALLER)
    uri = uri_of(ws, "child")
    edited = analyze_text(
        textwrap.dedent(CHILD).lstrip().replace('"tag"]', '"tag", "more"]'), "toml"
    )
    affected = ws.put(uri, edited)
    assert uri_of(ws, "caller") in affected
    assert "'more'" in findings(ws, "caller")[0][2]
    ws.load(tmp_path / "child.wf.toml")  # a disk change does not replace the editor's text
    assert "'more'" in findings(ws, "caller")[0][2]
    ws.close(uri)
    assert findings(ws, "caller") == []


def test_closing_before_the_first_analysis_keeps_the_disk_version(tmp_path: Path) -> None:
    """A preview tab: opened and closed before its analysis reached the index. The disk's
    version stays, and the analysis that ends after the close does not hide it again."""
    ws = workspace(tmp_path, child=CHILD, caller=CALLER)
    uri = uri_of(ws, "child")
    ws.opened(uri)
    assert ws.close(uri) == set()
    assert ws.names() == ["caller", "child"]
    late = analyze_text(
        textwrap.dedent(CHILD).lstrip().replace('name = "child"', 'name = "x"'), "toml"
    )
    assert ws.put_open(uri, late) == set()
    assert ws.names() == ["caller", "child"]
    assert findings(ws, "caller") == []
    ws.opened(uri)  # opened again: its analyses count, and closing hands back the disk's
    assert ws.put_open(uri, late) >= {uri, uri_of(ws, "caller")}
    assert ws.names() == ["caller", "x"]
    ws.close(uri)
    assert ws.names() == ["caller", "child"]


def test_confinement(tmp_path: Path) -> None:
    inside = tmp_path / "ws"
    outside = tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret.wf.toml").write_text(textwrap.dedent(CHILD).lstrip())
    (inside / "link.wf.toml").symlink_to(outside / "secret.wf.toml")
    (inside / "linked").symlink_to(outside, target_is_directory=True)
    (inside / "loop").symlink_to(inside / "loop")
    (inside / "dir.wf.toml").mkdir()
    os.mkfifo(inside / "pipe.wf.toml")
    # Read as an editor's text is: the NUL is the syntax error where it stands.
    (inside / "nul.wf.toml").write_bytes(b'name = "nul"\n\x00\x01\x02')
    (inside / "huge.wf.toml").write_bytes(b"#" * 6_000_000)
    (inside / "ok.wf.toml").write_text(textwrap.dedent(CALLER).lstrip())
    ws = Workspace(Roots([inside]))
    skipped = {s.path.name: s.reason for s in ws.scan().skipped}
    assert skipped == {
        "dir.wf.toml": "it is not a regular file",
        "huge.wf.toml": "it is larger than 5 MB",
        "link.wf.toml": "it lies outside the workspace folders",
        "pipe.wf.toml": "it is not a regular file",
    }
    assert sorted(str(d.name) for d in ws.documents()) == ["caller", "nul"]
    (nul,) = (d for d in ws.documents() if d.name == "nul")
    syntax = [p.message for p in nul.snapshot.issues if p.code == "syntax_error"]
    assert syntax == ["expected a key or a [table] header"]
    assert ws.load(inside / ".." / "outside" / "secret.wf.toml") is not None
    assert path_of_uri("file://otherhost/etc/passwd") is None
    assert path_of_uri("https://example.org/x.wf.toml") is None


def test_check_a_folder_resolves_subgraphs(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    caller = CALLER.replace('{ target = "tag", value = "x" },', "")
    workspace(tmp_path, child=CHILD, caller=caller)
    assert main(["check", "--format", "json", str(tmp_path)]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [(f["code"], f["file"].rsplit("/", 1)[-1]) for f in found] == [
        ("subgraph_binding", "caller.wf.toml")
    ]
    # A file alone finds its child beside it; --root picks another folder.
    assert main(["check", "--format", "json", str(tmp_path / "caller.wf.toml")]) == 1
    assert [f["code"] for f in json.loads(capsys.readouterr().out)] == ["subgraph_binding"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "caller.wf.toml").write_text((tmp_path / "caller.wf.toml").read_text())
    main(["check", "--format", "json", str(elsewhere / "caller.wf.toml")])
    errors = [f["code"] for f in json.loads(capsys.readouterr().out) if f["severity"] == "error"]
    assert errors == ["unknown_subgraph"]
    main(["check", "--format", "json", "--root", str(tmp_path), str(elsewhere / "caller.wf.toml")])
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)]
    assert "unknown_subgraph" not in codes


def test_the_fix_declares_the_input_field_and_reads_it(tmp_path: Path) -> None:
    from tests.features.fixture import apply
    from wfls.features.code_actions import code_actions

    child = CHILD.replace(
        'path = "context.foreach.rows.item.name"', 'path = "context.foreach.regions.item.name"'
    )
    caller = CALLER.replace('"rows"', '"regions"').replace("foreach.rows", "foreach.regions")
    ws = workspace(tmp_path, child=child, caller=caller)
    document = ws.by_name("child")[0]
    issues = ws.issues_of(document.uri, document.snapshot)
    assert issues is not None
    (issue,) = [p for p in issues if p.code == "invalid_context_path"]
    [action] = [
        a
        for a in code_actions(document.snapshot, issue.span, issues=issues)
        if a.issues == (issue,)
    ]
    assert action.title == (
        "Declare input 'regions' and read 'input.regions.name' (the caller passes 'regions''s item)"
    )
    assert action.edits is not None
    text = apply(document.snapshot.text, [(e.span, e.new_text) for e in action.edits])
    assert 'path = "input.regions.name"' in text
    assert "properties.regions = {}\n" in text
    fixed = analyze_text(text, "toml")
    assert [p.code for p in fixed.issues if p.severity == "error"] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('name = "billing"\nstart = "a"\n[[nodes]]\nid = "a"\n', "billing"),
        ('name = "billing"  # the team\'s\n[[nodes]]\n', "billing"),
        ('start = "a"\n[[nodes]]\nname = "not the workflow"\n', None),  # inside a table
        ('name = "a\\"b"\n', None),  # an escape: parse to know
        ('description = """\nname = "x"\n"""\nname = "y"\n', None),  # a hidden line
        ("description = '''\nname = \"x\"\n'''\nname = \"y\"\n", None),  # a hidden line
        ('name = "p"\n[[nodes]]\ndesc = """\n[x]\n"""\n', "p"),  # nothing hidden before [[
        ('[meta]\nname = "x"\n', None),  # a table first: no name before it
        ('  [meta]\nname = "x"\n', None),
        ('name = "p"\n[[nodes]]\nkind = "subgraph"\n', None),  # calls a child: parse
        ('name = "one"\nname = "two"\n', None),  # a duplicate key is the parser's to report
    ],
)
def test_quick_name_answers_only_when_a_line_scan_is_sure(text: str, expected: str | None) -> None:
    assert quick_name(text, "toml") == expected
    if expected is not None:  # the scan agrees with the parser
        assert analyze_text(text, "toml").parsed.values.get("name") == expected


def test_a_lazily_indexed_document_is_analysed_on_first_use(tmp_path: Path) -> None:
    (tmp_path / "child.wf.toml").write_text(CHILD)
    workspace = Workspace(Roots([tmp_path]))
    workspace.scan()
    document = workspace.document((tmp_path / "child.wf.toml").resolve().as_uri())
    assert document is not None and document.name == "child"
    assert document._snapshot is None  # indexed by a line scan alone
    assert document.snapshot.parsed.values["name"] == "child"
    assert document.snapshot is document.snapshot


def test_check_a_file_reads_it_whatever_its_size_and_keeps_quiet_about_its_neighbours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("wf_core.workspace.files.MAX_BYTES", 100)  # 5 MB, scaled down
    big = tmp_path / "big.wf.toml"
    big.write_text(CHILD.replace('start = "rows"', 'start = "row"'), encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.wf.toml")
    assert main(["check", str(big), "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert "unknown_start" in [f["code"] for f in json.loads(captured.out)]
    assert captured.err == ""  # the FIFO beside it is not the user's question
    # Named, it is read under --root too, where the scan of the root lists the rest.
    assert main(["check", str(big), "--root", str(tmp_path), "--format", "json"]) == 1
    assert "big.wf.toml" not in capsys.readouterr().err
    # Naming the folder: its big file is skipped, each skip is said, and what is said
    # skipped is not checked.
    assert main(["check", str(tmp_path), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert "big.wf.toml': it is larger than" in captured.err
    assert "pipe.wf.toml': it is not a regular file" in captured.err
    assert json.loads(captured.out) == []
