"""The workflow graph (``wf_core.graph``) and ``wfls graph``.

Each kind of mistake has a small document below; its graph is kept as JSON, DOT and
Mermaid under ``tests/graph/`` (written by ``--inline-snapshot=fix``, never by hand),
and the tests beside them say what each must show. ``test_graph_tools.py`` gives
every DOT and Mermaid file there to Graphviz's and Mermaid's own parsers.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inline_snapshot import external_file

from wf_core.authoring.generate import generate_toml
from wf_core.base.reading import is_workflow_file
from wf_core.graph import WorkflowGraph, build_graph, to_dot, to_mermaid
from wf_core.version.snapshot import analyze_text
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.files import Roots
from wfls.cli import main

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = "graph"  # beside this file


def document(edges: str, nodes: str, *, start: str = "a", head: str = "") -> str:
    """A workflow of ``nodes`` (``[[nodes]]`` tables) and ``edges`` (inline tables, one a
    line), with a node def ``task`` (outcome ``ok``) and a list ``input.items``."""
    return f"""name = "w"
start = "{start}"
outcomes = ["ok"]
{head}edges = [
{edges}
]

[input_schema]
type = "object"
properties.items = {{ type = "array", items = {{ "$ref" = "#/$defs/item" }} }}
"$defs".item = {{ type = "object", properties.rows = {{ type = "array", items.type = "array" }} }}

[state_schema]
type = "object"

[output_schema]
type = "object"

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = {{ type = "object" }}
output_schema = {{ type = "object" }}
{nodes}"""


def task(node_id: str) -> str:
    quoted = json.dumps(node_id, ensure_ascii=False)
    return f'\n[[nodes]]\nid = {quoted}\ntype = "node"\nnode = "task"\n'


def loop(node_id: str, over: str, alias: str) -> str:
    return (
        f'\n[[nodes]]\nid = {json.dumps(node_id, ensure_ascii=False)}\ntype = "foreach"\n'
        f'over = {json.dumps(over, ensure_ascii=False)}\nas = "{alias}"\n'
    )


def edge(source: str, outcome: str, target: str) -> str:
    quoted = (json.dumps(x, ensure_ascii=False) for x in (source, outcome, target))
    return "  {{ from = {}, outcome = {}, to = {} }},".format(*quoted)


def edges(*specs: tuple[str, str, str]) -> str:
    return "\n".join(edge(*spec) for spec in specs)


WEIRD = ["orders.v2", 'say "hi"', "back\\slash", "two words", "数据 ü", "end", "a&amp;<b>#x`"]
"""Ids a printer must keep apart and show as written: a dot, quotes, a backslash, a
space, non-ASCII, a word Mermaid keeps for itself, and what HTML, entities and
Markdown would read."""

CASES: dict[str, str] = {
    "unknown_target": document(edges(("a", "ok", "nowhere")), task("a")),
    "undeclared_outcome": document(
        edges(("a", "ok", "b"), ("a", "retry", "a"), ("b", "ok", "__end__")), task("a") + task("b")
    ),
    "node_failed_to_load": document(
        edges(("a", "ok", "b"), ("b", "ok", "__end__")),
        task("a") + '\n[[nodes]]\nid = "b"\ntype = "node"\ntimeout_seconds = 0\n',
    ),
    "unknown_type": document(
        edges(("a", "ok", "b"), ("b", "whatever", "__end__")),
        task("a") + '\n[[nodes]]\nid = "b"\ntype = "nod"\n',
    ),
    "unreachable_node": document(
        edges(("a", "ok", "__end__"), ("lost", "ok", "a")), task("a") + task("lost")
    ),
    "unknown_start": document(edges(("a", "ok", "__end__")), task("a"), start="nowhere"),
    "syntax_error_in_node": document(
        edges(("a", "ok", "b"), ("b", "ok", "__end__")),
        task("a") + '\n[[nodes]]\nid = "b"\ntype = "node"\nnode = "task\n',
    ),
    "nested_loops": document(
        edges(
            ("outer", "loop", "middle"),
            ("middle", "loop", "inner"),
            ("inner", "loop", "work"),
            ("work", "ok", "inner"),
            ("inner", "done", "middle"),
            ("middle", "done", "outer"),
            ("outer", "done", "after"),
            ("after", "ok", "__end__"),
        ),
        loop("outer", "input.items", "item")
        + loop("middle", "context.foreach.outer.item.rows", "row")
        + loop("inner", "context.foreach.middle.item", "cell")
        + task("work")
        + task("after"),
        start="outer",
    ),
    "weird_ids": document(
        edges(
            (WEIRD[0], "loop", WEIRD[1]),
            *((a, "ok", b) for a, b in itertools.pairwise(WEIRD[1:])),
            (WEIRD[-1], "ok", WEIRD[0]),
            (WEIRD[0], "done", "__end__"),
        ),
        loop(WEIRD[0], "input.items", "order") + "".join(task(x) for x in WEIRD[1:]),
        start=WEIRD[0],
    ),
    "subgraph_calls": document(
        edges(("known", "ok", "unknown"), ("unknown", "ok", "__end__")),
        '\n[[nodes]]\nid = "known"\ntype = "subgraph"\nworkflow = { name = "child" }\n'
        '\n[[nodes]]\nid = "unknown"\ntype = "subgraph"\nworkflow = { name = "nobody" }\n',
        start="known",
    ),
}

CHILD = """name = "child"
start = "done"
outcomes = ["ok"]
edges = []

[[nodes]]
id = "done"
type = "end"
"""


def graph_of(name: str, tmp_path: Path) -> WorkflowGraph:
    """The graph of the case ``name``, in a workspace that also holds ``child``."""
    (tmp_path / "w.wf.toml").write_text(CASES[name], encoding="utf-8")
    (tmp_path / "child.wf.toml").write_text(CHILD, encoding="utf-8")
    workspace = Workspace(Roots([tmp_path]))
    workspace.scan()
    found = workspace.document((tmp_path / "w.wf.toml").resolve().as_uri())
    assert found is not None
    return build_graph(found.snapshot, workspace)


def as_text(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def file_name(uri: str) -> str:
    """A child's document by its file name alone: the folder is the test's own."""
    return uri.rsplit("/", 1)[-1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_mistake_keeps_its_graph(name: str, tmp_path: Path) -> None:
    graph = graph_of(name, tmp_path)
    # (the test's own folder, by the same name in every run)
    shown = as_text(graph.to_json(file_name)).replace(tmp_path.resolve().as_uri(), "file:///w")
    assert shown == external_file(f"{GOLDEN}/{name}.json", format=".txt")
    assert to_dot(graph) == external_file(f"{GOLDEN}/{name}.dot", format=".txt")
    assert to_mermaid(graph) == external_file(f"{GOLDEN}/{name}.mmd", format=".txt")


@pytest.mark.parametrize(
    "example",
    sorted(path.name for path in filter(is_workflow_file, EXAMPLES.iterdir())),
    ids=lambda x: x,
)
@pytest.mark.parametrize("fmt", ["json", "dot", "mermaid"])
def test_the_examples_graphs_through_the_command_line(
    example: str, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["graph", str(EXAMPLES / example), "--format", fmt])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    stem = example.split(".")[0]
    suffix = {"json": "json", "dot": "dot", "mermaid": "mmd"}[fmt]
    assert out == external_file(f"{GOLDEN}/examples/{stem}.{suffix}", format=".txt")


def edges_of(graph: WorkflowGraph) -> list[tuple[str, str | None, str, tuple[str, ...]]]:
    return [(e.source, e.outcome, e.target, e.problems) for e in graph.edges]


def test_an_edge_to_an_unknown_node_is_drawn_and_marked(tmp_path: Path) -> None:
    graph = graph_of("unknown_target", tmp_path)
    assert edges_of(graph) == [("a", "ok", "nowhere", ("unknown_target",))]
    assert '"nowhere" [label="nowhere\\n(no such node)"' in to_dot(graph)
    assert 'u0["nowhere<br>(no such node)"]' in to_mermaid(graph)


def test_an_undeclared_outcome_is_drawn_and_marked(tmp_path: Path) -> None:
    graph = graph_of("undeclared_outcome", tmp_path)
    assert edges_of(graph) == [
        ("a", "ok", "b", ()),
        ("a", "retry", "a", ("undeclared_outcome",)),
        ("b", "ok", "__end__", ()),
    ]
    assert [e["valid"] for e in graph.to_json()["edges"]] == [True, False, True]
    assert '"a" -> "a" [label="retry\\n(undeclared outcome)", color="#d62728"' in to_dot(graph)
    assert 'n0 -.->|"retry<br>(undeclared outcome)"| n0' in to_mermaid(graph)


def test_a_node_that_failed_to_load_is_drawn_with_its_error(tmp_path: Path) -> None:
    graph = graph_of("node_failed_to_load", tmp_path)
    a, b = graph.nodes
    assert (a.id, a.owner_stack, a.severity) == ("a", (), None)
    assert (b.id, b.type, b.node_def, b.owner_stack) == ("b", "node", None, None)
    assert b.severity == "error"
    # its edges are as the author wrote them: its outcome is its node def's, declared
    assert all(edge.valid for edge in graph.edges)
    assert "class n1 error" in to_mermaid(graph)


def test_the_edges_of_a_node_of_unknown_type_are_not_marked_on_top_of_it(
    tmp_path: Path,
) -> None:
    graph = graph_of("unknown_type", tmp_path)
    assert [(n.id, n.type, n.severity) for n in graph.nodes] == [
        ("a", "node", None),
        ("b", "nod", "error"),
    ]
    assert all(edge.valid for edge in graph.edges)


def test_an_unreachable_node_is_listed_and_dashed(tmp_path: Path) -> None:
    graph = graph_of("unreachable_node", tmp_path)
    assert graph.unreachable == ("lost",)
    assert graph.to_json()["unreachable"] == ["lost"]
    lost = graph.nodes[1]
    assert (lost.owner_stack, lost.severity) == (None, "error")
    assert '"lost" [label="lost\\nnode task", style="rounded,dashed"' in to_dot(graph)
    assert "class n1 unreachable" in to_mermaid(graph)


def test_an_unknown_start_points_at_a_stand_in(tmp_path: Path) -> None:
    graph = graph_of("unknown_start", tmp_path)
    assert graph.start == "nowhere"
    dot = to_dot(graph)
    assert '"__start__" -> "nowhere" [color="#d62728", style="dashed"];' in dot
    assert "wf_start -.-> u0" in to_mermaid(graph)


def test_a_node_broken_by_a_syntax_error_carries_it(tmp_path: Path) -> None:
    graph = graph_of("syntax_error_in_node", tmp_path)
    assert [(n.id, n.severity) for n in graph.nodes] == [("a", None), ("b", "error")]


def test_nested_loops_nest_as_the_owner_stacks_do(tmp_path: Path) -> None:
    graph = graph_of("nested_loops", tmp_path)
    assert [(n.id, n.owner_stack) for n in graph.nodes] == [
        ("outer", ()),
        ("middle", ("outer",)),
        ("inner", ("outer", "middle")),
        ("work", ("outer", "middle", "inner")),
        ("after", ()),
    ]
    assert [(x.id, x.parent, x.body, x.done, x.alias) for x in graph.loops] == [
        ("outer", None, ("middle",), "after", "item"),
        ("middle", "outer", ("inner",), "outer", "row"),
        ("inner", "middle", ("work",), "middle", "cell"),
    ]
    dot = to_dot(graph)
    # each cluster opens inside the one before it, and they close together
    opened = [dot.index(f'subgraph "cluster_{x}"') for x in ("outer", "middle", "inner")]
    assert opened == sorted(opened)
    assert "    }\n  }\n" in dot


def test_every_id_is_kept_apart_and_shown_as_written(tmp_path: Path) -> None:
    graph = graph_of("weird_ids", tmp_path)
    assert [n.id for n in graph.nodes] == WEIRD
    assert graph.loops[0].body == tuple(WEIRD[1:])
    dot = to_dot(graph)
    for quoted in ['"say \\"hi\\""', '"back\\\\slash"', '"数据 ü"', '"a&amp;amp;<b>#x`"']:
        assert f"\n    {quoted} [label=" in dot
    mermaid = to_mermaid(graph)
    assert 'n1["say #34;hi#34;<br>node task"]' in mermaid
    assert 'n6["a#38;amp;#60;b#62;#35;x#96;<br>node task"]' in mermaid
    assert 'n5["end<br>node task"]' in mermaid


def test_subgraph_calls_name_their_childs_document(tmp_path: Path) -> None:
    graph = graph_of("subgraph_calls", tmp_path)
    assert graph.to_json(file_name)["subgraphs"] == [
        {
            "node": "known",
            "workflow": "child",
            "file": "child.wf.toml",
            "uri": (tmp_path / "child.wf.toml").resolve().as_uri(),
        },
        {"node": "unknown", "workflow": "nobody", "file": None, "uri": None},
    ]
    # the call of a workflow no document declares is an error on its node
    assert [(n.id, n.severity) for n in graph.nodes] == [("known", None), ("unknown", "error")]
    assert '"known" [label="known\\nsubgraph child", shape="component"];' in to_dot(graph)


def test_without_a_workspace_no_child_is_found() -> None:
    graph = build_graph(analyze_text(CASES["subgraph_calls"], "toml"))
    assert [(c.node, c.workflow, c.uri) for c in graph.subgraphs] == [
        ("known", "child", None),
        ("unknown", "nobody", None),
    ]


def test_positions_are_those_of_check_json(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    """A node's range starts where ``wfls check --format json`` puts a finding on its
    ``[[nodes]]`` header: lines from 1, columns in code points (the emoji before it
    count one each)."""
    text = CASES["unknown_target"].replace('name = "w"', 'name = "w"  # 😀😀😀')
    path = tmp_path / "w.wf.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["graph", str(path)]) == 0
    node = json.loads(capsys.readouterr().out)["nodes"][0]
    header = text[: text.index("[[nodes]]")].count("\n") + 1
    assert node["range"]["start"] == {"line": header, "column": 1}
    last = text.rstrip("\n").split("\n")
    assert node["range"]["end"] == {"line": len(last), "column": len(last[-1]) + 1}


# -- the command line ------------------------------------------------------------------


def test_root_resolves_subgraphs_as_check_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    caller = tmp_path / "flows" / "w.wf.toml"
    caller.parent.mkdir()
    caller.write_text(CASES["subgraph_calls"], encoding="utf-8")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "child.wf.toml").write_text(CHILD, encoding="utf-8")
    assert main(["graph", str(caller)]) == 0
    alone = json.loads(capsys.readouterr().out)["subgraphs"]
    assert [call["file"] for call in alone] == [None, None]
    assert main(["graph", str(caller), "--root", str(tmp_path)]) == 0
    rooted = json.loads(capsys.readouterr().out)["subgraphs"]
    assert [call["file"] for call in rooted] == [str(tmp_path / "lib" / "child.wf.toml"), None]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["graph", "missing.wf.toml"], "wfls: cannot read 'missing.wf.toml': no such file"),
        (["graph", "{examples}", "--root", "nowhere"], "wfls: --root 'nowhere' is not a folder"),
    ],
)
def test_what_cannot_be_read_exits_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.replace("{examples}", str(EXAMPLES / "billing.wf.toml")) for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(message)


# -- generated workflows ---------------------------------------------------------------


def shuffled(text: str, seed: int) -> str:
    """``text`` (a generated workflow) with its ``[[nodes]]`` tables and its edges in
    another order."""
    rng = random.Random(seed)
    head, *tables = text.split("\n[[nodes]]\n")
    rng.shuffle(tables)
    start, end = head.index("edges = [\n") + len("edges = [\n"), head.index("\n]\n")
    lines = head[start:end].split("\n")
    rng.shuffle(lines)
    head = head[:start] + "\n".join(lines) + head[end:]
    return "\n[[nodes]]\n".join([head, *tables])


@settings(max_examples=25, deadline=None)
@given(size=st.integers(min_value=1, max_value=60), seed=st.integers(0, 2**16))
def test_generated_workflows_nest_and_list_everything_once(size: int, seed: int) -> None:
    snapshot = analyze_text(shuffled(generate_toml(size), seed), "toml")
    graph = build_graph(snapshot)
    workflow = snapshot.workflow
    assert workflow is not None and snapshot.context is not None
    # every node once, every edge once, in document order
    assert [n.id for n in graph.nodes] == [n.id for n in workflow.nodes]
    assert [(e.source, e.outcome, e.target) for e in graph.edges] == [
        (e.from_, e.outcome, e.to) for e in workflow.edges
    ]
    assert all(edge.valid for edge in graph.edges)
    # the loops' nesting is the owner stacks: a node is in the body of the innermost
    # loop of its stack, and following the parents from there gives the rest of it
    loops = {loop.id: loop for loop in graph.loops}
    for node in graph.nodes:
        stack = snapshot.context.stack_of(node.id)
        assert stack is not None and node.owner_stack == stack
        chain: list[str] = []
        inner = next((x.id for x in graph.loops if node.id in x.body), None)
        while inner is not None:
            chain.insert(0, inner)
            inner = loops[inner].parent
        assert tuple(chain) == stack
    # so each printer draws each node once, each loop box once, each edge once
    dot = to_dot(graph)
    assert sum(line.endswith("{") and "cluster_" in line for line in dot.split("\n")) == len(
        graph.loops
    )
    assert sum(" -> " in line for line in dot.split("\n")) == len(graph.edges) + 1
    defined = Counter(re.findall(r"^ *(n\d+)[\[{(]", to_mermaid(graph), re.MULTILINE))
    assert defined == {f"n{index}": 1 for index in range(len(graph.nodes))}
