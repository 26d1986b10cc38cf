-- File detection for lda-wf workflow documents: they are TOML and JSON files.
vim.filetype.add({
  pattern = {
    ['.*%.wf%.toml'] = 'toml',
    ['.*%.wf%.json'] = 'json',
  },
})

-- :WflsRun INPUT.json runs the workflow of the current buffer in the server with
-- stand-in handlers (wfls.runWorkflow) and shows the trace in a scratch buffer;
-- afterwards hover (K) on a node's id shows the loop items its activations saw.
vim.api.nvim_create_user_command('WflsRun', function(opts)
  local buffer = vim.api.nvim_get_current_buf()
  local client = vim.lsp.get_clients({ bufnr = buffer, name = 'wfls' })[1]
  if client == nil then
    vim.notify('wfls: the server is not attached to this buffer', vim.log.levels.ERROR)
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
    local trace = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_lines(trace, 0, -1, false, vim.split(result.text, '\n', { trimempty = true }))
    vim.bo[trace].modifiable = false
    vim.cmd('vsplit')
    vim.api.nvim_win_set_buf(0, trace)
  end, buffer)
end, { nargs = 1, complete = 'file', desc = 'Run the workflow with stand-in handlers on an input file' })
