"""What one process gathers of the run: the claim records its test reports carried (on the xdist
controller, every worker's) and the workers' cache counters and peak memory. Registered as a plugin
object at configure (``lengthgen-run-records``) and kept in ``config.stash[state.RUN]``."""

from __future__ import annotations

from typing import Any

import pytest

from lengthgen.testing.state import (
    FINISHED_OUTPUT,
    PEAK_RSS_OUTPUT,
    REGISTRY,
    REGISTRY_OUTPUT,
    RECORD_PROPERTY,
    STATS_OUTPUT,
    TORCH_OUTPUT,
    is_worker,
)

PLUGIN_NAME = "lengthgen-run-records"  # its name in the plugin manager


class RunRecords:
    """This process's view of the run: the claim records its reports carried (on the xdist controller,
    every worker's), and the workers' cache counters."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config  # the process's config: its stash receives the registry a worker sends
        self.records: list[dict] = []
        self.stats: dict[str, int] = {}
        self.workers = 0  # xdist workers that finished (0 without xdist)
        self.peak_rss: dict[str, float] = {}  # MiB per xdist worker (ru_maxrss, sent through workeroutput)
        self.files = None  # the ReportFiles written at the end
        self.environment: dict[str, Any] | None = None
        self.error: str | None = None  # why the report could not be written
        self.torch_facts: dict[str, str] | None = None  # a worker's environment.torch_facts() (xdist controller)
        self.unfinished: list[str] = []  # xdist workers whose session end failed (no FINISHED_OUTPUT; controller)

    def add_stats(self, stats: dict[str, int]) -> None:
        """Add one process's cache counters to the run's."""
        for name, count in stats.items():
            self.stats[name] = self.stats.get(name, 0) + count

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == RECORD_PROPERTY:
                self.records.append(value)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """An xdist worker's last act at its end: mark that its end completed. Every other implementation of the
        hook runs before this one (``trylast``), and one that raises ends the hook, so the mark is then missing.
        xdist sends ``workeroutput`` after the hook either way, and does not fail the run itself: the controller
        does (``pytest_testnodedown``, ``session.pytest_sessionfinish``)."""
        if is_worker(session.config):
            session.config.workeroutput[FINISHED_OUTPUT] = True

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """xdist controller: gather a worker's cache counters and peak memory, and take the claims' registry and
        torch's facts from the first worker that sends them (the controller collects no claims and imports no
        torch)."""
        self.workers += 1
        output = getattr(node, "workeroutput", {})
        worker = getattr(node, "workerinput", {}).get("workerid", f"worker{self.workers}")
        if not output.get(FINISHED_OUTPUT):  # its end raised after its tests, or it went down before its end
            self.unfinished.append(worker)
        peak = output.get(PEAK_RSS_OUTPUT)
        if peak is not None:
            self.peak_rss[worker] = peak
        self.add_stats(output.get(STATS_OUTPUT, {}))
        if self.torch_facts is None and output.get(TORCH_OUTPUT) is not None:
            self.torch_facts = dict(output[TORCH_OUTPUT])
        if output.get(REGISTRY_OUTPUT) is not None and self.config.stash.get(REGISTRY, None) is None:
            from lengthgen.registry import Registry

            self.config.stash[REGISTRY] = Registry.from_data(output[REGISTRY_OUTPUT])
