"""One module per LSP method; each exposes ``handle`` and, for requests, ``empty``.

Document requests take a :class:`~wfls.context.RequestContext`; session
events take the :class:`~wfls.context.Session`. Neither kind imports the
server. The routing table (``wfls.registry``) lists each module's method, its kind and
options, and wraps ``handle`` once: that wrapper builds the context, turns a
:class:`~wfls.features.types.Refusal` into an error reply the client shows, and logs any
other failure and answers ``empty(params)``, so one bad document or feature bug costs
one empty answer, not the session.

The registry imports every module when the server starts; a module imports the feature
it computes with (and so the analysis) in the function that computes, on the first
request, so that the answer to ``initialize`` needs none of it.
"""
