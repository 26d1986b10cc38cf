"""One semantics: the same generated workspaces through every front door give one answer.

Each example is a caller and the child its subgraph node runs (``workspaces.Shape``),
written to a folder. What ``wfls check`` says of them decides what every other front
door must do:

- ``wfls run`` and the editor's run (``wfls.runWorkflow``) run what ``check`` accepts
  to completion, and refuse, before any node runs, exactly what it does not, ``wfls
  run`` printing the findings ``check`` prints;
- every path completion offers, at every position of every path, names something
  ``check`` resolves there, and every outcome it offers on an edge is one ``check``
  finds declared.

The server's diagnostics of the same documents, through the protocol, are compared
with ``check``'s in ``tests/lsp/test_one_semantics_lsp.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import event, given, settings
from workspaces import INPUT, Shape, shapes, write

from tests.features.fixture import apply
from wf_core.base.spans import Span
from wf_core.semantic.build import ROOTS
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.checks import document_issues
from wf_core.workspace.files import Roots
from wfls.cli import main
from wfls.features.completion import complete
from wfls.features.run import RunRefused, run_document

EXAMPLES = settings(max_examples=25, deadline=None)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def written(shape: Shape) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        yield write(shape, Path(folder))


def indexed(caller: Path) -> tuple[Workspace, str, DocumentSnapshot]:
    """The workspace the editor has of the caller's folder, the caller's URI and its
    analysis there."""
    workspace = Workspace(Roots([caller.parent]))
    workspace.scan()
    uri = caller.resolve().as_uri()
    document = workspace.document(uri)
    assert document is not None
    return workspace, uri, document.snapshot


# -- check, wfls run and the editor's run ------------------------------------------------


def editor_run(caller: Path) -> dict[str, Any]:
    workspace, _, snapshot = indexed(caller)
    try:
        answer, _ = run_document(snapshot, INPUT, workspace=workspace)
    except RunRefused as refused:
        return {"status": "refused before the run", "error": str(refused)}
    return answer


@EXAMPLES
@given(shapes())
def test_both_runs_run_what_check_accepts_and_refuse_what_it_does_not(shape: Shape) -> None:
    with written(shape) as caller:
        folder = caller.parent
        everything, _, _ = cli("check", str(folder))
        alone, printed, _ = cli("check", str(caller))
        code, out, err = cli(
            "run", str(caller), "--input", str(folder / "input.json"), "--format", "json"
        )
        editor = editor_run(caller)
        child_printed = ""
        if (folder / shape.child_file).exists():
            child_printed = cli("check", str(folder / shape.child_file))[1]

    event("check accepts" if everything == 0 else "check finds errors")
    if everything == 0:
        assert (code, err.startswith("completed")) == (0, False), err
        result = json.loads(out)
        assert (result["status"], result["outcome"]) == ("completed", "ok"), result
        assert isinstance(result["output"]["sent"], int), result  # written by the child
        assert (editor["status"], editor["outcome"], editor["output"]) == (
            "completed",
            "ok",
            result["output"],
        )
        return
    # Refused before any node ran: nothing on stdout, one line saying why at the end.
    assert (code, out) == (1, ""), (out, err)
    assert editor["status"] == "refused before the run", editor
    if alone != 0:
        # The caller's own findings, printed as ``check`` prints them.
        assert err.startswith(printed) and printed
        assert err.endswith("error(s); fix them before running it\n"), err
        assert editor["error"].startswith("the workflow has "), editor
    else:
        # The caller is fine and its child is not: the child's findings.
        assert child_printed and child_printed in err, err
        assert f"the child workflow '{'notify'}' has " in editor["error"], editor


# -- completion ----------------------------------------------------------------------------


def _probe(workspace: Workspace, uri: str, snapshot: DocumentSnapshot, text: str) -> Any:
    """The findings ``check`` makes of the caller written as ``text``."""
    workspace.put(uri, analyze_text(text, snapshot.parsed.syntax, uri=uri))
    return document_issues(workspace, uri)


def _errors_within(issues: Any, span: Span) -> list[str]:
    """The errors on the path as far as a completion wrote it. A foreach's ``over``
    written only part of the way names an object, not yet the array it must end at:
    that path resolves, and the type is checked once it is complete."""
    return [
        f"{i.code}: {i.message}"
        for i in issues
        if i.severity == "error"
        and span.start <= i.span.start
        and i.span.end <= span.end
        and not i.message.endswith("must resolve to an array")
    ]


def _accepted(text: str, replace: Span, insert: str, literal_end: int) -> tuple[str, Span]:
    """The text with a completion accepted and the rest of its string cut off: the path
    as far as the completion wrote it, and the span of that string's content."""
    return text[: replace.start] + insert + text[literal_end:], Span(
        replace.start, replace.start + len(insert)
    )


@EXAMPLES
@given(shapes())
def test_every_path_completion_offers_resolves_in_check(shape: Shape) -> None:
    with written(shape) as caller:
        workspace, uri, snapshot = indexed(caller)
        text = snapshot.text
        probes: dict[str, tuple[str, int, Span]] = {}
        for path in snapshot.index.paths:
            literal = path.literal
            for offset in range(literal.content.start, literal.content.end + 1):
                for candidate in complete(snapshot, offset, workspace):
                    if (
                        candidate.replace.start == literal.content.start
                        and candidate.label in ROOTS
                    ):
                        continue  # a root (``state``): where a path starts, not one yet
                    probe, written_span = _accepted(
                        text, candidate.replace, candidate.insert_text, literal.content.end
                    )
                    where = Span(literal.span.start, written_span.end + 1)
                    probes.setdefault(probe, (candidate.label, offset, where))
        assert len(probes) >= 10, "completion offered next to nothing"
        for probe, (label, offset, where) in probes.items():
            issues = _probe(workspace, uri, snapshot, probe)
            found = _errors_within(issues, where)
            assert found == [], (
                label,
                text[:offset] + "|" + text[offset:],
                probe[where.start : where.end],
                found,
            )


def _undeclared(issues: Any, index: int) -> list[str]:
    location = ("edges", index, "outcome")
    return [
        i.message for i in issues if i.code == "undeclared_edge_outcome" and i.location == location
    ]


@EXAMPLES
@given(shapes())
def test_every_outcome_completion_offers_is_declared(shape: Shape) -> None:
    """On every edge's ``outcome``, completion offers what the ``from`` node declares:
    each accepted is no ``undeclared_edge_outcome``, and the edge's own is among them
    exactly when ``check`` finds it declared."""
    with written(shape) as caller:
        workspace, uri, snapshot = indexed(caller)
        text = snapshot.text
        found = document_issues(workspace, uri)
        offers = []
        for index, edge in enumerate(snapshot.parsed.values["edges"]):
            literal = snapshot.parsed.source_map.string(("edges", index, "outcome"))
            assert literal is not None
            offered = {c.label: c for c in complete(snapshot, literal.content.start, workspace)}
            declared = not _undeclared(found, index)
            assert (edge["outcome"] in offered) == declared, (edge, sorted(offered))
            offers.extend((index, edge, candidate) for candidate in offered.values())
        for index, edge, candidate in offers:
            probe = apply(text, [(candidate.replace, candidate.insert_text)])
            undeclared = _undeclared(_probe(workspace, uri, snapshot, probe), index)
            assert undeclared == [], (edge, candidate.label, undeclared)
