"""One analysed version of a document: the snapshot every front door reads, the view of it
that features are typed against, and the same analysis seen through an edit while the
author types.
"""
