"""``workspace/didChangeConfiguration``: re-read the ``wfls`` section.

Clients with ``workspace/configuration`` are asked again (the notification's
payload is unreliable across clients); others send the settings inline.
"""

from __future__ import annotations

from lsprotocol import types

from wfls.context import Session


async def handle(session: Session, params: types.DidChangeConfigurationParams) -> None:
    if session.flags.configuration:
        await session.fetch_configuration()
    elif params.settings is not None:
        session.apply_settings(params.settings, "the configuration")
