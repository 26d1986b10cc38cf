"""Neovim 0.11 as a real client: editors/neovim's configuration against the real server.

A headless Neovim opens a copy of the billing example, waits for wfls to
attach, asks for hover and completion through its own LSP client, introduces
a typo, reads the diagnostics it then holds and applies the quick fix through
``vim.lsp.buf.code_action``, asks for the references of a loop and renames it
(applying the workspace edit as Neovim does), and writes everything as JSON.
A second script reads the semantic tokens, inlay hints, outline, workspace
symbols and folds Neovim's own LSP support gets from the server.
Every wait in the script is bounded and the process has a timeout, so a broken
server fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
NVIM = Path(sys.executable).parent / "nvim"

INIT = r"""
local out = {}
local function finish()
  local file = assert(io.open(vim.g.wfls_result, 'w'))
  file:write(vim.json.encode(out))
  file:close()
  vim.cmd('qa!')
end

vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')

local function line_text(row)
  return vim.api.nvim_buf_get_lines(0, row, row + 1, false)[1]
end

vim.api.nvim_create_autocmd('VimEnter', {
  nested = true, -- so that :edit below fires FileType and the LSP attaches
  callback = function()
    local ok, err = pcall(function()
      vim.cmd.edit(vim.fn.fnameescape(vim.g.wfls_document))
      out.filetype = vim.bo.filetype
      out.json_filetype = vim.filetype.match({ filename = 'approvals.wf.json' })
      out.attached = vim.wait(20000, function()
        return #vim.lsp.get_clients({ bufnr = 0, name = 'wfls' }) > 0
      end, 50)
      if not out.attached then
        return
      end
      local client = vim.lsp.get_clients({ bufnr = 0, name = 'wfls' })[1]
      out.offset_encoding = client.offset_encoding
      out.pulls = client.server_capabilities.diagnosticProvider ~= nil
      local uri = vim.uri_from_bufnr(0)
      local function at(pos)
        return { textDocument = { uri = uri }, position = { line = pos[1], character = pos[2] } }
      end

      local hover = vim.lsp.buf_request_sync(0, 'textDocument/hover', at(vim.g.wfls_hover), 20000)
      out.hover = hover and hover[client.id] and hover[client.id].result

      -- Completion: type a dot after the item segment, then complete there.
      local edit = vim.g.wfls_edit
      vim.api.nvim_buf_set_text(0, edit[1], edit[2], edit[1], edit[2], { '.' })
      local completion = vim.lsp.buf_request_sync(
        0, 'textDocument/completion', at({ edit[1], edit[2] + 1 }), 20000)
      local result = completion and completion[client.id] and completion[client.id].result
      out.completion = {}
      for _, item in ipairs((result and (result.items or result)) or {}) do
        table.insert(out.completion, item.label)
      end
      vim.api.nvim_buf_set_text(0, edit[1], edit[2], edit[1], edit[2] + 1, { '' })

      -- Completion applied: empty the path after `context.foreach.`, complete,
      -- apply the edit of the "orders.v2" item as Neovim does, read the line.
      local loop = vim.g.wfls_loop
      local original = line_text(loop[1])
      vim.api.nvim_buf_set_text(0, loop[1], loop[2], loop[1], loop[3], { '' })
      local loops = vim.lsp.buf_request_sync(
        0, 'textDocument/completion', at({ loop[1], loop[2] }), 20000)
      local items = loops and loops[client.id] and loops[client.id].result
      items = items and (items.items or items) or {}
      out.loop_labels = {}
      for _, item in ipairs(items) do
        table.insert(out.loop_labels, item.label)
        if item.label == '"orders.v2"' then
          local text_edit = item.textEdit
          local range = text_edit.range or text_edit.replace
          vim.lsp.util.apply_text_edits(
            { { range = range, newText = text_edit.newText } },
            vim.api.nvim_get_current_buf(), client.offset_encoding)
        end
      end
      out.completed_line = line_text(loop[1])
      vim.api.nvim_buf_set_lines(0, loop[1], loop[1] + 1, false, { original })

      -- Go to definition from a foreach id in a path, as `gd` would.
      local use = vim.g.wfls_definition
      vim.api.nvim_win_set_cursor(0, { use[1] + 1, use[2] })
      vim.lsp.buf.definition()
      vim.wait(20000, function()
        return vim.api.nvim_win_get_cursor(0)[1] ~= use[1] + 1
      end, 50)
      out.definition_cursor = vim.api.nvim_win_get_cursor(0)
      out.definition_line = line_text(out.definition_cursor[1] - 1)

      -- Introduce a typo and wait for the diagnostics that report it.
      local function typos()
        local found = {}
        for _, d in ipairs(vim.diagnostic.get(0)) do
          if d.code == 'invalid_context_path' then
            table.insert(found, d)
          end
        end
        return found
      end
      local typo = vim.g.wfls_typo
      vim.api.nvim_buf_set_text(0, typo[1], typo[2], typo[1], typo[2] + 4, { 'nmae' })
      vim.wait(20000, function()
        return #typos() > 0
      end, 50)
      out.diagnostics = {}
      for _, d in ipairs(vim.diagnostic.get(0)) do
        table.insert(out.diagnostics, {
          code = d.code, lnum = d.lnum, col = d.col, end_col = d.end_col,
          message = d.message, source = d.source,
        })
      end
      -- Fix it with its quick fix, through Neovim's own code action path (which
      -- also resolves the action): the diagnostic goes away.
      vim.api.nvim_win_set_cursor(0, { typo[1] + 1, typo[2] + 1 })
      vim.lsp.buf.code_action({
        context = { only = { 'quickfix' } },
        filter = function(action)
          return action.title == "Change 'nmae' to 'name'"
        end,
        apply = true,
      })
      out.cleared = vim.wait(20000, function()
        return #typos() == 0
      end, 50)
      out.fixed_line = line_text(typo[1])
      out.remaining = #vim.diagnostic.get(0)

      -- References of a foreach id, asked from one of its paths.
      local from = at(vim.g.wfls_definition)
      from.context = { includeDeclaration = true }
      local refs = vim.lsp.buf_request_sync(0, 'textDocument/references', from, 20000)
      out.references = {}
      for _, l in ipairs((refs and refs[client.id] and refs[client.id].result) or {}) do
        table.insert(out.references, { l.range.start.line, l.range.start.character })
      end

      -- Rename it, applying the workspace edit as `vim.lsp.buf.rename()` does.
      local rename = at(vim.g.wfls_definition)
      rename.newName = 'clients'
      local renamed = vim.lsp.buf_request_sync(0, 'textDocument/rename', rename, 20000)
      local workspace_edit = renamed and renamed[client.id] and renamed[client.id].result
      out.rename_answered = workspace_edit ~= nil
      if workspace_edit then
        vim.lsp.util.apply_workspace_edit(workspace_edit, client.offset_encoding)
      end
      out.renamed = vim.api.nvim_buf_get_lines(0, 0, -1, false)

      vim.cmd('checkhealth wfls')
      out.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    end)
    if not ok then
      out.error = tostring(err)
    end
    finish()
  end,
})
"""

HEALTH_ONLY = r"""
vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')
vim.api.nvim_create_autocmd('VimEnter', {
  callback = function()
    vim.cmd('checkhealth wfls')
    local file = assert(io.open(vim.g.wfls_result, 'w'))
    file:write(vim.json.encode({ health = vim.api.nvim_buf_get_lines(0, 0, -1, false) }))
    file:close()
    vim.cmd('qa!')
  end,
})
"""


def _position(text: str, offset: int) -> list[int]:
    """0-based line and UTF-8 column (Neovim negotiates UTF-8 with wfls)."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return [line, len(text[start:offset].encode("utf-8"))]


def _run(tmp_path: Path, init: str, settings: dict) -> dict:
    script = tmp_path / "init.lua"
    script.write_text(init, encoding="utf-8")
    result = tmp_path / "result.json"
    settings = {
        "wfls_runtime": str(ROOT / "editors" / "neovim"),
        "wfls_result": str(result),
        **settings,
    }
    command = [str(NVIM), "--headless", "--clean"]
    for key, value in settings.items():
        command += ["--cmd", f"let g:{key} = json_decode('{json.dumps(value)}')"]
    command += ["-u", str(script)]
    # Neovim's own files (its LSP log, the pages of :WflsGraph) go to the test's folder.
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    subprocess.run(command, cwd=tmp_path, timeout=120, check=False, capture_output=True, env=env)
    return json.loads(result.read_text(encoding="utf-8"))


def test_neovim_uses_wfls(tmp_path: Path):
    document = tmp_path / "billing.wf.toml"
    shutil.copy(ROOT / "examples" / "billing.wf.toml", document)
    text = document.read_text(encoding="utf-8")
    item_path = "'context.foreach.\"orders.v2\".item'"
    item = text.index(item_path) + item_path.index("item")
    customer_path = "context.foreach.customers.item.name"
    path = text.index(customer_path)
    loop = path + len("context.foreach.")
    name = path + len("context.foreach.customers.item.")
    settings = {
        "wfls_cmd": [sys.executable, "-m", "wfls", "serve"],
        "wfls_document": str(document),
        "wfls_hover": _position(text, item + 1),
        "wfls_edit": _position(text, item + len("item")),
        "wfls_loop": [*_position(text, loop), _position(text, path + len(customer_path))[1]],
        "wfls_definition": _position(text, loop + 3),
        "wfls_typo": _position(text, name),
    }
    out = _run(tmp_path, INIT, settings)
    assert "error" not in out, out.get("error")
    assert out["filetype"] == "toml"
    assert out["json_filetype"] == "json"
    assert out["attached"] is True
    assert out["offset_encoding"] == "utf-8"
    # Neovim 0.11 pulls but cannot be asked to pull again: wfls pushes to it.
    assert out["pulls"] is False

    hover = out["hover"]["contents"]
    assert hover["kind"] == "markdown"
    assert "sku" in hover["value"] and "qty" in hover["value"]

    assert {"sku", "qty"} <= set(out["completion"])

    # Both loops offered after `context.foreach.`; the applied edit quotes and escapes.
    assert {"customers", '"orders.v2"'} <= set(out["loop_labels"])
    assert out["completed_line"] == (
        '  { target = "customer", path = "context.foreach.\\"orders.v2\\"" },'
    )

    # Definition: the cursor lands on the foreach node's id.
    node_line = text[: text.index('id = "customers"')].count("\n") + 1
    assert out["definition_cursor"][0] == node_line
    assert out["definition_line"] == 'id = "customers"'

    typos = [d for d in out["diagnostics"] if d["code"] == "invalid_context_path"]
    assert len(typos) == 1
    [typo] = typos
    assert "nmae" in typo["message"]
    assert typo["source"] == "wfls"
    assert [typo["lnum"], typo["col"]] == settings["wfls_typo"]
    assert typo["end_col"] == settings["wfls_typo"][1] + 4
    assert out["cleared"] is True
    assert out["fixed_line"] == (
        '  { target = "customer", path = "context.foreach.customers.item.name" },'
    )
    assert out["remaining"] == 0

    # References: the node's id, start, its edges and the paths that read the loop.
    # (``required = ["customers"]`` names the input property, not the loop.)
    names = [m.end() for m in re.finditer('(start|from|to|id) = "(?=customers")', text)]
    names += [m.end() for m in re.finditer(r"foreach\.(?=customers)", text)]
    assert sorted(out["references"]) == sorted(_position(text, n) for n in names)
    assert len(names) >= 5

    # Rename, applied by Neovim: every one of those places now says "clients".
    assert out["rename_answered"] is True
    after = re.sub(r'((start|from|to|id) = "|foreach\.)customers\b', r"\1clients", text)
    assert "\n".join(out["renamed"]) + "\n" == after

    health = "\n".join(out["health"])
    assert "wfls" in health
    assert "OK wfls 0.1.0 answers" in health or f"OK wfls {_version()} answers" in health
    assert "client 1 is running wfls" in health
    assert "ERROR" not in health


def _version() -> str:
    from wfls import __version__

    return __version__


def test_checkhealth_says_when_the_server_is_missing(tmp_path: Path):
    out = _run(
        tmp_path,
        HEALTH_ONLY,
        {"wfls_cmd": [str(tmp_path / "no-such-wfls"), "serve"]},
    )
    health = "\n".join(out["health"])
    assert f"ERROR {tmp_path / 'no-such-wfls'} was not found" in health
    # This project's server, from its checkout (a package named wfls elsewhere is another).
    assert "pip install wfls" not in health
    assert "pip install /path/to/the/checkout (the distribution lda-wfls" in health
    assert "/path/to/the/checkout/.venv/bin/wfls" in health


def test_checkhealth_runs_the_python_form(tmp_path: Path):
    out = _run(tmp_path, HEALTH_ONLY, {"wfls_cmd": [sys.executable, "-m", "wfls", "serve"]})
    health = "\n".join(out["health"])
    assert f"OK wfls {_version()} answers {sys.executable} -m wfls --version" in health
    assert "no wfls client is running" in health
    if sys.platform == "linux" and shutil.which("inotifywait") is None:
        assert "WARNING inotifywait was not found" in health
    elif sys.platform == "linux":
        assert "OK Neovim watches the workflow files of the workspace for wfls (with" in health


def test_checkhealth_says_when_neovim_does_not_watch_files(tmp_path: Path):
    capabilities = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": False}}}
    out = _run(
        tmp_path,
        HEALTH_ONLY.replace(
            "cmd = vim.g.wfls_cmd }",
            "cmd = vim.g.wfls_cmd, capabilities = vim.g.wfls_capabilities }",
        ),
        {"wfls_cmd": [sys.executable, "-m", "wfls", "serve"], "wfls_capabilities": capabilities},
    )
    health = "\n".join(out["health"])
    assert "WARNING Neovim does not watch workflow files for wfls" in health


IDE = r"""
local out = {}
local function finish()
  local file = assert(io.open(vim.g.wfls_result, 'w'))
  file:write(vim.json.encode(out))
  file:close()
  vim.cmd('qa!')
end

vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')

vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local ok, err = pcall(function()
      vim.cmd.edit(vim.fn.fnameescape(vim.g.wfls_document))
      out.attached = vim.wait(20000, function()
        return #vim.lsp.get_clients({ bufnr = 0, name = 'wfls' }) > 0
      end, 50)
      if not out.attached then
        return
      end
      -- Semantic tokens: Neovim asks for them by itself once the server attaches.
      local loop = vim.g.wfls_loop_id
      vim.wait(20000, function()
        return #(vim.lsp.semantic_tokens.get_at_pos(0, loop[1], loop[2]) or {}) > 0
      end, 50)
      out.tokens = {}
      for _, token in ipairs(vim.lsp.semantic_tokens.get_at_pos(0, loop[1], loop[2]) or {}) do
        table.insert(out.tokens, token.type)
      end

      -- Inlay hints, once enabled for the buffer.
      vim.lsp.inlay_hint.enable(true, { bufnr = 0 })
      vim.wait(20000, function()
        return #vim.lsp.inlay_hint.get({ bufnr = 0 }) > 0
      end, 50)
      out.hints = {}
      for _, hint in ipairs(vim.lsp.inlay_hint.get({ bufnr = 0 })) do
        local label = hint.inlay_hint.label
        if type(label) == 'table' then
          label = label[1].value
        end
        table.insert(out.hints, { hint.inlay_hint.position.line, label })
      end

      -- The outline and workspace symbols, through Neovim's own commands.
      local symbols_done = false
      vim.lsp.buf.document_symbol({
        on_list = function(list)
          out.symbols = {}
          for _, item in ipairs(list.items) do
            table.insert(out.symbols, item.text)
          end
          symbols_done = true
        end,
      })
      vim.wait(20000, function() return symbols_done end, 50)
      local workspace_done = false
      vim.lsp.buf.workspace_symbol('ordv2', {
        on_list = function(list)
          out.workspace = {}
          for _, item in ipairs(list.items) do
            table.insert(out.workspace, item.text)
          end
          workspace_done = true
        end,
      })
      vim.wait(20000, function() return workspace_done end, 50)

      -- Folding by the server's ranges.
      vim.wo.foldmethod = 'expr'
      vim.wo.foldexpr = 'v:lua.vim.lsp.foldexpr()'
      local inside = vim.g.wfls_fold_line
      vim.wait(20000, function()
        return vim.fn.foldlevel(inside + 1) > 0
      end, 50)
      out.foldlevel = vim.fn.foldlevel(inside + 1)
      vim.cmd((inside + 1) .. 'foldclose')
      out.fold_start = vim.fn.foldclosed(inside + 1)
    end)
    if not ok then
      out.error = tostring(err)
    end
    finish()
  end,
})
"""


def test_neovim_shows_tokens_hints_symbols_and_folds(tmp_path: Path):
    document = tmp_path / "billing.wf.toml"
    shutil.copy(ROOT / "examples" / "billing.wf.toml", document)
    text = document.read_text(encoding="utf-8")
    loop_id = text.index("orders.v2", text.index("'context.foreach."))
    inside = text.index('node = "charge_order"')
    out = _run(
        tmp_path,
        IDE,
        {
            "wfls_cmd": [sys.executable, "-m", "wfls", "serve"],
            "wfls_document": str(document),
            "wfls_loop_id": _position(text, loop_id),
            "wfls_fold_line": _position(text, inside)[0],
        },
    )
    assert "error" not in out, out.get("error")
    assert out["attached"] is True
    assert "namespace" in out["tokens"]

    over_line = _position(text, text.index('over = "input.customers"'))[0]
    assert [over_line, ": object"] in out["hints"]
    assert len(out["hints"]) == 5

    symbols = "\n".join(out["symbols"])
    assert "[Namespace] customers" in symbols and "[Function] charge" in symbols
    assert any("orders.v2" in item for item in out["workspace"])

    assert out["foldlevel"] >= 1
    header = _position(text, text.rindex("[[nodes]]"))[0]
    assert out["fold_start"] == header + 1


CROSS_FILE = r"""
vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')
vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local out = {}
    local ok, err = pcall(function()
      vim.cmd.edit(vim.fn.fnameescape(vim.g.wfls_document))
      out.attached = vim.wait(20000, function()
        return #vim.lsp.get_clients({ bufnr = 0, name = 'wfls' }) > 0
      end, 50)
      local client = vim.lsp.get_clients({ bufnr = 0, name = 'wfls' })[1]
      local params = {
        textDocument = { uri = vim.uri_from_bufnr(0) },
        position = { line = vim.g.wfls_at[1], character = vim.g.wfls_at[2] },
      }
      -- The workspace is indexed in the background: ask until the child is found.
      out.found = vim.wait(20000, function()
        local answer = vim.lsp.buf_request_sync(0, 'textDocument/definition', params, 5000)
        local result = answer and answer[client.id] and answer[client.id].result
        return result ~= nil and #result > 0
      end, 200)
      vim.api.nvim_win_set_cursor(0, { vim.g.wfls_at[1] + 1, vim.g.wfls_at[2] })
      vim.lsp.buf.definition()
      vim.wait(10000, function()
        return vim.api.nvim_buf_get_name(0) ~= vim.g.wfls_document
      end, 50)
      out.buffer = vim.api.nvim_buf_get_name(0)
      out.cursor = vim.api.nvim_win_get_cursor(0)
    end)
    out.error = not ok and tostring(err) or nil
    local file = assert(io.open(vim.g.wfls_result, 'w'))
    file:write(vim.json.encode(out))
    file:close()
    vim.cmd('qa!')
  end,
})
"""


def test_definition_opens_the_child_workflow(tmp_path: Path):
    (tmp_path / ".git").mkdir()  # the workspace root Neovim reports
    child = tmp_path / "flows" / "child.wf.toml"
    child.parent.mkdir()
    child.write_text(
        'name = "child"\nstart = "end"\noutcomes = ["ok"]\nedges = []\n\n'
        '[[nodes]]\nid = "end"\ntype = "end"\n',
        encoding="utf-8",
    )
    caller = tmp_path / "caller.wf.toml"
    text = (
        'name = "caller"\nstart = "call"\noutcomes = ["ok"]\n'
        'edges = [{ from = "call", outcome = "ok", to = "__end__" }]\n\n'
        '[[nodes]]\nid = "call"\ntype = "subgraph"\nworkflow = { name = "child" }\n'
    )
    caller.write_text(text, encoding="utf-8")
    settings = {
        "wfls_cmd": [sys.executable, "-m", "wfls", "serve"],
        "wfls_document": str(caller),
        "wfls_at": _position(text, text.index('"child"') + 2),
    }
    out = _run(tmp_path, CROSS_FILE, settings)
    assert out.get("error") is None and out["attached"] and out["found"]
    assert Path(out["buffer"]).resolve() == child.resolve()
    assert out["cursor"] == [1, 8]  # on the child's `name` value


RUN = r"""
vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')
vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local out = {}
    local ok, err = pcall(function()
      vim.cmd.edit(vim.fn.fnameescape(vim.g.wfls_document))
      local document = vim.api.nvim_get_current_buf()
      out.attached = vim.wait(20000, function()
        return #vim.lsp.get_clients({ bufnr = 0, name = 'wfls' }) > 0
      end, 50)
      vim.cmd('WflsRun ' .. vim.fn.fnameescape(vim.g.wfls_input))
      out.shown = vim.wait(20000, function()
        return vim.api.nvim_get_current_buf() ~= document
      end, 50)
      out.trace = vim.api.nvim_buf_get_lines(0, 0, -1, false)
      local params = {
        textDocument = { uri = vim.uri_from_bufnr(document) },
        position = { line = vim.g.wfls_at[1], character = vim.g.wfls_at[2] },
      }
      local answer = vim.lsp.buf_request_sync(document, 'textDocument/hover', params, 10000)
      for _, response in pairs(answer or {}) do
        out.hover = response.result and response.result.contents.value
      end

      -- Run again from the trace window: the same workflow, its new trace in its place.
      local trace = vim.api.nvim_get_current_buf()
      out.windows = #vim.api.nvim_list_wins()
      vim.cmd('WflsRun ' .. vim.fn.fnameescape(vim.g.wfls_input))
      out.rerun = vim.wait(20000, function()
        local current = vim.api.nvim_get_current_buf()
        return current ~= trace and current ~= document
      end, 50)
      out.rerun_windows = #vim.api.nvim_list_wins()
      out.rerun_trace = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    end)
    out.error = not ok and tostring(err) or nil
    local file = assert(io.open(vim.g.wfls_result, 'w'))
    file:write(vim.json.encode(out))
    file:close()
    vim.cmd('qa!')
  end,
})
"""


def test_wfls_run_shows_the_trace_and_hover_what_a_node_saw(tmp_path: Path):
    document = tmp_path / "billing.wf.toml"
    shutil.copy(ROOT / "examples" / "billing.wf.toml", document)
    shutil.copy(ROOT / "examples" / "billing.input.json", tmp_path / "input.json")
    text = document.read_text(encoding="utf-8")
    settings = {
        "wfls_cmd": [sys.executable, "-m", "wfls", "serve"],
        "wfls_document": str(document),
        "wfls_input": str(tmp_path / "input.json"),
        "wfls_at": _position(text, text.index('id = "charge"') + 6),
    }
    out = _run(tmp_path, RUN, settings)
    assert out.get("error") is None and out["attached"] and out["shown"]
    assert out["trace"][0].startswith("workflow 'billing', run with stand-in handlers (")
    assert "completed with outcome 'ok'" in out["trace"]
    assert any(
        line.startswith('#3 charge (node) [customers > "orders.v2"] → ok') for line in out["trace"]
    )
    assert "**Last run**: 3 activations" in out["hover"]
    # :WflsRun from the trace window runs the workflow the trace is of.
    assert out["rerun"] is True
    assert out["rerun_windows"] == out["windows"]
    assert out["rerun_trace"][0].startswith("workflow 'billing', run with stand-in handlers (")


RUN_NOWHERE = r"""
vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')
local out = { notes = {} }
vim.notify = function(message, level)
  table.insert(out.notes, { message, level })
end
vim.api.nvim_create_autocmd('VimEnter', {
  callback = function()
    local ok, err = pcall(vim.cmd, 'WflsRun input.json')
    out.error = not ok and tostring(err) or nil
    local file = assert(io.open(vim.g.wfls_result, 'w'))
    file:write(vim.json.encode(out))
    file:close()
    vim.cmd('qa!')
  end,
})
"""


def test_wfls_run_without_a_workflow_says_what_to_do(tmp_path: Path):
    out = _run(tmp_path, RUN_NOWHERE, {"wfls_cmd": [sys.executable, "-m", "wfls", "serve"]})
    assert out.get("error") is None
    [[message, level]] = out["notes"]
    assert message == (
        "wfls: :WflsRun runs the workflow of a *.wf.toml or *.wf.json buffer that the server"
        " is attached to: open one first"
    )
    assert level == 4  # vim.log.levels.ERROR


GRAPH = r"""
vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')
local out = { notes = {}, opened = {} }
vim.notify = function(message, level)
  table.insert(out.notes, { message, level or vim.log.levels.INFO })
end
vim.ui.open = function(path)
  table.insert(out.opened, path)
  return {}, nil
end
vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local ok, err = pcall(function()
      vim.cmd('WflsGraph')
      vim.cmd.edit(vim.fn.fnameescape(vim.g.wfls_document))
      out.attached = vim.wait(20000, function()
        return #vim.lsp.get_clients({ bufnr = 0, name = 'wfls' }) > 0
      end, 50)
      vim.cmd('WflsGraph')
      vim.wait(20000, function() return #out.notes >= 2 end, 50)
      -- Unsaved changes, and a bang: only where the page is, saying it is the file as saved.
      vim.api.nvim_buf_set_lines(0, 0, 0, false, { '# edited' })
      vim.cmd('WflsGraph!')
      vim.wait(20000, function() return #out.notes >= 3 end, 50)
    end)
    out.error = not ok and tostring(err) or nil
    local file = assert(io.open(vim.g.wfls_result, 'w'))
    file:write(vim.json.encode(out))
    file:close()
    vim.cmd('qa!')
  end,
})
"""


def test_wfls_graph_writes_the_page_and_opens_it(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    document = tmp_path / "billing.wf.toml"
    shutil.copy(ROOT / "examples" / "billing.wf.toml", document)
    settings = {"wfls_cmd": [sys.executable, "-m", "wfls", "serve"], "wfls_document": str(document)}
    out = _run(tmp_path, GRAPH, settings)
    assert out.get("error") is None and out["attached"]
    [nowhere, opened, saved_only] = out["notes"]
    assert nowhere == [
        "wfls: :WflsGraph draws the workflow of a *.wf.toml or *.wf.json buffer that the"
        " server is attached to: open one first",
        4,  # vim.log.levels.ERROR
    ]
    [page] = out["opened"]
    assert opened == [f"wfls: opened the graph, {page}", 2]
    assert Path(page).parent == tmp_path / "cache" / "nvim" / "wfls" / "graphs"
    assert re.fullmatch(r"billing-[0-9a-f]{8}\.graph\.html", Path(page).name)
    html = Path(page).read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert "<title>billing — workflow graph</title>" in html
    assert '"nodes":[{"id":"customers","type":"foreach"' in html
    message, level = saved_only
    second = message.removeprefix("wfls: the graph is in ")
    assert message.endswith(" (the file as saved: the buffer has unsaved changes)") and level == 2
    second = second.removesuffix(" (the file as saved: the buffer has unsaved changes)")
    # The same document's page, written again.
    assert second == page and Path(page).read_text(encoding="utf-8") == html


CHILD_FLOW = """\
name = "child"
start = "end"
outcomes = ["ok"]
edges = []

[input_schema]
type = "object"
required = ["customers", "tag"]
properties.customers = { type = "array" }
properties.tag = { type = "string" }

[[nodes]]
id = "end"
type = "end"
"""

CALLER_FLOW = """\
name = "caller"
start = "bill"
outcomes = ["ok"]
edges = [{ from = "bill", outcome = "ok", to = "__end__" }]

[[nodes]]
id = "bill"
type = "subgraph"
workflow = { name = "child" }
input = [{ target = "customers", value = [] }]
"""

CALLERS = r"""
vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')

local out = { shown = {} }
-- Every set of error codes Neovim shows for the caller, in order.
local function error_codes(diagnostics)
  local codes = {}
  for _, d in ipairs(diagnostics) do
    if d.severity == vim.diagnostic.severity.ERROR then
      table.insert(codes, d.code)
    end
  end
  table.sort(codes)
  return table.concat(codes, ',')
end
vim.api.nvim_create_autocmd('DiagnosticChanged', {
  callback = function(args)
    if vim.api.nvim_buf_get_name(args.buf) == vim.g.wfls_caller then
      table.insert(out.shown, error_codes(vim.diagnostic.get(args.buf)))
    end
  end,
})

vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local ok, err = pcall(function()
      out.default_watching = vim.lsp.protocol.make_client_capabilities()
        .workspace.didChangeWatchedFiles.dynamicRegistration
      vim.cmd.edit(vim.fn.fnameescape(vim.g.wfls_caller))
      local caller = vim.api.nvim_get_current_buf()
      out.attached = vim.wait(20000, function()
        return #vim.lsp.get_clients({ bufnr = caller, name = 'wfls' }) > 0
      end, 50)
      local client = vim.lsp.get_clients({ bufnr = caller, name = 'wfls' })[1]
      out.pulls = client.server_capabilities.diagnosticProvider ~= nil
      out.offered_watching = client.capabilities.workspace.didChangeWatchedFiles.dynamicRegistration
      local function shows(expected)
        return vim.wait(20000, function()
          return error_codes(vim.diagnostic.get(caller)) == expected
        end, 50)
      end

      -- Opened with the child on disk: once the workspace is indexed, the binding the
      -- child requires and the caller does not give is an error.
      out.opened = shows('subgraph_binding')
      out.watching = vim.wait(20000, function()
        return client.dynamic_capabilities:get('workspace/didChangeWatchedFiles') ~= nil
      end, 50)

      -- The child edited in a buffer (not saved): the caller is checked again.
      vim.cmd('split ' .. vim.fn.fnameescape(vim.g.wfls_child))
      local child = vim.api.nvim_get_current_buf()
      vim.wait(20000, function()
        return #vim.lsp.get_clients({ bufnr = child, name = 'wfls' }) > 0
      end, 50)
      local row = vim.g.wfls_required_line
      vim.api.nvim_buf_set_lines(child, row, row + 1, false, { 'required = ["customers"]' })
      out.edited = shows('')
      -- Closed unsaved: the child on disk counts again.
      vim.cmd('bwipeout! ' .. child)
      out.closed = shows('subgraph_binding')

      -- The child changed on disk by another program, then deleted.
      out.before_disk = #out.shown
      local lines = vim.fn.readfile(vim.g.wfls_child)
      lines[row + 1] = 'required = ["customers"]'
      vim.fn.writefile(lines, vim.g.wfls_child)
      out.changed_on_disk = shows('')
      vim.fn.delete(vim.g.wfls_child)
      out.deleted = shows('unknown_subgraph')
    end)
    out.error = not ok and tostring(err) or nil
    local file = assert(io.open(vim.g.wfls_result, 'w'))
    file:write(vim.json.encode(out))
    file:close()
    vim.cmd('qa!')
  end,
})
"""


def _callers(tmp_path: Path, child: Path) -> dict:
    (tmp_path / ".git").mkdir()  # the workspace root Neovim reports
    child.parent.mkdir(exist_ok=True)
    child.write_text(CHILD_FLOW, encoding="utf-8")
    caller = tmp_path / "caller.wf.toml"
    caller.write_text(CALLER_FLOW, encoding="utf-8")
    settings = {
        "wfls_cmd": [sys.executable, "-m", "wfls", "serve"],
        "wfls_caller": str(caller),
        "wfls_child": str(child),
        "wfls_required_line": CHILD_FLOW.splitlines().index('required = ["customers", "tag"]'),
    }
    out = _run(tmp_path, CALLERS, settings)
    assert out.get("error") is None and out["attached"]
    return out


def _follows_its_child(out: dict) -> None:
    assert out["pulls"] is False
    assert out["opened"] is True
    assert out["watching"] is True
    assert out["edited"] is True
    assert out["closed"] is True
    assert out["changed_on_disk"] is True
    assert out["deleted"] is True
    # Never a false "unknown" before the child was deleted.
    shown = out["shown"]
    assert not any("unknown_subgraph" in codes for codes in shown[: out["before_disk"]])
    assert shown[-1] == "unknown_subgraph"


def test_callers_follow_their_children_in_neovim(tmp_path: Path):
    """Neovim 0.11 cannot be asked to pull again, so wfls pushes: a caller opened with its
    child on disk never shows the child unknown, and it follows the child edited in a
    buffer, closed, changed on disk (Neovim watching the files for wfls) and deleted.
    The child is in the workspace folder itself, where every file watcher Neovim has on
    Linux sees it."""
    out = _callers(tmp_path, tmp_path / "child.wf.toml")
    # What Neovim 0.11 offers by itself, and what the wfls configuration turns on.
    assert out["default_watching"] is (sys.platform in ("darwin", "win32"))
    assert out["offered_watching"] is True
    _follows_its_child(out)


@pytest.mark.skipif(
    sys.platform == "linux" and shutil.which("inotifywait") is None,
    reason="Neovim on Linux sees files in sub-folders change only through inotifywait",
)
def test_callers_follow_their_children_in_sub_folders_in_neovim(tmp_path: Path):
    """The same with the child in a sub-folder: on Linux, Neovim watches sub-folders
    through ``inotifywait`` (inotify-tools) only."""
    _follows_its_child(_callers(tmp_path, tmp_path / "flows" / "child.wf.toml"))


QUIET = r"""
vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', {
  cmd = vim.g.wfls_cmd,
  settings = { wfls = { undeclaredPropertySeverity = 'loud' } },
})
vim.lsp.enable('wfls')
vim.lsp.log.set_level('INFO')

-- Count the server's reads of its settings (Neovim answers them itself).
local reads = 0
local answer = vim.lsp.handlers['workspace/configuration']
vim.lsp.handlers['workspace/configuration'] = function(...)
  reads = reads + 1
  return answer(...)
end

vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local out = {}
    local ok, err = pcall(function()
      vim.cmd.edit(vim.fn.fnameescape(vim.g.wfls_document))
      out.attached = vim.wait(20000, function()
        return #vim.lsp.get_clients({ bufnr = 0, name = 'wfls' }) > 0
      end, 50)
      -- At initialization and again after the didChangeConfiguration Neovim sends.
      out.reads = vim.wait(20000, function() return reads >= 2 end, 50) and reads
      local params = {
        textDocument = { uri = vim.uri_from_bufnr(0) },
        position = { line = 0, character = 0 }, -- `name`: no name to rename
        newName = 'other',
      }
      local answer = vim.lsp.buf_request_sync(0, 'textDocument/rename', params, 20000)
      for _, response in pairs(answer or {}) do
        out.refused = response.err and response.err.message
      end
      out.messages = vim.split(vim.fn.execute('messages'), '\n', { trimempty = true })
      out.log = vim.lsp.log.get_filename()
    end)
    out.error = not ok and tostring(err) or nil
    local file = assert(io.open(vim.g.wfls_result, 'w'))
    file:write(vim.json.encode(out))
    file:close()
    vim.cmd('qa!')
  end,
})
"""


def test_neovim_logs_at_the_right_levels_and_warns_once(tmp_path: Path):
    """The server's ordinary log lines reach Neovim's LSP log as information (through
    ``window/logMessage``), not as errors (what Neovim makes of anything on stderr), and
    an invalid setting read twice is reported once."""
    document = tmp_path / "flow.wf.toml"
    document.write_text(CHILD_FLOW, encoding="utf-8")
    out = _run(
        tmp_path,
        QUIET,
        {"wfls_cmd": [sys.executable, "-m", "wfls", "serve"], "wfls_document": str(document)},
    )
    assert out.get("error") is None and out["attached"]
    assert out["reads"] >= 2
    assert out["refused"]
    warnings = [m for m in out["messages"] if "invalid settings" in m]
    assert len(warnings) == 1, out["messages"]
    assert "undeclaredPropertySeverity" in warnings[0]
    log = Path(out["log"]).read_text(encoding="utf-8").splitlines()
    assert Path(out["log"]).is_relative_to(tmp_path)
    assert [line for line in log if line.startswith("[ERROR]")] == []
    [refusal] = [line for line in log if out["refused"] in line]
    assert refusal.startswith("[INFO]")


TESTS_DOCUMENT = """\
workflow = "billing"

[[case]]
name = "one order is charged"
input = { customers = [ { name = "Ada", orders = [ { sku = "A-17", qty = 2 } ] } ] }

[[case.expect]]
status = "completed"
visited = ["customers", "orders.v2", "charge"]

[[case]]
name = "the pinned amount is the total"
input = { customers = [ { name = "Ada", orders = [ { sku = "A-17", qty = 2 } ] } ] }

[[case.pin]]
node = "charge"
output = { amount = 34 }

[[case.expect]]
output = { total = 99 }  # wrong on purpose: the total is 34
"""

WFLS_TEST = r"""
vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')
local out = { notes = {}, runs = {} }
vim.notify = function(message, level)
  table.insert(out.notes, { message, level or vim.log.levels.INFO })
end

local function run(command)
  local before = #out.notes
  vim.cmd(command)
  vim.wait(30000, function() return #out.notes > before end, 50)
  local items = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(items, {
      vim.fs.basename(vim.api.nvim_buf_get_name(item.bufnr)), item.lnum, item.col, item.text,
    })
  end
  table.insert(out.runs, { items = items, title = vim.fn.getqflist({ title = 1 }).title })
end

vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local ok, err = pcall(function()
      for _, document in ipairs({ vim.g.wfls_tests, vim.g.wfls_workflow }) do
        vim.cmd.edit(vim.fn.fnameescape(document))
        out.attached = vim.wait(20000, function()
          return #vim.lsp.get_clients({ bufnr = 0, name = 'wfls' }) > 0
        end, 50)
        if document == vim.g.wfls_tests then
          -- An unsaved edit counts: the passing case expects another status.
          local row = vim.fn.search('status = "completed"') - 1
          vim.api.nvim_buf_set_lines(0, row, row + 1, false, { 'status = "paused"' })
          run('WflsTest')
          run('WflsTest the pinned amount is the total')
          vim.cmd('cclose')
          -- The server's "Run case" lens above the second case, run as Neovim runs lenses.
          vim.lsp.codelens.refresh({ bufnr = 0 })
          vim.wait(20000, function() return #vim.lsp.codelens.get(0) == 2 end, 50)
          vim.api.nvim_win_set_cursor(0, { vim.g.wfls_second_case, 0 })
          run('lua vim.lsp.codelens.run()')
          vim.cmd('cclose')
        else
          run('WflsTest')
        end
      end
    end)
    out.error = not ok and tostring(err) or nil
    local file = assert(io.open(vim.g.wfls_result, 'w'))
    file:write(vim.json.encode(out))
    file:close()
    vim.cmd('qa!')
  end,
})
"""


def test_wfls_test_fills_the_quickfix_list_with_failures_at_their_expectations(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    shutil.copy(ROOT / "examples" / "billing.wf.toml", tmp_path / "billing.wf.toml")
    tests = tmp_path / "billing.wf.test.toml"
    tests.write_text(TESTS_DOCUMENT, encoding="utf-8")
    settings = {
        "wfls_cmd": [sys.executable, "-m", "wfls", "serve"],
        "wfls_tests": str(tests),
        "wfls_workflow": str(tmp_path / "billing.wf.toml"),
        "wfls_second_case": TESTS_DOCUMENT.splitlines().index("[[case]]", 3) + 1,
    }
    out = _run(tmp_path, WFLS_TEST, settings)
    assert out.get("error") is None and out["attached"]
    lines = TESTS_DOCUMENT.splitlines()
    status = lines.index('status = "completed"') + 1
    output = lines.index("output = { total = 99 }  # wrong on purpose: the total is 34") + 1
    wrong_total = [
        "billing.wf.test.toml",
        output,
        1,
        "the pinned amount is the total: the workflow output does not hold the expected values"
        ' (expected {"total":99}, actual {"total":34})',
    ]
    in_buffer, one_case, lens, saved = out["runs"]
    # The buffer as edited: the first case fails too, at its status.
    [edited, total] = in_buffer["items"]
    assert edited[:3] == ["billing.wf.test.toml", status, 1]
    assert edited[3].startswith("one order is charged: expected status 'paused'")
    assert total == wrong_total
    assert one_case["items"] == lens["items"] == [wrong_total]
    # From the workflow: the tests under the root folder, as saved (the first case passes).
    assert saved["items"] == [wrong_total]
    assert [note for note in out["notes"]] == [
        ["wfls: billing.wf.test.toml: 0 passed, 2 failed, 0 errors", 3],
        ["wfls: billing.wf.test.toml: 0 passed, 1 failed, 0 errors", 3],
        ["wfls: billing.wf.test.toml: 0 passed, 1 failed, 0 errors", 3],
        ["wfls: the tests of billing: 1 passed, 1 failed, 0 errors", 3],
    ]


FORMAT = r"""
local out = {}
local function finish()
  local file = assert(io.open(vim.g.wfls_result, 'w'))
  file:write(vim.json.encode(out))
  file:close()
  vim.cmd('qa!')
end

vim.opt.runtimepath:prepend(vim.g.wfls_runtime)
vim.lsp.config('wfls', { cmd = vim.g.wfls_cmd })
vim.lsp.enable('wfls')

vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local ok, err = pcall(function()
      vim.cmd.edit(vim.fn.fnameescape(vim.g.wfls_document))
      out.attached = vim.wait(20000, function()
        return #vim.lsp.get_clients({ bufnr = 0, name = 'wfls' }) > 0
      end, 50)
      if not out.attached then
        return
      end
      -- The canonical style's indentation (formatting takes the buffer's).
      vim.bo.expandtab = true
      vim.bo.shiftwidth = 2
      vim.lsp.buf.format({ timeout_ms = 20000 })
      out.formatted = vim.api.nvim_buf_get_lines(0, 0, -1, false)
      -- Format on save, as editors/neovim/README.md sets it up: the messy text again, an
      -- edit, :write.
      vim.api.nvim_create_autocmd('BufWritePre', {
        pattern = { '*.wf.toml', '*.wf.json' },
        callback = function(args)
          vim.bo[args.buf].expandtab = true
          vim.bo[args.buf].shiftwidth = 2
          vim.lsp.buf.format({ bufnr = args.buf, name = 'wfls', timeout_ms = 2000 })
        end,
      })
      vim.bo.shiftwidth = 8 -- the autocmd sets the style's indentation
      vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.fn.readfile(vim.g.wfls_messy))
      vim.api.nvim_buf_set_lines(0, 0, 0, false, { '# edited' })
      vim.cmd.write()
      local file = assert(io.open(vim.g.wfls_document, 'r'))
      out.saved = file:read('*a')
      file:close()
    end)
    if not ok then
      out.error = tostring(err)
    end
    finish()
  end,
})
"""


def test_vim_lsp_buf_format_formats_and_on_save(tmp_path: Path):
    golden = ROOT / "tests" / "formatting" / "golden"
    messy = (golden / "messy.wf.toml").read_text(encoding="utf-8")
    formatted = (golden / "messy.wf.toml.formatted").read_text(encoding="utf-8")
    document = tmp_path / "messy.wf.toml"
    document.write_text(messy, encoding="utf-8")
    settings = {
        "wfls_cmd": [sys.executable, "-m", "wfls", "serve"],
        "wfls_document": str(document),
        "wfls_messy": str(golden / "messy.wf.toml"),
    }
    out = _run(tmp_path, FORMAT, settings)
    assert out.get("error") is None and out["attached"]
    assert "\n".join(out["formatted"]) + "\n" == formatted
    assert out["saved"] == f"# edited\n{formatted}"
