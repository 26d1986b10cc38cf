"""The documentation site's generated pages and links (a MkDocs hook: ``hooks:`` in mkdocs.yml).

Generated when the site is built (``make docs``) or served (``make docs-serve``), never
committed, so they cannot drift from the code:

- ``reference/cli.md``: every command and option of ``wfls.cli.build_parser()``, with its
  help, choices, defaults and the exit statuses each command's ``--help`` ends with;
- ``reference/format.md``: every key of a document and of every node type, from the
  node-type table (``wf_core.models.steps.NODE_TABLE``) and the JSON Schema ``wfls
  schema`` prints;
- ``reference/server.md``: every LSP method ``wfls serve`` handles, from its routing
  table (``wfls.registry.routes``), and its commands.

Pages that live outside ``docs/`` because they are read where they are (the README, the
editors' READMEs) become site pages too (``REPO_PAGES``), and every relative link of every
page that points at a repository file is rewritten to that file's page, so the same
Markdown works on a code host and on the site. A link to a file that is no page is left
as written, which ``mkdocs build --strict`` refuses.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

REPO_PAGES: dict[str, str] = {
    "README.md": "index.md",
    "editors/vscode/README.md": "editors/vscode.md",
    "editors/neovim/README.md": "editors/neovim.md",
    "editors/emacs/README.md": "editors/emacs.md",
    "tests/README.md": "tests.md",
}
"""Repository files shown as site pages: repository path → page."""

CLI_PAGE = "reference/cli.md"
FORMAT_PAGE = "reference/format.md"
SERVER_PAGE = "reference/server.md"

GENERATED_NOTE = (
    "<!-- Generated when the site is built (tools/docs_site.py); edit the code it is read from. -->"
)

# ---------------------------------------------------------------------------------------
# The command line


def _commands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def _help_line(parser: argparse.ArgumentParser, name: str) -> str:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.dest == name:
                    return choice.help or ""
    return ""


def _invocation(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    text = formatter._format_action_invocation(action)
    if not action.option_strings and action.nargs in ("+", "*"):
        text += "..."
    return text


def _argument_row(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    described = _sentence(action.help or "")
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        listed = ", ".join(f"`{choice}`" for choice in action.choices)
        described += f" One of {listed}."
    shown_default = (
        action.option_strings
        and "default" not in described.lower()  # the help says it already
        and action.default not in (None, False, [], argparse.SUPPRESS)
        and action.nargs != 0
    )
    if shown_default:
        described += f" Default: `{action.default}`."
    if action.required and action.option_strings:
        described += " Required."
    cell = described.strip().replace("|", "\\|").replace("*", "\\*").replace("<", "&lt;")
    return f"| `{_invocation(action, formatter)}` | {cell} |"


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if not text or text.endswith(".") else ".")


def _exit_statuses(parser: argparse.ArgumentParser) -> str | None:
    epilog = parser.epilog or ""
    prefix = "exit status: "
    return epilog[len(prefix) :] if epilog.startswith(prefix) else None


def cli_reference() -> str:
    """The command-line reference page, from the parser the ``wfls`` executable uses."""
    from wfls.cli import build_parser

    parser = build_parser()
    width = 88
    lines = [
        GENERATED_NOTE,
        "",
        "# Command reference",
        "",
        "Every command and option of `wfls`, as `wfls COMMAND --help` lists them. What the "
        "commands print, and recipes for CI, are in [the command line](../cli.md).",
        "",
        "```text",
        parser.format_usage().strip(),
        "```",
        "",
    ]
    for name, sub in _commands(parser):
        sub.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=width)
        formatter = sub._get_formatter()
        lines += [f"## wfls {name}", "", _sentence(_help_line(parser, name)), ""]
        lines += ["```text", sub.format_usage().strip(), "```", ""]
        rows = [
            _argument_row(action, formatter)
            for action in sub._actions
            if not isinstance(action, argparse._HelpAction)
        ]
        if rows:
            lines += ["| argument | meaning |", "| --- | --- |", *rows, ""]
        statuses = _exit_statuses(sub)
        if statuses is not None:
            lines += [f"**Exit status:** {statuses}.", ""]
    return "\n".join(lines)


def commands_without_exit_statuses() -> list[str]:
    """The commands whose ``--help`` does not end with their exit statuses."""
    from wfls.cli import build_parser

    return [name for name, sub in _commands(build_parser()) if _exit_statuses(sub) is None]


# ---------------------------------------------------------------------------------------
# The document format


def _anchor(name: str) -> str:
    return name.lower()


def _is_path(schema: Mapping[str, Any]) -> bool:
    props = schema.get("properties", {})
    return schema.get("type") == "object" and set(props) == {"root", "parts"}


def _node_type_labels() -> dict[str, str]:
    """A node type's model name → how the page names it (its ``type``)."""
    from wf_core.models.steps import NODE_TABLE

    return {spec.model.__name__: f"`{name}` node" for name, spec in NODE_TABLE.items()}


def describe(schema: Mapping[str, Any]) -> str:
    """A JSON Schema fragment in a few words, with links to the parts it refers to."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{_node_type_labels().get(name, name)}](#{_anchor(name)})"
    if schema.get("deprecated"):
        return "deprecated"
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            options = schema[key]
            if any(_is_path(option) for option in options):
                roots = next(o for o in options if _is_path(o))["properties"]["root"]
                allowed = roots.get("enum", [roots.get("const")])
                return "path (" + ", ".join(f"`{root}`" for root in allowed) + ")"
            kept = [describe(o) for o in options if o.get("type") != "null"]
            text = " or ".join(kept)
            return text + (" or null" if len(kept) < len(options) else "")
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        items = describe(schema.get("items", {}))
        least = schema.get("minItems")
        return f"array of {items}" + (f" (at least {least})" if least else "")
    if kind == "integer":
        if "minimum" in schema:
            return f"integer ≥ {schema['minimum']}"
        if "exclusiveMinimum" in schema:
            return f"integer > {schema['exclusiveMinimum']}"
    if kind is None:
        return "any"
    return str(kind)


def _key_table(model: Mapping[str, Any]) -> list[str]:
    required = set(model.get("required", ()))
    rows = ["| key | value | required | default |", "| --- | --- | --- | --- |"]
    for key, schema in model.get("properties", {}).items():
        default = f"`{json.dumps(schema['default'])}`" if "default" in schema else ""
        shown = describe(schema).replace("|", "\\|")
        rows.append(f"| `{key}` | {shown} | {'yes' if key in required else ''} | {default} |")
    if model.get("additionalProperties") is True:
        rows.append("| *any other key* | JSON Schema keywords | | |")
    return rows


def _docstring(model: Mapping[str, Any]) -> list[str]:
    """The first paragraph of the model's docstring: what the part is (the rest is
    written for the code's readers)."""
    text = str(model.get("description", "")).replace("``", "`").strip().split("\n\n")[0]
    return [" ".join(text.split()), ""] if text else []


def _referenced(schema: object) -> Iterator[str]:
    if isinstance(schema, Mapping):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            yield ref.rsplit("/", 1)[-1]
        for value in schema.values():
            yield from _referenced(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _referenced(value)


def _outcomes(rule: Any) -> str:
    if rule.node_def is not None:
        return f"those of the node def named by `{rule.node_def}`"
    if rule.listed is not None:
        return f"those listed in `{rule.listed}`"
    if not rule.builtin:
        return "none (the node has no edges)"
    text = ", ".join(f"`{outcome}`" for outcome in rule.builtin)
    if rule.errors_kept:
        kept = ", ".join(f"`{outcome}`" for outcome in rule.errors_kept)
        text += f", and {kept} when `item_error` keeps errors (`skip` or `collect`)"
    return text


def format_reference() -> str:
    """The reference of every key of a document, node type and part, from the model."""
    from wf_core.models.document_schema import document_json_schema
    from wf_core.models.steps import NODE_TABLE

    schema = document_json_schema()
    defs: dict[str, Any] = schema["$defs"]
    lines = [
        GENERATED_NOTE,
        "",
        "# Format reference",
        "",
        "Every key of a workflow document, of each node type and of the parts they hold, "
        "read from the model `wfls check` validates against (`wfls schema` prints it as "
        "JSON Schema). What the keys mean together is explained in [the "
        "format](../format.md).",
        "",
        "## The document",
        "",
        *_key_table(schema),
        "",
        "## Node types",
        "",
        "A node's `type` picks its keys:",
        "",
        "| type | what it does |",
        "| --- | --- |",
        *(
            f"| [`{name}`](#{_anchor(spec.model.__name__)}) | {spec.summary} |"
            for name, spec in NODE_TABLE.items()
        ),
        "",
    ]
    shown = {spec.model.__name__ for spec in NODE_TABLE.values()}
    for name, spec in NODE_TABLE.items():
        model = defs[spec.model.__name__]
        heading = f"### `{name}` {{#{_anchor(spec.model.__name__)}}}"
        lines += [heading, "", f'`type = "{name}"`: {spec.summary}.', ""]
        lines += [f"**Outcomes:** {_outcomes(spec.outcomes)}.", ""]
        if spec.binding_lists:
            lists = ", ".join(f"`{key}`" for key in spec.binding_lists)
            lines += [f"**Binding lists:** {lists} (input bindings first).", ""]
        if spec.deprecated_keys:
            old = ", ".join(f"`{key}`" for key in spec.deprecated_keys)
            lines += [
                f"**Deprecated keys**, read and reported as `deprecated_input_form`: {old}.",
                "",
            ]
        lines += [*_key_table(model), ""]
    parts: list[str] = []
    pending = list(_referenced(schema["properties"]))
    for name in (spec.model.__name__ for spec in NODE_TABLE.values()):
        pending += _referenced(defs[name])
    while pending:
        name = pending.pop(0)
        if name in shown or name in parts:
            continue
        parts.append(name)
        pending += _referenced(defs[name])
    lines += ["## Parts", "", "The tables and values the keys above hold.", ""]
    for name in sorted(parts):
        lines += [f"### {name}", "", *_docstring(defs[name]), *_key_table(defs[name]), ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# The language server

_WHEN = {
    "always": "",
    "pulls": "clients that pull diagnostics",
    "takes_code_actions": "clients that take code action literals",
}
"""What each ``when`` of the routing table means, for the page."""


def server_reference() -> str:
    """Every LSP method ``wfls serve`` handles, from its routing table, and its commands."""
    from lsprotocol.types import METHOD_TO_TYPES

    from wfls.capabilities import COMMANDS
    from wfls.registry import routes

    rows = []
    for route in routes():
        when = route.when.__name__
        if when not in _WHEN:
            raise ValueError(f"say what the route condition {when!r} means in _WHEN")
        kind = "request" if METHOD_TO_TYPES[route.method][1] is not None else "notification"
        rows.append(f"| `{route.method}` | {kind} | {_WHEN[when]} |")
    commands = ", ".join(f"`{command}`" for command in COMMANDS)
    return "\n".join(
        [
            GENERATED_NOTE,
            "",
            "# Language server reference",
            "",
            "`wfls serve` speaks the Language Server Protocol over stdio, or over TCP with "
            "`--tcp HOST:PORT`. Besides `initialize` and `exit`, it handles these methods "
            "(its routing table, `wfls.registry`); a method only some clients get is "
            "registered when the client's capabilities say it can use it. What each does "
            "is described in [Editors](../editors.md).",
            "",
            "| method | kind | only for |",
            "| --- | --- | --- |",
            *rows,
            "",
            f"**Commands** of `workspace/executeCommand`: {commands} "
            "([their arguments and answers](../editors.md#what-the-server-does)).",
            "",
        ]
    )


# ---------------------------------------------------------------------------------------
# Links

_LINK = re.compile(r"(!?\[[^\]\n]*\]\()([^)\s]+)(\))")


def rewrite_links(markdown: str, repo_path: str, site_path: str) -> str:
    """Relative links of a page at ``repo_path`` (shown at ``site_path``) to repository
    files that are site pages, rewritten relative to ``site_path``."""

    def replace(match: re.Match[str]) -> str:
        target = match[2]
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return match[0]
        file, _, fragment = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(repo_path), file))
        page = resolved.removeprefix("docs/") if resolved.startswith("docs/") else None
        page = REPO_PAGES.get(resolved, page)
        if page is None:
            return match[0]
        relative = posixpath.relpath(page, posixpath.dirname(site_path) or ".")
        return match[1] + relative + (f"#{fragment}" if fragment else "") + match[3]

    return _LINK.sub(replace, markdown)


# ---------------------------------------------------------------------------------------
# The MkDocs hook


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages and the repository's pages to the site."""
    from mkdocs.structure.files import File

    generated = {
        CLI_PAGE: cli_reference(),
        FORMAT_PAGE: format_reference(),
        SERVER_PAGE: server_reference(),
    }
    for repo_path, page in REPO_PAGES.items():
        generated[page] = (ROOT / repo_path).read_text(encoding="utf-8")
    for page, content in generated.items():
        files.append(File.generated(config, page, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Point each page's links at the site's pages."""
    site_path = page.file.src_uri
    by_page = {value: key for key, value in REPO_PAGES.items()}
    repo_path = by_page.get(site_path, f"docs/{site_path}")
    return rewrite_links(markdown, repo_path, site_path)


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    """Rebuild when a repository page or the code of a generated page changes."""
    for repo_path in REPO_PAGES:
        server.watch(str(ROOT / repo_path))
    for folder in ("server/wfls/cli", "wf_core/models", "server/wfls/registry.py"):
        server.watch(str(ROOT / folder))
    return server
