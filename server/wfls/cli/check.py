"""``wfls check``, and the loading of documents from disk that the other commands share
(``load_file``).

Kept apart from ``wfls.cli``, which imports a command's module only when that
command runs: ``wfls --version`` loads nothing of ``wf_core``, ``wfls schema`` only
its model.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wf_core.base.issues import Severity
from wf_core.base.reading import decode, iter_workflow_files, syntax_of
from wf_core.base.spans import LineIndex
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.checks import document_issues
from wf_core.workspace.files import Roots, is_symlink_loop
from wfls import __version__
from wfls.cli.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from wfls.cli.reporting import (
    Finding,
    OtherDocument,
    analysis_failed,
    findings_for,
    read_error,
    render_github,
    render_json,
    render_sarif,
    render_text,
    terminal_safe,
    text_for,
)


def load_file(path: Path) -> DocumentSnapshot:
    """Analyse one file from disk; raises OSError when it cannot be read."""
    return load_text(path.read_bytes(), str(path), uri=path.resolve().as_uri())


def load_text(data: bytes, name: str, *, uri: str | None = None) -> DocumentSnapshot:
    text, decode_issue = decode(data)
    return analyze_text(
        text,
        syntax_of(name),
        uri=uri,
        extra_issues=(decode_issue,) if decode_issue else (),
    )


@dataclass
class Inputs:
    """What ``wfls check`` was asked to read: files (each once) and paths it could not.

    ``named``: the real paths of the files named themselves (not found in a folder), read
    whatever their size; ``skipped``: those of the files found in a folder that the scan
    of the workspace skipped, and said so (``_workspace``), which are not checked."""

    files: list[Path]
    unreadable: list[tuple[str, str]]  # (path as given, reason)
    named: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)


def collect_files(paths: Sequence[str]) -> Inputs:
    files: list[Path] = []
    seen: set[Path] = set()
    unreadable: list[tuple[str, str]] = []
    named: set[str] = set()

    def add(path: Path) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            files.append(path)

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = list(iter_workflow_files(path))
            if not found:
                unreadable.append(
                    (raw, "no workflow documents (*.wf.toml, *.wf.json) in this folder")
                )
            for file in found:
                add(file)
        elif path.is_file():
            add(path)
            named.add(os.path.realpath(path))
        elif path.exists():
            unreadable.append((raw, "not a regular file"))
        elif is_symlink_loop(path):
            unreadable.append((raw, "a symlink loop"))
        else:
            unreadable.append((raw, "no such file or directory"))
    return Inputs(files, unreadable, named)


def _workspace(paths: Sequence[str], inputs: Inputs, root: str | None) -> Workspace:
    """The documents subgraphs resolve against: those under ``root`` when it is given;
    otherwise those under each folder named, each named file's folder and, for ``-``
    (which has no folder of its own), the current folder. The documents checked join it
    wherever they lie (``run_check``). Files skipped in a folder the user named (``DIR``
    or ``--root``) are listed; the other folders are searched quietly, since the user
    did not ask for what else lies there. A file named itself is not listed: it is read
    whatever its size; one found in a folder that is listed is not checked either
    (``Inputs.skipped``), as the language server's index leaves it out."""
    named = [Path(root)] if root else [Path(p) for p in paths if p != "-" and Path(p).is_dir()]
    quiet = [] if root else [path.parent for path in inputs.files]
    if "-" in paths and not root:
        quiet.append(Path.cwd())
    workspace = Workspace(Roots([*named, *quiet]))
    told = [folder.absolute() for folder in named]
    for skipped in workspace.scan().skipped:
        where = os.path.realpath(skipped.path)
        if where in inputs.named:
            continue
        # Lexically: the scan joins names under the folders, and a skipped path may
        # not resolve at all (a symlink loop).
        if any(skipped.path.absolute().is_relative_to(folder) for folder in told):
            print(
                terminal_safe(f"wfls: skipped {str(skipped.path)!r}: {skipped.reason}"),
                file=sys.stderr,
            )
            inputs.skipped.add(where)
    return workspace


def _read_stdin(workspace: Workspace, name: str) -> str:
    """Put standard input in the workspace as the document ``name`` (a path, relative
    to the current folder): in place of that file when the workspace holds it, as an
    editor's unsaved text is. Returns the URI the workspace holds it under."""
    uri = Path(name).resolve().as_uri()
    workspace.put(uri, load_text(sys.stdin.buffer.read(), name, uri=uri), path=Path(name))
    return uri


def workspace_for(file: Path, root: str | None) -> tuple[Workspace, str, str | None]:
    """The workspace ``wfls check FILE`` (with ``--root``) checks ``file`` in, the URI
    ``file`` has in it and, when it could not be read, why (else None). ``wfls run``
    runs what this finds, so that it runs what ``check`` accepted."""
    workspace = _workspace([str(file)], Inputs([file], [], {os.path.realpath(file)}), root)
    uri = file.resolve().as_uri()
    if workspace.document(uri) is None:
        problem = workspace.load(file, named=True)
        if problem is not None:
            return workspace, uri, problem.reason
    return workspace, uri, None


def other_document(workspace: Workspace) -> OtherDocument:
    def lookup(uri: str) -> tuple[str, LineIndex] | None:
        document = workspace.document(uri)
        if document is None:
            return None
        return str(document.path or uri), document.snapshot.lines

    return lookup


def run_check(
    paths: Sequence[str],
    *,
    fmt: str = "text",
    strict: bool = False,
    stdin_filename: str | None = None,
    root: str | None = None,
    kept: list[object] | None = None,
) -> int:
    """Check ``paths`` (``-`` is standard input) and print every finding in ``fmt``.

    Subgraphs resolve in the workspace ``_workspace`` makes: ``root`` and below when it
    is given, else each file's folder, each folder named and, for ``-``, the current
    folder. The workspace and the findings are added to ``kept`` when it is given, for
    a caller that is about to end the process and would rather not free them object by
    object first.
    """
    if root is not None and not Path(root).is_dir():
        print(terminal_safe(f"wfls: --root {root!r} is not a folder"), file=sys.stderr)
        return EXIT_USAGE
    inputs = collect_files([p for p in paths if p != "-"])
    text = fmt == "text"
    findings: list[Finding] = []  # the machine formats'
    printed: list[str] = []  # the text format's, file by file
    severities: Counter[str] = Counter()
    checked = 0
    workspace = _workspace(paths, inputs, root)

    def report(file: str, uri: str) -> None:
        nonlocal checked
        document = workspace.document(uri)
        assert document is not None
        checked += 1
        try:
            snapshot, issues = document.snapshot, document_issues(workspace, uri)
            if text:
                found = text_for(file, snapshot, issues, other_document(workspace))
                printed.append(found.text)
                severities.update(found.severities)
            else:
                made = findings_for(file, snapshot, issues, other_document(workspace))
                findings.extend(made)
                severities.update(f.severity for f in made)
        except Exception as error:
            crashed(file, error)

    def crashed(file: str, error: Exception) -> None:
        """A failure of ``file``'s analysis (a bug) is its one finding, its traceback goes
        to stderr, and the next file is checked."""
        print(terminal_safe(f"wfls: the analysis of {file!r} failed:"), file=sys.stderr)
        for line in traceback.format_exception(error):
            sys.stderr.write("".join(terminal_safe(part) + "\n" for part in line.splitlines()))
        failed = analysis_failed(file, error)
        if text:
            printed.append(render_text([failed]))
        else:
            findings.append(failed)
        severities[failed.severity] += 1

    stdin_uri = None
    if "-" in paths:
        name = stdin_filename or "<stdin>"
        try:
            stdin_uri = _read_stdin(workspace, name)
        except Exception as error:
            stdin_uri = Path(name).resolve().as_uri()  # (not checked again from disk)
            checked += 1
            crashed(name, error)
        else:
            report(name, stdin_uri)
    for path in inputs.files:
        uri = path.resolve().as_uri()
        if uri == stdin_uri:
            continue  # standard input took its place, and was checked as it
        if os.path.realpath(path) in inputs.skipped:
            continue  # as the scan said
        if workspace.document(uri) is None:
            problem = workspace.load(path, named=True)
            if problem is not None:
                inputs.unreadable.append((str(path), problem.reason))
                continue
        report(str(path), uri)
    if not text:
        findings.extend(
            read_error(raw, f"cannot read {raw!r}: {why}") for raw, why in inputs.unreadable
        )
    renderers: dict[str, Callable[[list[Finding]], str]] = {
        "json": render_json,
        "github": render_github,
        "sarif": lambda items: render_sarif(items, version=__version__),
    }
    sys.stdout.write("".join(printed) if text else renderers[fmt](findings))
    if kept is not None:
        kept.extend((workspace, findings))
    for raw, why in inputs.unreadable:
        print(terminal_safe(f"wfls: cannot read {raw!r}: {why}"), file=sys.stderr)
    if text and checked:
        print(summary(checked, severities), file=sys.stderr)
    if inputs.unreadable:
        return EXIT_USAGE
    failing = (Severity.ERROR, Severity.WARNING) if strict else (Severity.ERROR,)
    return EXIT_FINDINGS if any(severities[s.value] for s in failing) else EXIT_OK


def summary(checked: int, severities: Mapping[str, int]) -> str:
    """The last line of the text output: errors and warnings always (what the exit
    status follows), information and hints each when there are any."""
    counts = [
        f"{severities.get(Severity.ERROR.value, 0)} error(s)",
        f"{severities.get(Severity.WARNING.value, 0)} warning(s)",
    ]
    information = severities.get(Severity.INFORMATION.value, 0)
    if information:
        counts.append(f"{information} information")
    hints = severities.get(Severity.HINT.value, 0)
    if hints:
        counts.append(f"{hints} hint" + ("" if hints == 1 else "s"))
    return f"{checked} file(s) checked: " + ", ".join(counts)
