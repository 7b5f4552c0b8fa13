"""What one process gathers of the run, and what travels between the xdist controller and its workers: the claim
records its test reports carried (on the xdist controller, every worker's), the workers' cache counters, peak
memory, registry and torch's facts. Registered as a plugin object at configure (``lengthgen-run-records``) and
kept on the process's ``session.LengthgenSession``."""

from __future__ import annotations

from typing import Any

import pytest

RECORD_PROPERTY = "lengthgen_record"  # user_properties name of a claim record (the call report's, xdist transport)
STATS_OUTPUT = "lengthgen_cache_stats"  # xdist workeroutput name of a worker's cache counters
PEAK_RSS_OUTPUT = "lengthgen_peak_rss_mib"  # xdist workeroutput name of a worker's peak resident memory
TORCH_OUTPUT = "lengthgen_torch_facts"  # xdist workeroutput name of a worker's environment.torch_facts()
REGISTRY_OUTPUT = "lengthgen_registry"  # xdist workeroutput name of the claims' registry (catalogue, multiverse plan)
FINISHED_OUTPUT = "lengthgen_session_finished"  # xdist workeroutput name set last at a worker's end (absent: it failed)
FRESH_AFTER = "lengthgen_fresh_after"  # xdist workerinput name of the --lengthgen-retrain timestamp


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (xdist gives a worker's config its ``workerinput``)."""
    return hasattr(config, "workerinput")


def is_controller(config: pytest.Config) -> bool:
    """Whether this process is an xdist controller: it hands tests to workers and runs none itself (``-n N``
    sets ``--dist`` to ``load``; ``--collect-only`` makes xdist step aside, and the process collects)."""
    return (
        not is_worker(config)
        and config.getoption("dist", default="no") != "no"
        and not config.getoption("collectonly", default=False)
    )


PLUGIN_NAME = "lengthgen-run-records"  # its name in the plugin manager


class RunRecords:
    """This process's view of the run: the claim records its reports carried (on the xdist controller,
    every worker's), and the workers' cache counters, peak memory, registry and torch's facts."""

    def __init__(self) -> None:
        self.records: list[dict] = []
        self.stats: dict[str, int] = {}
        self.workers = 0  # xdist workers that finished (0 without xdist)
        self.peak_rss: dict[str, float] = {}  # MiB per xdist worker (ru_maxrss, sent through workeroutput)
        self.files = None  # the ReportFiles written at the end
        self.environment: dict[str, Any] | None = None
        self.error: str | None = None  # why the report could not be written
        self.torch_facts: dict[str, str] | None = None  # a worker's environment.torch_facts() (xdist controller)
        self.unfinished: list[str] = []  # xdist workers whose session end failed (no FINISHED_OUTPUT; controller)
        self.registry = None  # the claims' Registry the first worker that sent one sent (xdist controller)

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
        if output.get(REGISTRY_OUTPUT) is not None and self.registry is None:
            from lengthgen.registry import Registry

            self.registry = Registry.from_data(output[REGISTRY_OUTPUT])
