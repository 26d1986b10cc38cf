"""``wfls debug``: a Debug Adapter Protocol server over the runtime (docs/debugging.md).

- :mod:`~wfls.debug.protocol`: the messages and their framing;
- :mod:`~wfls.debug.target`: a launch's or attach's arguments, read into a replayable run;
- :mod:`~wfls.debug.stepper`: the run moved one activation at a time, replayed to go back;
- :mod:`~wfls.debug.breakpoints`: lines bound to nodes, hit counts;
- :mod:`~wfls.debug.conditions`: breakpoint conditions and the console's expressions;
- :mod:`~wfls.debug.variables`: scopes and variables;
- :mod:`~wfls.debug.session`: the requests answered.
"""
