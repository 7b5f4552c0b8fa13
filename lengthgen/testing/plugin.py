"""The pytest plugin of the suite (loaded by the top-level ``conftest.py``).

- Options: ``--cache-dir=DIR``, ``--retrain``, ``--seeds=SPEC``, ``--threads=N``, ``--report-dir=DIR``.
  (Write a path value with ``=``: pytest decides its rootdir before it knows a conftest's options, so in
  ``pytest -m quick --cache-dir /existing/dir`` the directory is taken for a test path.)
- One torch thread per process by default (xdist workers share 2 cores; the ops are small), and
  matplotlib's Agg backend.
- Scale selection: claim tests run at the paper's scale by default; their ``quick`` variants run only
  when the ``-m`` expression names ``quick`` (``pytest -m quick``).
- Claim records: the ``claim`` fixture gives a :class:`~lengthgen.records.ClaimRecorder` for the id of
  the test's ``@pytest.mark.claim("Cn")``; after the test, its record (with runtime and verdict) rides
  on the test report's ``user_properties``, so the xdist controller receives every worker's records.
  The controller alone writes ``reports/claims.json`` and ``reports/index.html`` at the end of the run
  and prints the verdict table in the terminal summary.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest


RECORD_PROPERTY = "lengthgen_claim"  # user_properties name of a claim record
STATS_OUTPUT = "lengthgen_cache_stats"  # xdist workeroutput name of a worker's cache counters
FRESH_AFTER = "lengthgen_fresh_after"  # xdist workerinput name of the --retrain timestamp

_records_key = pytest.StashKey[list]()
_stats_key = pytest.StashKey[dict]()
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
    group.addoption("--threads", dest="lengthgen_threads", type=int, default=1,
                    help="torch threads per process (default 1; part of the cache key)")
    group.addoption("--report-dir", dest="lengthgen_report_dir", default=None,
                    help="where the claims report is written (default: <rootdir>/reports)")


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    import torch

    os.environ.setdefault("MPLBACKEND", "Agg")
    threads = config.getoption("lengthgen_threads")
    if threads < 1:
        raise pytest.UsageError(f"--threads {threads} must be at least 1")
    torch.set_num_threads(threads)
    if config.getoption("lengthgen_seeds"):
        from lengthgen.config import parse_seeds

        try:
            parse_seeds(config.getoption("lengthgen_seeds"))
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
    if _is_worker(config):
        fresh_after = config.workerinput.get(FRESH_AFTER)
    else:
        fresh_after = time.time() if config.getoption("lengthgen_retrain") else None
    config.stash[_cache_key] = None
    config.stash[_records_key] = []
    config.stash[_stats_key] = {}
    config.stash[_start_key] = time.time()
    config._lengthgen_fresh_after = fresh_after  # read by the cache fixture


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # xdist controller: pass the --retrain time to workers
    node.workerinput[FRESH_AFTER] = node.config._lengthgen_fresh_after


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "quick" in (config.getoption("markexpr") or ""):
        return
    kept, dropped = [], []
    for item in items:
        (dropped if item.get_closest_marker("quick") else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def session_cache(config: pytest.Config):
    """The run's :class:`~lengthgen.cache.Cache` (created once per process)."""
    if config.stash.get(_cache_key, None) is None:
        from lengthgen.cache import Cache

        config.stash[_cache_key] = Cache(
            config.getoption("lengthgen_cache_dir"), fresh_after=config._lengthgen_fresh_after
        )
    return config.stash[_cache_key]


@pytest.fixture(scope="session")
def cache(pytestconfig: pytest.Config):
    return session_cache(pytestconfig)


@pytest.fixture
def claim(request: pytest.FixtureRequest):
    from lengthgen.records import ClaimRecorder

    marker = request.node.get_closest_marker("claim")
    if marker is None or not marker.args:
        raise pytest.UsageError(f"{request.node.nodeid} uses the claim fixture without @pytest.mark.claim('Cn')")
    recorder = ClaimRecorder(marker.args[0], request.node.nodeid)
    request.node.stash[_recorder_key] = recorder
    return recorder


_recorder_key = pytest.StashKey[Any]()


def _verdict(report: pytest.TestReport, recorder) -> str:
    if report.passed:
        if recorder is not None and recorder.record.inconclusive_reason:
            return "inconclusive"
        return "reproduced"
    if report.skipped:
        return "not reproduced" if hasattr(report, "wasxfail") else "inconclusive"
    return "failed"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    marker = item.get_closest_marker("claim")
    if marker is None:
        return
    item.stash[_duration_key] = item.stash.get(_duration_key, 0.0) + report.duration
    recorder = item.stash.get(_recorder_key, None)
    finished = report.when == "call" or (report.when == "setup" and not report.passed)
    if not finished:
        return
    if recorder is None:  # the test never ran (setup failed or skipped before the claim fixture)
        from lengthgen.records import ClaimRecorder

        recorder = ClaimRecorder(marker.args[0], item.nodeid)
        if report.failed:
            recorder.note(f"setup failed: {str(report.longrepr).splitlines()[-1] if report.longrepr else ''}")
    record = recorder.record
    record.runtime_s = item.stash[_duration_key]
    record.verdict = _verdict(report, recorder)
    if record.verdict == "not reproduced":
        record.notes.append(f"xfail: {report.wasxfail}")
    elif record.verdict == "inconclusive" and report.skipped and not record.inconclusive_reason:
        record.inconclusive_reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else "skipped"
    report.user_properties.append((RECORD_PROPERTY, record.to_dict()))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for name, value in report.user_properties:
        if name == RECORD_PROPERTY:
            _CONTROLLER_RECORDS.append(value)


_CONTROLLER_RECORDS: list[dict] = []  # records seen by this process's logreport hook


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # xdist controller: gather a worker's cache counters
    stats = getattr(node, "workeroutput", {}).get(STATS_OUTPUT, {})
    totals = node.config.stash[_stats_key]
    for name, count in stats.items():
        totals[name] = totals.get(name, 0) + count


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    cache = config.stash.get(_cache_key, None)
    own = dict(cache.stats) if cache is not None else {}
    if _is_worker(config):
        config.workeroutput[STATS_OUTPUT] = own
        return
    totals = config.stash[_stats_key]
    for name, count in own.items():
        totals[name] = totals.get(name, 0) + count
    if not _CONTROLLER_RECORDS:
        return
    from lengthgen.report import write_report

    report_dir = Path(config.getoption("lengthgen_report_dir") or config.rootpath / "reports")
    environment = run_environment(config, totals)
    paths = write_report(_CONTROLLER_RECORDS, environment, report_dir)
    config.stash[_records_key] = [str(p) for p in paths]


def run_environment(config: pytest.Config, stats: dict[str, int]) -> dict[str, Any]:
    import platform

    import torch

    import lengthgen
    from lengthgen.fingerprint import code_fingerprint

    return {
        "lengthgen": lengthgen.__version__,
        "code_fingerprint": code_fingerprint(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "threads_per_process": config.getoption("lengthgen_threads"),
        "workers": getattr(config.option, "numprocesses", None) or 1,
        "wall_time_s": time.time() - config.stash[_start_key],
        "cache_dir": str(session_cache(config).root),
        "cache": stats,
        "command": " ".join(config.invocation_params.args),
    }


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if _is_worker(config) or not _CONTROLLER_RECORDS:
        return
    from lengthgen.report import summary_lines

    terminalreporter.section("lengthgen claims")
    for line in summary_lines(_CONTROLLER_RECORDS):
        terminalreporter.write_line(line)
    for path in config.stash.get(_records_key, []):
        terminalreporter.write_line(f"report: {path}")
