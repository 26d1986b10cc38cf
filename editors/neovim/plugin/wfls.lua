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

-- A workflow test document (*.wf.test.toml, *.wf.test.json): wfls attaches to those too.
local function is_test_document(buffer)
  local name = vim.api.nvim_buf_get_name(buffer)
  return name:match('%.wf%.test%.toml$') ~= nil or name:match('%.wf%.test%.json$') ~= nil
end

local function attached_workflow(buffer)
  return attached(buffer) and not is_test_document(buffer)
end

local last_workflow = nil -- the last buffer entered that wfls is attached to

local group = vim.api.nvim_create_augroup('wfls', { clear = true })
vim.api.nvim_create_autocmd({ 'LspAttach', 'BufEnter' }, {
  group = group,
  callback = function(args)
    if attached_workflow(args.buf) then
      last_workflow = args.buf
    end
  end,
})

local function workflow_buffer()
  local current = vim.api.nvim_get_current_buf()
  for _, buffer in ipairs({ current, vim.b[current].wfls_trace_of, last_workflow }) do
    if attached_workflow(buffer) then
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

-- :WflsTest runs workflow tests and fills the quickfix list with their failures, each at
-- the expectation that failed (a case that could not run at its case, a document that
-- cannot be read at the place that says why). In a test document (*.wf.test.toml,
-- *.wf.test.json) it runs the server command `wfls.test` on the buffer as it is, unsaved
-- edits included, every case or the one named (`:WflsTest NAME`, completed from the
-- document's cases); in a workflow buffer it runs `wfls test --format json` on the test
-- documents under the client's root folder that name this workflow (the files as saved).
-- The quickfix window opens when something failed; a summary is shown either way.

--- The byte column (1-based) of a report's code-point column in `path`'s line `lnum`.
local function byte_column(path, lnum, column)
  local buffer = vim.fn.bufnr(path)
  local line
  if buffer ~= -1 and vim.api.nvim_buf_is_loaded(buffer) then
    line = vim.api.nvim_buf_get_lines(buffer, lnum - 1, lnum, false)[1]
  else
    local ok, lines = pcall(vim.fn.readfile, path, '', lnum)
    line = ok and lines[lnum] or nil
  end
  if line == nil then
    return column
  end
  local ok, index = pcall(vim.str_byteindex, line, 'utf-32', math.max(column - 1, 0), false)
  return ok and index + 1 or column
end

--- Quickfix items for the failures of a `wfls test --format json` report.
local function test_items(report, root)
  local items = {}
  local function add(file, where, text)
    local path = file.path
    if root and not vim.startswith(path, '/') then
      path = vim.fs.joinpath(root, path)
    end
    table.insert(items, {
      filename = path,
      lnum = where.start.line,
      col = byte_column(path, where.start.line, where.start.column),
      end_lnum = where['end'].line,
      end_col = byte_column(path, where['end'].line, where['end'].column),
      text = text,
      type = 'E',
    })
  end
  for _, file in ipairs(report.files or {}) do
    if file.error ~= vim.NIL and file.error ~= nil then
      add(file, file.error.range, file.error.message)
    end
    for _, case in ipairs(file.cases or {}) do
      for _, failure in ipairs(case.failures or {}) do
        local text = case.name .. ': ' .. failure.message
        if failure.expected ~= vim.NIL and failure.expected ~= nil then
          text = text .. ' (expected ' .. vim.json.encode(failure.expected) .. ', actual '
            .. vim.json.encode(failure.actual) .. ')'
        end
        if failure.activations and #failure.activations > 0 then
          text = text .. ' [' .. table.concat(failure.activations, ' > ') .. ']'
        end
        add(file, failure.range, text)
      end
      if case.status == 'error' and #(case.failures or {}) == 0 then
        add(file, case.range, case.name .. ': the case could not run')
      end
    end
  end
  return items
end

local function show_tests(report, root, what)
  local items = test_items(report, root)
  vim.fn.setqflist({}, ' ', { title = 'wfls test ' .. what, items = items })
  local summary = report.summary or {}
  local said = string.format(
    'wfls: %s: %d passed, %d failed, %d errors',
    what,
    summary.passed or 0,
    summary.failed or 0,
    summary.errors or 0
  )
  if #items > 0 then
    -- Shown, the cursor kept where it was (so that :WflsTest runs again from there).
    vim.cmd('botright copen')
    vim.cmd('wincmd p')
  end
  vim.notify(said, #items > 0 and vim.log.levels.WARN or vim.log.levels.INFO)
end

--- The workflow's `name`, read from its buffer's text (its top-level `name` key).
local function workflow_name(buffer)
  local text = table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), '\n')
  for _, pattern in ipairs({ '^name%s*=%s*"([^"]+)"', '\nname%s*=%s*"([^"]+)"', '"name"%s*:%s*"([^"]+)"' }) do
    local found = text:match(pattern)
    if found then
      return found
    end
  end
  return nil
end

--- Runs the cases of the test document in `buffer` (all: `cases` nil) through the server.
local function run_test_document(client, buffer, cases)
  local params = {
    command = 'wfls.test',
    arguments = { { uri = vim.uri_from_bufnr(buffer), cases = cases or vim.NIL } },
  }
  client:request('workspace/executeCommand', params, function(err, result)
    if err then
      vim.notify('wfls: ' .. err.message, vim.log.levels.ERROR)
      return
    end
    -- The server's paths are the document's own.
    for _, file in ipairs(result.files or {}) do
      file.path = vim.api.nvim_buf_get_name(buffer)
    end
    show_tests(result, nil, vim.fs.basename(vim.api.nvim_buf_get_name(buffer)))
  end, buffer)
end

-- The "Run case" code lens names the server command `wfls.test`: run here, its failures
-- go to the quickfix list as :WflsTest's do (`vim.lsp.codelens.run()`).
vim.lsp.commands['wfls.test'] = function(command, ctx)
  local argument = (command.arguments or {})[1] or {}
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local buffer = argument.uri and vim.uri_to_bufnr(argument.uri) or ctx.bufnr
  if client then
    run_test_document(client, buffer, argument.cases ~= vim.NIL and argument.cases or nil)
  end
end

vim.api.nvim_create_user_command('WflsTest', function(opts)
  local current = vim.api.nvim_get_current_buf()
  if attached(current) and is_test_document(current) then
    local client = vim.lsp.get_clients({ bufnr = current, name = 'wfls' })[1]
    run_test_document(client, current, opts.args ~= '' and { opts.args } or nil)
    return
  end
  local buffer, client = command_target(':WflsTest runs the tests')
  if buffer == nil then
    return
  end
  local root = client.root_dir or vim.fs.dirname(vim.api.nvim_buf_get_name(buffer))
  local name = workflow_name(buffer)
  vim.system(wfls_command(client, { 'test', root, '--format', 'json' }), { text = true, cwd = root }, function(done)
    vim.schedule(function()
      local ok, report = pcall(vim.json.decode, done.stdout or '')
      if not ok or type(report) ~= 'table' then
        vim.notify('wfls: wfls test failed: ' .. vim.trim(done.stderr or ''), vim.log.levels.ERROR)
        return
      end
      local files, summary = {}, { passed = 0, failed = 0, errors = 0 }
      for _, file in ipairs(report.files or {}) do
        if name == nil or file.workflow == name then
          table.insert(files, file)
          for _, case in ipairs(file.cases or {}) do
            local key = case.status == 'passed' and 'passed' or case.status == 'failed' and 'failed' or 'errors'
            summary[key] = summary[key] + 1
          end
          if file.error ~= vim.NIL and file.error ~= nil then
            summary.errors = summary.errors + 1
          end
        end
      end
      show_tests({ files = files, summary = summary }, root, 'the tests of ' .. (name or 'the workspace'))
    end)
  end)
end, {
  nargs = '?',
  desc = "Run the workflow tests of the buffer (a test document's cases or one named, or a workflow's tests)",
  complete = function()
    local current = vim.api.nvim_get_current_buf()
    local names = {}
    for _, line in ipairs(vim.api.nvim_buf_get_lines(current, 0, -1, false)) do
      local name = line:match('^%s*name%s*=%s*"([^"]+)"')
      if name then
        table.insert(names, name)
      end
    end
    return names
  end,
})
