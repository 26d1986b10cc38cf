"""Reading workflow documents from disk without ever failing on their bytes.

Bad bytes become a diagnostic, not an exception: a file that is not UTF-8 is
decoded with replacement characters and reported at the first bad byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from wf_core.base.issues import Issue, ProjectCode
from wf_core.base.spans import Span

WORKFLOW_SUFFIXES = (".wf.toml", ".wf.json")

Syntax = Literal["toml", "json"]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
BOM = "\ufeff"
REPLACEMENT = "\ufffd"
"""What the analysis reads in place of a character UTF-8 cannot hold (a lone surrogate),
as ``decode`` reads bytes that are not UTF-8."""


def analysable(text: str) -> str:
    """The text the analysis reads of an editor's ``text``: what ``decode`` makes of a
    file's bytes, at the same offsets, so that a file and an editor's text of it get the
    same findings.

    A leading byte-order mark is no part of the document (``decode`` drops it): it is
    read as a space, one code point for one, so every offset, and so every position
    the analysis answers with, stays that of the editor's text. So are the marks that
    follow it, as ``decode`` reads them (``_spaced_marks``). A JSON string may carry
    a lone surrogate (``"\\udc80"``), so a client may send one, but nothing can encode it
    in UTF-8: it is read as U+FFFD, as ``decode`` reads bytes that are not UTF-8.
    """
    text = _spaced_marks(text)
    if text.isascii() or _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(REPLACEMENT, text)


def _spaced_marks(text: str) -> str:
    """``text`` with its leading byte-order marks read as spaces. The parsers would skip
    one at the very start and take a second for a mistake, so a file that starts with
    two (the first dropped by ``decode``) and its editor's text (the first read as a
    space) would not read alike."""
    if not text.startswith(BOM):
        return text
    marks = len(text) - len(text.lstrip(BOM))
    return " " * marks + text[marks:]


def syntax_for_path(path: str) -> Syntax | None:
    """The syntax of a file by its name: ``*.wf.toml``/``*.toml`` or ``*.wf.json``/``*.json``."""
    lower = path.lower()
    if lower.endswith(".toml"):
        return "toml"
    if lower.endswith(".json"):
        return "json"
    return None


def is_workflow_file(path: str | Path) -> bool:
    return str(path).endswith(WORKFLOW_SUFFIXES)


def iter_workflow_files(root: Path) -> Iterator[Path]:
    """Every ``*.wf.toml``/``*.wf.json`` below ``root``, sorted, skipping hidden folders."""
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") or part == "node_modules" for part in relative.parts[:-1]):
            continue
        if path.is_file() and is_workflow_file(path.name):
            yield path


def decode(data: bytes) -> tuple[str, Issue | None]:
    """UTF-8 text (BOM dropped: see ``analysable``) and, for undecodable bytes, the issue
    to report."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return _spaced_marks(data.decode("utf-8")), None
    except UnicodeDecodeError as error:
        text = _spaced_marks(data.decode("utf-8", errors="replace"))
        offset = len(data[: error.start].decode("utf-8", errors="replace"))
        issue = Issue(
            code=ProjectCode.SYNTAX_ERROR,
            location=None,
            message=f"the file is not valid UTF-8 (byte 0x{data[error.start]:02x} at byte offset "
            f"{error.start})",
            span=Span(offset, offset + 1),
            data={"undecodable": True},
        )
        return text, issue


def syntax_of(path: str | Path) -> Syntax:
    return syntax_for_path(str(path)) or "toml"
