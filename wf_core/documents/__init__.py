"""Document front-ends: TOML and JSON text → plain values, source map, syntax issues."""

from wf_core.documents.parser import DocumentParser, ParsedDocument, parse_document
from wf_core.documents.source_map import Entry, Kind, Located, SourceMap, StringLiteral
from wf_core.files import Syntax, syntax_for_path

__all__ = [
    "DocumentParser",
    "Entry",
    "Kind",
    "Located",
    "ParsedDocument",
    "SourceMap",
    "StringLiteral",
    "Syntax",
    "parse_document",
    "syntax_for_path",
]
