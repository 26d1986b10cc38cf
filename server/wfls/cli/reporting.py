"""Diagnostics for people and machines: text, JSON, SARIF 2.1.0, GitHub annotations.

The JSON shape is a contract (language-server.md): 1-based lines, columns in
code points, ``model_path`` null for syntax errors; ``help`` (a did-you-mean)
and ``related`` (other places that explain the finding) are added when present.

Text output is for a terminal: one mistake reads as one error, with the
findings that only follow from it indented beneath; source excerpts are cut
around the range, and user text never reaches the terminal with raw control
characters.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from wf_core.base.issues import Related, Severity, internal_error
from wf_core.base.records import record
from wf_core.base.spans import LineIndex
from wf_core.version.snapshot import DocumentSnapshot, PlacedIssue

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/lda-wf/wfls"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}
EXCERPT_WIDTH = 100
"""Characters of a source line shown around a range; a minified document has one
line of many kilobytes, which must not be printed once per finding."""

_SEVERITY_NAMES = {severity: severity.value for severity in Severity}
_BEYOND_C0 = "\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
UNSAFE = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
"""What no output shows raw: C0 and C1 controls (ESC starts a terminal's escape
sequence, a newline starts a line a CI log would read as a command of its own), DEL,
the bidirectional embeddings, overrides and isolates (they reorder what a reader sees
of the text after them) and lone surrogates (a file name's undecodable bytes: no
encoding holds them)."""
_RAW_IN_JSON = re.compile(f"[{_BEYOND_C0}]")
"""What of ``UNSAFE`` ``json.dumps`` leaves raw (it escapes C0 controls in strings, and
its own newlines are JSON's whitespace)."""
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(char: str) -> str:
    code = ord(char)
    return _SHORT_ESCAPES.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def _json_escape(char: str) -> str:
    return f"\\u{ord(char):04x}"


def terminal_safe(text: str, *, json_text: bool = False) -> str:
    """``text`` with every ``UNSAFE`` character escaped: the one escaping of every output
    of the command line. For people (text, GitHub annotations, messages on stderr) as
    Python writes it (``\\n``, ``\\x1b``, ``\\u202e``); with ``json_text``, in JSON
    text (JSON and SARIF output, made by ``json.dumps``) as a JSON ``\\uNNNN`` escape,
    which decodes to the same value."""
    pattern = _RAW_IN_JSON if json_text else UNSAFE
    if pattern.search(text) is None:
        return text
    return pattern.sub(lambda m: (_json_escape if json_text else _shown)(m.group()), text)


@record
class Position:
    line: int  # 1-based
    column: int  # 1-based, code points


@record
class RelatedPlace:
    start: Position
    end: Position
    message: str
    file: str | None = None  # another document (None: the finding's own)


@record
class Finding:
    """One diagnostic of one file, in 1-based line/column (code points)."""

    file: str
    start: Position
    end: Position
    severity: str
    code: str
    model_path: str | None
    message: str
    source_line: str = ""
    help: str | None = None
    related: tuple[RelatedPlace, ...] = ()
    cause: int | None = None  # index (in the file's findings) of the finding this follows from
    consequences: list[int] = field(default_factory=list, compare=False)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file,
            "start": {"line": self.start.line, "column": self.start.column},
            "end": {"line": self.end.line, "column": self.end.column},
            "severity": self.severity,
            "code": self.code,
            "model_path": self.model_path,
            "message": self.message,
        }
        if self.help:
            out["help"] = self.help
        if self.related:
            out["related"] = [
                {
                    **({"file": r.file} if r.file is not None else {}),
                    "start": {"line": r.start.line, "column": r.start.column},
                    "end": {"line": r.end.line, "column": r.end.column},
                    "message": r.message,
                }
                for r in self.related
            ]
        return out


def read_error(file: str, reason: str) -> Finding:
    """A path ``wfls check`` could not read, as a finding for the machine formats."""
    return Finding(
        file=file,
        start=Position(1, 1),
        end=Position(1, 1),
        severity="error",
        code="read_error",
        model_path=None,
        message=reason,
    )


def analysis_failed(file: str, error: Exception) -> Finding:
    """A file whose analysis raised ``error`` (a bug), as its one finding."""
    issue = internal_error(error)
    start = Position(1, 1)
    return Finding(file, start, start, issue.severity.value, issue.code, None, issue.message)


OtherDocument = Callable[[str], tuple[str, LineIndex] | None]
"""For a related place in another document: its URI → (file name to print, its lines)."""


def findings_for(
    file: str,
    snapshot: DocumentSnapshot,
    issues: Sequence[PlacedIssue] | None = None,
    other: OtherDocument | None = None,
) -> list[Finding]:
    """The file's findings (``issues``: with the workspace's, else the snapshot's own); a
    file that is not UTF-8 reports that alone (nothing else in it can be trusted to
    mean what its author wrote)."""
    reported = _reported(snapshot, issues)
    causes, consequences = _linked(_causes(reported))
    make = _finding_maker(file, snapshot, other)
    findings = [make(p, cause) for p, cause in zip(reported, causes, strict=True)]
    for finding, following in zip(findings, consequences, strict=True):
        finding.consequences.extend(following)
    return findings


def _reported(
    snapshot: DocumentSnapshot, issues: Sequence[PlacedIssue] | None
) -> list[PlacedIssue]:
    found = list(snapshot.issues if issues is None else issues)
    undecodable = [p for p in found if p.issue.data.get("undecodable")]
    return undecodable or found


def _finding_maker(
    file: str, snapshot: DocumentSnapshot, other: OtherDocument | None, *, model_paths: bool = True
) -> Callable[[PlacedIssue, int | None], Finding]:
    """What makes the file's finding of one placed issue (and the index of its cause);
    without ``model_paths``, findings for the text, which shows none, have None there."""
    lines = snapshot.lines
    has_lines = lines.line_count > 0

    def position(offset: int) -> Position:
        return Position(*lines.one_based(offset))

    # One finding per line of output: at 14,000 nodes, 11,200 of them. Hence the issue's
    # fields read once and the fields passed in order.
    def make(p: PlacedIssue, cause: int | None) -> Finding:
        issue = p.issue
        span = p.span
        line, column = lines.one_based(span.start)
        return Finding(
            file,
            Position(line, column),
            Position(*lines.one_based(span.end)),
            _SEVERITY_NAMES[issue.severity],
            issue.code,
            p.model_path if model_paths else None,
            issue.message,
            lines.line_text(line - 1) if has_lines else "",
            p.help,
            tuple(
                place
                for r in p.related
                if (place := _related_place(r, snapshot, position, other)) is not None
            )
            if p.related
            else (),
            cause,
        )

    return make


def _related_place(
    related: Related,
    snapshot: DocumentSnapshot,
    position: Callable[[int], Position],
    other: OtherDocument | None,
) -> RelatedPlace | None:
    span = related.span
    if span is None:
        return None
    if related.uri is None or related.uri == snapshot.uri:
        return RelatedPlace(position(span.start), position(span.end), related.message)
    found = other(related.uri) if other is not None else None
    if found is None:
        return None
    name, lines = found

    def there(offset: int) -> Position:
        return Position(*lines.one_based(offset))

    return RelatedPlace(there(span.start), there(span.end), related.message, name)


def _causes(issues: Sequence[PlacedIssue]) -> list[int | None]:
    """For each finding, the index of the finding it follows from, if any.

    An ``information`` finding follows from the finding (preferably a mistake: error,
    warning) whose range is the range of its last related place: that is where the
    analysis pointed.
    """
    information = Severity.INFORMATION
    following = [index for index, p in enumerate(issues) if p.related and p.severity == information]
    causes: list[int | None] = [None] * len(issues)
    if not following:
        return causes
    # A mistake (error, warning) is preferred as the cause; a consequence may have
    # consequences of its own, which then nest under it. Spans are keyed by their two
    # offsets: a record's hash is a Python call, a tuple's is not.
    by_span: dict[tuple[int, int], int] = {}
    for index, placed in sorted(
        enumerate(issues), key=lambda item: item[1].severity == information
    ):
        span = placed.span
        by_span.setdefault((span.start, span.end), index)
    for index in following:
        pointed = issues[index].related[-1].span
        cause = by_span.get((pointed.start, pointed.end)) if pointed is not None else None
        if cause != index:
            causes[index] = cause
    return causes


def _linked(causes: list[int | None]) -> tuple[list[int | None], list[list[int]]]:
    """The causes, with every finding whose causes run into a cycle shown on its own, and
    each finding's consequences in order."""
    kept = [
        None if cause is not None and _loops(causes, index) else cause
        for index, cause in enumerate(causes)
    ]
    consequences: list[list[int]] = [[] for _ in causes]
    for index, cause in enumerate(kept):
        if cause is not None:
            consequences[cause].append(index)
    return kept, consequences


def _loops(causes: Sequence[int | None], index: int) -> bool:
    """True when following causes from ``index`` runs into a cycle."""
    seen = {index}
    cause = causes[index]
    while cause is not None:
        if cause in seen:
            return True
        seen.add(cause)
        cause = causes[cause]
    return False


def _excerpt(line: str, start: int, end: int) -> tuple[str, int, int]:
    """The part of ``line`` shown, and the range's columns (0-based) inside it."""
    line = line.expandtabs(1)
    if len(line) <= EXCERPT_WIDTH:
        return line, start, end
    end = min(end, start + EXCERPT_WIDTH - 20)
    left = max(0, start - 30)
    right = min(len(line), max(end + 30, left + EXCERPT_WIDTH))
    shown = line[left:right]
    prefix = "…" if left else ""
    suffix = "…" if right < len(line) else ""
    return prefix + shown + suffix, start - left + len(prefix), end - left + len(prefix)


def _render_one(f: Finding, indent: str) -> list[str]:
    out = [
        terminal_safe(
            f"{indent}{f.file}:{f.start.line}:{f.start.column}: {f.severity}[{f.code}]: {f.message}"
        )
    ]
    if f.source_line.strip():
        start = f.start.column - 1
        end = f.end.column - 1 if f.end.line == f.start.line else len(f.source_line)
        shown, left, right = _excerpt(f.source_line, start, max(end, start + 1))
        out.append(f"{indent}  {terminal_safe(shown)}")
        # The caret under the characters as shown: an escaped one is several wide.
        left, right = len(terminal_safe(shown[:left])), len(terminal_safe(shown[:right]))
        out.append(f"{indent}  " + " " * left + "^" * max(1, right - left))
    if f.help:
        out.append(terminal_safe(f"{indent}  = help: {f.help}"))
    for r in f.related:
        where = f"{r.file or f.file}:{r.start.line}:{r.start.column}"
        out.append(terminal_safe(f"{indent}  = note: {r.message} ({where})"))
    return out


def render_text(findings: Sequence[Finding]) -> str:
    """Each finding with its excerpt; consequences indented under their cause."""
    out: list[str] = []
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        by_file.setdefault(f.file, []).append(f)
    for file_findings in by_file.values():
        roots = [i for i, f in enumerate(file_findings) if f.cause is None]
        following = [f.consequences for f in file_findings]
        out.extend(_render_tree(roots, file_findings.__getitem__, following.__getitem__))
    return "\n".join(out) + ("\n" if out else "")


def _render_tree(
    roots: Sequence[int],
    finding: Callable[[int], Finding],
    consequences: Callable[[int], Sequence[int]],
) -> list[str]:
    """The lines of the findings at ``roots``, each followed by its consequences, indented."""
    out: list[str] = []
    stack = [(i, "") for i in reversed(roots)]
    while stack:
        i, indent = stack.pop()
        out.extend(_render_one(finding(i), indent))
        stack.extend((j, indent + "    ") for j in reversed(consequences(i)))
    return out


@record
class TextReport:
    """One file's findings as ``render_text`` prints them, and how many of each severity."""

    text: str
    severities: Mapping[str, int]


def text_for(
    file: str,
    snapshot: DocumentSnapshot,
    issues: Sequence[PlacedIssue] | None = None,
    other: OtherDocument | None = None,
) -> TextReport:
    """``render_text(findings_for(...))`` and the count of each severity, without keeping the
    findings: each is made as it is printed (a large file has thousands)."""
    reported = _reported(snapshot, issues)
    causes, consequences = _linked(_causes(reported))
    make = _finding_maker(file, snapshot, other, model_paths=False)
    roots = [i for i, cause in enumerate(causes) if cause is None]
    out = _render_tree(roots, lambda i: make(reported[i], causes[i]), consequences.__getitem__)
    severities = Counter(_SEVERITY_NAMES[p.severity] for p in reported)
    return TextReport("\n".join(out) + ("\n" if out else ""), dict(severities))


def json_output(data: object) -> str:
    """``data`` as indented JSON for the command line's output, non-ASCII text kept but
    escaped where ``terminal_safe`` escapes."""
    return terminal_safe(json.dumps(data, indent=2, ensure_ascii=False), json_text=True) + "\n"


def render_json(findings: Iterable[Finding]) -> str:
    return json_output([f.as_json() for f in findings])


def _github_escape(value: str, *, prop: bool = False) -> str:
    """Workflow-command escaping: ``%``, CR and LF always; ``:`` and ``,`` in properties.

    Other control characters are then shown as ``\\xNN``: the runner prints each
    command into a log that renders escape sequences, and people run it in terminals.
    """
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return terminal_safe(value)


def render_github(findings: Iterable[Finding]) -> str:
    lines = []
    for f in findings:
        props = ",".join(
            [
                f"file={_github_escape(f.file, prop=True)}",
                f"line={f.start.line}",
                f"col={f.start.column}",
                f"endLine={f.end.line}",
                f"endColumn={f.end.column}",
                f"title={_github_escape(f.code, prop=True)}",
            ]
        )
        message = f.message + (f" ({f.help})" if f.help else "")
        lines.append(f"::{_GITHUB_LEVEL[f.severity]} {props}::{_github_escape(message)}")
    return "\n".join(lines) + ("\n" if lines else "")


def artifact_uri(file: str) -> str:
    """A SARIF artifact location: a percent-encoded relative reference, or a ``file:`` URI."""
    path = Path(file)
    if path.is_absolute():
        return path.as_uri()
    return quote(path.as_posix(), safe="/")


def _sarif_rule(code: str) -> dict[str, Any]:
    from wf_core.validation.codes import CODES

    info = CODES.get(code)
    if info is None:
        return {"id": code, "name": code}
    return {
        "id": code,
        "name": code,
        "shortDescription": {"text": info.title},
        "fullDescription": {"text": info.trigger},
        "help": {"text": info.fix},
        "helpUri": f"{INFORMATION_URI}/blob/main/docs/diagnostics.md#{code}",
        "defaultConfiguration": {"level": _SARIF_LEVEL[info.severity.value]},
        "properties": {"origin": info.origin},
    }


def render_sarif(findings: Sequence[Finding], *, version: str) -> str:
    from wf_core.validation.codes import CODES

    rules = [_sarif_rule(code) for code in CODES]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for f in findings:
        if f.code not in index:
            index[f.code] = len(rules)
            rules.append(_sarif_rule(f.code))
        text = f.message + (f" ({f.help})" if f.help else "")
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": text},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(f.file)},
                        "region": {
                            "startLine": f.start.line,
                            "startColumn": f.start.column,
                            "endLine": f.end.line,
                            "endColumn": f.end.column,
                        },
                    }
                }
            ],
        }
        if f.model_path is not None:
            result["locations"][0]["logicalLocations"] = [
                {"fullyQualifiedName": f.model_path, "kind": "member"}
            ]
        if f.related:
            result["relatedLocations"] = [
                {
                    "id": k,
                    "message": {"text": r.message},
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(r.file or f.file)},
                        "region": {
                            "startLine": r.start.line,
                            "startColumn": r.start.column,
                            "endLine": r.end.line,
                            "endColumn": r.end.column,
                        },
                    },
                }
                for k, r in enumerate(f.related)
            ]
        results.append(result)
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "wfls",
                        "version": version,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json_output(sarif)
