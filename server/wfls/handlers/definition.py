"""``textDocument/definition``: targets in this document, or in another one."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext, TestRequestContext


def empty(params: types.DefinitionParams) -> list[types.Location]:
    return []


def handle(ctx: RequestContext, params: types.DefinitionParams) -> list[types.Location]:
    from wfls.features.definition import definition

    locations = []
    for target in definition(ctx.view, ctx.offset(params.position), ctx.workspace):
        if target.uri is None or target.uri == ctx.uri:
            locations.append(convert.location(ctx.uri, target.span, ctx.codec))
            continue
        codec = ctx.documents.codec_for(target.uri)
        if codec is not None:
            locations.append(convert.location(target.uri, target.span, codec))
    return locations


def handle_test(ctx: TestRequestContext, params: types.DefinitionParams) -> list[types.Location]:
    """In a workflow test document: a node id to its node, ``workflow`` to the workflow."""
    from wfls.features.test_documents import definition

    workflow = ctx.view.workflow
    if workflow is None:
        return []
    # Positions in the workflow as the workspace index analysed it, with its own lines.
    codec = convert.PositionCodec(workflow.lines, ctx.flags.position_encoding)
    return [
        convert.location(target.uri or ctx.uri, target.span, codec)
        for target in definition(ctx.view, ctx.offset(params.position))
    ]
