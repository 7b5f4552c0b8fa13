"""Where the plugin writes: the report directory, read from its option by the session's start-up check and by
the drawings a test hands on (one place, so neither module imports the other)."""

from __future__ import annotations

from pathlib import Path

import pytest


def report_dir(config: pytest.Config) -> Path:
    """Where the controller writes the report: ``--lengthgen-report-dir``, else ``<rootdir>/reports``."""
    return Path(config.getoption("lengthgen_report_dir") or config.rootpath / "reports")
