"""Editor features as plain functions of a snapshot and an offset.

Nothing here imports the protocol: results are the plain data of ``types``;
``wfls.convert`` turns them into LSP objects.
"""
