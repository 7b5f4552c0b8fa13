"""What one process gathers of the run: the claim records its test reports carried (on the xdist
controller, every worker's) and the workers' cache counters and peak memory. Registered as a plugin
object at configure (``lengthgen-run-records``) and kept in ``config.stash[state.RUN]``."""

from __future__ import annotations

from typing import Any

import pytest

from lengthgen.testing.state import PEAK_RSS_OUTPUT, RECORD_PROPERTY, STATS_OUTPUT

PLUGIN_NAME = "lengthgen-run-records"  # its name in the plugin manager


class RunRecords:
    """This process's view of the run: the claim records its reports carried (on the xdist controller,
    every worker's), and the workers' cache counters."""

    def __init__(self) -> None:
        self.records: list[dict] = []
        self.stats: dict[str, int] = {}
        self.workers = 0  # xdist workers that finished (0 without xdist)
        self.peak_rss: dict[str, float] = {}  # MiB per xdist worker (ru_maxrss, sent through workeroutput)
        self.files = None  # the ReportFiles written at the end
        self.environment: dict[str, Any] | None = None
        self.error: str | None = None  # why the report could not be written

    def add_stats(self, stats: dict[str, int]) -> None:
        """Add one process's cache counters to the run's."""
        for name, count in stats.items():
            self.stats[name] = self.stats.get(name, 0) + count

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == RECORD_PROPERTY:
                self.records.append(value)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:  # xdist controller: gather a worker's cache counters
        self.workers += 1
        peak = getattr(node, "workeroutput", {}).get(PEAK_RSS_OUTPUT)
        if peak is not None:
            self.peak_rss[node.workerinput.get("workerid", f"worker{self.workers}")] = peak
        self.add_stats(getattr(node, "workeroutput", {}).get(STATS_OUTPUT, {}))
