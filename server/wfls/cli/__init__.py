"""The ``wfls`` command line: serve, check, context, graph, export, fmt, schema, run, test.

Exit statuses are a contract (language-server.md): 0 no errors, 1 errors (or
warnings with ``--strict``), 2 unreadable paths or bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from wfls import __version__
from wfls.cli.exits import EXIT_OK, EXIT_USAGE


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse exits 2 already; keep it short
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"wfls: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="wfls", description="Language server and checker for lda-wf workflows")
    parser.add_argument("--version", action="version", version=f"wfls {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    serve = commands.add_parser(
        "serve",
        help="run the language server (stdio by default)",
        epilog="exit status: 0 after an orderly shutdown, 1 when the client went away "
        "without one, 2 for a bad --tcp argument",
    )
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead")
    serve.add_argument(
        "--log-level",
        choices=("error", "warning", "info", "debug"),
        default="info",
        help="the least severe log lines the server writes (default: info); debug adds "
        "each request's method and time, and every message it drops or ignores",
    )

    check = commands.add_parser(
        "check",
        help="validate workflow files and folders",
        epilog="exit status: 0 no errors, 1 errors (with --strict: warnings too), 2 a path "
        "cannot be read or bad arguments",
    )
    check.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="files, folders (every *.wf.toml and *.wf.json below them), or - for standard input",
    )
    check.add_argument(
        "--format",
        choices=("text", "json", "sarif", "github"),
        default="text",
        dest="fmt",
        help="text (default: each finding with its source line), json (one array of "
        "findings), sarif (SARIF 2.1.0, for code scanning), github (GitHub Actions "
        "annotations)",
    )
    check.add_argument("--strict", action="store_true", help="fail on warnings too")
    check.add_argument(
        "--root",
        metavar="DIR",
        help="the workspace subgraphs are looked up in, for every document checked: the "
        "documents under DIR, plus those checked (a file outside DIR is checked all the "
        "same). Default: the folder of each file given, each folder given and, for -, the "
        "current folder, with what lies below them",
    )
    check.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the path of the document read from - : its suffix picks TOML or JSON, and it "
        "stands in for that file in the workspace (default: <stdin>, TOML)",
    )

    context = commands.add_parser(
        "context",
        help="what a node can read",
        epilog="exit status: 0 printed (a node without a context says why), 1 no such node, "
        "2 the file cannot be read or bad arguments",
    )
    context.add_argument("file", help="the workflow document (*.wf.toml or *.wf.json)")
    context.add_argument("node", help="the id of the node")
    context.add_argument(
        "--json",
        action="store_true",
        dest="as_json",
        help="print one JSON object: node, owner_stack, schema and paths",
    )

    from wfls.cli.graph import add_graph_arguments

    add_graph_arguments(
        commands.add_parser(
            "graph",
            help="the workflow graph as JSON, Graphviz DOT, Mermaid or an HTML page",
            epilog="exit status: 0 printed (mistakes are drawn), 2 the file or DIR cannot be "
            "read, or bad arguments",
        )
    )

    export = commands.add_parser(
        "export",
        help="convert between TOML and JSON",
        epilog="exit status: 0 written, 1 the document has syntax or model errors (or a "
        "null TOML cannot hold), 2 the file cannot be read or bad arguments",
    )
    export.add_argument("file", help="the workflow document (*.wf.toml or *.wf.json)")
    export.add_argument(
        "--to",
        choices=("json", "toml"),
        required=True,
        help="json: lda-wf's canonical JSON; toml: readable TOML, defaults left out",
    )

    from wfls.cli.fmt import add_fmt_arguments

    add_fmt_arguments(
        commands.add_parser(
            "fmt",
            help="rewrite workflow documents in their canonical style",
            epilog="exit status: 0 formatted (or nothing to change), 1 with --check or --diff "
            "when a document would change, 2 a path cannot be read or written, a document "
            "has a syntax error (it is left as it is), or bad arguments",
        )
    )

    commands.add_parser(
        "schema",
        help="print the JSON Schema of the document format",
        epilog="exit status: 0",
    )

    from wfls.cli.test import add_test_arguments

    add_test_arguments(
        commands.add_parser(
            "test",
            help="run workflow tests (*.wf.test.toml, *.wf.test.json)",
            epilog="exit status: 0 every case passed, 1 a case failed, 2 a test document "
            "cannot be read or names an unknown workflow, node or outcome, or bad arguments",
        )
    )
    commands.choices["schema"].add_argument(
        "--test", action="store_true", help="the schema of workflow test documents instead"
    )

    from wfls.cli.run import add_run_arguments

    add_run_arguments(
        commands.add_parser(
            "run",
            help="run a workflow (stand-ins by default)",
            epilog="exit status: 0 completed or paused at an interrupt, 1 failed or refused "
            "(the document has errors), 2 unreadable input or bad arguments",
        )
    )

    from wfls.cli.debug import add_debug_arguments

    add_debug_arguments(
        commands.add_parser(
            "debug",
            help="a debugger for workflows: the Debug Adapter Protocol over stdio (or --port)",
            epilog="exit status: 0 after the client's session, 2 bad arguments",
        )
    )
    return parser


# Every command imports and starts without the cyclic garbage collector. Commands that
# analyse documents and exit keep it off: nothing they build is cyclic garbage worth
# collecting before the process ends (analyses are trees of values, freed by reference
# counting), so the collector only costs time (a fifth of ``wfls check`` on 14,000
# nodes). ``serve`` and ``run`` (whose users' handlers may make cyclic garbage) turn it
# on after their imports (``_collect_after_imports``).
_BATCH_COMMANDS = frozenset(("check", "context", "graph", "export", "fmt", "schema"))


def _collect_after_imports() -> None:
    """For the long-running commands (``serve``, ``run``), once they have imported.

    The server's imports build some 130,000 objects (the protocol library alone defines
    600 classes) that nearly all live as long as the process: collected while they are
    built, they cost 50-70 ms of starting up. So the collector was off until now, and
    what they built is moved out of its scans (``gc.freeze``). For ``serve``, the
    garbage the protocol library's import leaves in reference cycles was collected
    before (``_import_protocol``).

    Then, a large document's analysis allocates millions of small objects that live as
    long as its snapshot: with the default thresholds the collector scans them over and
    over (open and index builds spent a third of their time there on 8,000 nodes).
    Collect the young generation less often. Memory stays bounded: objects are still
    freed by reference counting, and cycles are still collected, only less eagerly."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    gc.enable()


def _import_protocol() -> None:
    """Import the protocol library alone and collect the garbage its import leaves.

    attrs makes each of the library's 600 classes twice, the second time with
    ``__slots__``; the first, discarded, is held by its own reference cycles (a class
    is in its own ``__mro__``), so only the collector frees it: 16,000 objects, which
    the server's memory carried to the end (6-7 MB of the peak at 2,000 nodes). A full
    collection after every import scans all 67,000 objects they made (70 ms of
    starting up); what was imported before is frozen first (``gc.freeze``: it lives as
    long as the process), so the collection scans the library's objects only (20-30
    ms) and finds nearly all of that garbage (16,000 of the 16,800 objects a full one
    would)."""
    gc.freeze()
    import lsprotocol.types  # noqa: F401

    gc.collect()


def entry() -> NoReturn:
    """The ``wfls`` executable. After a batch command or the server's end, the process
    ends without freeing its analyses object by object (0.2 s of ``wfls check`` on
    14,000 nodes; for a server with 16,000 nodes open, 1.3-2.5 s of a last collection
    and freeing, which an editor closing waits for, or an analysis under way finishing):
    its output is flushed, and the operating system takes the memory back at once.

    A command's own analyses would be freed before that, as it returns: ``kept`` holds
    them to the end (``wfls check`` of 14,000 nodes spent 0.23-0.29 s freeing its
    workspace and findings after printing them)."""
    args = build_parser().parse_args()
    kept: list[object] = []
    if args.command in _BATCH_COMMANDS:
        # Off for good: re-enabled after the command, the collector's next young scan
        # would walk everything the command allocated meanwhile (1 s after ``wfls check``
        # of 14,000 nodes had printed its findings), to free nothing the exit would not.
        gc.disable()
    status = _run(args, kept)
    if args.command in _BATCH_COMMANDS or args.command == "serve":
        for stream in (sys.stdout, sys.stderr):
            # (a reader that left, or a closed stream: nothing more to deliver)
            with contextlib.suppress(BrokenPipeError, ValueError):
                stream.flush()
        os._exit(status)
    sys.exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return its exit status (the process stays: tests call this)."""
    return _run(build_parser().parse_args(argv))


def _run(args: argparse.Namespace, kept: list[object] | None = None) -> int:
    """Run the command of ``args``; a batch command adds what it built to ``kept``, when
    given, instead of letting it go as it returns (``entry`` ends the process holding it)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        if args.command == "serve":
            _import_protocol()
            from wfls.server import serve

            _collect_after_imports()
            return serve(tcp=args.tcp, log_level=args.log_level)
        if args.command == "check":
            from wfls.cli.check import run_check

            return run_check(
                args.paths,
                fmt=args.fmt,
                strict=args.strict,
                stdin_filename=args.stdin_filename,
                root=args.root,
                kept=kept,
            )
        if args.command == "context":
            from wfls.cli.context import run_context

            return run_context(args.file, args.node, as_json=args.as_json)
        if args.command == "debug":
            from wfls.cli.debug import run_debug

            _collect_after_imports()
            return run_debug(args.port)
        if args.command == "graph":
            from wfls.cli.graph import run_graph

            return run_graph(args.file, fmt=args.fmt, root=args.root)
        if args.command == "export":
            from wfls.cli.export import run_export

            return run_export(args.file, args.to, kept=kept)
        if args.command == "fmt":
            from wfls.cli.fmt import run_fmt

            return run_fmt(args)
        if args.command == "run":
            from wfls.cli.run import run_workflow

            _collect_after_imports()
            return run_workflow(args)
        if args.command == "test":
            from wfls.cli.test import run_tests

            _collect_after_imports()
            return run_tests(
                args.paths, fmt=args.fmt, cases=args.cases, root=args.root, handlers=args.handlers
            )
        if args.command == "schema" and args.test:
            from wf_core.workflow_tests import workflow_tests_json_schema

            sys.stdout.write(json.dumps(workflow_tests_json_schema(), indent=2) + "\n")
            return EXIT_OK
        if args.command == "schema":
            from wf_core.models.document_schema import document_json_schema

            sys.stdout.write(json.dumps(document_json_schema(), indent=2) + "\n")
            return EXIT_OK
    except BrokenPipeError:
        return EXIT_OK
    finally:
        if collecting:  # called in process (tests, profiles): leave the collector as found
            gc.enable()
    return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    entry()
