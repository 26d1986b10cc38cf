"""``textDocument/definition``: the definition feature's targets as locations.

A target in another document is converted with that document's text: the
open version when the client has it open, else the file on disk.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from lsprotocol import types

from wf_core.files import decode
from wf_core.spans import LineIndex
from wfls import convert
from wfls.handlers import guarded, snapshot_at

if TYPE_CHECKING:
    from wfls.server import WflsServer

logger = logging.getLogger("wfls")


def _empty() -> list[types.Location]:
    return []


def _codec_for_other(ls: WflsServer, uri: str) -> convert.PositionCodec | None:
    codec = ls.codec_for(uri)
    if codec is not None:
        return codec
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    try:
        text, _ = decode(Path(unquote(parsed.path)).read_bytes())
    except OSError:
        logger.warning("definition target %s cannot be read", uri)
        return None
    return convert.PositionCodec(LineIndex(text), ls.flags.position_encoding)


@guarded(_empty)
async def handle(ls: WflsServer, params: types.DefinitionParams) -> list[types.Location]:
    uri = params.text_document.uri
    found = await snapshot_at(ls, uri, params.position)
    if found is None:
        return []
    snapshot, codec, offset = found
    from wfls.features.definition import definition

    locations = []
    for target in definition(snapshot, offset):
        if target.uri is None or target.uri == uri:
            locations.append(convert.location(uri, target.span, codec))
            continue
        other = _codec_for_other(ls, target.uri)
        if other is not None:
            locations.append(convert.location(target.uri, target.span, other))
    return locations
