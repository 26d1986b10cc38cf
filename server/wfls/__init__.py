"""wfls: the language server and command line for lda-wf workflows."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wfls")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"
