"""Diagnostics for people and machines: text, JSON, SARIF 2.1.0, GitHub annotations.

The JSON shape is a contract (language-server.md): 1-based lines, columns in
code points, ``model_path`` null for syntax errors.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from wf_core.snapshot import DocumentSnapshot, PlacedIssue

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}


@dataclass(frozen=True)
class Finding:
    """One diagnostic of one file, in 1-based line/column (code points)."""

    file: str
    start_line: int
    start_column: int
    end_line: int
    end_column: int
    severity: str
    code: str
    model_path: str | None
    message: str
    source_line: str

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "start": {"line": self.start_line, "column": self.start_column},
            "end": {"line": self.end_line, "column": self.end_column},
            "severity": self.severity,
            "code": self.code,
            "model_path": self.model_path,
            "message": self.message,
        }


def findings_for(file: str, snapshot: DocumentSnapshot) -> list[Finding]:
    return [finding_for(file, snapshot, placed) for placed in snapshot.issues]


def finding_for(file: str, snapshot: DocumentSnapshot, placed: PlacedIssue) -> Finding:
    lines = snapshot.lines
    start_line, start_col = lines.position(placed.span.start)
    end_line, end_col = lines.position(placed.span.end)
    return Finding(
        file=file,
        start_line=start_line + 1,
        start_column=start_col + 1,
        end_line=end_line + 1,
        end_column=end_col + 1,
        severity=placed.severity.value,
        code=placed.code,
        model_path=placed.model_path,
        message=placed.message,
        source_line=lines.line_text(start_line) if lines.line_count else "",
    )


def render_text(findings: Sequence[Finding]) -> str:
    out: list[str] = []
    for f in findings:
        out.append(f"{f.file}:{f.start_line}:{f.start_column}: {f.severity}[{f.code}]: {f.message}")
        line = f.source_line.expandtabs(1)
        if line.strip():
            width = (
                f.end_column - f.start_column
                if f.end_line == f.start_line
                else len(line) - f.start_column + 1
            )
            out.append(f"  {line}")
            out.append("  " + " " * (f.start_column - 1) + "^" * max(1, width))
    return "\n".join(out) + ("\n" if out else "")


def render_json(findings: Iterable[Finding]) -> str:
    return json.dumps([f.as_json() for f in findings], indent=2, ensure_ascii=False) + "\n"


def render_github(findings: Iterable[Finding]) -> str:
    def escape(value: str, *, prop: bool = False) -> str:
        value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        if prop:
            value = value.replace(":", "%3A").replace(",", "%2C")
        return value

    lines = []
    for f in findings:
        props = ",".join(
            [
                f"file={escape(f.file, prop=True)}",
                f"line={f.start_line}",
                f"col={f.start_column}",
                f"endLine={f.end_line}",
                f"endColumn={f.end_column}",
                f"title={escape(f.code, prop=True)}",
            ]
        )
        lines.append(f"::{_GITHUB_LEVEL[f.severity]} {props}::{escape(f.message)}")
    return "\n".join(lines) + ("\n" if lines else "")


def render_sarif(findings: Sequence[Finding], *, version: str) -> str:
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for f in findings:
        rules.setdefault(f.code, {"id": f.code, "name": f.code})
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.file},
                        "region": {
                            "startLine": f.start_line,
                            "startColumn": f.start_column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        },
                    }
                }
            ],
        }
        if f.model_path is not None:
            result["locations"][0]["logicalLocations"] = [
                {"fullyQualifiedName": f.model_path, "kind": "member"}
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
                        "informationUri": "https://example.invalid/wfls",
                        "rules": list(rules.values()),
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"
