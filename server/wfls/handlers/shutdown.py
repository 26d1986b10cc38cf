"""``shutdown``: stop pending diagnostics pushes; nothing may be sent after it."""

from __future__ import annotations

from wfls.context import Session


def handle(session: Session, params: None) -> None:
    session.cancel_pending()
