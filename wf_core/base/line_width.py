"""The line width of written documents.

``wfls export``'s TOML and ``wfls fmt`` keep a value on its key's line when the line
fits in this many characters (``wfls fmt --width`` and the editor's ``wfls.format.width``
change it for formatting). Defined here, in a module that imports nothing, so that the
command line's ``--help`` and the server's settings can name it without loading the
writer.
"""

from __future__ import annotations

__all__ = ["LINE_WIDTH"]

LINE_WIDTH = 100
