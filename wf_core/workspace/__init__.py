"""The workspace: every workflow document of the workspace folders, and what crosses files.

``files`` finds documents without ever leaving the folders; ``index`` keeps one
analysis per document (open documents override what is on disk), finds
workflows by ``name`` and knows who calls whom; ``checks`` adds the findings
that need more than one document: subgraph resolution, the caller's bindings
against the child's contract, cycles of subgraphs, duplicate names, and a
child reading a caller's loop.
"""
