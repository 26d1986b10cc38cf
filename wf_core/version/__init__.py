"""One analysed version of a document: the snapshot every front door reads, and the view
of it that features are typed against.
"""
