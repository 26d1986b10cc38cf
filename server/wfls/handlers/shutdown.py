"""``shutdown``: stop pending diagnostics pushes; nothing may be sent after it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wfls.handlers import guarded

if TYPE_CHECKING:
    from wfls.server import WflsServer


@guarded()
def handle(ls: WflsServer, params: None) -> None:
    ls.cancel_pending()
