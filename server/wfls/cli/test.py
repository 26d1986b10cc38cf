"""``wfls test [PATH...]``: run workflow test documents and report what held.

Each PATH is a test document (``*.wf.test.toml``/``*.wf.test.json``) or a folder, every
such file below it (hidden folders and ``node_modules`` skipped); none: the current
folder. A document's workflow is looked up by name in the workflows under its own
folder (or under ``--root``), or by a path relative to the document.

Exit statuses (the contract the editors share): 0 every case passed, 1 a case failed,
2 a document cannot be read or has a finding (``check_test_document``: an unknown
workflow, node or outcome, ...), or bad arguments.

Formats: ``text`` (each case, each failure at ``file:line:col`` with expected/actual
and, for a wrong path, the activations), ``json`` (``wf_core.workflow_tests.to_json``),
``junit`` (JUnit XML, as the Ant JUnit task writes it) and ``github`` (workflow
command annotations).
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from wfls.cli.exits import EXIT_USAGE

if TYPE_CHECKING:
    from wf_core.runtime import Handler
    from wf_core.workflow_tests import Failure, FileResult
    from wf_core.workspace.catalog import Workspace

FORMATS = ("text", "json", "junit", "github")


def add_test_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="test documents (*.wf.test.toml, *.wf.test.json) or folders (every one below "
        "them); default: the current folder",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        dest="fmt",
        help="text (default), json (one object: files, cases, failures, summary), junit "
        "(JUnit XML) or github (GitHub Actions annotations)",
    )
    parser.add_argument(
        "--case",
        action="append",
        dest="cases",
        metavar="NAME",
        help="run only the case of this name (repeatable)",
    )
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="look workflows up in the documents under DIR (default: each test document's "
        "folder and below)",
    )
    parser.add_argument(
        "--handlers",
        metavar="MODULE:MAPPING",
        help="handlers for the nodes a case does not pin, as for wfls run (default: stand-ins)",
    )


def _test_documents(folder: Path) -> Iterator[Path]:
    from wf_core.workflow_tests import is_test_document

    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") or part == "node_modules" for part in relative.parts[:-1]):
            continue
        if path.is_file() and is_test_document(path.name):
            yield path


def _unreadable(path: str, reason: str) -> FileResult:
    from wf_core.base.spans import LineIndex, Span
    from wf_core.workflow_tests import Failure, FileResult

    return FileResult(
        path, None, Failure(f"cannot read '{path}': {reason}", Span(0, 0)), (), LineIndex("")
    )


class _Workspaces:
    """One scanned workspace per folder, shared by the documents under it."""

    def __init__(self, root: str | None) -> None:
        self.root = Path(root) if root is not None else None
        self._made: dict[Path, Workspace] = {}

    def for_document(self, path: Path) -> Workspace:
        from wf_core.workspace.catalog import workspace_for

        folder = (self.root or path.parent).resolve()
        workspace = self._made.get(folder)
        if workspace is None:
            workspace = workspace_for([folder])
            workspace.scan()
            self._made[folder] = workspace
        return workspace


def run_tests(
    paths: Sequence[str],
    *,
    fmt: str = "text",
    cases: Sequence[str] | None = None,
    root: str | None = None,
    handlers: str | None = None,
) -> int:
    """Run the test documents of ``paths`` and print the results in ``fmt``."""
    from wf_core.base.reading import decode, syntax_of
    from wf_core.workflow_tests import read_test_document, run_test_document, summary

    if root is not None and not Path(root).is_dir():
        print(f"wfls: --root {root!r} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    mapping: dict[str, Handler] | None = None
    if handlers is not None:
        from wfls.cli.run import UsageError, import_handlers

        try:
            mapping = import_handlers(handlers)
        except UsageError as problem:
            print(f"wfls: {problem}", file=sys.stderr)
            return EXIT_USAGE
    documents: list[tuple[str, Path | None]] = []  # (as shown, the file; None: missing)
    for given in paths or ["."]:
        named = Path(given)
        if named.is_dir():
            for found in _test_documents(named):
                relative = found.relative_to(named)
                documents.append((str(relative if given == "." else named / relative), found))
        else:
            documents.append((given, named if named.is_file() else None))
    workspaces = _Workspaces(root)
    results: list[FileResult] = []
    for shown, path in documents:
        if path is None:
            results.append(_unreadable(shown, "no such file"))
            continue
        try:
            data = path.read_bytes()
        except OSError as error:
            results.append(_unreadable(shown, error.strerror or str(error)))
            continue
        text, _bad_bytes = decode(data)
        loaded = read_test_document(text, syntax_of(path))
        results.append(
            run_test_document(
                shown,
                loaded,
                workspaces.for_document(path),
                base=path.parent.resolve(),
                cases=set(cases) if cases else None,
                handlers=mapping,
            )
        )
    out = sys.stdout
    if fmt == "json":
        from wf_core.workflow_tests import to_json

        out.write(json.dumps(to_json(results), indent=2, ensure_ascii=False) + "\n")
    elif fmt == "junit":
        out.write(junit_xml(results))
    elif fmt == "github":
        out.write(github_annotations(results))
    else:
        out.write(text_report(results))
    return summary(results).exit_status


def _value(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _where(file: FileResult, offset: int) -> str:
    line, column = file.position(offset)
    return f"{file.path}:{line}:{column}"


def text_report(files: Sequence[FileResult]) -> str:
    """Each document and its cases; each failure at its place with expected/actual,
    and the activations that led there for a wrong path; then the totals."""
    from wf_core.workflow_tests import summary

    lines: list[str] = []
    for file in files:
        named = f" ({file.workflow})" if file.workflow else ""
        lines.append(f"{file.path}{named}")
        if file.error is not None:
            lines.append(f"  {_where(file, file.error.span.start)}: error: {file.error.message}")
        for case in file.cases:
            mark = {"passed": "✓", "failed": "✗", "error": "!"}[case.status]
            took = f" ({case.duration_ms:.0f} ms)" if case.status != "error" else ""
            lines.append(f"  {mark} {case.name}{took}")
            for failure in case.failures:
                lines.append(f"      {_where(file, failure.span.start)}: {failure.message}")
                if failure.expected is not None or failure.actual is not None:
                    lines.append(f"        expected: {_value(failure.expected)}")
                    lines.append(f"        actual:   {_value(failure.actual)}")
                if failure.activations:
                    lines.append("        activations:")
                    lines.extend(f"          {label}" for label in failure.activations)
    totals = summary(files)
    lines.append(f"{totals.passed} passed, {totals.failed} failed, {totals.errors} errors")
    return "\n".join(lines) + "\n"


def _github_escape(text: str, *, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def github_annotations(files: Sequence[FileResult]) -> str:
    """One ``::error`` workflow command per failure and per document error, at its place."""
    lines: list[str] = []
    for file in files:
        problems = [(file.error, "wfls test")] if file.error is not None else []
        for case in file.cases:
            problems += [(failure, f"wfls test: {case.name}") for failure in case.failures]
        for failure, title in problems:
            assert failure is not None
            line, column = file.position(failure.span.start)
            end_line, end_column = file.position(failure.span.end)
            message = failure.message
            if failure.expected is not None or failure.actual is not None:
                message += (
                    f"\nexpected: {_value(failure.expected)}\nactual: {_value(failure.actual)}"
                )
            where = ",".join(
                [
                    f"file={_github_escape(file.path, property_value=True)}",
                    f"line={line}",
                    f"col={column}",
                    f"endLine={end_line}",
                    f"endColumn={end_column}",
                    f"title={_github_escape(title, property_value=True)}",
                ]
            )
            lines.append(f"::error {where}::{_github_escape(message)}")
    return "".join(line + "\n" for line in lines)


def _failure_text(file: FileResult, failure: Failure) -> str:
    text = f"{_where(file, failure.span.start)}: {failure.message}"
    if failure.expected is not None or failure.actual is not None:
        text += f"\nexpected: {_value(failure.expected)}\nactual: {_value(failure.actual)}"
    return text + "".join(f"\n  {label}" for label in failure.activations)


def junit_xml(files: Sequence[FileResult], *, now: datetime | None = None) -> str:
    """JUnit XML as the Ant JUnit task writes it: one ``testsuite`` per document (a
    document whose error stops it before any case is one ``error`` test case), one
    ``testcase`` per case with a ``failure`` when it failed and an ``error`` when it
    could not run; every attribute and element the Ant format requires is written."""
    from xml.etree import ElementTree

    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S")
    host = socket.gethostname() or "localhost"
    root = ElementTree.Element("testsuites")
    for number, file in enumerate(files):
        suite = ElementTree.SubElement(root, "testsuite")
        ElementTree.SubElement(suite, "properties")
        counts = {"failure": 0, "error": 0}
        total = 0.0
        rows: list[tuple[str, float, str | None, list[Failure]]] = [
            (case.name, case.duration_ms / 1000, _KINDS[case.status], list(case.failures))
            for case in file.cases
        ]
        if file.error is not None and not file.cases:
            rows.append(("(document)", 0.0, "error", [file.error]))
        for name, seconds, kind, failures in rows:
            total += seconds
            case = ElementTree.SubElement(
                suite, "testcase", name=name, classname=file.path, time=f"{seconds:.6f}"
            )
            if kind is None:
                continue
            counts[kind] += 1
            problem = ElementTree.SubElement(
                case,
                kind,
                message=failures[0].message if failures else "the case could not run",
                type="wfls.test",
            )
            problem.text = "\n".join(_failure_text(file, failure) for failure in failures)
        suite.attrib.update(
            {
                "name": file.path,
                "package": file.workflow or file.path,
                "id": str(number),
                "timestamp": stamp,
                "hostname": host,
                "tests": str(len(rows)),
                "failures": str(counts["failure"]),
                "errors": str(counts["error"]),
                "skipped": "0",
                "time": f"{total:.6f}",
            }
        )
        ElementTree.SubElement(suite, "system-out")
        ElementTree.SubElement(suite, "system-err")
    ElementTree.indent(root)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + ElementTree.tostring(root, encoding="unicode")
        + "\n"
    )


_KINDS: dict[str, str | None] = {"passed": None, "failed": "failure", "error": "error"}
