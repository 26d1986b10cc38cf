"""Neovim 0.11 as a real client: editors/neovim's configuration against the real server.

A headless Neovim opens a copy of the billing example, waits for wfls to
attach, asks for hover and completion through its own LSP client, introduces
a typo and reads the diagnostics it then holds, and writes everything as JSON.
Every wait in the script is bounded and the process has a timeout, so a broken
server fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

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

      -- Type a dot after the item segment, then complete there.
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

      -- Introduce a typo and wait for the diagnostics that report it.
      local typo = vim.g.wfls_typo
      vim.api.nvim_buf_set_text(0, typo[1], typo[2], typo[1], typo[2] + 4, { 'nmae' })
      vim.wait(20000, function()
        for _, d in ipairs(vim.diagnostic.get(0)) do
          if d.code == 'invalid_context_path' then
            return true
          end
        end
        return false
      end, 50)
      out.diagnostics = {}
      for _, d in ipairs(vim.diagnostic.get(0)) do
        table.insert(out.diagnostics, {
          code = d.code, lnum = d.lnum, col = d.col, end_col = d.end_col,
          message = d.message, source = d.source,
        })
      end
    end)
    if not ok then
      out.error = tostring(err)
    end
    finish()
  end,
})
"""


def _position(text: str, offset: int) -> list[int]:
    """0-based line and UTF-8 column (Neovim negotiates UTF-8 with wfls)."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return [line, len(text[start:offset].encode("utf-8"))]


def test_neovim_uses_wfls(tmp_path: Path):
    document = tmp_path / "billing.wf.toml"
    shutil.copy(ROOT / "examples" / "billing.wf.toml", document)
    text = document.read_text(encoding="utf-8")
    item_path = "'context.foreach.\"orders.v2\".item'"
    item = text.index(item_path) + item_path.index("item")
    name = text.index("context.foreach.customers.item.name") + len(
        "context.foreach.customers.item."
    )
    init = tmp_path / "init.lua"
    init.write_text(INIT, encoding="utf-8")
    result = tmp_path / "result.json"
    settings = {
        "wfls_runtime": str(ROOT / "editors" / "neovim"),
        "wfls_cmd": [sys.executable, "-m", "wfls", "serve"],
        "wfls_document": str(document),
        "wfls_result": str(result),
        "wfls_hover": _position(text, item + 1),
        "wfls_edit": _position(text, item + len("item")),
        "wfls_typo": _position(text, name),
    }
    command = [str(NVIM), "--headless", "--clean"]
    for key, value in settings.items():
        command += ["--cmd", f"let g:{key} = json_decode('{json.dumps(value)}')"]
    command += ["-u", str(init)]
    subprocess.run(command, cwd=tmp_path, timeout=120, check=False, capture_output=True)

    out = json.loads(result.read_text(encoding="utf-8"))
    assert "error" not in out, out.get("error")
    assert out["filetype"] == "toml"
    assert out["json_filetype"] == "json"
    assert out["attached"] is True
    assert out["offset_encoding"] == "utf-8"
    assert out["pulls"] is True

    hover = out["hover"]["contents"]
    assert hover["kind"] == "markdown"
    assert "sku" in hover["value"] and "qty" in hover["value"]

    assert {"sku", "qty"} <= set(out["completion"])

    typos = [d for d in out["diagnostics"] if d["code"] == "invalid_context_path"]
    assert len(typos) == 1
    [typo] = typos
    assert "nmae" in typo["message"]
    assert typo["source"] == "wfls"
    assert [typo["lnum"], typo["col"]] == settings["wfls_typo"]
    assert typo["end_col"] == settings["wfls_typo"][1] + 4
