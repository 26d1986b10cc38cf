"""The semantic index: every name and path of a document, what it means, where it is.

``model`` holds the records, ``build`` the one walk that makes them, ``index``
the lookups, ``cursor`` the one classifier of "what is under this offset" that
every editor feature starts from.
"""
