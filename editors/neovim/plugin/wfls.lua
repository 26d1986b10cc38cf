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
  local buffer = workflow_buffer()
  if buffer == nil then
    vim.notify(
      'wfls: :WflsRun runs the workflow of a *.wf.toml or *.wf.json buffer that the server is'
        .. ' attached to: open one first',
      vim.log.levels.ERROR
    )
    return
  end
  local client = vim.lsp.get_clients({ bufnr = buffer, name = 'wfls' })[1]
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
