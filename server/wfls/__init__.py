"""wfls: the language server and command line for lda-wf workflows.

The distribution is named ``lda-wfls`` (``wfls`` on the package index is an
unrelated project); the command and the import package are ``wfls``.

The version is written here, and ``pyproject.toml`` reads it from here, rather
than looked up in the installed distribution's metadata: that lookup imports
``importlib.metadata`` and reads the environment's metadata, tens of
milliseconds of every server start before it can answer ``initialize``.
"""

DISTRIBUTION = "lda-wfls"
__version__ = "0.1.0"
