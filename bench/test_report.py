"""The benchmarks' section writer (``bench/report.py``) on small pages.

The benchmarks rewrite their own sections of ``docs/performance.md``; a writer
that touched the prose around a section, or another section, would lose text
nobody regenerates. The test lives beside the benchmarks (``make test`` collects
``bench/`` too), so the tests under ``tests/`` import nothing from them.
"""

from __future__ import annotations

import importlib.util
import os
import platform
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).parent / "report.py"
NOW = datetime(2026, 12, 3, 14, 2, tzinfo=UTC)
COMMAND = "python bench/lsp.py 500 16000 --check 14000"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_report", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report = _load()
STAMP = report.stamp(COMMAND, NOW)

# (page before, section written, page after); "STAMP" stands for the stamp line.
CASES = {
    "replaces only its own section": (
        "# Perf\n\nProse before.\n\n<!-- bench:scaling -->\nold table\n<!-- /bench:scaling -->\n"
        "\nProse between.\n\n<!-- bench:export -->\nexport table\n<!-- /bench:export -->\n"
        "Prose after.\n",
        "scaling",
        "# Perf\n\nProse before.\n\n<!-- bench:scaling -->\nSTAMP\n\n| new |\n"
        "<!-- /bench:scaling -->\n\nProse between.\n\n<!-- bench:export -->\nexport table\n"
        "<!-- /bench:export -->\nProse after.\n",
    ),
    "appends a missing section at the end": (
        "# Perf\n\nProse.\n\n\n",
        "export",
        "# Perf\n\nProse.\n\n<!-- bench:export -->\nSTAMP\n\n| new |\n<!-- /bench:export -->\n",
    ),
    "a name that begins another's is a section of its own": (
        "<!-- bench:soak-memory -->\nmemory\n<!-- /bench:soak-memory -->\n",
        "soak",
        "<!-- bench:soak-memory -->\nmemory\n<!-- /bench:soak-memory -->\n\n"
        "<!-- bench:soak -->\nSTAMP\n\n| new |\n<!-- /bench:soak -->\n",
    ),
    "creates the page": (
        None,
        "peers",
        "<!-- bench:peers -->\nSTAMP\n\n| new |\n<!-- /bench:peers -->\n",
    ),
}


@pytest.mark.parametrize(("before", "name", "after"), CASES.values(), ids=CASES.keys())
def test_write_section(tmp_path: Path, before: str | None, name: str, after: str) -> None:
    page = tmp_path / "performance.md"
    if before is not None:
        page.write_text(before, encoding="utf-8")
    report.write_section(name, "\n| new |\n\n", page=page, command=COMMAND, now=NOW)
    assert page.read_text(encoding="utf-8") == after.replace("STAMP", STAMP)


def test_the_stamp_says_when_where_and_how() -> None:
    assert report.stamp(COMMAND, NOW) == (
        f"_Measured 2026-12-03 14:02 UTC on {os.cpu_count()} cores, {platform.system()} "
        f"{platform.machine()}, Python {platform.python_version()}, by `{COMMAND}`._"
    )
    script = str(SCRIPT.parent / "lsp.py")
    assert report.command_line([script, "500", "--sync", "both"]) == (
        "python bench/lsp.py 500 --sync both"
    )


@pytest.mark.parametrize(
    ("before", "name", "message"),
    [
        ("<!-- bench:export -->\nno end\n", "export", "is not closed"),
        ("", "Export figures", "lowercase words"),
    ],
)
def test_refuses(tmp_path: Path, before: str, name: str, message: str) -> None:
    page = tmp_path / "performance.md"
    page.write_text(before, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        report.write_section(name, "| new |", page=page, command=COMMAND, now=NOW)
    assert page.read_text(encoding="utf-8") == before


def test_table() -> None:
    assert report.table(["case", "wall"], [("a", "1 s"), ("b", "2 s")], "lr") == (
        "| case | wall |\n| --- | ---: |\n| a | 1 s |\n| b | 2 s |"
    )
