-- File detection for lda-wf workflow documents: they are TOML and JSON files.
vim.filetype.add({
  pattern = {
    ['.*%.wf%.toml'] = 'toml',
    ['.*%.wf%.json'] = 'json',
  },
})
