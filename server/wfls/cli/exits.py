"""Exit statuses of the ``wfls`` commands, a contract: 0 no errors, 1 errors (or
warnings with ``--strict``), 2 unreadable paths or bad arguments."""

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
