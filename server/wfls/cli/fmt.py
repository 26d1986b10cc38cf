"""``wfls fmt``: workflow documents rewritten in their canonical style.

Files are found as ``wfls check`` finds them (``collect_files``) and each is rewritten
only when formatting changes it, atomically: the new text goes to a temporary file in
the same folder, given the file's mode, which then replaces the file, so a reader never
sees half a document and an interrupted run leaves the old one. A document with a
syntax error is left as it is and reported where the error is; nothing is ever
half-formatted. ``-`` formats standard input to standard output.

Exit statuses (``exits``): 0 done (or nothing to change), 1 with ``--check`` or
``--diff`` when a document would change, 2 when a path cannot be read or written, a
document cannot be parsed, or the arguments are wrong.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from wf_core.base.line_width import LINE_WIDTH
from wf_core.base.reading import decode, syntax_of
from wfls.cli.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from wfls.cli.writing import replace_atomically

if TYPE_CHECKING:
    from wf_core.formatting import FormatResult
_BOM = b"\xef\xbb\xbf"


def add_fmt_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="files, folders (every *.wf.toml and *.wf.json below them), or - to format "
        "standard input to standard output",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list the files that formatting would change (exit 1 if any)",
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="change nothing; print what formatting would change as a unified diff "
        "(exit 1 if anything)",
    )
    parser.add_argument(
        "--width",
        type=_bounded(20, 1000),
        default=LINE_WIDTH,
        metavar="N",
        help=f"the line width a value must fit in to stay on one line (default {LINE_WIDTH})",
    )
    parser.add_argument(
        "--indent",
        type=_bounded(0, 16),
        default=2,
        metavar="N",
        help="spaces of indentation of a TOML array's elements or a JSON level (default 2)",
    )
    parser.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name of the document read from - : its suffix picks TOML or JSON (default TOML)",
    )


def terminal_safe(text: str) -> str:
    """``reporting.terminal_safe``, imported when a line is printed: this module is
    imported to build the command line's parser, for every command."""
    from wfls.cli.reporting import terminal_safe as safe

    return safe(text)


def _bounded(low: int, high: int) -> type[int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, not {value}")
        return value

    return parse  # type: ignore[return-value]


def run_fmt(args: argparse.Namespace) -> int:
    """Format every document ``args.paths`` names; the exit status."""
    from wfls.cli.check import collect_files

    options = _Options(args.check or args.diff, args.diff, args.width, " " * args.indent)
    status = EXIT_OK
    if "-" in args.paths:
        status = _format_stdin(args.stdin_filename or "<stdin>", options)
    inputs = collect_files([p for p in args.paths if p != "-"])
    for raw, reason in inputs.unreadable:
        print(terminal_safe(f"wfls: cannot read '{raw}': {reason}"), file=sys.stderr)
        status = EXIT_USAGE
    for file in inputs.files:
        status = max(status, _format_file(file, options))
    return status


class _Options:
    def __init__(self, dry: bool, diff: bool, width: int, indent: str) -> None:
        self.dry, self.diff, self.width, self.indent = dry, diff, width, indent


def _format(name: str, data: bytes, options: _Options) -> tuple[str, FormatResult] | None:
    """The document's text and its formatting; None, reported, when it is not UTF-8 or
    has a syntax error."""
    from wf_core.formatting import format_text

    text, decode_issue = decode(data)
    if decode_issue is not None:
        print(terminal_safe(f"{name}: error: {decode_issue.message}"), file=sys.stderr)
        return None
    result = format_text(text, syntax_of(name), width=options.width, indent=options.indent)
    if result.error is not None:
        error = result.error
        print(
            terminal_safe(
                f"{name}:{error.line + 1}:{error.column + 1}: error: {error.message} "
                "(not formatted)"
            ),
            file=sys.stderr,
        )
        return None
    return text, result


def _diff(name: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=name,
            tofile=name,
        )
    )


def _format_stdin(name: str, options: _Options) -> int:
    found = _format(name, sys.stdin.buffer.read(), options)
    if found is None:
        return EXIT_USAGE
    text, result = found
    assert result.text is not None  # (no error)
    if options.diff:
        sys.stdout.write(_diff(name, text, result.text))
    elif not options.dry:
        sys.stdout.write(result.text)
    return EXIT_FINDINGS if options.dry and result.text != text else EXIT_OK


def _format_file(file: Path, options: _Options) -> int:
    name = str(file)
    try:
        data = file.read_bytes()
    except OSError as error:
        print(
            terminal_safe(f"wfls: cannot read '{name}': {error.strerror or error}"), file=sys.stderr
        )
        return EXIT_USAGE
    found = _format(name, data, options)
    if found is None:
        return EXIT_USAGE
    text, result = found
    assert result.text is not None  # (no error)
    if result.text == text:
        return EXIT_OK
    if options.diff:
        sys.stdout.write(_diff(name, text, result.text))
        return EXIT_FINDINGS
    if options.dry:
        print(terminal_safe(name))
        return EXIT_FINDINGS
    encoded = (_BOM if data.startswith(_BOM) else b"") + result.text.encode("utf-8")
    try:
        replace_atomically(file, encoded)
    except OSError as error:
        print(
            terminal_safe(f"wfls: cannot write '{name}': {error.strerror or error}"),
            file=sys.stderr,
        )
        return EXIT_USAGE
    print(terminal_safe(f"formatted {name}"), file=sys.stderr)
    return EXIT_OK
