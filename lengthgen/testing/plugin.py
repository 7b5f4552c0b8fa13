"""The pytest plugin of the suite (loaded by the top-level ``conftest.py``).

- Options: ``--cache-dir=DIR``, ``--retrain``, ``--seeds=SPEC``, ``--threads=N``, ``--report-dir=DIR``,
  ``--until-decided[=MAX]`` (the stopping rule of ``lengthgen.sequential``, run by ``claims.support.judge``;
  write MAX with ``=``, or the option last: a bare ``--until-decided`` takes the next word for MAX).
  (Write a path value with ``=``: pytest decides its rootdir before it knows a conftest's options, so in
  ``pytest -m quick --cache-dir /existing/dir`` the directory is taken for a test path.)
- One torch thread per process by default (xdist workers share 2 cores; the ops are small), and
  matplotlib's Agg backend.
- Scale selection: claim tests run at the paper's scale by default; their ``quick`` variants run only
  when the ``-m`` expression names ``quick`` (``pytest -m quick``).
- Claim selection: a claim test also answers ``-k`` by its claim id (``-k C15``; pytest matches
  substrings, so ``-k C2`` also selects C20..C22: name the file for C2 alone).
- Claim records: the ``claim`` fixture gives a :class:`~lengthgen.records.ClaimRecorder` for the id of
  the test's ``@pytest.mark.claim("Cn")``; after the test, its record (with runtime, pytest's outcome and
  the verdict of ``lengthgen.report.verdict.decide``) rides on the test report's ``user_properties``, so
  the xdist controller receives every worker's records. The controller alone writes
  ``reports/claims.json`` and ``reports/index.html`` (``--report-dir``) at the end of the run and prints
  the verdict table in the terminal summary; workers send their cache counters and
  peak resident memory (``ru_maxrss``) through ``workeroutput``.
- ``--scheduler=tcp://HOST:PORT``: missing ensemble passes train on that Dask cluster (``lengthgen.engine.cluster``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest


RECORD_PROPERTY = "lengthgen_claim"  # user_properties name of a claim record
STATS_OUTPUT = "lengthgen_cache_stats"  # xdist workeroutput name of a worker's cache counters
PEAK_RSS_OUTPUT = "lengthgen_peak_rss_mib"  # xdist workeroutput name of a worker's peak resident memory
FRESH_AFTER = "lengthgen_fresh_after"  # xdist workerinput name of the --retrain timestamp

_cache_key = pytest.StashKey[Any]()
_start_key = pytest.StashKey[float]()
_duration_key = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lengthgen")
    group.addoption("--cache-dir", dest="lengthgen_cache_dir", default=None,
                    help="model cache directory (default: $LENGTHGEN_CACHE_DIR or ~/.cache/lengthgen)")
    group.addoption("--retrain", dest="lengthgen_retrain", action="store_true",
                    help="ignore cached models from earlier runs (models trained in this run are shared)")
    group.addoption("--seeds", dest="lengthgen_seeds", default=None,
                    help="seeds for every claim at paper scale, e.g. 0-31 (default: the paper's count)")
    group.addoption("--device", dest="lengthgen_device", default="cpu",
                    help="train and evaluate on cpu (default) or cuda; part of the cache key")
    group.addoption("--threads", dest="lengthgen_threads", type=int, default=1,
                    help="torch threads per process (default 1; part of the cache key)")
    group.addoption("--report-dir", dest="lengthgen_report_dir", default=None,
                    help="where the claims report is written (default: <rootdir>/reports)")
    from lengthgen.engine.cluster import scheduler_arg  # imports nothing of distributed

    group.addoption("--scheduler", dest="lengthgen_scheduler", type=scheduler_arg, default=None,
                    metavar="tcp://HOST:PORT",
                    help="train missing models on this Dask cluster (needs the dask extra: pip install -e '.[dask]')")
    group.addoption("--until-decided", dest="lengthgen_until_decided", nargs="?", const=_default_max(), default=None,
                    type=_until_decided_arg, metavar="MAX",
                    help="add seeds, 4 at a time, to claims with a close deciding check until none is close or "
                         "MAX seeds (default 32) are used; intervals at 1 - 0.05/looks (lengthgen.sequential)")


def _default_max() -> int:
    from lengthgen.sequential import DEFAULT_MAX

    return DEFAULT_MAX


def _until_decided_arg(text: str) -> int:
    import argparse

    from lengthgen.sequential import parse_max

    try:
        return parse_max(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    import torch

    os.environ.setdefault("MPLBACKEND", "Agg")
    threads = config.getoption("lengthgen_threads")
    if threads < 1:
        raise pytest.UsageError(f"--threads {threads} must be at least 1")
    torch.set_num_threads(threads)
    from lengthgen.device import set_device

    try:
        set_device(config.getoption("lengthgen_device"))
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    if config.getoption("lengthgen_seeds"):
        from lengthgen.config import parse_seeds

        try:
            parse_seeds(config.getoption("lengthgen_seeds"))
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
    _check_directories(config)
    if config.getoption("lengthgen_scheduler"):  # every xdist worker connects its own client
        from lengthgen.engine import cluster

        try:
            cluster.connect(config.getoption("lengthgen_scheduler"))
        except ValueError as error:  # unreachable, or distributed not installed: exit 4, one line
            raise pytest.UsageError(str(error)) from None
    from lengthgen.sequential import Plan, set_plan

    until = config.getoption("lengthgen_until_decided")
    set_plan(Plan(until) if until is not None else None)  # every xdist worker sets its own
    if _is_worker(config):
        fresh_after = config.workerinput.get(FRESH_AFTER)
    else:
        fresh_after = time.time() if config.getoption("lengthgen_retrain") else None
    config.stash[_cache_key] = None
    config.stash[_run_key] = run = _RunRecords()
    config.pluginmanager.register(run, "lengthgen-run-records")
    config.stash[_start_key] = time.time()
    config._lengthgen_fresh_after = fresh_after  # read by the cache fixture


def _check_directories(config: pytest.Config) -> None:
    """An unusable --cache-dir or --report-dir is a usage error (exit 4, one line), never a verdict."""
    from lengthgen.store.cache import default_cache_dir
    from lengthgen.store.files import writable_dir

    cache_dir = config.getoption("lengthgen_cache_dir") or default_cache_dir()
    checks = [(cache_dir, "--cache-dir")]
    if not _is_worker(config):
        checks.append((config.getoption("lengthgen_report_dir") or config.rootpath / "reports", "--report-dir"))
    for folder, what in checks:
        try:
            writable_dir(folder, what)
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # xdist controller: pass the --retrain time to workers
    node.workerinput[FRESH_AFTER] = node.config._lengthgen_fresh_after


def _deselect_quick(config: pytest.Config, items: list[pytest.Item], marker: str = "quick") -> None:
    """Drop the tests marked ``marker`` unless the ``-m`` expression names it (quick; robustness)."""
    if marker in (config.getoption("markexpr") or ""):
        return
    kept, dropped = [], []
    for item in items:
        (dropped if item.get_closest_marker(marker) else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def session_cache(config: pytest.Config):
    """The run's :class:`~lengthgen.store.cache.Cache` (created once per process)."""
    if config.stash.get(_cache_key, None) is None:
        from lengthgen.store.cache import Cache

        config.stash[_cache_key] = Cache(
            config.getoption("lengthgen_cache_dir"), fresh_after=config._lengthgen_fresh_after
        )
    return config.stash[_cache_key]


@pytest.fixture(scope="session")
def cache(pytestconfig: pytest.Config):
    return session_cache(pytestconfig)


_recorder_key = pytest.StashKey[Any]()


def _recorder(request: pytest.FixtureRequest, marker_name: str, make):
    """The test's recorder for the id of its ``@pytest.mark.<marker_name>("Cn")``, kept for its report."""
    marker = request.node.get_closest_marker(marker_name)
    if marker is None or not marker.args:
        raise pytest.UsageError(f"{request.node.nodeid} uses the {marker_name} fixture without "
                                f"@pytest.mark.{marker_name}('Cn')")
    recorder = make(marker.args[0], request.node.nodeid)
    request.node.stash[_recorder_key] = recorder
    return recorder


@pytest.fixture
def claim(request: pytest.FixtureRequest):
    """A :class:`~lengthgen.records.ClaimRecorder` for the id of the test's ``@pytest.mark.claim("Cn")``."""
    from lengthgen.records import ClaimRecorder

    return _recorder(request, "claim", ClaimRecorder)


@pytest.fixture
def control(request: pytest.FixtureRequest):
    """A :class:`~lengthgen.records.ControlRecorder` for the id of the test's ``@pytest.mark.control("Cn")``."""
    from lengthgen.records import ControlRecorder

    return _recorder(request, "control", ControlRecorder)


def _message(report: pytest.TestReport) -> str | None:
    """The one-line reason pytest gives: the crash message, or the skip reason."""
    longrepr = report.longrepr
    if longrepr is None:
        return None
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, "Skipped: reason")
        return str(longrepr[2]).removeprefix("Skipped: ")
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return crash.message
    lines = [line for line in str(longrepr).splitlines() if line.strip()]
    return lines[-1] if lines else None


def _outcome(report: pytest.TestReport, call: pytest.CallInfo) -> str:
    """passed, xfailed, skipped, failed (an assertion of the test, or a strict xfail that passed), error."""
    if report.passed:
        return "passed"
    if report.skipped:
        return "xfailed" if hasattr(report, "wasxfail") else "skipped"
    if report.when == "call" and (call.excinfo is None or call.excinfo.errisinstance(AssertionError)):
        return "failed"
    return "error"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Claim tests answer ``-k`` by their claim id too; quick variants (and the robustness map's cells)
    run only when the ``-m`` expression names quick (robustness)."""
    for item in items:
        marker = item.get_closest_marker("claim") or item.get_closest_marker("control")
        if marker is not None and marker.args:
            item.extra_keyword_matches.add(str(marker.args[0]))
    _deselect_quick(config, items)
    _deselect_quick(config, items, "robustness")  # the robustness map runs only under -m robustness


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    marker = item.get_closest_marker("claim") or item.get_closest_marker("control")
    if marker is None:
        return
    from lengthgen.records import NotReproduced

    if call.excinfo is not None and call.excinfo.errisinstance(NotReproduced) and report.when == "call":
        report.outcome = "skipped"  # as pytest reports an xfail: the finding, with this run's measured values
        report.wasxfail = call.excinfo.value.reason
    item.stash[_duration_key] = item.stash.get(_duration_key, 0.0) + report.duration
    recorder = item.stash.get(_recorder_key, None)
    finished = report.when == "call" or (report.when == "setup" and not report.passed)
    if not finished:
        return
    if recorder is None:  # the test never ran (setup failed or skipped before the claim fixture)
        from lengthgen.records import ClaimRecorder, ControlRecorder

        recorder = (ControlRecorder if marker.name == "control" else ClaimRecorder)(marker.args[0], item.nodeid)
        scale = getattr(getattr(item, "callspec", None), "params", {}).get("scale")
        if isinstance(scale, str):
            recorder.set_scale(name=scale)
    from lengthgen.report.verdict import decide

    record = recorder.record
    record.runtime_s = item.stash[_duration_key]
    record.outcome = _outcome(report, call)
    reason = report.wasxfail if record.outcome == "xfailed" else _message(report)
    if record.outcome == "error" and report.when == "setup":
        reason = f"setup failed: {reason}"
    data = record.to_dict()
    record.verdict, record.verdict_reason = decide(data, record.outcome, reason)
    if record.kind == "claim":
        from lengthgen.report.verdict import closeness

        for key, value in closeness(data).items():
            setattr(record, key, value)
    data.update(verdict=record.verdict, verdict_reason=record.verdict_reason, close=record.close,
                close_checks=record.close_checks, seeds_to_decide=record.seeds_to_decide)
    report.user_properties.append((RECORD_PROPERTY, data))


class _RunRecords:
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
        for name, count in getattr(node, "workeroutput", {}).get(STATS_OUTPUT, {}).items():
            self.stats[name] = self.stats.get(name, 0) + count


_run_key = pytest.StashKey[_RunRecords]()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    from lengthgen.report.environment import peak_rss_mib

    config = session.config
    cache = config.stash.get(_cache_key, None)
    own = dict(cache.stats) if cache is not None else {}
    if _is_worker(config):
        config.workeroutput[STATS_OUTPUT] = own
        config.workeroutput[PEAK_RSS_OUTPUT] = peak_rss_mib()
        return
    run = config.stash[_run_key]
    for name, count in own.items():
        run.stats[name] = run.stats.get(name, 0) + count
    if not run.records:
        return
    from lengthgen.report import write_report

    report_dir = Path(config.getoption("lengthgen_report_dir") or config.rootpath / "reports")
    run.peak_rss["controller" if run.workers else "main"] = peak_rss_mib()
    run.environment = run_environment(config, run.stats, int(exitstatus), run.workers, run.peak_rss)
    try:
        run.files = write_report(run.records, run.environment, report_dir)
    except Exception as error:  # a report that cannot be written fails the run, after the tests' own output
        run.error = f"{type(error).__name__}: {error}"
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    from lengthgen.engine import cluster

    cluster.close()  # a no-op without --scheduler


def run_environment(config: pytest.Config, stats: dict[str, int], exit_status: int | None = None,
                    workers: int = 0, peak_rss: dict[str, float] | None = None) -> dict[str, Any]:
    from lengthgen.report.environment import collect

    started = config.stash[_start_key]
    cache = config.stash.get(_cache_key, None)
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


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    run = config.stash.get(_run_key, None)
    if _is_worker(config) or run is None or not run.records:
        return
    from lengthgen.report import summary_lines
    from lengthgen.report.data import split

    from lengthgen.report.robustness import map_lines, split_settings

    claims, controls = split(run.records)
    claims, cells = split_settings(claims)  # the robustness map's cells are printed as the map
    terminalreporter.section("lengthgen claims")
    for line in map_lines(cells) if cells else []:
        terminalreporter.write_line(line)
    summary = summary_lines(claims, run.environment, terminalreporter._tw.fullwidth, controls)
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
