"""The shape of ``wf_core`` that docs/architecture.md describes: its folders import only
the ones before them, it never imports the protocol, and no two of its modules share a
name (a reader looking for ``index.py`` finds one)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

CORE = Path(__file__).parent.parent / "wf_core"
ORDER = (
    "base",
    "documents",
    "language",
    "models",
    "analysis",
    "validation",
    "semantic",
    "version",
    "workspace",
    "runtime",
    "graph",
    "authoring",
    "formatting",
    "workflow_tests",
)
"""The folders in the order of docs/architecture.md's code map."""
EXCEPTIONS = {("wf_core/models/workflow.py", "validation")}
"""``Workflow.validate``: the Python API's convenience, which calls the validation."""


def imports(path: Path) -> list[str]:
    """The modules ``path`` imports at run time (not those named for types only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
        for inner in ast.walk(node)
    }
    found: list[str] = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def modules() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def test_the_top_level_holds_only_the_folders() -> None:
    folders = {p.name for p in CORE.iterdir() if p.is_dir() and not p.name.startswith("_")}
    assert folders == set(ORDER)
    assert [p.name for p in CORE.glob("*.py")] == ["__init__.py"]


def test_each_folder_imports_only_the_ones_before_it() -> None:
    rank = {folder: i for i, folder in enumerate(ORDER)}
    wrong = []
    for path in modules():
        folder = path.relative_to(CORE).parts[0]
        for module in imports(path):
            parts = module.split(".")
            if parts[0] != "wf_core" or len(parts) < 2 or parts[1] not in rank:
                continue
            where = str(path.relative_to(CORE.parent))
            if rank[parts[1]] > rank[folder] and (where, parts[1]) not in EXCEPTIONS:
                wrong.append(f"{where} imports {module}")
    assert wrong == []


def test_the_core_never_imports_the_protocol() -> None:
    wrong = [
        f"{path.relative_to(CORE.parent)}: {module}"
        for path in modules()
        for module in imports(path)
        if module.split(".")[0] in ("pygls", "lsprotocol", "wfls")
    ]
    assert wrong == []


def test_no_two_modules_share_a_name() -> None:
    names = Counter(p.name for p in modules() if p.name != "__init__.py")
    assert [name for name, count in names.items() if count > 1] == []
    assert len(names) > 60  # every module was seen
