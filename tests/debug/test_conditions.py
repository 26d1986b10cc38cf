"""Breakpoint conditions and console expressions: parsed with the documents' path syntax,
read from a frame's sources as the engine reads them."""

from __future__ import annotations

import pytest

from wf_core.runtime.bindings import Sources
from wfls.debug.breakpoints import HitCondition, parse_hit_condition
from wfls.debug.conditions import ConditionError, parse_condition

ORDER = {"sku": "A-17", "qty": 2, "tags": ["rush"]}
SOURCES = Sources(
    {"limit": 10, "dry": False},
    {"total": 3.5, "seen": ["A-17"]},
    {
        "foreach": {
            "customers": {"index": 0, "item": {"name": "Ada"}},
            "orders.v2": {"index": 1, "item": ORDER},
        },
        "order": ORDER,
        "prior_outcome": "loop",
    },
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('context.foreach."orders.v2".item.qty > 1', True),
        ('context.foreach."orders.v2".item.qty < 1', False),
        ('context.foreach."orders.v2".item.qty >= 2 and input.limit <= 10', True),
        ('context.foreach.customers.item.name == "Ada"', True),
        ('context.foreach.customers.item.name != "Ada" or state.total > 3', True),
        ('context.order.sku in ["B-4", "A-17"]', True),
        ('"rush" in context.order.tags', True),
        ('"qty" in context.order', True),
        ('"17" in context.order.sku', True),
        ("input.dry == false", True),
        ("input.dry == 0", False),  # JSON equality: false is not 0
        ("not (input.limit > 5)", False),
        ("context.prior_outcome", "loop"),  # a lone path evaluates to its value
        ('context.foreach."orders.v2".index', 1),
        ("state.seen", ["A-17"]),
        ("-1.5e1 < 0", True),
    ],
)
def test_conditions_evaluate_in_the_frame(text: str, value: object) -> None:
    condition = parse_condition(text)
    assert condition.value(SOURCES.read) == value
    assert condition.holds(SOURCES.read) == bool(value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the condition is empty"),
        ("context.order.qty >", "the condition ends too early"),
        ("context.order.qty > 1 1", "unexpected '1' after the condition"),
        ("(input.limit > 1", "the condition ends too early"),
        ('context."open', "unterminated string at column 9"),
        ("output.x == 1", "'output.x': unknown path root 'output'"),
        ("input.limit in [1, input.x]", "a list holds literals only, found 'input.x'"),
        ("and", "expected a path or a value, found 'and'"),
    ],
)
def test_a_condition_that_does_not_parse_says_why(text: str, message: str) -> None:
    with pytest.raises(ConditionError) as raised:
        parse_condition(text)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("context.order.missing == 1", "path 'context.order.missing' could not be resolved"),
        ("context.order.sku > 1", "'>' compares two numbers or two strings, not \"A-17\" and 1"),
        ("1 in 2", "'in' needs a list, a string or an object on its right, not 2"),
    ],
)
def test_a_condition_that_cannot_be_evaluated_here_says_why(text: str, message: str) -> None:
    with pytest.raises(ConditionError) as raised:
        parse_condition(text).holds(SOURCES.read)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("text", "condition", "stopping_hits"),
    [
        ("3", HitCondition("==", 3), [3]),
        ("== 2", HitCondition("==", 2), [2]),
        (">= 4", HitCondition(">=", 4), [4, 5, 6]),
        ("> 4", HitCondition(">", 4), [5, 6]),
        ("%2", HitCondition("%", 2), [2, 4, 6]),
    ],
)
def test_hit_counts(text: str, condition: HitCondition, stopping_hits: list[int]) -> None:
    parsed = parse_hit_condition(text)
    assert parsed == condition
    assert [hits for hits in range(1, 7) if parsed.stops(hits)] == stopping_hits


@pytest.mark.parametrize("text", ["", "x", "0", ">= -1", "% 0", "<3"])
def test_a_bad_hit_count_is_refused(text: str) -> None:
    with pytest.raises(ConditionError, match="expected N, == N, >= N, > N or % N"):
        parse_hit_condition(text)
