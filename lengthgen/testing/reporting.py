"""The run's report, on the controller alone (xdist workers send their records through their test
reports): ``claims.json`` and ``index.html`` written at session finish, and the verdict table in the
terminal summary."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from lengthgen.testing import state


def write_run_report(session: pytest.Session, exitstatus: int, report_dir: Path) -> None:
    """Write the report of the run's records (none: nothing is written). A report that cannot be written
    fails the run, after the tests' own output; the summary says why."""
    from lengthgen.report import write_report
    from lengthgen.report.environment import peak_rss_mib

    config = session.config
    run = config.stash[state.RUN]
    if not run.records:
        return
    run.peak_rss["controller" if run.workers else "main"] = peak_rss_mib()
    run.environment = run_environment(config, run.stats, int(exitstatus), run.workers, run.peak_rss)
    try:
        run.files = write_report(run.records, run.environment, report_dir)
    except Exception as error:  # a report that cannot be written fails the run, after the tests' own output
        run.error = f"{type(error).__name__}: {error}"
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def run_environment(config: pytest.Config, stats: dict[str, int], exit_status: int | None = None,
                    workers: int = 0, peak_rss: dict[str, float] | None = None) -> dict[str, Any]:
    """The report's ``environment``: threads, workers, wall time, cache, command, exit status, memory."""
    from lengthgen.report.environment import collect

    started = config.stash[state.STARTED]
    cache = config.stash.get(state.CACHE, None)
    return collect(
        threads=config.getoption("lengthgen_threads"),
        workers=workers or 1,
        wall_time_s=time.time() - started,
        started=started,
        cache_dir=str(cache.root) if cache is not None else config.getoption("lengthgen_cache_dir"),
        cache_stats=stats,
        command="pytest " + " ".join(config.invocation_params.args),
        claims_dir=config.rootpath / "claims",
        exit_status=exit_status,
        peak_rss=peak_rss,
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    run = config.stash.get(state.RUN, None)
    if state.is_worker(config) or run is None or not run.records:
        return
    from lengthgen.report import summary_lines
    from lengthgen.report.data import split
    from lengthgen.report.robustness import map_lines, split_settings

    claims, controls = split(run.records)
    claims, cells = split_settings(claims)  # the robustness map's cells are printed as the map
    terminalreporter.section("lengthgen claims")
    for line in map_lines(cells) if cells else []:
        terminalreporter.write_line(line)
    width = config.get_terminal_writer().fullwidth
    summary = summary_lines(claims, run.environment, width, controls)
    for line in summary[-1:] if cells and not claims else summary:  # a map alone: its wall time and cache counters
        terminalreporter.write_line(line)
    if run.peak_rss:
        from lengthgen.report.environment import MEMORY_BUDGET_MIB, memory_line

        terminalreporter.write_line(memory_line(run.peak_rss), red=max(run.peak_rss.values()) > MEMORY_BUDGET_MIB)
    if run.error is not None:
        terminalreporter.write_line(f"report not written: {run.error}", red=True)
    if run.files is not None:
        for problem in run.files.figure_errors:
            terminalreporter.write_line(f"figure not drawn: {problem}", red=True)
        terminalreporter.write_line(f"report: {run.files.html} (data: {run.files.json})")
