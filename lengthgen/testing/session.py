"""The run's set-up and tear-down in each process: torch threads, matplotlib backend, the
``--lengthgen-until-decided`` plan, the session's :class:`~lengthgen.runtime.Runtime` (the device, the training
processes of a serial run, the Dask client: made at configure in every process that runs tests, closed at
unconfigure), the directories, the model cache, and what passes between the xdist controller and its workers
(``workerinput``: the ``--lengthgen-retrain`` time; ``workeroutput``: cache counters and peak memory).

Directory writability is checked here rather than by a ``type=`` validator: the ``--lengthgen-report-dir``
default is ``<rootdir>/reports`` and the ``--lengthgen-cache-dir`` default comes from the environment,
neither known to argparse, and a ``type=`` check would create the directory each time pytest parses the
command line.
"""

from __future__ import annotations

import gc
import os
import sys
import time

import pytest

from lengthgen.testing import state
from lengthgen.testing.directories import report_dir
from lengthgen.testing.run import PLUGIN_NAME, RunRecords

HYPOTHESIS_PLUGIN = "hypothesispytest"  # the name of hypothesis's pytest plugin (its pytest11 entry point)


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    controller = state.is_controller(config)
    device = None
    if not controller or config.getoption("lengthgen_device") != "cpu":  # the controller runs no test: its
        # start, before any worker starts, stays free of torch (whether CUDA is here is still checked)
        import torch

        from lengthgen.device import device_named

        torch.set_num_threads(config.getoption("lengthgen_threads"))  # positive: options.threads_arg
        try:
            device = device_named(config.getoption("lengthgen_device"))  # a cpu or cuda name (options.device_arg)
        except ValueError as error:  # CUDA asked for where there is none
            raise pytest.UsageError(str(error)) from None
    _check_directories(config)
    scheduler = config.getoption("lengthgen_scheduler")
    if controller and scheduler:  # it trains nothing, but an unreachable scheduler is a usage error here too
        from lengthgen.engine import cluster

        try:
            cluster.check(scheduler, option="--lengthgen-scheduler")
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
    from lengthgen.sequential import Plan

    until = config.getoption("lengthgen_until_decided")
    config.stash[state.PLAN] = Plan(until) if until is not None else None  # every xdist worker keeps its own
    if state.is_worker(config):
        fresh_after = config.workerinput.get(state.FRESH_AFTER)
    else:
        fresh_after = time.time() if config.getoption("lengthgen_retrain") else None
    config.stash[state.CACHE] = None
    config.stash[state.RUN] = run = RunRecords(config)
    config.pluginmanager.register(run, PLUGIN_NAME)
    config.stash[state.STARTED] = time.time()
    config.stash[state.FRESH_AFTER_TIME] = fresh_after
    if not controller:  # the processes that train: each its own runtime (every xdist worker its own client)
        from lengthgen.engine import cluster
        from lengthgen.runtime import Runtime

        config.stash[state.RUNTIME] = runtime = Runtime(device, training_workers(config), scheduler)
        try:
            cluster.client(runtime, option="--lengthgen-scheduler")
        except ValueError as error:  # unreachable, or distributed not installed: exit 4, one line
            raise pytest.UsageError(str(error)) from None


def training_workers(config: pytest.Config) -> int:
    """``--lengthgen-workers``: its number, or for ``auto`` 1 in an xdist worker (the workers already are the
    processes) and one per available core in a serial run."""
    from lengthgen.testing.options import AUTO

    chosen = config.getoption("lengthgen_workers")
    if chosen != AUTO:
        return int(chosen)
    return 1 if state.is_worker(config) else os.cpu_count() or 1  # as the CLI's --workers


def pytest_collection_finish(session: pytest.Session) -> None:
    """The objects alive now (modules, collected tests, torch's registries) live to the end: ``gc.freeze``
    takes them out of every later collection, which the run's many small tensors and records trigger (and
    pytest's own at unconfigure): docs/speed.md has what it saves."""
    gc.freeze()


def _check_directories(config: pytest.Config) -> None:
    """An unusable --lengthgen-cache-dir or --lengthgen-report-dir is a usage error (exit 4, one line), never a
    verdict."""
    from lengthgen.store.files import default_cache_dir, writable_dir

    cache_dir = config.getoption("lengthgen_cache_dir") or default_cache_dir()
    checks = [(cache_dir, "--lengthgen-cache-dir")]
    if not state.is_worker(config):
        checks.append((report_dir(config), "--lengthgen-report-dir"))
    for folder, what in checks:
        try:
            writable_dir(folder, what)
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # xdist controller: pass the --lengthgen-retrain time to workers
    node.workerinput[state.FRESH_AFTER] = node.config.stash[state.FRESH_AFTER_TIME]


def session_cache(config: pytest.Config):
    """The run's :class:`~lengthgen.store.cache.Cache` (created once per process)."""
    if config.stash.get(state.CACHE, None) is None:
        from lengthgen.store.cache import Cache

        config.stash[state.CACHE] = Cache(
            config.getoption("lengthgen_cache_dir"),
            fresh_after=config.stash[state.FRESH_AFTER_TIME],
            runtime=config.stash.get(state.RUNTIME, None),
        )
    return config.stash[state.CACHE]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A worker sends its cache counters and peak memory to the controller; the controller adds its own
    counters to the workers' and writes the report. A worker whose end failed (``run.RunRecords``) makes the
    run's exit status 3 (internal error) where the tests alone would have given 0."""
    from lengthgen.testing.environment import peak_rss_mib

    config = session.config
    drop_idle_hypothesis_summary(config)
    cache = config.stash.get(state.CACHE, None)
    own = dict(cache.stats) if cache is not None else {}
    if state.is_worker(config):
        config.workeroutput[state.STATS_OUTPUT] = own
        config.workeroutput[state.PEAK_RSS_OUTPUT] = peak_rss_mib()
        if config.stash[state.RUN].records:  # the claims' registry, for the controller's report (it collects none)
            config.workeroutput[state.REGISTRY_OUTPUT] = state.registry_of(config).to_dict()
        from lengthgen.testing.environment import torch_facts

        config.workeroutput[state.TORCH_OUTPUT] = torch_facts()  # the controller imports no torch
        return
    run = config.stash[state.RUN]
    run.add_stats(own)
    if run.unfinished and session.exitstatus == pytest.ExitCode.OK:  # a worker's end failed: the run is not whole
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
    from lengthgen.testing.drawing import finish_drawing
    from lengthgen.testing.reporting import write_run_report

    finish_drawing(config)
    runtime = config.stash.get(state.RUNTIME, None)  # a serial run's (the xdist controller has none)
    if runtime is not None:
        from lengthgen.engine import parallel

        if parallel.has_pool(runtime):  # a serial run's training processes: ended, so that their peak memory is known
            from lengthgen.testing.environment import peak_child_rss_mib

            parallel.shutdown(runtime)
            run.peak_rss["training processes"] = peak_child_rss_mib()

    write_run_report(session, session.exitstatus, report_dir(config))


def drop_idle_hypothesis_summary(config: pytest.Config) -> None:
    """Unregister hypothesis's pytest plugin where this process never imported hypothesis. Its terminal summary
    imports hypothesis to list the files its tests wrote: a fraction of a second at the end of every process of
    a claims run (the xdist workers' included), where no test uses hypothesis. A process that never imported it ran no
    hypothesis test, so that summary has nothing to say; the ``terminal_summary`` runs after every
    ``sessionfinish`` implementation, this one included."""
    if "hypothesis" in sys.modules:
        return
    plugin = config.pluginmanager.get_plugin(HYPOTHESIS_PLUGIN)
    if plugin is not None:
        config.pluginmanager.unregister(plugin)


def pytest_unconfigure(config: pytest.Config) -> None:
    runtime = config.stash.get(state.RUNTIME, None)  # a process that trains (not the xdist controller)
    if runtime is not None:
        runtime.close()  # its training processes end, its Dask client disconnects, its memo is dropped
