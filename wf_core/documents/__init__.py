"""Document front-ends: TOML and JSON text → plain values, source map, syntax issues."""

from wf_core.base.reading import Syntax, syntax_for_path
from wf_core.documents.parser import DocumentParser, ParsedDocument, parse_document
from wf_core.documents.source_map import Entry, Kind, Located, SourceMap, StringLiteral

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
