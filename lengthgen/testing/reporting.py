"""The run's report, on the controller alone (xdist workers send their records through their test
reports): ``claims.json`` and ``index.html`` written at session finish (after the drawings still pending and the
training processes of a serial run have ended), the verdict table as markdown
(``--lengthgen-summary-md=FILE``, also appended to ``$GITHUB_STEP_SUMMARY`` when that is set), and the verdict table
in the terminal summary."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from lengthgen.testing.drawing import finish_drawing
from lengthgen.testing.run import is_worker
from lengthgen.testing.session import SESSION, registry_of, session_of

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"  # GitHub Actions' job-summary file; --lengthgen-summary-md appends it


def pytest_configure(config: pytest.Config) -> None:
    """An unwritable ``--lengthgen-summary-md`` is a usage error at start (exit 4, one line), like
    ``--lengthgen-report-dir``."""
    path = config.getoption("lengthgen_summary_md")
    if path is None or is_worker(config):
        return
    try:
        check_summary_path(path)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None


def check_summary_path(path: Path) -> None:
    """``ValueError`` naming ``path`` unless its folder exists (created if missing) and can be written, and
    the file, if it exists, can be written too."""
    from lengthgen.store.files import writable_dir

    writable_dir(path.parent, "--lengthgen-summary-md")
    if path.exists() and (path.is_dir() or not os.access(path, os.W_OK)):
        raise ValueError(
            f"--lengthgen-summary-md {str(path)!r} cannot be written: "
            f"{'a directory' if path.is_dir() else 'permission denied'}"
        )


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controller's (or a serial run's) end, after the session's own (``session.pytest_sessionfinish``, which
    adds the process's cache counters to the workers'): the drawings still pending are awaited, a serial run's
    training processes end (so that their peak memory is known), and the report is written."""
    config = session.config
    if is_worker(config):
        return
    state = session_of(config)
    finish_drawing(config)
    runtime = state.runtime  # a serial run's (the xdist controller has none)
    if runtime is not None:
        from lengthgen.engine import parallel

        if parallel.has_pool(runtime):  # a serial run's training processes: ended, so that their peak memory is known
            from lengthgen.testing.environment import peak_child_rss_mib

            parallel.shutdown(runtime)
            state.run.peak_rss["training processes"] = peak_child_rss_mib()
    write_run_report(session, session.exitstatus, state.report_dir)


def write_run_report(session: pytest.Session, exitstatus: int, report_dir: Path) -> None:
    """Write the report of the run's records (none: nothing is written). A report that cannot be written
    fails the run, after the tests' own output; the summary says why."""
    from lengthgen.report import write_report
    from lengthgen.testing.environment import peak_rss_mib

    config = session.config
    run = session_of(config).run
    if not run.records:
        return
    run.peak_rss["controller" if run.workers else "main"] = peak_rss_mib()
    run.environment = run_environment(
        config, run.stats, int(exitstatus), run.workers, run.peak_rss, torch_block=run.torch_facts
    )
    errors = []
    try:
        run.files = write_report(run.records, run.environment, report_dir, registry_of(config))
    except Exception as error:  # a report that cannot be written fails the run, after the tests' own output
        errors.append(f"{type(error).__name__}: {error}")
    summary = config.getoption("lengthgen_summary_md")
    if summary is not None:
        try:
            write_summary_md(
                run.records,
                run.environment,
                summary,
                os.environ.get(STEP_SUMMARY_ENV) or None,
                registry_of(config),
            )
            session_of(config).memo.summary_written = summary
        except Exception as error:  # as the report: the run fails, the terminal summary says why
            errors.append(f"--lengthgen-summary-md: {type(error).__name__}: {error}")
    if errors:
        run.error = "; ".join(errors)
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def write_summary_md(
    records: list[dict],
    environment: dict[str, Any] | None,
    path: Path,
    step_summary: str | None = None,
    registry: Any = None,
) -> str:
    """Write the run's verdict table as markdown (``lengthgen.report.markdown.summary_markdown`` of the
    run's ``RunView``) to ``path``, replacing it, and append the same text to ``step_summary`` (GitHub's
    ``$GITHUB_STEP_SUMMARY``) when given. Returns the markdown."""
    from lengthgen.report.markdown import summary_markdown
    from lengthgen.analysis.run_view import RunView
    from lengthgen.store.files import atomic_write

    text = summary_markdown(RunView.from_records(records, environment, registry))
    text = text if text.endswith("\n") else text + "\n"
    atomic_write(path, text)
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:  # appended: earlier steps wrote theirs
            handle.write(text)
    return text


def run_environment(
    config: pytest.Config,
    stats: dict[str, int],
    exit_status: int | None = None,
    workers: int = 0,
    peak_rss: dict[str, float] | None = None,
    torch_block: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The report's ``environment``: threads, workers, wall time, cache, command, exit status, memory (and
    ``torch_block``, torch's facts as a worker sent them: see ``environment.collect``)."""
    from lengthgen.testing.environment import collect

    started = session_of(config).started
    cache = session_of(config).memo.cache
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
        torch_block=torch_block,
    )


def unfinished_line(workers: list[str]) -> str:
    """The terminal's line for xdist workers whose session end failed after their tests."""
    return (
        f"xdist worker(s) {', '.join(workers)} did not finish their session's end (an error after their tests): "
        "the run fails (exit 3 if its tests passed); what they send at the end (cache counters, peak memory) is "
        "missing from the report"
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(SESSION, None)  # absent where configure stopped before making it
    if is_worker(config) or state is None:
        return
    run = state.run
    if run.unfinished:
        terminalreporter.write_line(unfinished_line(run.unfinished), red=True)
    if not run.records:
        return
    from lengthgen.analysis.run_view import RunView
    from lengthgen.report.summary import terminal_lines

    view = RunView.from_records(run.records, run.environment or {}, registry_of(config))  # cells go to the map
    # and the multiverse
    terminalreporter.section("lengthgen claims")
    for line in terminal_lines(view, config.get_terminal_writer().fullwidth):
        terminalreporter.write_line(line)
    if run.peak_rss:
        from lengthgen.testing.environment import MEMORY_BUDGET_MIB, memory_line

        terminalreporter.write_line(memory_line(run.peak_rss), red=max(run.peak_rss.values()) > MEMORY_BUDGET_MIB)
    if run.error is not None:
        terminalreporter.write_line(f"report not written: {run.error}", red=True)
    if run.files is not None:
        for problem in run.files.figure_errors:
            terminalreporter.write_line(f"figure not drawn: {problem}", red=True)
        for note in run.files.notes:
            terminalreporter.write_line(note, yellow=True)
        terminalreporter.write_line(f"report: {run.files.html} (data: {run.files.json})")
    if state.memo.summary_written is not None:
        terminalreporter.write_line(f"markdown summary: {state.memo.summary_written}")
