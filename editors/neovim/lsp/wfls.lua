-- wfls: the language server for lda-wf workflow documents (*.wf.toml, *.wf.json) and
-- their test documents (*.wf.test.toml, *.wf.test.json).
--
-- Neovim 0.11+ reads this file when `vim.lsp.enable('wfls')` is called and this
-- folder is on 'runtimepath'. Override any field with `vim.lsp.config('wfls', {...})`.
--
-- Workflow documents keep the ordinary `toml`/`json` filetypes (and their
-- highlighting); `root_dir` attaches the server only to buffers whose name ends
-- in `.wf.toml`, `.wf.json`, `.wf.test.toml` or `.wf.test.json`, so other TOML and
-- JSON files are left alone.

-- Workflow documents, and their test documents (*.wf.test.toml, *.wf.test.json), which
-- the server checks, completes and runs (:WflsTest).
local suffixes = { '%.wf%.toml$', '%.wf%.json$', '%.wf%.test%.toml$', '%.wf%.test%.json$' }

local function is_workflow(name)
  for _, suffix in ipairs(suffixes) do
    if name:match(suffix) then
      return true
    end
  end
  return false
end

---@type vim.lsp.Config
return {
  cmd = { 'wfls', 'serve' },
  filetypes = { 'toml', 'json' },
  root_markers = { '.git' },
  -- Replaces root_markers: same markers, but only for workflow documents.
  root_dir = function(bufnr, on_dir)
    local name = vim.api.nvim_buf_get_name(bufnr)
    if is_workflow(name) then
      on_dir(vim.fs.root(bufnr, { '.git' }) or vim.fs.dirname(name))
    end
  end,
  -- A caller's diagnostics depend on the child workflows it runs, so wfls asks the client
  -- to watch the workspace's workflow files. Neovim 0.11 offers that by itself only on
  -- macOS and Windows; this turns it on for wfls elsewhere too (Neovim then watches with
  -- `inotifywait` where it is installed, else with one file-system watch per folder).
  -- `capabilities = { workspace = { didChangeWatchedFiles = { dynamicRegistration = false } } }`
  -- in `vim.lsp.config('wfls', ...)` turns it off again.
  capabilities = {
    workspace = {
      didChangeWatchedFiles = { dynamicRegistration = true },
    },
  },
  -- Answers the server's `workspace/configuration` request for section `wfls`.
  settings = {
    wfls = {
      undeclaredPropertySeverity = 'warning',
      hintDeprecatedKeys = true,
      inlayHints = { itemTypes = true, pathTypes = true, ownerStacks = false },
    },
  },
}
