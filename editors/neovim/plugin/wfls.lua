-- File detection for lda-wf workflow documents: they are TOML and JSON files.
vim.filetype.add({
  pattern = {
    ['.*%.wf%.toml'] = 'toml',
    ['.*%.wf%.json'] = 'json',
  },
})

-- :WflsRun INPUT.json runs a workflow in the server with stand-in handlers
-- (wfls.runWorkflow) and shows the trace in a scratch buffer; afterwards hover (K) on a
-- node's id shows the loop items its activations saw. The workflow is the current
-- buffer's; from a trace buffer (or any other buffer the server is not attached to), the
-- one that trace is of, else the workflow buffer entered last.

local function attached(buffer)
  return buffer ~= nil
    and vim.api.nvim_buf_is_valid(buffer)
    and vim.lsp.get_clients({ bufnr = buffer, name = 'wfls' })[1] ~= nil
end

local last_workflow = nil -- the last buffer entered that wfls is attached to

local group = vim.api.nvim_create_augroup('wfls', { clear = true })
vim.api.nvim_create_autocmd({ 'LspAttach', 'BufEnter' }, {
  group = group,
  callback = function(args)
    if attached(args.buf) then
      last_workflow = args.buf
    end
  end,
})

local function workflow_buffer()
  local current = vim.api.nvim_get_current_buf()
  for _, buffer in ipairs({ current, vim.b[current].wfls_trace_of, last_workflow }) do
    if attached(buffer) then
      return buffer
    end
  end
  return nil
end

-- The workflow buffer a command is about and the wfls client attached to it; nil (and
-- the command's use said) when there is none.
local function command_target(use)
  local buffer = workflow_buffer()
  if buffer == nil then
    vim.notify(
      'wfls: ' .. use .. ' of a *.wf.toml or *.wf.json buffer that the server is attached to:'
        .. ' open one first',
      vim.log.levels.ERROR
    )
    return nil
  end
  return buffer, vim.lsp.get_clients({ bufnr = buffer, name = 'wfls' })[1]
end

local function show_trace(text, buffer)
  local trace = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_lines(trace, 0, -1, false, vim.split(text, '\n', { trimempty = true }))
  vim.bo[trace].modifiable = false
  vim.bo[trace].bufhidden = 'wipe'
  vim.b[trace].wfls_trace_of = buffer
  -- Run again from a trace window: the new trace replaces it there.
  if vim.b.wfls_trace_of == nil then
    vim.cmd('vsplit')
  end
  vim.api.nvim_win_set_buf(0, trace)
end

vim.api.nvim_create_user_command('WflsRun', function(opts)
  local buffer, client = command_target(':WflsRun runs the workflow')
  if buffer == nil then
    return
  end
  local path = vim.fn.expand(opts.args)
  local ok, lines = pcall(vim.fn.readfile, path)
  if not ok then
    vim.notify('wfls: cannot read ' .. path, vim.log.levels.ERROR)
    return
  end
  local decoded, input = pcall(vim.json.decode, table.concat(lines, '\n'))
  if not decoded then
    vim.notify('wfls: ' .. path .. ' is not JSON: ' .. tostring(input), vim.log.levels.ERROR)
    return
  end
  local params = {
    command = 'wfls.runWorkflow',
    arguments = { { uri = vim.uri_from_bufnr(buffer), input = input } },
  }
  client:request('workspace/executeCommand', params, function(err, result)
    if err then
      vim.notify('wfls: ' .. err.message, vim.log.levels.ERROR)
      return
    end
    show_trace(result.text, buffer)
  end, buffer)
end, { nargs = 1, complete = 'file', desc = 'Run the workflow with stand-in handlers on an input file' })

-- :WflsGraph draws the graph of the buffer's workflow: it writes the interactive page of
-- `wfls graph FILE --format html` (the view VS Code's "wfls: Show Graph" shows) to a
-- file under Neovim's cache folder and opens it with the system's opener
-- (`vim.ui.open`), or, with a bang or when there is no opener, says where it is. The command is the server's own
-- (`cmd` of the wfls client) with `graph` in place of `serve`; the page shows the file as
-- saved, its subgraph calls resolved in the client's root folder as the server does.

--- The client's command with `serve` (and what follows it) replaced by `args`.
local function wfls_command(client, args)
  local cmd = type(client.config.cmd) == 'table' and client.config.cmd or { 'wfls', 'serve' }
  local command = {}
  for _, part in ipairs(cmd) do
    if part == 'serve' then
      break
    end
    table.insert(command, part)
  end
  vim.list_extend(command, args)
  return command
end

vim.api.nvim_create_user_command('WflsGraph', function(opts)
  local buffer, client = command_target(':WflsGraph draws the workflow')
  if buffer == nil then
    return
  end
  local file = vim.api.nvim_buf_get_name(buffer)
  local args = { 'graph', file, '--format', 'html' }
  if client.root_dir then
    vim.list_extend(args, { '--root', client.root_dir })
  end
  local unsaved = vim.bo[buffer].modified
  -- One page per document, kept after Neovim exits (the browser may read it later):
  -- drawing again replaces it.
  local name = vim.fs.basename(file):gsub('%.wf%.%a+$', '')
  local folder = vim.fs.joinpath(vim.fn.stdpath('cache'), 'wfls', 'graphs')
  vim.fn.mkdir(folder, 'p')
  local page = vim.fs.joinpath(folder, name .. '-' .. vim.fn.sha256(file):sub(1, 8) .. '.graph.html')
  vim.system(wfls_command(client, args), { text = true }, function(done)
    vim.schedule(function()
      if done.code ~= 0 then
        vim.notify('wfls: wfls graph failed: ' .. vim.trim(done.stderr or ''), vim.log.levels.ERROR)
        return
      end
      local out = assert(io.open(page, 'wb'))
      out:write(done.stdout)
      out:close()
      local note = unsaved and ' (the file as saved: the buffer has unsaved changes)' or ''
      if opts.bang then
        vim.notify('wfls: the graph is in ' .. page .. note)
        return
      end
      local _, problem = vim.ui.open(page)
      if problem then
        vim.notify('wfls: the graph is in ' .. page .. note .. ' (' .. problem .. ')')
      else
        vim.notify('wfls: opened the graph, ' .. page .. note)
      end
    end)
  end)
end, { nargs = 0, bang = true, desc = "Open the interactive graph of the buffer's workflow" })
