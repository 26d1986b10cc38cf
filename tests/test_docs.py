"""The documentation cannot say what wfls does not do.

Each page of the site written by hand (``docs/``, the README, the editors' READMEs) is
read as a script, top to bottom (docs/contributing.md, "Examples that are checked"):

- a fenced block with a ``title="NAME"`` is a file of the page's folder: written
  there when reached, replacing an earlier block of the same name;
- a ``console`` block runs its ``$ wfls ...`` commands in that folder (which holds a
  copy of ``examples/`` too) and must show exactly what they print, stdout and stderr
  as a terminal shows them; a line ``...`` stands for any number of lines, and
  ``...`` inside a line for any text;
- a workflow (``*.wf.toml``, ``*.wf.json``) no command of the page names must pass
  ``wfls check --strict``: what wfls says about a mistake is shown, never assumed.

``pytest tests/test_docs.py --update-docs`` writes what the commands print now into
the pages instead of failing (a block with ``...`` that no longer matches is written
whole); read the diff.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import markdown
import pytest

from wf_core.validation.codes import CODES
from wfls.cli import main

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import docs_site  # noqa: E402  (tools/ is no package: the MkDocs hook is loaded by path)

GENERATED = {"diagnostics.md"}
"""Pages written by code, whose examples their own tests check (tests/test_codes.py)."""

PAGES = sorted(
    [
        *(p for p in (ROOT / "docs").rglob("*.md") if p.name not in GENERATED),
        *(ROOT / page for page in docs_site.REPO_PAGES),
    ],
    key=lambda p: p.relative_to(ROOT).as_posix(),
)
"""Every page of the site written by hand: docs/ and the repository's pages (the README,
the editors' READMEs)."""

WORKFLOW_SUFFIXES = (".wf.toml", ".wf.json")
ELISION = "..."
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<lang>[\w+-]*)[ \t]*(?P<info>.*)$")
_TITLE = re.compile(r'title="(?P<title>[^"]+)"')


@dataclass
class Block:
    """One fenced block of a page: its language, title and body lines."""

    lang: str
    title: str | None
    indent: str
    body_start: int
    """Index in the page's lines of the body's first line."""
    body: list[str] = field(default_factory=list)


def blocks(lines: list[str]) -> Iterator[Block]:
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        index += 1
        if opening is None:
            continue
        title = _TITLE.search(opening["info"])
        block = Block(opening["lang"], title["title"] if title else None, opening["indent"], index)
        closing = opening["indent"] + opening["ticks"]
        while index < len(lines) and lines[index].rstrip() != closing:
            block.body.append(lines[index].removeprefix(opening["indent"]))
            index += 1
        index += 1
        yield block


@dataclass
class Command:
    argv: list[str]
    line: int
    """Index in the page's lines of the ``$`` line."""
    expected: list[str]


def commands(block: Block) -> Iterator[Command]:
    current: Command | None = None
    for offset, text in enumerate(block.body):
        if text.startswith("$ "):
            if current is not None:
                yield current
            current = Command(shlex.split(text[2:]), block.body_start + offset, [])
        elif current is None:
            raise AssertionError(f"a console block starts with {text!r}, not with $ wfls")
        else:
            current.expected.append(text)
    if current is not None:
        yield current


def run_wfls(argv: list[str], folder: Path) -> list[str]:
    """What ``argv`` prints in ``folder``, stdout and stderr in the order written."""
    assert argv[:1] == ["wfls"], f"a console block runs wfls only, not {argv}"
    out = io.StringIO()
    # (--help, or a usage error, exits: printed like any output)
    with (
        contextlib.chdir(folder),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(out),
        contextlib.suppress(SystemExit),
    ):
        main(argv[1:])
    return trimmed(out.getvalue().splitlines())


def trimmed(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def shows(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected``, where a line ``...`` stands for any lines and
    ``...`` inside a line for any text (a duration, say)."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?"
        if line == ELISION
        else r"[^\n]*".join(map(re.escape, line.split(ELISION))) + r"\n"
        for line in trimmed(expected)
    )
    return re.fullmatch(pattern, "".join(f"{line}\n" for line in actual)) is not None


def looks_like_a_workflow(block: Block) -> bool:
    text = "\n".join(block.body)
    if block.lang == "toml":
        return "[[nodes]]" in text and re.search(r"^start\s*=", text, re.M) is not None
    keys = ("name", "start", "nodes", "edges")
    return block.lang == "json" and all(re.search(f'"{key}"\\s*:', text) for key in keys)


def check_clean(name: str, folder: Path) -> str | None:
    output = run_wfls(["wfls", "check", "--strict", name], folder)
    return None if not any("[" in line for line in output) else "\n".join(output)


def page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_page_shows_what_wfls_does(
    page: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    lines = page.read_text(encoding="utf-8").splitlines()
    folder = tmp_path / "page"
    shutil.copytree(ROOT / "examples", folder / "examples")
    unnamed: dict[str, str] = {}
    """Workflows written and not yet named by a command: name → their text."""
    problems: list[str] = []
    updates: dict[int, tuple[Command, list[str]]] = {}

    def settle(name: str) -> None:
        if name in unnamed:
            found = check_clean(name, folder)
            if found is not None:
                problems.append(
                    f"{name} (shown before line {where}) has findings no console block "
                    f"shows:\n{found}"
                )
            del unnamed[name]

    where = 0
    for block in blocks(lines):
        where = block.body_start
        if block.title is not None:
            settle(block.title)
            target = folder / block.title
            target.parent.mkdir(parents=True, exist_ok=True)
            text = "\n".join(block.body) + "\n"
            target.write_text(text, encoding="utf-8")
            if block.title.endswith(WORKFLOW_SUFFIXES):
                unnamed[block.title] = text
        elif block.lang in ("toml", "json") and looks_like_a_workflow(block):
            problems.append(
                f"line {block.body_start}: a whole workflow without a title; give it "
                f'one (```{block.lang} title="NAME.wf.{block.lang}"), so that it is checked'
            )
        if block.lang != "console":
            continue
        for command in commands(block):
            for argument in command.argv:
                unnamed.pop(argument, None)
            actual = run_wfls(command.argv, folder)
            if not shows(command.expected, actual):
                updates[command.line] = (command, actual)
                problems.append(
                    f"line {command.line + 1}: $ {shlex.join(command.argv)}\n"
                    f"--- the page shows:\n" + "\n".join(command.expected) + "\n"
                    "--- wfls prints:\n" + "\n".join(actual)
                )
    where = len(lines)
    for name in list(unnamed):
        settle(name)

    if updates and request.config.getoption("--update-docs"):
        write_outputs(page, lines, updates)
        return
    assert not problems, f"{page_id(page)}:\n\n" + "\n\n".join(problems)


def write_outputs(
    page: Path, lines: list[str], updates: dict[int, tuple[Command, list[str]]]
) -> None:
    indent_of = {b.body_start: b.indent for b in blocks(lines)}
    for line in sorted(updates, reverse=True):
        command, actual = updates[line]
        start = max(s for s in indent_of if s <= line)
        indent = indent_of[start]
        lines[line + 1 : line + 1 + len(command.expected)] = [
            (indent + text).rstrip() for text in actual
        ]
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------
# Blocks, commands and elision


def test_blocks_and_commands_are_read_as_written() -> None:
    page = [
        "Intro",
        '```toml title="a.wf.toml"',
        'name = "a"',
        "```",
        "- a step",
        "",
        "    ```console",
        "    $ wfls check a.wf.toml",
        "    a.wf.toml:1:1: error",
        "    $ wfls schema --help",
        "    ```",
    ]
    found = list(blocks(page))
    assert [(b.lang, b.title, b.indent, b.body_start, b.body) for b in found] == [
        ("toml", "a.wf.toml", "", 2, ['name = "a"']),
        (
            "console",
            None,
            "    ",
            7,
            ["$ wfls check a.wf.toml", "a.wf.toml:1:1: error", "$ wfls schema --help"],
        ),
    ]
    assert [(c.argv, c.line, c.expected) for c in commands(found[1])] == [
        (["wfls", "check", "a.wf.toml"], 7, ["a.wf.toml:1:1: error"]),
        (["wfls", "schema", "--help"], 9, []),
    ]


@pytest.mark.parametrize(
    ("expected", "actual", "matches"),
    [
        (["a", "b"], ["a", "b"], True),
        (["a", "b"], ["a", "c"], False),
        (["a", "...", "d"], ["a", "b", "c", "d"], True),
        (["a", "...", "d"], ["a", "d"], True),
        (["a", "..."], ["a", "b"], True),
        (["a", "...", "d"], ["a", "b", "c"], False),
        (["a"], ["a", "b"], False),
        (["  ✓ case (... ms)"], ["  ✓ case (6 ms)"], True),
        (["  ✓ case (... ms)"], ["  ✗ case (6 ms)"], False),
    ],
)
def test_elision_stands_for_any_lines(
    expected: list[str], actual: list[str], matches: bool
) -> None:
    assert shows(expected, actual) is matches


def test_update_rewrites_the_output_under_its_command(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    lines = ["- step", "", "    ```console", "    $ wfls x", "    old", "    ```", "after"]
    (command,) = commands(next(blocks(lines)))
    write_outputs(page, lines, {command.line: (command, ["new 1", "", "new 2"])})
    assert page.read_text().splitlines() == [
        "- step",
        "",
        "    ```console",
        "    $ wfls x",
        "    new 1",
        "",
        "    new 2",
        "    ```",
        "after",
    ]


# ---------------------------------------------------------------------------------------
# Generated pages and anchors


def test_every_diagnostic_code_has_its_anchor() -> None:
    """Links to ``diagnostics.md#CODE`` (from the editor's code descriptions, SARIF rules
    and the docs) land on the code's section, as the site's Markdown renders it."""
    text = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    html = markdown.markdown(text, extensions=["toc", "tables", "attr_list"])
    anchors = set(re.findall(r'id="([^"]+)"', html))
    assert sorted(CODES) and [code for code in CODES if code not in anchors] == []


def test_every_command_states_its_exit_statuses() -> None:
    assert docs_site.commands_without_exit_statuses() == []


def test_cli_reference_lists_every_command_and_option() -> None:
    from wfls.cli import build_parser

    page = docs_site.cli_reference()
    for name, sub in docs_site._commands(build_parser()):
        assert f"\n## wfls {name}\n" in page
        for action in sub._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in page or f", {option}" in page, (name, option)
    assert "**Exit status:** 0 no errors, 1 errors (with --strict: warnings too)" in page


def test_format_reference_has_every_node_type_and_key() -> None:
    from wf_core.models.keys import node_keys, top_level_keys
    from wf_core.models.steps import NODE_TABLE

    page = docs_site.format_reference()
    for key in top_level_keys():
        assert f"| `{key}` |" in page, key
    for name, spec in NODE_TABLE.items():
        heading = f"\n### `{name}` {{#{spec.model.__name__.lower()}}}\n"
        section = page.split(heading, 1)[1].split("\n### ", 1)[0]
        assert f'`type = "{name}"`' in section
        for key in node_keys(name):
            assert f"| `{key}` |" in section, (name, key)


@pytest.mark.parametrize(
    ("repo_path", "site_path", "link", "rewritten"),
    [
        ("README.md", "index.md", "[cli](docs/cli.md#wfls-run)", "[cli](cli.md#wfls-run)"),
        ("README.md", "index.md", "![g](docs/images/g.png)", "![g](images/g.png)"),
        (
            "README.md",
            "index.md",
            "[vs](editors/vscode/README.md)",
            "[vs](editors/vscode.md)",
        ),
        (
            "editors/vscode/README.md",
            "editors/vscode.md",
            "[g](../../docs/graph.md#the-interactive-view)",
            "[g](../graph.md#the-interactive-view)",
        ),
        ("docs/cli.md", "cli.md", "[r](runtime.md)", "[r](runtime.md)"),
        ("docs/cli.md", "cli.md", "[home](../README.md)", "[home](index.md)"),
        ("docs/cli.md", "cli.md", "[x](https://example.org/a.md)", "[x](https://example.org/a.md)"),
        ("docs/cli.md", "cli.md", "[x](../Makefile)", "[x](../Makefile)"),
    ],
)
def test_links_to_repository_pages_point_at_site_pages(
    repo_path: str, site_path: str, link: str, rewritten: str
) -> None:
    assert docs_site.rewrite_links(link, repo_path, site_path) == rewritten


# ---------------------------------------------------------------------------------------
# The site in a browser


def _e2e_browser() -> tuple[Path, Path] | None:
    """Node and the headless Chromium the VS Code end-to-end test installs, if there."""
    cache = os.environ.get("WFLS_E2E_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wfls-e2e"
    )
    nodes = sorted(Path(cache).glob("node-*/shims/node"))
    browsers = sorted(Path(cache).glob("browser-*/node_modules/@sparticuz/chromium"))
    if not nodes or not browsers:
        return None
    return nodes[-1], browsers[-1].parent.parent.parent


SCREENSHOTS = ROOT / "tests" / "out" / "docs"
"""Where the site's screenshots are kept (ignored by git)."""


def test_site_pages_render_without_errors(tmp_path: Path) -> None:
    """Every page of the built site loads in a headless Chromium with no console error,
    exception or failed request; the tutorial's first screen is kept as a screenshot."""
    found = _e2e_browser()
    if found is None:
        pytest.skip(
            "no headless Chromium: make e2e-vscode installs it (editors/vscode/e2e/install.sh)"
        )
    node, browser = found
    site = tmp_path / "site"
    mkdocs = Path(sys.executable).parent / "mkdocs"
    built = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr
    pages = sorted(
        path.parent.relative_to(site).as_posix() + "/"
        for path in site.rglob("index.html")
        if path.parent != site
    )
    assert "tutorial/" in pages and "reference/cli/" in pages
    handler = functools.partial(QuietHandler, directory=str(site))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            result = subprocess.run(
                [
                    str(node),
                    str(ROOT / "tests" / "docs_render.mjs"),
                    "--browser",
                    str(browser),
                    "--base",
                    f"http://127.0.0.1:{server.server_address[1]}/",
                    "--out",
                    str(SCREENSHOTS),
                    "--shot",
                    "tutorial/",
                    "./",
                    *pages,
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
        finally:
            server.shutdown()
    assert result.returncode == 0, result.stderr
    problems = json.loads(result.stdout)
    assert sorted(problems) == sorted(["./", *pages])
    assert {page: found for page, found in problems.items() if found} == {}
    assert (SCREENSHOTS / "tutorial.png").stat().st_size > 0


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_server_reference_lists_every_method_and_command() -> None:
    from wfls.capabilities import COMMANDS
    from wfls.registry import routes

    page = docs_site.server_reference()
    for route in routes():
        assert f"| `{route.method}` |" in page
    for command in COMMANDS:
        assert f"`{command}`" in page
    assert "| `textDocument/didOpen` | notification |  |" in page
    assert "| `workspace/diagnostic` | request | clients that pull diagnostics |" in page


def test_readme_is_a_front_page() -> None:
    """The README says what wfls is and how to start, and links into the site for the
    rest: its first lines are the two commands, and it stays short."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = text.splitlines()[:4]
    assert first[0] == "# wfls" and first[1] == ""
    assert first[2].startswith("- `make run` — ") and first[3].startswith("- `make test` — ")
    assert len(text.encode()) <= 15_000
    assert "(docs/getting-started.md)" in text and "(docs/tutorial.md)" in text
