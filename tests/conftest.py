import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-docs``: tests/test_docs.py writes what the commands print into the pages."""
    parser.addoption(
        "--update-docs",
        action="store_true",
        help="write the output of the docs' console blocks into the pages (tests/test_docs.py)",
    )
