"""Breakpoint conditions: ``context.foreach."orders.v2".item.qty > 1 and input.dry == false``.

A condition is written in the workflow's own path syntax, so it reads what a node's
bindings read: every path operand is parsed by the one path parser
(``GraphSourcePath.parse``, the parser of bindings and conditions in documents) and
read from the stopped frame's :class:`~wf_core.runtime.bindings.Sources`, the reader
the engine uses. Literals are JSON (numbers, strings in double quotes, ``true``,
``false``, ``null``, lists in brackets).

Grammar::

    expr    := and ("or" and)*
    and     := unary ("and" unary)*
    unary   := "not" unary | "(" expr ")" | compare
    compare := operand (("==" | "!=" | "<" | ">" | "<=" | ">=" | "in") operand)?
    operand := path | literal

A lone operand is true when its value is neither ``false``, ``null``, ``0``, ``""``
nor empty. ``<`` and friends compare two numbers or two strings; ``in`` asks whether
an element is in a list, a substring in a string, or a key in an object. A path that
does not resolve makes the condition fail to evaluate (the debugger says why and does
not stop), as a node reading it would fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from wf_core.language.paths import GraphSourcePath, PathResolutionError
from wf_core.runtime.json_values import JsonValue

__all__ = ["Condition", "ConditionError", "parse_condition"]

Reader = Callable[[GraphSourcePath], JsonValue]
"""Reads a path's value in the stopped frame; raises when it does not resolve."""

_KEYWORDS = {"and", "or", "not", "in"}
_LITERAL_WORDS: dict[str, JsonValue] = {"true": True, "false": False, "null": None}
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_OPERATORS = ("==", "!=", "<=", ">=", "<", ">")
_STOPS = set(" \t\r\n()[],<>=!")


class ConditionError(ValueError):
    """A condition that cannot be parsed, or cannot be evaluated in a frame."""


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "word" (path or keyword), "literal", "op", "punct"
    text: str
    value: JsonValue = None


def _string_end(text: str, start: int) -> int:
    """The offset just past the double-quoted string starting at ``start``."""
    position = start + 1
    while position < len(text):
        char = text[position]
        if char == "\\":
            position += 2
            continue
        if char == '"':
            return position + 1
        position += 1
    raise ConditionError(f"unterminated string at column {start + 1}")


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char.isspace():
            position += 1
            continue
        if char in "()[],":
            tokens.append(_Token("punct", char))
            position += 1
            continue
        operator = next((op for op in _OPERATORS if text.startswith(op, position)), None)
        if operator is not None:
            tokens.append(_Token("op", operator))
            position += len(operator)
            continue
        if char == '"':
            end = _string_end(text, position)
            tokens.append(_Token("literal", text[position:end], json.loads(text[position:end])))
            position = end
            continue
        number = _NUMBER.match(text, position)
        if number is not None and (char == "-" or char.isdigit()):
            tokens.append(_Token("literal", number.group(), json.loads(number.group())))
            position = number.end()
            continue
        # A word: a keyword, a literal word or a path; a path's quoted segments may hold
        # anything, the operators' characters included.
        start = position
        while position < len(text) and text[position] not in _STOPS:
            if text[position] == '"':
                position = _string_end(text, position)
            else:
                position += 1
        if position == start:
            raise ConditionError(f"unexpected '{char}' at column {start + 1}")
        tokens.append(_Token("word", text[start:position]))
    return tokens


class Condition:
    """A parsed condition; :meth:`holds` evaluates it in one frame."""

    def __init__(self, text: str, evaluate: Callable[[Reader], JsonValue]) -> None:
        self.text = text
        self._evaluate = evaluate

    def value(self, read: Reader) -> JsonValue:
        """What the expression evaluates to where ``read`` reads: a path's value, a
        literal, or a comparison's truth (how the debug console evaluates)."""
        return self._evaluate(read)

    def holds(self, read: Reader) -> bool:
        """Whether the condition is true where ``read`` reads; raises
        :class:`ConditionError` when a path does not resolve there."""
        return _truthy(self._evaluate(read))


def _truthy(value: JsonValue) -> bool:
    return value not in (None, False, 0, "") and value != [] and value != {}


def _same(left: JsonValue, right: JsonValue) -> bool:
    """JSON equality: ``true`` is not ``1``, as in the documents' own conditions."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    return left == right


def _order(operator: str, left: JsonValue, right: JsonValue) -> bool:
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right))
    strings = isinstance(left, str) and isinstance(right, str)
    if not numbers and not strings:
        raise ConditionError(
            f"'{operator}' compares two numbers or two strings, not {json.dumps(left)} "
            f"and {json.dumps(right)}"
        )
    assert isinstance(left, int | float | str) and isinstance(right, int | float | str)
    if operator == "<":
        return left < right  # type: ignore[operator]
    if operator == ">":
        return left > right  # type: ignore[operator]
    if operator == "<=":
        return left <= right  # type: ignore[operator]
    return left >= right  # type: ignore[operator]


def _member(left: JsonValue, right: JsonValue) -> bool:
    if isinstance(right, list):
        return any(_same(left, element) for element in right)
    if isinstance(right, str) and isinstance(left, str):
        return left in right
    if isinstance(right, dict) and isinstance(left, str):
        return left in right
    raise ConditionError(f"'in' needs a list, a string or an object on its right, not {right!r}")


def _compare(operator: str, left: JsonValue, right: JsonValue) -> bool:
    if operator == "==":
        return _same(left, right)
    if operator == "!=":
        return not _same(left, right)
    if operator == "in":
        return _member(left, right)
    return _order(operator, left, right)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.position = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.peek()
        if token is None:
            raise ConditionError("the condition ends too early")
        self.position += 1
        return token

    def keyword(self, word: str) -> bool:
        token = self.peek()
        if token is not None and token.kind == "word" and token.text == word:
            self.position += 1
            return True
        return False

    def expect(self, text: str) -> None:
        token = self.take()
        if token.text != text:
            raise ConditionError(f"expected '{text}', found '{token.text}'")

    def expression(self) -> Callable[[Reader], JsonValue]:
        parts = [self.conjunction()]
        while self.keyword("or"):
            parts.append(self.conjunction())
        if len(parts) == 1:
            return parts[0]
        return lambda read: any(_truthy(part(read)) for part in parts)

    def conjunction(self) -> Callable[[Reader], JsonValue]:
        parts = [self.unary()]
        while self.keyword("and"):
            parts.append(self.unary())
        if len(parts) == 1:
            return parts[0]
        return lambda read: all(_truthy(part(read)) for part in parts)

    def unary(self) -> Callable[[Reader], JsonValue]:
        if self.keyword("not"):
            inner = self.unary()
            return lambda read: not _truthy(inner(read))
        token = self.peek()
        if token is not None and token.text == "(":
            self.position += 1
            inner = self.expression()
            self.expect(")")
            return inner
        return self.comparison()

    def comparison(self) -> Callable[[Reader], JsonValue]:
        left = self.operand()
        token = self.peek()
        if token is None:
            return left
        if token.kind == "op" or (token.kind == "word" and token.text == "in"):
            self.position += 1
            right = self.operand()
            operator = token.text
            return lambda read: _compare(operator, left(read), right(read))
        return left

    def operand(self) -> Callable[[Reader], JsonValue]:
        token = self.take()
        if token.kind == "literal":
            value = token.value
            return lambda read: value
        if token.text == "[":
            values: list[JsonValue] = []
            while True:
                following = self.peek()
                if following is not None and following.text == "]":
                    self.position += 1
                    break
                element = self.take()
                if element.kind == "literal":
                    values.append(element.value)
                elif element.kind == "word" and element.text in _LITERAL_WORDS:
                    values.append(_LITERAL_WORDS[element.text])
                else:
                    raise ConditionError(f"a list holds literals only, found '{element.text}'")
                separator = self.take()
                if separator.text == "]":
                    break
                if separator.text != ",":
                    raise ConditionError(f"expected ',' or ']', found '{separator.text}'")
            return lambda read: list(values)
        if token.kind == "word":
            if token.text in _LITERAL_WORDS:
                word_value = _LITERAL_WORDS[token.text]
                return lambda read: word_value
            if token.text in _KEYWORDS:
                raise ConditionError(f"expected a path or a value, found '{token.text}'")
            try:
                path = GraphSourcePath.parse(token.text)
            except PathResolutionError as error:
                raise ConditionError(f"'{token.text}': {error}") from None
            return lambda read: _read(read, path)
        raise ConditionError(f"expected a path or a value, found '{token.text}'")


def _read(read: Reader, path: GraphSourcePath) -> JsonValue:
    try:
        return read(path)
    except Exception as error:  # the engine's reader says which path did not resolve
        raise ConditionError(str(error)) from None


def parse_condition(text: str) -> Condition:
    """The condition ``text`` says; raises :class:`ConditionError` with the reason."""
    parser = _Parser(text)
    if not parser.tokens:
        raise ConditionError("the condition is empty")
    evaluate = parser.expression()
    rest = parser.peek()
    if rest is not None:
        raise ConditionError(f"unexpected '{rest.text}' after the condition")
    return Condition(text, evaluate)
