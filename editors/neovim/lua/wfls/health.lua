-- :checkhealth wfls — is the server found, which version runs, is it attached.
local M = {}

local health = vim.health

--- The configured server command (vim.lsp.config('wfls', ...) merged with lsp/wfls.lua).
local function server_cmd()
  local config = vim.lsp.config and vim.lsp.config.wfls
  if config == nil then
    return nil
  end
  return config.cmd
end

--- The same command with `serve` and what follows it replaced by `--version`:
--- { 'wfls', 'serve' } -> { 'wfls', '--version' },
--- { 'python', '-m', 'wfls', 'serve' } -> { 'python', '-m', 'wfls', '--version' }.
local function version_cmd(cmd)
  local out = {}
  for _, part in ipairs(cmd) do
    if part == 'serve' then
      break
    end
    table.insert(out, part)
  end
  table.insert(out, '--version')
  return out
end

--- Whether Neovim watches the workflow files for wfls, and how: a caller's diagnostics
--- follow a child workflow changed on disk outside Neovim only when it does.
function M.check_watching()
  local path = { 'workspace', 'didChangeWatchedFiles', 'dynamicRegistration' }
  local configured = vim.tbl_get(vim.lsp.config.wfls.capabilities or {}, unpack(path))
  local watching = configured
  if watching == nil then
    watching = vim.tbl_get(vim.lsp.protocol.make_client_capabilities(), unpack(path))
  end
  if not watching then
    health.warn(
      'Neovim does not watch workflow files for wfls: a child workflow changed on disk outside'
        .. ' Neovim is seen once it is opened in Neovim',
      { 'Leave capabilities.workspace.didChangeWatchedFiles.dynamicRegistration as lsp/wfls.lua sets it (true)' }
    )
  elseif vim.fn.has('win32') == 1 or vim.fn.has('mac') == 1 then
    health.ok('Neovim watches the workflow files of the workspace for wfls')
  elseif vim.fn.executable('inotifywait') == 1 then
    health.ok('Neovim watches the workflow files of the workspace for wfls (with inotifywait)')
  else
    health.warn(
      'inotifywait was not found: Neovim sees workflow files change on disk directly in the'
        .. ' workspace folder only, not in its sub-folders',
      { 'Install inotify-tools, which provides inotifywait' }
    )
  end
end

function M.check()
  health.start('wfls')

  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()) .. ' (0.11 or newer is needed)')
  else
    health.error('Neovim 0.11 or newer is needed (vim.lsp.config and vim.lsp.enable)')
    return
  end

  local cmd = server_cmd()
  if type(cmd) ~= 'table' or #cmd == 0 then
    health.error('no server command: is editors/neovim on the runtimepath (lsp/wfls.lua)?')
    return
  end
  health.info('server command: ' .. table.concat(cmd, ' '))

  local executable = vim.fn.exepath(cmd[1])
  if executable == '' then
    health.error(cmd[1] .. ' was not found', {
      'Install the server from a checkout of the wfls repository:'
        .. ' pip install /path/to/the/checkout (the distribution lda-wfls, which provides the wfls command),',
      "or, after `make run` in the checkout, give the command's path:"
        .. " vim.lsp.config('wfls', { cmd = { '/path/to/the/checkout/.venv/bin/wfls', 'serve' } })",
    })
    return
  end
  health.ok('found ' .. executable)
  M.check_watching()

  local run = vim.fn.has('nvim-0.10') == 1 and vim.system(version_cmd(cmd), { text = true }):wait(20000)
  local said = run and vim.trim((run.stdout or '') .. (run.stderr or '')) or ''
  local version = said:match('^wfls%s+(%S+)')
  if run and run.code == 0 and version then
    health.ok('wfls ' .. version .. ' answers ' .. table.concat(version_cmd(cmd), ' '))
  else
    health.error(table.concat(version_cmd(cmd), ' ') .. ' did not answer "wfls <version>": ' .. said)
    return
  end

  local clients = vim.lsp.get_clients({ name = 'wfls' })
  if #clients == 0 then
    health.info('no wfls client is running (open a *.wf.toml or *.wf.json file)')
  end
  for _, client in ipairs(clients) do
    local info = client.server_info or {}
    health.ok(
      ('client %d is running %s %s, attached to %d buffer(s)'):format(
        client.id,
        info.name or 'wfls',
        info.version or '(no version)',
        vim.tbl_count(client.attached_buffers)
      )
    )
  end
end

return M
