"""Settings: initializationOptions, workspace/configuration, bad values."""

from __future__ import annotations

from conftest import Session, start_session
from lsprotocol import types
from pytest_lsp import LanguageClient


def codes(diagnostics) -> dict[str, types.DiagnosticSeverity]:
    return {d.code: d.severity for d in diagnostics}


async def test_initialization_options_shape_the_diagnostics(
    bare_client: LanguageClient, request, tmp_path, audit_text: str
):
    session = await start_session(
        bare_client,
        request,
        tmp_path,
        "neovim",
        "utf-8",
        initialization_options={"undeclaredPropertySeverity": "error", "hintDeprecatedKeys": False},
    )
    uri = session.open("audit.wf.toml", audit_text)
    found = codes(await session.diagnostics(uri))
    assert found["undeclared_property"] == types.DiagnosticSeverity.Error
    assert "deprecated_context_key" not in found
    assert bare_client.messages == []


async def test_severity_off_hides_undeclared_properties(
    bare_client: LanguageClient, request, tmp_path, audit_text: str
):
    session = await start_session(
        bare_client,
        request,
        tmp_path,
        "visual-studio-code",
        "utf-16",
        initialization_options={"wfls": {"undeclaredPropertySeverity": "off"}},
    )
    uri = session.open("audit.wf.toml", audit_text)
    found = codes(await session.diagnostics(uri))
    assert "undeclared_property" not in found
    assert found["deprecated_context_key"] == types.DiagnosticSeverity.Hint


async def test_bad_settings_fall_back_with_one_warning(
    bare_client: LanguageClient, request, tmp_path, audit_text: str
):
    session = await start_session(
        bare_client,
        request,
        tmp_path,
        "visual-studio-code",
        "utf-16",
        initialization_options={"undeclaredPropertySeverity": "loud", "hintDeprecatedKeys": "yes"},
    )
    uri = session.open("audit.wf.toml", audit_text)
    found = codes(await session.diagnostics(uri))
    assert found["undeclared_property"] == types.DiagnosticSeverity.Warning
    assert found["deprecated_context_key"] == types.DiagnosticSeverity.Hint
    [warning] = bare_client.messages
    assert warning.type == types.MessageType.Warning
    assert "undeclaredPropertySeverity" in warning.message
    assert "hintDeprecatedKeys" in warning.message


async def _pushed_matching(session: Session, uri: str, predicate) -> list[types.Diagnostic]:
    """Diagnostics of a push of ``uri`` satisfying ``predicate``.

    Settings from workspace/configuration arrive after the document may have
    been checked once with the defaults; the server then pushes again.
    """
    params = await session.push_where(lambda p: p.uri == uri and predicate(list(p.diagnostics)))
    return list(params.diagnostics)


async def test_workspace_configuration_is_read_and_reread(
    bare_client: LanguageClient, request, tmp_path, audit_text: str
):
    bare_client.set_configuration({"hintDeprecatedKeys": False}, section="wfls")
    session = await start_session(bare_client, request, tmp_path, "visual-studio-code", "utf-16")
    uri = session.open("audit.wf.toml", audit_text)
    without_hints = await _pushed_matching(
        session, uri, lambda ds: "deprecated_context_key" not in codes(ds)
    )
    assert "undeclared_property" in codes(without_hints)

    bare_client.set_configuration({"undeclaredPropertySeverity": "hint"}, section="wfls")
    bare_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    updated = await _pushed_matching(
        session,
        uri,
        lambda ds: codes(ds).get("undeclared_property") == types.DiagnosticSeverity.Hint,
    )
    assert codes(updated)["deprecated_context_key"] == types.DiagnosticSeverity.Hint
