"""``is_mapping`` answers as ``isinstance(value, Mapping)`` does, whatever the value."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import pytest

from wf_core.base.mappings import is_mapping


class _Table(Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


class _Text(str):
    pass


@pytest.mark.parametrize(
    "value",
    [
        {},
        {"a": 1},
        OrderedDict(a=1),
        MappingProxyType({"a": 1}),
        _Table(),
        [],
        (),
        "a",
        _Text("a"),
        b"a",
        1,
        1.5,
        True,
        None,
        {1, 2},
        object(),
    ],
    ids=repr,
)
def test_is_mapping_is_isinstance_of_mapping(value: object) -> None:
    assert is_mapping(value) is isinstance(value, Mapping)
