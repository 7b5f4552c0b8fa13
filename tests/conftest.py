"""The unit tests run the library with one training process (``lengthgen.engine.parallel``), whatever the
session's ``--lengthgen-workers``: a test that replaces a training function sees it called in this process.
A test of the process pool asks for its workers itself."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _one_training_process(monkeypatch: pytest.MonkeyPatch) -> None:
    from lengthgen.engine import parallel  # imports torch: here, not at import, so that the xdist controller,
    # which loads this conftest too but runs no test, starts its workers without it

    monkeypatch.setattr(parallel, "_WORKERS", 1)


def pytest_ignore_collect(collection_path, config: pytest.Config) -> bool | None:
    """Under a ``-m`` expression that selects only tests with a scale marker (``-m quick``, ``-m multiverse``),
    no unit test can be selected (``tests/unit/test_selection.py`` checks that none carries one), so their modules
    are not imported: the fast check skips collecting them."""
    from lengthgen.testing.selection import SCALE_MARKERS, requires_one_of

    return True if requires_one_of(config.getoption("markexpr"), SCALE_MARKERS) else None
