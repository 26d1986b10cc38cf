from wfls.cli import entry

entry()
