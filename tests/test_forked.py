"""A forked child changes how long a large check takes, never what it finds.

``wfls check`` may have a forked child read the last part of a large TOML document's
statements and check the last half of its nodes (``wf_core.forked``). Here the
thresholds are lowered so that small documents take that path too, and every
finding must be what the same analysis finds without a child: when the child does
its part, and when it fails and the parent does that part itself.
"""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from builders import APPROVALS_WITH_MISTAKES, BILLING_WITH_MISTAKES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wf_core import forked
from wf_core.documents import toml_chunks, toml_statements
from wf_core.generate import generate_toml
from wf_core.snapshot import analyze_text
from wf_core.validation import core
from wfls.cli import reporting
from wfls.cli.reporting import findings_for, render_text, text_for

ROOT = Path(__file__).parent.parent

EXAMPLES = ROOT / "examples"


def _generated_with_mistakes() -> str:
    """A generated workflow with a wrong read, an unknown node def and a duplicate id
    among the last nodes (the child's half), a wrong read among the first, and edges
    wrong in each way the whole-graph checks (made while the child works) find."""
    text = generate_toml(60).replace(".item.name", ".item.nam", 1)
    edge = '{ from = "g0_t3", outcome = "ok", to = "g0_t4" },'
    text = text.replace(
        edge, f'{edge}\n  {edge[:-4]}4" }},\n  {{ from = "g0_t9", outcome = "ok", to = "g0_t5" }},'
    )
    text = text.replace('{ from = "g1_t2", outcome = "ok"', '{ from = "g1_t2", outcome = "okay"')
    last = text.rindex('node = "charge_order"')
    text = text[:last] + 'node = "charge_ordr"' + text[last + len('node = "charge_order"') :]
    last = text.rindex(".item.name")
    text = text[:last] + ".item.nme" + text[last + len(".item.name") :]
    return text + '\n[[nodes]]\nid = "g1_t0"\ntype = "end"\noutcome = "ok"\n'


DOCUMENTS = {
    "billing-mistaken.wf.toml": BILLING_WITH_MISTAKES,
    "approvals-mistaken.wf.json": APPROVALS_WITH_MISTAKES,
    "store_audit.wf.toml": (EXAMPLES / "store_audit.wf.toml").read_text(encoding="utf-8"),
    "generated-mistaken.wf.toml": _generated_with_mistakes(),
}


def syntax_of(name: str) -> str:
    return "json" if name.endswith(".json") else "toml"


def findings(text: str, syntax: str) -> list[tuple[Any, ...]]:
    snapshot = analyze_text(text, syntax)  # type: ignore[arg-type]
    return [
        (p.code, p.message, p.severity, p.span, p.location, p.related, p.issue.data)
        for p in snapshot.issues
    ]


class Children:
    """The children forked while it is active, and what each sent back."""

    def __init__(self) -> None:
        self.results: list[bool] = []  # per child: whether a value came back


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> Iterator[Children]:
    """Forking allowed, from the smallest document on; records each child's fate."""
    children = Children()
    result = forked.Pending.result

    def recorded(self: forked.Pending) -> Any:
        value = result(self)
        children.results.append(value is not None)
        return value

    previous = forked.set_allowed(True)
    monkeypatch.setattr(forked.Pending, "result", recorded)
    monkeypatch.setattr(core, "SPLIT_FROM", 1)
    monkeypatch.setattr(toml_statements, "SPLIT_FROM", 1)
    yield children
    forked.set_allowed(previous)


def children_started(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[forked.Pending]:
    """The children ``module`` forks from now on (it calls ``in_child`` by that name)."""
    started: list[forked.Pending] = []
    in_child = module.in_child

    def spied(work: Callable[[], Any]) -> forked.Pending | None:
        pending = in_child(work)
        if pending is not None:
            started.append(pending)
        return pending

    monkeypatch.setattr(module, "in_child", spied)
    return started


def failing_in_child(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, raising when called in any process but this one."""
    parent = os.getpid()

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return function(*args, **kwargs)

    return wrapped


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_what_a_child_reads_and_checks_is_what_the_parent_would_find(
    name: str, forking: Children
) -> None:
    text = DOCUMENTS[name]
    forked.set_allowed(False)
    serial = findings(text, syntax_of(name))
    assert any(f[2].value == "error" for f in serial), "each document has mistakes"
    forked.set_allowed(True)
    assert findings(text, syntax_of(name)) == serial
    # TOML: one child reads, one checks; JSON: only the checking is shared.
    assert forking.results == [True, True] if name.endswith(".toml") else [True]


@pytest.mark.parametrize("name", ["generated-mistaken.wf.toml", "approvals-mistaken.wf.json"])
def test_when_the_child_fails_the_parent_does_its_part(
    name: str, forking: Children, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = DOCUMENTS[name]
    forked.set_allowed(False)
    serial = findings(text, syntax_of(name))
    forked.set_allowed(True)
    monkeypatch.setattr(core, "node_findings", failing_in_child(core.node_findings))
    monkeypatch.setattr(toml_statements, "read_chunk", failing_in_child(toml_statements.read_chunk))
    assert findings(text, syntax_of(name)) == serial
    assert forking.results and not any(forking.results)


def with_a_multi_line_string(text: str, at: int) -> str:
    """``text`` with a statement the fast reader does not cover inserted at ``at``."""
    return text[:at] + 'description = """\nmany\nlines"""\n' + text[at:]


def found_without_and_with_a_child(text: str) -> tuple[list[Any], list[Any]]:
    """The findings of a TOML ``text`` in a process that may not fork, then in one that
    may (the fixture ``forking`` set the rest up)."""
    forked.set_allowed(False)
    serial = findings(text, "toml")
    forked.set_allowed(True)
    return serial, findings(text, "toml")


def test_a_statement_the_child_cannot_read_goes_the_general_way(forking: Children) -> None:
    """The child gives up on a statement the fast reader does not cover (a multi-line
    string in its part): the text is parsed with the tree, as without a child."""
    text = DOCUMENTS["generated-mistaken.wf.toml"]
    text = with_a_multi_line_string(text, text.rindex('type = "node"'))
    serial, with_child = found_without_and_with_a_child(text)
    assert with_child == serial
    assert serial and forking.results == [True, True]


def test_a_statement_the_parent_cannot_read_leaves_the_child_reaped(
    forking: Children, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text is given up before the child's part is reached (a multi-line string in
    the parent's part): the child is not waited for but reaped, and the text is parsed
    with the tree, as without a child."""
    started = children_started(monkeypatch, toml_statements)
    text = DOCUMENTS["generated-mistaken.wf.toml"]
    text = with_a_multi_line_string(text, text.index('type = "node"'))
    serial, with_child = found_without_and_with_a_child(text)
    assert with_child == serial
    assert len(started) == 1 and forking.results == [True]  # the reading child, unread
    with pytest.raises(ChildProcessError):
        os.waitpid(started[0].pid, os.WNOHANG)


def test_when_the_parent_fails_its_part_the_child_is_reaped(
    forking: Children, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*args: Any) -> Any:
        raise RuntimeError("the parent's part fails")

    started = children_started(monkeypatch, core)
    snapshot = analyze_text(DOCUMENTS["approvals-mistaken.wf.json"], "json")
    assert snapshot.workflow is not None and snapshot.context is not None
    monkeypatch.setattr(core, "node_findings", failing)
    with pytest.raises(RuntimeError, match="the parent's part fails"):
        core.validate_workflow(snapshot.workflow, context=snapshot.context)
    assert len(started) == 1 and not forking.results
    with pytest.raises(ChildProcessError):
        os.waitpid(started[0].pid, os.WNOHANG)


def test_a_validation_with_a_child_equals_one_without(forking: Children) -> None:
    snapshot = analyze_text(DOCUMENTS["approvals-mistaken.wf.json"], "json")
    assert snapshot.workflow is not None and snapshot.context is not None

    def validated() -> list[Any]:
        return core.validate_workflow(snapshot.workflow, context=snapshot.context).issues

    with_a_child = validated()
    assert forking.results == [True]
    forked.set_allowed(False)
    assert validated() == with_a_child == list(snapshot.report.issues)


def _tables_by_path(chunk: Any) -> list[tuple[tuple[Any, ...], Any]]:
    return sorted(toml_chunks._paths_of(chunk.table, chunk.tables))


def test_a_state_sent_to_the_parent_is_the_chunk_it_was_read_as() -> None:
    """What the reading child sends (``StateWriter``) comes back as the chunk the parent
    would have read: the same values, entries, occurrences and header, and the tables
    the chunk lists (by identity, which does not survive pickling) at the same paths.
    Two statements alike share what is equal in their states, and only that: each
    keeps tables and arrays of its own."""
    text = '[[nodes]]\nid = "a"\nitem_error.action = "skip"\nx.y.z = 1\nin = [{ a = "b" }]\n'
    chunk = toml_chunks.read_chunk(text, True)
    assert chunk is not None and len(chunk.tables) == 3  # item_error, x, x.y
    writer = toml_chunks.StateWriter()
    first, second = writer.state(chunk), writer.state(toml_chunks.read_chunk(text, True))
    first, second = pickle.loads(pickle.dumps((first, second), protocol=pickle.HIGHEST_PROTOCOL))
    for state in (first, second):
        again = toml_chunks.chunk_from_state(text, state)
        assert (again.table, again.entries, again.occ) == (chunk.table, chunk.entries, chunk.occ)
        assert (again.header, again.end, again.key) == (chunk.header, chunk.end, chunk.key)
        assert _tables_by_path(again) == _tables_by_path(chunk)
    assert next(iter(first[5])) is next(iter(second[5]))  # an entry's location, shared
    assert first[0]["id"] is second[0]["id"]  # a string, shared
    assert first[0] is not second[0] and first[0]["in"] is not second[0]["in"]


def _snapshot_found_alone(name: str) -> Any:
    """The analysis of ``DOCUMENTS[name]`` with its findings placed, made without a child."""
    forked.set_allowed(False)
    snapshot = analyze_text(DOCUMENTS[name], syntax_of(name))  # type: ignore[arg-type]
    assert snapshot.issues
    return snapshot


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_text_printed_by_two_processes_is_the_text_printed_by_one(
    name: str, forking: Children, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child prints the last trees of findings (each with its consequences indented
    under it); the text is what one process prints, and so are the counts."""
    snapshot = _snapshot_found_alone(name)
    found = findings_for(name, snapshot)
    expected = render_text(found)
    counts = Counter(f.severity for f in found)
    monkeypatch.setattr(reporting, "SPLIT_FROM", 1)
    alone = text_for(name, snapshot)
    forked.set_allowed(True)
    with_a_child = text_for(name, snapshot)
    assert alone.text == with_a_child.text == expected
    assert alone.severities == with_a_child.severities == counts
    assert forking.results == [True]


def test_a_cause_and_its_consequences_are_printed_by_one_process(
    forking: Children, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A typo in ``start`` makes the reads of the loop bodies consequences of it, listed
    under it wherever they sit; with the split in the middle of them, the text is still
    one process's."""
    text = DOCUMENTS["generated-mistaken.wf.toml"].replace(
        'start = "g0_customers"', 'start = "g0_customer"'
    )
    forked.set_allowed(False)
    snapshot = analyze_text(text, "toml")
    found = findings_for("g.wf.toml", snapshot)
    (start,) = [f for f in found if f.code == "unknown_start"]
    assert len(start.consequences) > 10
    monkeypatch.setattr(reporting, "SPLIT_FROM", 1)
    forked.set_allowed(True)
    assert text_for("g.wf.toml", snapshot).text == render_text(found)
    assert forking.results == [True]


def test_when_the_printing_child_fails_the_parent_prints_its_part(
    forking: Children, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = _snapshot_found_alone("generated-mistaken.wf.toml")
    expected = render_text(findings_for("g.wf.toml", snapshot))
    monkeypatch.setattr(reporting, "SPLIT_FROM", 1)
    in_child = reporting.in_child
    monkeypatch.setattr(reporting, "in_child", lambda work: in_child(failing_in_child(work)))
    forked.set_allowed(True)
    assert text_for("g.wf.toml", snapshot).text == expected
    assert forking.results == [False]


_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"')


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(DOCUMENTS)),
    where=st.floats(min_value=0, max_value=1, exclude_max=True),
    insert=st.sampled_from(["x", "", ".", "item.", '"', "]", "\n", "[[nodes]]\n", " = "]),
    delete=st.integers(min_value=0, max_value=3),
)
def test_an_edited_document_is_found_the_same_with_a_child(
    name: str, where: float, insert: str, delete: int
) -> None:
    text = DOCUMENTS[name]
    at = int(where * (len(text) + 1))
    text = text[:at] + insert + text[at + delete :]
    saved = (forked.set_allowed(False), core.SPLIT_FROM, toml_statements.SPLIT_FROM)
    try:
        serial = findings(text, syntax_of(name))
        forked.set_allowed(True)
        core.SPLIT_FROM, toml_statements.SPLIT_FROM = 1, 1
        assert findings(text, syntax_of(name)) == serial
    finally:
        forked.set_allowed(saved[0])
        core.SPLIT_FROM, toml_statements.SPLIT_FROM = saved[1:]


def test_no_child_unless_the_process_allows_it() -> None:
    assert not forked.allowed()
    assert forked.in_child(lambda: 1) is None


def test_a_process_on_one_processor_does_not_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    previous = forked.set_allowed(False)
    try:
        if hasattr(os, "sched_getaffinity"):
            monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
        else:
            monkeypatch.setattr(os, "cpu_count", lambda: 1)
        forked.allow()
        assert not forked.allowed()
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
        forked.allow()
        assert forked.allowed() == hasattr(os, "fork")
    finally:
        forked.set_allowed(previous)


def test_a_child_given_up_on_is_reaped() -> None:
    previous = forked.set_allowed(True)
    try:
        pending = forked.in_child(lambda: "x" * 1_000_000)  # more than a pipe holds
    finally:
        forked.set_allowed(previous)
    assert pending is not None
    pending.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pending.pid, os.WNOHANG)


def test_wfls_check_prints_with_a_child_what_it_prints_without(tmp_path: Path) -> None:
    """The executable forks on a document of 2,000 nodes; ``main`` (in process, as
    the other tests call it) never does."""
    path = tmp_path / "big.wf.toml"
    text = generate_toml(2000).replace(".item.name", ".item.nam", 2)
    last = text.rindex(".item.name")  # and one in the child's half
    text = text[:last] + ".item.nme" + text[last + len(".item.name") :]
    path.write_text(text, encoding="utf-8")
    assert len(toml_statements.statements(text) or ()) >= toml_statements.SPLIT_FROM
    command = [sys.executable, "-c", "from wfls.cli import entry; entry()", "check", str(path)]
    with_child = subprocess.run(command, capture_output=True, text=True, check=False)
    script = (
        "import sys; from wf_core import forked; forked.allow = lambda: None; "
        "from wfls.cli import entry; entry()"
    )
    without = subprocess.run(
        [sys.executable, "-c", script, "check", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert with_child.returncode == without.returncode == 1
    assert with_child.stdout == without.stdout
    assert with_child.stdout.count("error[invalid_context_path]") == 3
