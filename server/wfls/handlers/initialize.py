"""``initialize``: resolve the client once, read initial settings, register features."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from wfls.capabilities import resolve

if TYPE_CHECKING:
    from wfls.server import WflsServer


def handle(ls: WflsServer, params: types.InitializeParams) -> None:
    # Not guarded: a failure here must fail the initialize request visibly.
    from wfls.server import register_features

    ls.flags = resolve(params.capabilities)
    register_features(ls)
    if params.initialization_options is not None:
        ls.apply_settings(params.initialization_options, "initializationOptions")
