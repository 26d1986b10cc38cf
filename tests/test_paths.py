from __future__ import annotations

import dataclasses
import json
import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from wf_core.language.paths import (
    BARE_KEY_RE,
    GraphSourcePath,
    LocalPath,
    LocalPathError,
    PathResolutionError,
    StatePath,
    format_segment,
    format_segments,
    get_nested_value,
    has_overlapping_paths,
    is_valid_destination_path,
    is_valid_source_path,
    parse_toml_key,
    path_exists,
    path_parts_overlap,
    resolve_graph_path,
    set_nested_value,
    split_graph_path,
    validate_segment,
)

QUOTE = "quote path segments containing dots or spaces"
GENERIC = (
    "a path is segments joined by '.', and a segment other than A-Z, a-z, 0-9, '_' and '-' "
    "is quoted"
)
SINGLE_LINE = "a path is a single line"
NOT_CLOSED = "a quoted segment is not closed"


def quote_segment(segment: str) -> str:
    return (
        f"quote the segment {segment}: unquoted segments may only contain A-Z, a-z, 0-9, "
        "'_' and '-'"
    )


# lda-wf always advises quoting; wfls names what is actually wrong.
HINTS = {
    "": "a path needs at least one segment",
    ".": "a segment is missing before the first '.'",
    ".state": "a segment is missing before the first '.'",
    " . ": "a segment is missing before the first '.'",
    "..": "a segment is missing before the first '.'",
    "state.": "a segment is missing after the last '.'",
    "a.": "a segment is missing after the last '.'",
    "a..b": "a segment is missing between two '.'",
    'input."unclosed': NOT_CLOSED,
    "input.'unclosed": NOT_CLOSED,
    "[input]\nname": SINGLE_LINE,
    "a\n= true }\nx = {b": SINGLE_LINE,
    "a.b\n": SINGLE_LINE,
    "a\r": SINGLE_LINE,
    '"a\nb"': SINGLE_LINE,
    "items[0]": quote_segment('"items[0]"'),
    "é": quote_segment('"é"'),
    "input.a = 1": GENERIC,
    "a = 1": GENERIC,
    "a = {b = true} } #": GENERIC,
    "a = true, b": GENERIC,
    "a = true } # ": GENERIC,
    '"\\q"': GENERIC,
    '"\\ud800"': GENERIC,
    '"""a"""': GENERIC,
    '{"root": "local", "parts": []}': (
        "a path is written as text such as input.a.b, not as an object"
    ),
}


def toml_error(text: str) -> str:
    return f"invalid TOML path {text!r}; {HINTS.get(text, QUOTE)}"


# Segments a valid path may hold: non-empty, not whitespace-only, no ASCII control
# characters (surrogates cannot be written in TOML at all). Dots, quotes, spaces,
# backslashes and non-ASCII text are mixed in on purpose.
_SEGMENT_CHARS = st.one_of(
    st.sampled_from(list("aZ09_-. \"'\\#=[]{},é€😀\u00a0\u2028")),
    st.characters(
        blacklist_categories=("Cs",),
        blacklist_characters=[chr(i) for i in range(32)] + ["\x7f"],
    ),
)
SEGMENTS = st.lists(
    st.text(alphabet=_SEGMENT_CHARS, min_size=1, max_size=12).filter(lambda s: s.strip()),
    min_size=1,
    max_size=6,
)


class Bindings(BaseModel):
    source: GraphSourcePath
    target: StatePath
    local: LocalPath


# --- canonical formatting ---------------------------------------------------


def test_bare_key_pattern() -> None:
    assert BARE_KEY_RE.fullmatch("person-name_2")
    assert not BARE_KEY_RE.fullmatch("a b")
    assert not BARE_KEY_RE.fullmatch("é")
    assert not BARE_KEY_RE.fullmatch("")


@pytest.mark.parametrize(
    ("segment", "expected"),
    [
        ("a", "a"),
        ("0", "0"),
        ("person-name", "person-name"),
        ("a b", '"a b"'),
        ("c.d", '"c.d"'),
        ("é", '"é"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("items[0]", '"items[0]"'),
    ],
)
def test_format_segment(segment: str, expected: str) -> None:
    assert format_segment(segment) == expected


def test_format_segments_joins_with_dots() -> None:
    assert format_segments(["input", "a b", "c.d", "é"]) == 'input."a b"."c.d"."é"'
    assert format_segments(()) == ""


@given(SEGMENTS)
def test_formatted_segments_read_back_through_toml(segments: list[str]) -> None:
    text = format_segments(segments)
    table = tomllib.loads("x = { " + text + " = true }")["x"]
    decoded = []
    while isinstance(table, dict):
        ((key, table),) = table.items()
        decoded.append(key)
    assert table is True
    assert decoded == segments
    assert parse_toml_key(text) == tuple(segments)


_QUOTABLE = st.characters(
    blacklist_categories=("Cs",), blacklist_characters="\x7f", min_codepoint=0x09
).filter(lambda c: c == "\t" or c >= " ")
SIMPLE_SEGMENT = st.one_of(
    st.from_regex(BARE_KEY_RE, fullmatch=True),
    st.text(_QUOTABLE.filter(lambda c: c not in '"\\'), max_size=8).map(lambda t: f'"{t}"'),
    st.text(_QUOTABLE.filter(lambda c: c != "'"), max_size=8).map(lambda t: f"'{t}'"),
)


@given(st.lists(SIMPLE_SEGMENT, min_size=1, max_size=5).map(".".join))
def test_keys_without_escapes_split_as_toml_reads_them(text: str) -> None:
    """Bare and escape-free quoted segments are split without a TOML parse: the same
    segments TOML reads, and the same refusals of segments no document could show."""
    table = tomllib.loads("x = { " + text + " = true }")["x"]
    decoded = []
    while isinstance(table, dict):
        ((key, table),) = table.items()
        decoded.append(key)
    try:
        expected: tuple[str, ...] | str = tuple(validate_segment(s, "TOML path") for s in decoded)
    except PathResolutionError as error:
        expected = str(error)
    try:
        found: tuple[str, ...] | str = parse_toml_key(text)
    except PathResolutionError as error:
        found = str(error)
    assert found == expected


@given(SEGMENTS)
def test_path_types_round_trip_through_their_string(segments: list[str]) -> None:
    local = LocalPath(tuple(segments))
    assert LocalPath.parse(str(local)) == local
    state = StatePath(tuple(segments))
    assert StatePath.parse(str(state)) == state
    source = GraphSourcePath("context", tuple(segments))
    assert GraphSourcePath.parse(str(source)) == source


# --- parse_toml_key ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("input.a", ("input", "a")),
        ("input . a", ("input", "a")),
        ("input\t.\ta", ("input", "a")),
        ("  input.a  ", ("input", "a")),
        ('state."x"', ("state", "x")),
        ("'a.b'.c", ("a.b", "c")),
        ('input."a b"."c.d"."é"', ("input", "a b", "c.d", "é")),
        ("input.0", ("input", "0")),
        ("state.person-name", ("state", "person-name")),
        ('"items[0]"', ("items[0]",)),
        ('"\\u00e9\\U0001F600"', ("é😀",)),
        ('"a\\"b"', ('a"b',)),
        ("'a\\b'", ("a\\b",)),
    ],
)
def test_parse_toml_key(text: str, expected: tuple[str, ...]) -> None:
    assert parse_toml_key(text, "TOML path") == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        ".",
        "state.",
        ".state",
        "a..b",
        'input."unclosed',
        "input.'unclosed",
        "input.a b",
        "[input]\nname",
        "input.a = 1",
        "items[0]",
        "a\n= true }\nx = {b",
        "a = {b = true} } #",
        "a = true, b",
        "a = true } # ",
        "a.b\n",
        "a\r",
        "é",
        '"\\q"',
        '"\\ud800"',
        '"a\nb"',
        '"""a"""',
    ],
)
def test_parse_toml_key_rejects_non_keys(text: str) -> None:
    with pytest.raises(PathResolutionError) as info:
        parse_toml_key(text, "TOML path")
    assert str(info.value) == toml_error(text)


def test_parse_toml_key_rejects_non_strings() -> None:
    with pytest.raises(PathResolutionError, match="invalid TOML path"):
        parse_toml_key(42, "TOML path")  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["TOML path", "local", "graph source", "state"])
def test_segment_errors_name_the_kind(kind: str) -> None:
    with pytest.raises(PathResolutionError) as info:
        parse_toml_key('a.""', kind)
    assert str(info.value) == f"invalid {kind} segment ''"
    with pytest.raises(PathResolutionError) as info:
        parse_toml_key("a.'  '", kind)
    assert str(info.value) == f"invalid {kind} segment '  '"
    with pytest.raises(PathResolutionError) as info:
        parse_toml_key('a."x\\u0007"', kind)
    assert str(info.value) == f"invalid {kind} segment 'x\\x07'; control characters are not allowed"


def test_tab_only_segment_reads_as_blank_not_control() -> None:
    with pytest.raises(PathResolutionError) as info:
        parse_toml_key('"\t"', "local")
    assert str(info.value) == "invalid local segment '\\t'"


def test_raw_tab_inside_quotes_is_a_control_character() -> None:
    with pytest.raises(PathResolutionError) as info:
        parse_toml_key('"a\tb"', "state")
    assert str(info.value) == "invalid state segment 'a\\tb'; control characters are not allowed"


# --- GraphSourcePath --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "root", "parts", "canonical"),
    [
        ("input", "input", (), "input"),
        ("state", "state", (), "state"),
        ("context", "context", (), "context"),
        ("input.a.b", "input", ("a", "b"), "input.a.b"),
        ('state."x"', "state", ("x",), "state.x"),
        (
            "context . foreach . 'orders.v2'",
            "context",
            ("foreach", "orders.v2"),
            'context.foreach."orders.v2"',
        ),
        ('"input".a', "input", ("a",), "input.a"),
    ],
)
def test_graph_source_parse(text: str, root: str, parts: tuple[str, ...], canonical: str) -> None:
    path = GraphSourcePath.parse(text)
    assert path.root == root
    assert path.parts == parts
    assert path.segments == (root, *parts)
    assert path.is_root is (not parts)
    assert str(path) == canonical


@pytest.mark.parametrize(
    ("text", "root"), [("output.a", "output"), ("x", "x"), ("Input.a", "Input")]
)
def test_graph_source_unknown_root(text: str, root: str) -> None:
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath.parse(text)
    assert str(info.value) == f"unknown path root {root!r}"


def test_graph_source_parse_errors() -> None:
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath.parse("input.a b")
    assert str(info.value) == toml_error("input.a b")
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath.parse('input." "')
    assert str(info.value) == "invalid graph source segment ' '"


def test_graph_source_constructor_checks_invariants() -> None:
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath("output", ("a",))
    assert str(info.value) == "unknown path root 'output'"
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath("input", ("a", 1))  # type: ignore[arg-type]
    assert str(info.value) == "graph source path parts must be strings"
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath("input", "ab")  # type: ignore[arg-type]
    assert str(info.value) == "graph source path parts must be strings"
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath("input", ("",))
    assert str(info.value) == "invalid graph source segment ''"
    path = GraphSourcePath("input", ["a b", "c.d"])  # type: ignore[arg-type]
    assert path.parts == ("a b", "c.d")
    assert str(path) == 'input."a b"."c.d"'


def test_paths_are_frozen_slotted_and_hashable() -> None:
    path = GraphSourcePath.parse("input.a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        path.root = "state"  # type: ignore[misc]
    assert not hasattr(path, "__dict__")
    assert GraphSourcePath("input", ("a",)) == path
    assert len({path, GraphSourcePath.input("a"), GraphSourcePath.state("a")}) == 2
    assert len({StatePath.of("a"), StatePath(("a",)), LocalPath.of("a"), LocalPath(("a",))}) == 2
    assert GraphSourcePath("state", ("a",)) != StatePath(("a",))


def test_graph_source_fragment_helpers_split_on_dots() -> None:
    assert GraphSourcePath.input() == GraphSourcePath("input")
    assert GraphSourcePath.input("a", "b.c").parts == ("a", "b", "c")
    assert GraphSourcePath.state("x").segments == ("state", "x")
    assert GraphSourcePath.context("a.b").parts == ("a", "b")
    assert GraphSourcePath.context("a b").parts == ("a b",)
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath.input("")
    assert str(info.value) == "invalid graph source path"
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath.context("a..b")
    assert str(info.value) == "invalid graph source path 'a..b'"
    with pytest.raises(PathResolutionError) as info:
        GraphSourcePath.state("a.")
    assert str(info.value) == "invalid graph source path 'a.'"


def test_graph_source_child_appends_literal_segments() -> None:
    assert GraphSourcePath.context().child("orders.v2").parts == ("orders.v2",)


# --- StatePath --------------------------------------------------------------


def test_state_path_parse() -> None:
    path = StatePath.parse("state.a.'b c'")
    assert path.parts == ("a", "b c")
    assert path.root == "state"
    assert path.field == "a"
    assert path.segments == ("state", "a", "b c")
    assert str(path) == 'state.a."b c"'
    assert path.as_source() == GraphSourcePath("state", ("a", "b c"))


@pytest.mark.parametrize("text", ["state", "input.a", "context.a", "context"])
def test_state_path_needs_state_root_and_parts(text: str) -> None:
    with pytest.raises(PathResolutionError) as info:
        StatePath.parse(text)
    assert str(info.value) == "expected state path such as state.foo"


def test_state_path_parse_goes_through_graph_source() -> None:
    with pytest.raises(PathResolutionError) as info:
        StatePath.parse("output.a")
    assert str(info.value) == "unknown path root 'output'"
    with pytest.raises(PathResolutionError) as info:
        StatePath.parse("state.")
    assert str(info.value) == toml_error("state.")


def test_state_path_constructor_and_fragments() -> None:
    with pytest.raises(PathResolutionError) as info:
        StatePath(())
    assert str(info.value) == "expected state path such as state.foo"
    with pytest.raises(PathResolutionError) as info:
        StatePath(("a", "\x00"))
    assert str(info.value) == "invalid state segment '\\x00'; control characters are not allowed"
    assert StatePath.of("a.b", "c") == StatePath(("a", "b", "c"))
    with pytest.raises(PathResolutionError) as info:
        StatePath.of()
    assert str(info.value) == "expected state path such as state.foo"
    with pytest.raises(PathResolutionError) as info:
        StatePath.of("")
    assert str(info.value) == "invalid state path"
    with pytest.raises(PathResolutionError) as info:
        StatePath.of(".a")
    assert str(info.value) == "invalid state path '.a'"


# --- LocalPath --------------------------------------------------------------


def test_local_path_root_and_parse() -> None:
    root = LocalPath.parse(".")
    assert root == LocalPath() == LocalPath.of()
    assert root.is_root
    assert str(root) == "."
    path = LocalPath.parse('a."b.c"')
    assert path.parts == ("a", "b.c")
    assert path.segments == ("a", "b.c")
    assert str(path) == 'a."b.c"'
    assert path.child("d").parts == ("a", "b.c", "d")
    assert str(LocalPath.parse("input.a")) == "input.a"


@pytest.mark.parametrize("text", ["", "..", " . ", "a.", "a b", "a = 1"])
def test_local_path_errors_are_local_path_errors(text: str) -> None:
    with pytest.raises(LocalPathError) as info:
        LocalPath.parse(text)
    assert str(info.value) == toml_error(text)


def test_local_path_segment_and_fragment_errors() -> None:
    with pytest.raises(LocalPathError) as info:
        LocalPath.parse('a." "')
    assert str(info.value) == "invalid local segment ' '"
    with pytest.raises(LocalPathError) as info:
        LocalPath(("a", 3))  # type: ignore[arg-type]
    assert str(info.value) == "local path parts must be strings"
    assert LocalPath.of("a.b", "c").parts == ("a", "b", "c")
    with pytest.raises(LocalPathError) as info:
        LocalPath.of("")
    assert str(info.value) == "invalid local path"
    with pytest.raises(LocalPathError) as info:
        LocalPath.of("a..b")
    assert str(info.value) == "invalid local path 'a..b'"


# --- pydantic integration ---------------------------------------------------


def test_pydantic_accepts_strings_instances_and_structural_objects() -> None:
    model = Bindings(source="input.'a b'", target="state.x", local=".")
    assert model.source == GraphSourcePath("input", ("a b",))
    assert model.target == StatePath(("x",))
    assert model.local == LocalPath()

    model = Bindings(
        source=GraphSourcePath.context("foreach"),
        target=StatePath.of("y"),
        local=LocalPath.of("p"),
    )
    assert (model.source, model.target, model.local) == (
        GraphSourcePath("context", ("foreach",)),
        StatePath(("y",)),
        LocalPath(("p",)),
    )

    model = Bindings(
        source={"root": "context"},
        target={"root": "state", "parts": ["a.b", "c d"]},
        local={"root": "local", "parts": []},
    )
    assert model.source == GraphSourcePath("context")
    assert model.target.parts == ("a.b", "c d")
    assert model.local.is_root


def test_pydantic_serializes_the_canonical_string() -> None:
    model = Bindings(
        source={"root": "input", "parts": ["a b", "x"]},
        target={"root": "state", "parts": ["c.d"]},
        local={"root": "local", "parts": []},
    )
    expected = {"source": 'input."a b".x', "target": 'state."c.d"', "local": "."}
    assert model.model_dump() == expected
    assert model.model_dump(mode="json") == expected
    assert json.loads(model.model_dump_json()) == expected
    assert Bindings.model_validate_json(model.model_dump_json()) == model


def _validation_message(**fields: object) -> str:
    data = {"source": "input", "target": "state.a", "local": "."}
    data.update(fields)
    with pytest.raises(ValidationError) as info:
        Bindings.model_validate(data)
    errors = info.value.errors()
    assert len(errors) == 1
    return str(errors[0]["msg"])


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"source": 1}, "expected graph source path string or structural object"),
        ({"source": ["input"]}, "expected graph source path string or structural object"),
        ({"target": None}, "expected state path string or structural object"),
        ({"local": 1.5}, "expected local path string or structural object"),
        ({"source": {"root": "output", "parts": []}}, "expected graph source path root"),
        ({"source": {"parts": ["a"]}}, "expected graph source path root"),
        ({"target": {"root": "input", "parts": ["a"]}}, "expected state path root"),
        ({"local": {"root": "state", "parts": []}}, "expected local path root"),
        ({"source": {"root": "input", "parts": [1]}}, "graph source path parts must be strings"),
        ({"target": {"root": "state", "parts": "ab"}}, "state path parts must be strings"),
        ({"local": {"root": "local", "parts": [None]}}, "local path parts must be strings"),
        ({"target": {"root": "state"}}, "expected state path such as state.foo"),
        ({"target": {"root": "state", "parts": []}}, "expected state path such as state.foo"),
        ({"target": "input.a"}, "expected state path such as state.foo"),
        ({"source": "output"}, "unknown path root 'output'"),
        ({"source": "input.a b"}, toml_error("input.a b")),
        ({"local": '{"root": "local", "parts": []}'}, toml_error('{"root": "local", "parts": []}')),
        ({"local": {"root": "local", "parts": [" "]}}, "invalid local segment ' '"),
    ],
)
def test_pydantic_errors_carry_the_spec_text(fields: dict[str, object], message: str) -> None:
    assert message in _validation_message(**fields)


def test_pydantic_rebuilds_instances_so_invariants_hold() -> None:
    forged = object.__new__(GraphSourcePath)
    object.__setattr__(forged, "root", "output")
    object.__setattr__(forged, "parts", ())
    assert "unknown path root 'output'" in _validation_message(source=forged)

    forged_state = object.__new__(StatePath)
    object.__setattr__(forged_state, "parts", ())
    assert "expected state path such as state.foo" in _validation_message(target=forged_state)


def test_pydantic_does_not_convert_between_path_types() -> None:
    message = _validation_message(target=GraphSourcePath.state("a"))
    assert "expected state path string or structural object" in message


def test_pydantic_json_schema() -> None:
    def schema(root: dict[str, object], min_items: int) -> dict[str, object]:
        return {
            "oneOf": [
                {"type": "string"},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["root", "parts"],
                    "properties": {
                        "root": root,
                        "parts": {
                            "type": "array",
                            "items": {"type": "string", "minLength": 1},
                            "minItems": min_items,
                        },
                    },
                },
            ]
        }

    properties = Bindings.model_json_schema()["properties"]
    for name in ("source", "target", "local"):
        properties[name].pop("title", None)
    assert properties["source"] == schema({"enum": ["input", "state", "context"]}, 0)
    assert properties["target"] == schema({"const": "state"}, 1)
    assert properties["local"] == schema({"const": "local"}, 0)
    assert Bindings.model_json_schema(mode="serialization")["properties"]["target"]["oneOf"]


# --- helpers ----------------------------------------------------------------


def test_split_graph_path() -> None:
    assert split_graph_path(GraphSourcePath.parse("input.a.b")) == ("input", ["a", "b"])
    assert split_graph_path(StatePath.of("x")) == ("state", ["x"])
    assert split_graph_path("context") == ("context", [])


@pytest.mark.parametrize(
    ("path", "allow_context", "expected"),
    [
        ("input", False, True),
        ("state", False, True),
        ("context", False, False),
        ("context", True, True),
        ("context.anything.at.all", True, True),
        ("context.scope_id", False, False),
        ("state.count", False, True),
        ("state.count.deep", False, True),
        ("state.missing", False, False),
        ("input.name", False, True),
        ("input.count", False, False),
        ("output.x", False, False),
        ("input.a b", False, False),
        (GraphSourcePath.state("count"), False, True),
        (StatePath.of("missing"), False, False),
    ],
)
def test_is_valid_source_path(
    path: str | GraphSourcePath | StatePath, allow_context: bool, expected: bool
) -> None:
    result = is_valid_source_path(path, {"count"}, ["name"], allow_context=allow_context)
    assert result is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("state.a", True),
        (StatePath.of("a.b"), True),
        (GraphSourcePath.state("a"), True),
        ("state", False),
        ("input.a", False),
        ("state.a b", False),
        (LocalPath.of("a"), False),
    ],
)
def test_is_valid_destination_path(path: object, expected: bool) -> None:
    assert is_valid_destination_path(path) is expected


def test_resolve_graph_path_walks_mappings_only() -> None:
    sources = {
        "state": {"a": {"b c": 1, "list": [{"x": 1}], "none": None}},
        "workflow_input": {"name": "n"},
        "context": {"foreach": {"orders.v2": {"item": 7}}},
    }
    assert resolve_graph_path("state.a.'b c'", **sources) == 1
    assert resolve_graph_path("state.a.none", **sources) is None
    assert resolve_graph_path(GraphSourcePath.input("name"), **sources) == "n"
    assert resolve_graph_path("context.foreach.'orders.v2'.item", **sources) == 7
    assert resolve_graph_path("input", **sources) == {"name": "n"}
    assert resolve_graph_path(StatePath.of("a"), **sources)["b c"] == 1
    for missing in ("state.a.list.0", "state.a.list.0.x", "input.nope", "state.a.none.x"):
        with pytest.raises(PathResolutionError) as info:
            resolve_graph_path(missing, **sources)
        assert str(info.value) == f"path {missing!r} could not be resolved"
    with pytest.raises(PathResolutionError) as info:
        resolve_graph_path(GraphSourcePath.context("foreach", "x"), **sources)
    assert str(info.value) == "path 'context.foreach.x' could not be resolved"
    assert path_exists("state.a.none", **sources)
    assert not path_exists("state.a.list.0", **sources)
    assert not path_exists("input.a b", **sources)


def test_get_nested_value() -> None:
    data = {"a": {"b": {"c": 3}, "l": [1]}}
    assert get_nested_value(data, ("a", "b", "c")) == 3
    assert get_nested_value(data, ()) is data
    assert get_nested_value(data, LocalPath.of("a.b")) == {"c": 3}
    assert get_nested_value(data, ("a", "x")) is None
    assert get_nested_value(data, ("a", "l", "0")) is None
    assert get_nested_value(None, ("a",)) is None


def test_set_nested_value() -> None:
    state: dict[str, object] = {"a": None, "b": {"keep": 1}, "n": 5}
    set_nested_value(state, ("a", "x", "y"), 1)
    set_nested_value(state, LocalPath.of("b.new"), 2)
    set_nested_value(state, ("top",), 3)
    assert state == {"a": {"x": {"y": 1}}, "b": {"keep": 1, "new": 2}, "n": 5, "top": 3}
    with pytest.raises(PathResolutionError) as info:
        set_nested_value(state, ("n", "x"), 1)
    assert str(info.value) == "cannot descend into non-object state field 'n'"
    with pytest.raises(PathResolutionError) as info:
        set_nested_value(state, ("a", "x", "y", "z"), 1)
    assert str(info.value) == "cannot descend into non-object state field 'y'"
    with pytest.raises(PathResolutionError) as info:
        set_nested_value(state, (), 1)
    assert str(info.value) == "cannot set value with empty path"
    assert state["n"] == 5


def test_path_parts_overlap() -> None:
    assert path_parts_overlap((), ("a",))
    assert path_parts_overlap(("a",), ())
    assert path_parts_overlap(("a",), ("a", "b"))
    assert path_parts_overlap(("a", "b"), ("a", "b"))
    assert not path_parts_overlap(("a", "b"), ("a", "c"))
    assert not path_parts_overlap(("a",), ("ab",))
    assert path_parts_overlap(LocalPath.of("a"), LocalPath.of("a.b"))


def test_has_overlapping_paths() -> None:
    assert not has_overlapping_paths([])
    assert not has_overlapping_paths([LocalPath.of("a")])
    assert not has_overlapping_paths([LocalPath.of("a.b"), LocalPath.of("a.c"), LocalPath.of("b")])
    assert has_overlapping_paths([LocalPath.of("a.b"), LocalPath.of("c"), LocalPath.of("a")])
    assert has_overlapping_paths([LocalPath.of("x"), LocalPath.of("x")])
    assert has_overlapping_paths([LocalPath.of("b"), LocalPath()])
    # A prefix sorting far from its extension is still found.
    paths = [LocalPath.of("a"), LocalPath.of("a-"), LocalPath.of("a.z")]
    assert has_overlapping_paths(paths)


@given(st.lists(st.lists(st.sampled_from(["a", "b", "a.b"]), max_size=3), max_size=5))
def test_has_overlapping_paths_matches_pairwise_check(parts_list: list[list[str]]) -> None:
    paths = [LocalPath(tuple(parts)) for parts in parts_list]
    pairwise = any(
        path_parts_overlap(paths[i], paths[j])
        for i in range(len(paths))
        for j in range(i + 1, len(paths))
    )
    assert has_overlapping_paths(paths) is pairwise


def test_quote_bare_segments_quotes_what_a_bare_key_cannot_hold() -> None:
    from wf_core.language.paths import quote_bare_segments

    assert quote_bare_segments("context.foreach.orders.item.skü") == (
        'context.foreach.orders.item."skü"'
    )
    assert quote_bare_segments('a.é."x".ö') == 'a."é"."x"."ö"'
    assert quote_bare_segments("input.a.b") is None  # nothing to quote
    assert quote_bare_segments("input.a b") is None  # quoting does not make it a path
