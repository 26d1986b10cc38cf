"""Random editing sessions against the real server, every step checked (``fuzzsession``).

Hypothesis draws every choice of the session, so a failure shrinks to a short
sequence of opens, edits and requests. One server per position encoding
serves all examples (each example starts by closing what the previous one
left open), which also makes the run a small soak; the examples are fixed
(``derandomize``) so ``make test`` stays bounded and repeatable. The server has
a workspace folder holding some of the documents the session opens; after each
example's steps the diagnostics of each open workflow document are compared
with what ``wfls check`` finds in the same files.
``bench/soak_session.py`` runs the same steps for as long as asked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.lsp.fuzzsession import EXAMPLES as TEXTS
from tests.lsp.fuzzsession import FuzzSession
from wfls.random_session import write_workspace

EXAMPLES = 100
STEPS = 40


class HypothesisChooser:
    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))

    def choice(self, options: list[Any]) -> Any:
        return self.data.draw(st.sampled_from(options))


@pytest.fixture(
    scope="module",
    params=[("utf-16", True), ("utf-8", False)],
    ids=["utf-16-pull", "utf-8-push"],
)
def session(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FuzzSession]:
    encoding, pull = request.param
    root = tmp_path_factory.mktemp("workspace")
    write_workspace(root, TEXTS)
    fuzz = FuzzSession(encoding, pull=pull, root=root)
    try:
        yield fuzz
        fuzz.check_stderr()
        # Every kind of request was exercised, not only the cheap ones, and every kind of
        # step that checks an answer or a text against another reading of it.
        assert set(fuzz.requests) <= set(fuzz.stats.by_method)
        stats = fuzz.stats
        assert stats.text_checks > EXAMPLES
        assert stats.moved > 20 and stats.moved_found > 10 and stats.races > 20
        assert stats.check_comparisons > EXAMPLES / 2
    finally:
        status = fuzz.close()
    assert status == 0


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_random_sessions(session: FuzzSession, data: st.DataObject) -> None:
    session.reset()
    choose = HypothesisChooser(data)
    for _ in range(STEPS):
        session.step(choose)
    session.compare_with_check()
    session.check_stderr()
