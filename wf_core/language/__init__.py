"""lda-wf's path language and context vocabulary: the path grammar and scanner, the one
formatter of paths, graph tokens and the names of the runtime context.
"""
