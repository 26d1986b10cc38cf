"""``workspace/didChangeConfiguration``: re-read the ``wfls`` section.

Clients with ``workspace/configuration`` are asked again (the notification's
payload is unreliable across clients); others send the settings inline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from wfls.handlers import guarded

if TYPE_CHECKING:
    from wfls.server import WflsServer


@guarded()
async def handle(ls: WflsServer, params: types.DidChangeConfigurationParams) -> None:
    if ls.flags.configuration:
        await ls.fetch_configuration()
    elif params.settings is not None:
        ls.apply_settings(params.settings, "the configuration")
