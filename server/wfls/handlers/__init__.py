"""One module per LSP method; each exposes ``handle`` and, for requests, ``empty``.

Document requests take a :class:`~wfls.context.RequestContext`; session
events take the :class:`~wfls.context.Session`. Neither kind imports the
server. The server wraps each handler once (``wfls.server.register_features``):
that wrapper builds the context, turns a :class:`~wfls.features.types.Refusal`
into an error reply the client shows, and logs any other failure and answers
``empty()``, so one bad document or feature bug costs one empty answer, not
the session.
"""
