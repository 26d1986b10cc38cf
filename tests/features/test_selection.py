"""Selection ranges, data-driven: from the ``$0`` cursor outwards, each range as «text».

The last range is always the whole document; it is checked, not written out.
"""

from __future__ import annotations

import itertools

from tests.features.fixture import cursor, expected
from wf_core.base.spans import Span
from wfls.features.selection import selection_chain


def check_selection_ranges(fixture: str, chain: str) -> None:
    snapshot, offset = cursor(fixture)
    text = snapshot.text
    found = selection_chain(snapshot, offset)
    assert found[-1] == Span(0, len(text))
    for inner, outer in itertools.pairwise(found):
        assert outer.start <= inner.start and inner.end <= outer.end and inner != outer
    assert all(s.start <= offset <= s.end for s in found)
    shown = "".join(f"«{text[s.start : s.end]}»\n" for s in found[:-1])
    assert shown == expected(chain)


NODE = """
name = "s"

[[nodes]]
id = "charge"
type = "node"
node = "task"
input = [
  { target = "order", path = 'context.foreach."orders.v2".item' },
  { target = "n", value = 3 },
]
"""


def test_from_a_path_segment_to_the_node() -> None:
    check_selection_ranges(
        NODE.replace('."orders.v2"', '."ord$0ers.v2"'),
        """
        «"orders.v2"»
        «context.foreach."orders.v2".item»
        «'context.foreach."orders.v2".item'»
        «path = 'context.foreach."orders.v2".item'»
        «{ target = "order", path = 'context.foreach."orders.v2".item' }»
        «[
          { target = "order", path = 'context.foreach."orders.v2".item' },
          { target = "n", value = 3 },
        ]»
        «input = [
          { target = "order", path = 'context.foreach."orders.v2".item' },
          { target = "n", value = 3 },
        ]»
        «[[nodes]]
        id = "charge"
        type = "node"
        node = "task"
        input = [
          { target = "order", path = 'context.foreach."orders.v2".item' },
          { target = "n", value = 3 },
        ]»
        """,
    )


def test_a_plain_value_grows_to_its_pair() -> None:
    check_selection_ranges(
        NODE.replace("value = 3", "value = $03"),
        """
        «3»
        «value = 3»
        «{ target = "n", value = 3 }»
        «[
          { target = "order", path = 'context.foreach."orders.v2".item' },
          { target = "n", value = 3 },
        ]»
        «input = [
          { target = "order", path = 'context.foreach."orders.v2".item' },
          { target = "n", value = 3 },
        ]»
        «[[nodes]]
        id = "charge"
        type = "node"
        node = "task"
        input = [
          { target = "order", path = 'context.foreach."orders.v2".item' },
          { target = "n", value = 3 },
        ]»
        """,
    )


def test_a_key_and_a_string_in_json() -> None:
    fixture = """
        {"name": "j",
         "nodes": [{"id": "a", "type": "end", "outcome": "ok"}]}
        """
    check_selection_ranges(
        fixture.replace('"type"', '"ty$0pe"'),
        """
        «"type"»
        «"type": "end"»
        «{"id": "a", "type": "end", "outcome": "ok"}»
        «[{"id": "a", "type": "end", "outcome": "ok"}]»
        «"nodes": [{"id": "a", "type": "end", "outcome": "ok"}]»
        """,
    )
    check_selection_ranges(
        fixture.replace('"end"', '"e$0nd"'),
        """
        «end»
        «"end"»
        «"type": "end"»
        «{"id": "a", "type": "end", "outcome": "ok"}»
        «[{"id": "a", "type": "end", "outcome": "ok"}]»
        «"nodes": [{"id": "a", "type": "end", "outcome": "ok"}]»
        """,
    )


def test_a_table_section() -> None:
    check_selection_ranges(
        """
        name = "t"

        [input_schema]
        type = "obj$0ect"
        properties.x = {}
        """,
        """
        «object»
        «"object"»
        «type = "object"»
        «[input_schema]
        type = "object"
        properties.x = {}»
        """,
    )


def test_between_the_quotes_of_a_multiline_string_is_not_inside_it() -> None:
    """The cursor is inside a string only where the classifier says so (between its
    opening and closing quotes): between the marks of ``\"\"\"`` it is on the value."""
    check_selection_ranges(
        """
        name = "t"
        desc = "$0""a b\"\"\"
        """,
        '''
        «"""a b"""»
        «desc = """a b"""»
        ''',
    )


def test_the_end_of_an_unterminated_string_is_inside_it() -> None:
    """While a string is being typed (not closed yet), its end is still inside it."""
    check_selection_ranges(
        """
        name = "t"
        start = "ab$0
        """,
        """
        «ab»
        «"ab»
        «start = "ab»
        """,
    )
