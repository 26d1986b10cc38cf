"""wfls: the language server and command line for lda-wf workflows.

The distribution is named ``lda-wfls`` (``wfls`` on the package index is an
unrelated project); the command and the import package are ``wfls``.
"""

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "lda-wfls"

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"
