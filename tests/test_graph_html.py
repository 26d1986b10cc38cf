"""``wfls graph --format html``: one page holding the graph view, the graph and nothing
that reaches the network (``wfls.graph_html``). That the page draws, offline, is the
VS Code end-to-end test's ``graph-page`` check, in a real browser."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from pathlib import Path

import pytest

from wfls.cli import main
from wfls.graph_html import DATA_ID, asset, render_html

EXAMPLES = Path(__file__).parents[1] / "examples"

GRAPH = {
    "workflow": "w",
    "start": "a",
    "nodes": [
        {
            "id": "a",
            "type": "node",
            "node_def": "task",
            "owner_stack": [],
            "range": {"start": {"line": 7, "column": 1}, "end": {"line": 10, "column": 14}},
            "severity": None,
        }
    ],
    "edges": [{"from": "a", "outcome": "ok", "to": "__end__", "valid": True, "problems": []}],
    "loops": [],
    "subgraphs": [],
    "unreachable": [],
}


def scripts(page: str) -> list[tuple[str, str]]:
    """Each ``<script>``'s attributes and text."""
    return re.findall(r"<script([^>]*)>(.*?)</script>", page, flags=re.DOTALL)


def embedded(page: str) -> object:
    [(_, data)] = [s for s in scripts(page) if f'id="{DATA_ID}"' in s[0]]
    return json.loads(data)


def policy(page: str) -> str:
    match = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert match is not None
    return match.group(1).replace("&#x27;", "'")


def test_the_page_inlines_the_view_and_the_graph() -> None:
    page = render_html(GRAPH, source="flows/w.wf.toml")
    assert page.startswith('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">')
    assert "<title>w — workflow graph</title>" in page
    assert asset("graph-view.css") in page
    [(attributes, code)] = [s for s in scripts(page) if "application/json" not in s[0]]
    assert attributes == "" and code == asset("graph-view.js")
    assert embedded(page) == {"graph": GRAPH, "source": "flows/w.wf.toml"}


def test_the_page_may_run_its_own_script_and_reach_nothing() -> None:
    page = render_html(GRAPH)
    [(_, code)] = [s for s in scripts(page) if "application/json" not in s[0]]
    digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode()
    assert policy(page) == (
        "default-src 'none'; "
        f"script-src 'sha256-{digest}' 'wasm-unsafe-eval'; "
        "style-src 'unsafe-inline'; img-src data:"
    )
    # Nothing is loaded from anywhere: no src, no href, no stylesheet link.
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", page)


@pytest.mark.parametrize(
    "hostile",
    ["</script><script>alert(1)</script>", "<!--<script>", "a & b > c", "\u2028\u2029"],
)
def test_no_id_can_end_the_data_early(hostile: str) -> None:
    graph = {**GRAPH, "workflow": hostile, "nodes": [{**GRAPH["nodes"][0], "id": hostile}]}
    page = render_html(graph)
    [(_, data)] = [s for s in scripts(page) if f'id="{DATA_ID}"' in s[0]]
    assert "<" not in data and ">" not in data
    assert embedded(page)["graph"]["nodes"][0]["id"] == hostile
    assert f"<title>{html.escape(hostile)} — workflow graph</title>" in page


def test_a_run_is_embedded_as_its_nodes_and_outcomes() -> None:
    trace = [
        {"node": "a", "owner_stack": [], "context": {"big": 1}, "input": {}, "outcome": "ok"},
    ]
    page = render_html(GRAPH, trace=trace)
    assert embedded(page)["trace"] == [{"node": "a", "outcome": "ok"}]


def test_the_command_line_writes_the_page_of_the_json_graph(
    capsys: pytest.CaptureFixture[str],
) -> None:
    billing = str(EXAMPLES / "billing.wf.toml")
    assert main(["graph", billing]) == 0
    graph = json.loads(capsys.readouterr().out)
    assert main(["graph", billing, "--format", "html"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert embedded(out) == {"graph": graph, "source": billing}
    assert [n["id"] for n in graph["nodes"]] == ["customers", "orders.v2", "charge"]
    assert "<title>billing — workflow graph</title>" in out
