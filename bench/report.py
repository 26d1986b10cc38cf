"""Benchmark figures written into ``docs/performance.md``, each run into its own section.

A benchmark target's tables go between ``<!-- bench:NAME -->`` and
``<!-- /bench:NAME -->`` in the page, replacing what the last run of that target
wrote there, so the page always shows the latest figures and nobody copies a
table by hand. Each section starts with when, on what machine and by which
command its figures were measured: this machine's speed varies by the hour, so a
figure means something only beside the run it came from. Everything outside the
markers is prose and is never touched; a section the page does not have yet is
added at its end.
"""

from __future__ import annotations

import os
import platform
import re
import shlex
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "performance.md"
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_RULES = {"l": "---", "r": "---:", "c": ":---:"}


def machine() -> str:
    """The facts of this machine a reader needs to compare two runs."""
    return (
        f"{os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}"
    )


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command that ran this script, its path relative to the repository."""
    argv = list(sys.argv if argv is None else argv)
    script = Path(argv[0]).resolve()
    shown = script.relative_to(ROOT).as_posix() if script.is_relative_to(ROOT) else argv[0]
    return "python " + shlex.join([shown, *argv[1:]])


def stamp(command: str, now: datetime | None = None) -> str:
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return f"_Measured {moment:%Y-%m-%d %H:%M} UTC on {machine()}, by `{command}`._"


def table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str) -> str:
    """A Markdown table; ``align`` has one letter per column: ``l``, ``r`` or ``c``."""
    if len(align) != len(header) or set(align) - set(_RULES):
        raise ValueError(f"{len(header)} columns but alignment {align!r}")
    rule = [_RULES[a] for a in align]
    lines = [header, rule, *([str(cell) for cell in row] for row in rows)]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def targets(rows: Sequence[tuple[str, str, bool]]) -> str:
    """The table of the project's targets a run measured: target, figure, whether it holds."""
    return table(
        ["target", "measured", "holds"],
        [(target, measured, "yes" if holds else "**no**") for target, measured, holds in rows],
        "llc",
    )


def write_section(
    name: str,
    markdown: str,
    *,
    page: Path = PAGE,
    command: str | None = None,
    now: datetime | None = None,
) -> None:
    """Put ``markdown``, stamped, between the markers of section ``name`` of ``page``."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"section names are lowercase words joined by '-': {name!r}")
    begin, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    body = f"{begin}\n{stamp(command or command_line(), now)}\n\n{markdown.strip()}\n{end}"
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    start = text.find(begin)
    if start < 0:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + body + "\n"
    else:
        stop = text.find(end, start)
        if stop < 0:
            raise ValueError(f"{page}: {begin} is not closed by {end}")
        text = text[:start] + body + text[stop + len(end) :]
    page.write_text(text, encoding="utf-8")
    shown = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    print(f"figures written to {shown} (section {name})")
