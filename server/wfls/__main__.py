import sys

from wfls.cli import main

sys.exit(main())
