"""The document store: one analysis per text, each version's made from the last one's,
and the semantic index's parts found again across versions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_incremental_validation import edit_of

from wf_core.base.edits import Edit
from wf_core.base.spans import LineIndex
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
from wfls.store import DocumentStore

EXAMPLES = Path(__file__).parent.parent / "examples"
BILLING = (EXAMPLES / "billing.wf.toml").read_text(encoding="utf-8")
URI = "file:///w/billing.wf.toml"
PATH = "context.foreach.customers.item.name"


def opened() -> DocumentStore:
    store = DocumentStore()
    store.open(URI, BILLING, 1)
    return store


def test_a_version_whose_text_was_analysed_reuses_that_analysis() -> None:
    store = opened()
    first = store.snapshot(URI)
    assert first is not None
    store.replace(URI, BILLING.replace(PATH, PATH + "x"), 2)
    second = store.snapshot(URI)
    store.replace(URI, BILLING, 3)  # the edit undone
    third = store.snapshot(URI)
    assert second is not None and third is not None
    assert third.version == 3 and third.text == BILLING
    assert third.issues is first.issues  # shared, not recomputed
    assert first.version == 1  # the earlier snapshot is untouched
    assert [p.code for p in second.issues] != [p.code for p in third.issues]


def test_while_typing_a_request_reads_the_new_version_made_from_the_last() -> None:
    """A request right after a keystroke waits for the new version's model, made from the
    last version's: every node but the edited one is the very model it was, the context
    model is the same while the graph's structure is, and so is every other node's part
    of the semantic index."""
    store = opened()
    analysed = store.analyse(URI)
    assert analysed is not None
    base = analysed[1]
    parts = base.index.parts
    before = [parts.part("nodes", i)[0] for i in range(parts.count("nodes"))]
    at = BILLING.index(PATH)
    typed = BILLING[:at] + PATH[:-1] + BILLING[at + len(PATH) :]
    store.replace(URI, typed, 2)
    found = store.analyse(URI, "model")
    assert found is not None and found[0] == store.revision(URI)
    view = found[1]
    assert view.version == 2 and view.text == typed and view.context is base.context
    assert base.workflow is not None and view.workflow is not None
    edited = view.index.path_at(at + 3)
    assert edited is not None and edited.node_id is not None
    k = view.workflow.nodes.index(
        next(node for node in view.workflow.nodes if node.id == edited.node_id)
    )
    for i, (old, new) in enumerate(zip(base.workflow.nodes, view.workflow.nodes, strict=True)):
        assert (new is old) == (i != k), i
    now = view.index.parts
    for i, part in enumerate(before):
        assert (now.part("nodes", i)[0] is part) == (i != k), i
    assert index_contents(view.index) == index_contents(analyze_text(typed, "toml").index)


def many_nodes(count: int) -> str:
    """A JSON workflow of one loop and ``count`` tasks reading its item (several pauses'
    worth of nodes for an index build, which gives way before every 64th)."""
    read = {"target": "x", "path": "context.foreach.loop.item.name"}
    nodes = [{"id": "loop", "type": "foreach", "over": "input.items", "as": "item"}]
    nodes += [
        {"id": f"t{i}", "type": "node", "node": "task", "input": [read]} for i in range(count)
    ]
    edges = [{"from": "loop", "outcome": "loop", "to": "t0"}]
    edges += [{"from": f"t{i}", "outcome": "ok", "to": f"t{i + 1}"} for i in range(count - 1)]
    definition = {"name": "task", "outcomes": ["ok"], "input_schema": {"type": "object"}}
    workflow = {"name": "many", "start": "loop", "outcomes": ["ok"], "node_defs": [definition]}
    return json.dumps({**workflow, "nodes": nodes, "edges": edges}, indent=1)


def index_contents(index: Any) -> tuple[list[Any], list[Any]]:
    paths = [(p.location, p.role, p.node_id, p.literal, p.segments) for p in index.paths]
    return list(index.occurrences), paths


def test_a_background_index_build_gives_way() -> None:
    snapshot = analyze_text(many_nodes(300), "json")
    assert snapshot.index.complete(lambda: True) is False
    assert not snapshot.index.is_complete
    assert snapshot.index.complete(lambda: False) is True
    assert snapshot.index.is_complete


@pytest.mark.parametrize("give_way_at", [[1], [2, 1], [1, 1, 1, 1], [3]])
def test_a_build_given_up_goes_on_from_where_it_stopped(give_way_at: list[int]) -> None:
    """Each entry: how many polls the build runs before it gives way at the next one.
    What a build given up made is kept, for its version and the next ones."""
    text = many_nodes(300)
    expected = index_contents(analyze_text(text, "json").index)
    store = DocumentStore()
    uri = "file:///w/many.wf.json"
    store.open(uri, text, 1)
    for version, polls in enumerate(give_way_at, start=2):
        snapshot = store.snapshot(uri)
        assert snapshot is not None
        left = [polls]

        def give_way(left: list[int] = left) -> bool:
            left[0] -= 1
            return left[0] < 0

        assert snapshot.index.complete(give_way) is False
        store.replace(uri, text + " " * version, version)  # a newer version, same elements
    snapshot = store.snapshot(uri)
    assert snapshot is not None
    assert index_contents(snapshot.index) == expected


@pytest.mark.parametrize("ahead", [False, True])
def test_an_index_build_prepares_locating_offsets(ahead: bool) -> None:
    """The first request that locates an offset in a version does not build the source
    map's offset index while the user waits: the index's build ahead made it."""
    snapshot = analyze_text(BILLING, "toml")
    if ahead:
        assert snapshot.index.complete(lambda: False)
    else:
        snapshot.index.path_at(BILLING.index(PATH) + 3)
    source_map = snapshot.parsed.source_map
    assert source_map.locate_prepared
    located = source_map.locate(BILLING.index(PATH) + 3)
    assert located is not None and located.location[0] == "nodes"
    fresh = analyze_text(BILLING, "toml").parsed.source_map
    assert not fresh.locate_prepared
    assert fresh.locate(BILLING.index(PATH)) is not None
    assert fresh.locate_prepared  # a version without an index builds it on first use


# -- edits: the store's text, line index and analyses follow any chain of them ----------

_PIECES = st.sampled_from(["x", "", ".", "é", "😀", '"', "\n", "item.", " ", "]", "na"])
_STEP = st.tuples(
    st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.booleans(), st.integers(0, 3), _PIECES),
        min_size=0,
        max_size=3,
    ),
    st.sampled_from(["none", "analyse", "model", "index"]),
)


def _findings(snapshot: DocumentSnapshot) -> list[tuple[Any, ...]]:
    return [(p.code, p.message, p.span, p.location, p.related) for p in snapshot.issues]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["billing.wf.toml", "approvals.wf.json"]), st.lists(_STEP, max_size=8))
def test_any_chain_of_edits_gives_what_a_fresh_analysis_of_its_text_gives(
    name: str, steps: list[tuple[list[tuple[float, bool, int, str]], str]]
) -> None:
    """Updates of several edits each, analysed (as far as a request reads, or whole) or
    indexed in between: the
    store's text is the edits applied, its line index numbers lines as a fresh one, every
    analysis says what a fresh analysis of its text says, and the region from each kept
    analysis to the latest text, composed from the updates' regions, covers every
    character that differs."""
    uri, syntax = f"file:///w/{name}", "json" if name.endswith(".json") else "toml"
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    store = DocumentStore()
    store.open(uri, text, 1)
    for version, (specs, action) in enumerate(steps, start=2):
        edits = []
        for spec in specs:
            edit = edit_of(text, *spec)
            edits.append(edit)
            text = edit.apply(text)
        assert store.update(uri, edits, version)
        assert store.text(uri) == text
        lines, fresh = store.lines(uri), LineIndex(text)
        assert lines is not None and lines.line_count == fresh.line_count
        assert all(lines.position(o) == fresh.position(o) for o in range(0, len(text) + 1, 5))
        if action == "model":
            # What a request right after an edit reads: the model and the index.
            found = store.analyse(uri, "model")
            assert found is not None and found[1].text == text and found[1].version == version
            assert index_contents(found[1].index) == index_contents(
                analyze_text(text, syntax).index
            )
        elif action != "none":
            snapshot = store.snapshot(uri)
            assert snapshot is not None and snapshot.text == text
            assert _findings(snapshot) == _findings(analyze_text(text, syntax))
            if action == "index":
                # Every part, most of them found again by content, is what a fresh
                # index of the text holds.
                assert index_contents(snapshot.index) == index_contents(
                    analyze_text(text, syntax).index
                )
        document = store._documents[uri]
        for known in (document.analysed,):
            if known is not None:
                old = known[1].text
                region = document.current.region_since(known[0])
                assert region is not None
                assert old[: region.start] == text[: region.start]
                assert old[region.old_end :] == text[region.new_end :]
    snapshot = store.snapshot(uri)
    assert snapshot is not None and _findings(snapshot) == _findings(analyze_text(text, syntax))


def test_edits_are_applied_one_after_the_other_and_read_with_the_text_before_them() -> None:
    """An edit given as a function of the line index reads the index of the text the
    edits before it made (a client's changes, each in the positions after the last)."""
    store = DocumentStore()
    store.open(URI, 'name = "a"\nstart = "b"\n', 1)
    line_two = lambda lines: Edit(lines.line_start(2), lines.line_start(2), "# end\n")  # noqa: E731
    store.update(URI, [Edit(0, 0, "# top\n"), line_two, Edit(6, 10, "title")], 2)
    assert store.text(URI) == '# top\ntitle = "a"\n# end\nstart = "b"\n'
    assert store.version(URI) == 2
    assert not store.update("file:///w/closed.wf.toml", [Edit(0, 0, "x")], 3)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("bom.wf.json", '\ufeff{"name": 1} x'),
        ("bom.wf.toml", '\ufeffname = "flow"\nstart = 1\n'),
        # The parsers skip one mark at the start and take a second for a mistake.
        ("boms.wf.toml", "\ufeff\ufeff"),
        ("boms.wf.json", '\ufeff\ufeff\ufeff{"name": 1} x'),
        ("crlf.wf.toml", 'name = "flow"\r\n[[nodes]\r\nid = "a"\r\nstart = [\r\n'),
        ("cr.wf.toml", 'name = "flow"\rstart = "a"\r[[nodes]]\rid = "a"\r'),
        ("cr.wf.json", '{"name": "flow",\r"start": 1,\r"x": [\r'),
    ],
)
def test_an_editors_text_and_the_file_get_the_same_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    """One reading of a text for the server and ``wfls check``: a byte-order mark is no
    part of the document (the editor's text keeps its offsets: one column more on the
    first line), and ``\\r``, ``\\n`` and ``\\r\\n`` each end a line for both."""
    from wfls.cli import main

    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    main(["check", "--format", "json", str(path)])
    printed = [
        (f["code"], f["message"], f["start"]["line"] - 1, f["start"]["column"] - 1)
        for f in json.loads(capsys.readouterr().out)
    ]
    store = DocumentStore()
    uri = path.as_uri()
    store.open(uri, text, 1)
    snapshot = store.snapshot(uri)
    assert snapshot is not None
    shift = 1 if text.startswith("\ufeff") else 0
    served = []
    for issue in snapshot.issues:
        line, column = snapshot.lines.position(issue.span.start)
        column = max(column - shift, 0) if line == 0 else column
        served.append((issue.code, issue.message, line, column))
    assert printed and served == printed


def test_positions_after_a_byte_order_mark_are_counted_in_the_clients_text() -> None:
    """The analysis reads a leading BOM as a space, one code point for one, but positions
    are counted in the client's text: the BOM is three UTF-8 bytes, one UTF-16 unit."""
    from wfls.convert import PositionCodec

    text = '\ufeff{"name": 1} x'
    store = DocumentStore()
    store.open("file:///w/bom.wf.json", text, 1)
    snapshot = store.snapshot("file:///w/bom.wf.json")
    assert snapshot is not None and snapshot.text.startswith(" ")
    offset = text.index("1")
    assert PositionCodec(snapshot.lines, "utf-8").units(offset) == (0, 12)
    assert PositionCodec(snapshot.lines, "utf-16").units(offset) == (0, 10)
