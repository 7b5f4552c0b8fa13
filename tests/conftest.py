"""The unit tests run the library on their own runtimes: a ``Cache`` made without one computes on a CPU
``Runtime`` with one training process, whatever the session's ``--lengthgen-workers``, so a test that replaces a
training function sees it called in this process. A test of the process pool makes a ``Runtime(workers=N)``."""

from __future__ import annotations

import pytest


def pytest_ignore_collect(collection_path, config: pytest.Config) -> bool | None:
    """Under a ``-m`` expression that selects only tests with a scale marker (``-m quick``, ``-m multiverse``),
    no unit test can be selected (``tests/unit/test_selection.py`` checks that none carries one), so their modules
    are not imported: the fast check skips collecting them."""
    from lengthgen.testing.selection import SCALE_MARKERS, requires_one_of

    return True if requires_one_of(config.getoption("markexpr"), SCALE_MARKERS) else None
