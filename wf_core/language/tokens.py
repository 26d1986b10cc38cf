"""Graph tokens shared by the model, the analysis and the runtime.

``END`` is only an edge target: it ends the workflow with outcome ``ok``, which
is why an edge to it needs ``"ok"`` among ``Workflow.outcomes``. ``START`` names
the entry side of the graph in analysis output; no node may carry either id
meaningfully, since edges and owner stacks treat them as markers.
"""

from __future__ import annotations

START = "__start__"
END = "__end__"
