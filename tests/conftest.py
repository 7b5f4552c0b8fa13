"""The unit tests run the library with one training process (``lengthgen.engine.parallel``), whatever the
session's ``--lengthgen-workers``: a test that replaces a training function sees it called in this process.
A test of the process pool asks for its workers itself."""

from __future__ import annotations

import pytest

from lengthgen.engine import parallel


@pytest.fixture(autouse=True)
def _one_training_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "_WORKERS", 1)
