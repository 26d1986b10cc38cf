"""Graphviz and Mermaid read what ``wf_core.graph`` prints, with every kind of id.

Every DOT and Mermaid file under ``tests/graph/`` (the examples' graphs and those of
each kind of mistake, ``test_graph.py``), and the graph of a generated workflow, are
given to the tools' own parsers: Graphviz's ``dot`` when it is on the PATH (Debian:
``apt-get install graphviz``), and Mermaid's parser in Node when ``npm`` is there
(the pinned packages of ``tests/graph/package.json`` are installed on first use into
``build/mermaid-parser``, which later runs reuse). Without the tool, its tests are
skipped with the reason.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from test_graph import CASES, WEIRD

from wf_core.authoring.generate import generate_toml
from wf_core.graph import build_graph, to_dot, to_mermaid
from wf_core.version.snapshot import analyze_text

ROOT = Path(__file__).parent.parent
GOLDEN = Path(__file__).parent / "graph"
PARSER = ROOT / "build" / "mermaid-parser"
PACKAGE_FILES = ("package.json", "package-lock.json", "parse_mermaid.mjs")

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None,
    reason="Graphviz's dot is not on the PATH (Debian: apt-get install graphviz)",
)


def files(suffix: str) -> list[Path]:
    found = sorted(GOLDEN.rglob(f"*{suffix}"))
    assert len(found) >= len(CASES), f"no {suffix} files under {GOLDEN}"
    return found


def name(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


@needs_dot
@pytest.mark.parametrize("path", files(".dot"), ids=name)
def test_graphviz_lays_out_every_dot_file_without_a_warning(path: Path) -> None:
    done = subprocess.run(
        ["dot", "-Tsvg", str(path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "<svg" in done.stdout


@needs_dot
def test_graphviz_shows_every_id_as_written() -> None:
    """What Graphviz draws is the ids themselves: the text of each node's first line,
    and a loop's box title, read back from its SVG."""
    graph = build_graph(analyze_text(CASES["weird_ids"], "toml"))
    done = subprocess.run(
        ["dot", "-Tsvg"], input=to_dot(graph), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    svg = ElementTree.fromstring(done.stdout)
    shown = [element.text for element in svg.iter("{http://www.w3.org/2000/svg}text")]
    for node_id in WEIRD:
        assert node_id in shown
    assert "foreach orders.v2: order in input.items" in shown


def mermaid_parser() -> Path:
    """The folder of the Mermaid parser's script and packages, installed when missing or
    when ``tests/graph``'s pinned versions changed (skips when npm cannot install them)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not on the PATH: Mermaid's parser cannot run")
    current = all(
        (PARSER / f).is_file() and (PARSER / f).read_bytes() == (GOLDEN / f).read_bytes()
        for f in PACKAGE_FILES
    )
    if not current or not (PARSER / "node_modules" / "mermaid").is_dir():
        PARSER.mkdir(parents=True, exist_ok=True)
        for f in PACKAGE_FILES:
            shutil.copyfile(GOLDEN / f, PARSER / f)
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=PARSER,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            (PARSER / "package-lock.json").unlink()  # so the next run tries again
            pytest.skip(f"npm could not install Mermaid's parser: {done.stderr.strip()[-500:]}")
    return PARSER


def parse_mermaid(paths: list[Path]) -> dict[str, dict[str, str]]:
    """Each file's answer from Mermaid's parser: ``{"type"}`` or ``{"error"}``."""
    folder = mermaid_parser()
    done = subprocess.run(
        ["node", "parse_mermaid.mjs", *map(str, paths)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    return {answer.pop("file"): answer for answer in answers}


def test_mermaid_parses_every_flowchart(tmp_path: Path) -> None:
    generated = tmp_path / "generated.mmd"
    generated.write_text(to_mermaid(build_graph(analyze_text(generate_toml(40), "toml"))))
    paths = [*files(".mmd"), generated]
    answers = parse_mermaid(paths)
    assert answers == {str(path): {"type": "flowchart-v2"} for path in paths}


def test_mermaids_parser_refuses_what_the_printer_must_not_write(tmp_path: Path) -> None:
    """The check can fail: a raw quote in a label, Mermaid's own word as an id, each as
    an unescaped id would write them."""
    texts = ['flowchart TD\n  n0["x"y"]\n', 'flowchart TD\n  end["x"] --> n1\n']
    paths = [tmp_path / f"broken{index}.mmd" for index in range(len(texts))]
    for path, text in zip(paths, texts, strict=True):
        path.write_text(text)
    answers = parse_mermaid(paths)
    assert all("Parse error" in answers[str(path)]["error"] for path in paths)
