"""The plugin's one session object and the run's set-up and tear-down in each process.

:class:`LengthgenSession` holds what a process keeps of the run, under one key of ``config.stash``
(:func:`session_of`; every xdist worker has its own): made at configure, with the start time, the
``--lengthgen-retrain`` time, the ``--lengthgen-until-decided`` plan, the process's
:class:`~lengthgen.runtime.Runtime` (the device, the training processes of a serial run, the Dask client: made
in every process that runs tests, closed at unconfigure) and its run records; what is made on first use (the
model cache, the claims' registry, the multiverse's declarations, the drawings still pending, the markdown
summary once written) sits in its :class:`SessionMemo`.

The hooks here set torch threads and matplotlib's backend, check the directories, and pass between the xdist
controller and its workers what they share (``workerinput``: the ``--lengthgen-retrain`` time; ``workeroutput``:
cache counters, peak memory, the registry, torch's facts). The report itself is written by
:mod:`~lengthgen.testing.reporting`.

Directory writability is checked here rather than by a ``type=`` validator: the ``--lengthgen-report-dir``
default is ``<rootdir>/reports`` and the ``--lengthgen-cache-dir`` default comes from the environment,
neither known to argparse, and a ``type=`` check would create the directory each time pytest parses the
command line.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import sys
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from lengthgen.testing import run as transport
from lengthgen.testing.options import AUTO
from lengthgen.testing.run import PLUGIN_NAME, RunRecords, is_controller, is_worker

HYPOTHESIS_PLUGIN = "hypothesispytest"  # the name of hypothesis's pytest plugin (its pytest11 entry point)


@dataclasses.dataclass
class SessionMemo:
    """What a process makes of the run on first use, kept for the rest of it (the mutable part of the session)."""

    cache: Any = None  # the run's lengthgen.store.cache.Cache, made by session_cache (None until then)
    registry: Any = None  # the claims' lengthgen.registry.Registry, once asked for (registry_of; None until then)
    declarations: Any = None  # the multiverse's lengthgen.analysis.declared.Declarations, read once by
    # claims/multiverse.session_declarations (None until then)
    pending: list[Future] = dataclasses.field(default_factory=list)  # drawings handed to the training processes,
    # not yet awaited (drawing.draw_soon, drawing.finish_drawing)
    summary_written: Path | None = None  # the --lengthgen-summary-md file, once written (reporting)


@dataclasses.dataclass(frozen=True)
class LengthgenSession:
    """One process's state of the suite's run (every xdist worker has its own), made at configure."""

    started: float  # time.time() at configure: the report's start and wall time
    fresh_after: float | None  # --lengthgen-retrain: cached models older than it are ignored (None: all are used)
    plan: Any  # --lengthgen-until-decided: its lengthgen.sequential.Plan, or None (one look); the until_decided
    # fixture hands it to the claim tests
    report_dir: Path  # where the controller writes the report: --lengthgen-report-dir, else <rootdir>/reports
    run: RunRecords  # this process's run records (on the xdist controller, every worker's), a registered plugin
    runtime: Any  # this process's lengthgen.runtime.Runtime, closed at unconfigure (None in the xdist controller,
    # which trains nothing)
    memo: SessionMemo = dataclasses.field(default_factory=SessionMemo)  # what is made on first use


SESSION = pytest.StashKey[LengthgenSession]()  # config.stash: the plugin's one config-level key


def session_of(config: pytest.Config) -> LengthgenSession:
    """The :class:`LengthgenSession` of this process (made at configure in the suite's session); a ``LookupError``
    in a session that is not the suite's, where the plugin keeps nothing."""
    try:
        return config.stash[SESSION]
    except KeyError:
        raise LookupError(
            "no lengthgen session in this pytest session: it is the suite's only where the ini sets "
            "lengthgen_suite = true (and the lengthgen plugin is loaded)"
        ) from None


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    controller = is_controller(config)
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
    report_dir = Path(config.getoption("lengthgen_report_dir") or config.rootpath / "reports")
    _check_directories(config, report_dir)
    scheduler = config.getoption("lengthgen_scheduler")
    if controller and scheduler:  # it trains nothing, but an unreachable scheduler is a usage error here too
        from lengthgen.engine import cluster

        try:
            cluster.check(scheduler, option="--lengthgen-scheduler")
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
    from lengthgen.sequential import Plan

    until = config.getoption("lengthgen_until_decided")
    plan = Plan(until) if until is not None else None  # every xdist worker keeps its own
    if is_worker(config):
        fresh_after = config.workerinput.get(transport.FRESH_AFTER)
    else:
        fresh_after = time.time() if config.getoption("lengthgen_retrain") else None
    run = RunRecords()
    config.pluginmanager.register(run, PLUGIN_NAME)
    started = time.time()
    runtime = None
    if not controller:  # the processes that train: each its own runtime (every xdist worker its own client)
        from lengthgen.runtime import Runtime

        runtime = Runtime(device, training_workers(config), scheduler)
    config.stash[SESSION] = LengthgenSession(
        started=started,
        fresh_after=fresh_after,
        plan=plan,
        report_dir=report_dir,
        run=run,
        runtime=runtime,
    )
    if runtime is not None:  # kept on the session first, so that unconfigure closes it whatever happens here
        from lengthgen.engine import cluster

        try:
            cluster.client(runtime, option="--lengthgen-scheduler")
        except ValueError as error:  # unreachable, or distributed not installed: exit 4, one line
            raise pytest.UsageError(str(error)) from None


def training_workers(config: pytest.Config) -> int:
    """``--lengthgen-workers``: its number, or for ``auto`` 1 in an xdist worker (the workers already are the
    processes) and one per available core in a serial run."""
    chosen = config.getoption("lengthgen_workers")
    if chosen != AUTO:
        return int(chosen)
    return 1 if is_worker(config) else os.cpu_count() or 1  # as the CLI's --workers


def pytest_collection_finish(session: pytest.Session) -> None:
    """The objects alive now (modules, collected tests, torch's registries) live to the end: ``gc.freeze``
    takes them out of every later collection, which the run's many small tensors and records trigger (and
    pytest's own at unconfigure): docs/speed.md has what it saves."""
    gc.freeze()


def _check_directories(config: pytest.Config, report_dir: Path) -> None:
    """An unusable --lengthgen-cache-dir or ``report_dir`` (--lengthgen-report-dir) is a usage error (exit 4, one
    line), never a verdict."""
    from lengthgen.store.files import default_cache_dir, writable_dir

    cache_dir = config.getoption("lengthgen_cache_dir") or default_cache_dir()
    checks = [(cache_dir, "--lengthgen-cache-dir")]
    if not is_worker(config):
        checks.append((report_dir, "--lengthgen-report-dir"))
    for folder, what in checks:
        try:
            writable_dir(folder, what)
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # xdist controller: pass the --lengthgen-retrain time to workers
    node.workerinput[transport.FRESH_AFTER] = session_of(node.config).fresh_after


def session_cache(config: pytest.Config):
    """The run's :class:`~lengthgen.store.cache.Cache` (created once per process)."""
    state = session_of(config)
    if state.memo.cache is None:
        from lengthgen.store.cache import Cache

        state.memo.cache = Cache(
            config.getoption("lengthgen_cache_dir"), fresh_after=state.fresh_after, runtime=state.runtime
        )
    return state.memo.cache


def registry_of(config: pytest.Config):
    """The claims' :class:`~lengthgen.registry.Registry` for this process: its workers' (an xdist controller), else
    the claims' conftest's answer to ``pytest_lengthgen_registry`` (asked once), else an empty one."""
    state = session_of(config)
    if state.memo.registry is None:
        if state.run.registry is not None:  # the first worker's (the controller collects no claims)
            state.memo.registry = state.run.registry
        else:
            from lengthgen.registry import EMPTY

            state.memo.registry = config.hook.pytest_lengthgen_registry(config=config) or EMPTY
    return state.memo.registry


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A worker sends its cache counters, peak memory, the claims' registry and torch's facts to the controller;
    the controller adds its own counters to the workers'. A worker whose end failed (``run.RunRecords``) makes the
    run's exit status 3 (internal error) where the tests alone would have given 0. The report follows
    (:mod:`~lengthgen.testing.reporting`, after every other implementation of this hook)."""
    from lengthgen.testing.environment import peak_rss_mib

    config = session.config
    drop_idle_hypothesis_summary(config)
    state = session_of(config)
    own = dict(state.memo.cache.stats) if state.memo.cache is not None else {}
    if is_worker(config):
        config.workeroutput[transport.STATS_OUTPUT] = own
        config.workeroutput[transport.PEAK_RSS_OUTPUT] = peak_rss_mib()
        if state.run.records:  # the claims' registry, for the controller's report (it collects none)
            config.workeroutput[transport.REGISTRY_OUTPUT] = registry_of(config).to_dict()
        from lengthgen.testing.environment import torch_facts

        config.workeroutput[transport.TORCH_OUTPUT] = torch_facts()  # the controller imports no torch
        return
    state.run.add_stats(own)
    if state.run.unfinished and session.exitstatus == pytest.ExitCode.OK:  # a worker's end failed: not whole
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR


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
    state = config.stash.get(SESSION, None)  # absent where configure stopped before making it
    if state is not None and state.runtime is not None:  # a process that trains (not the xdist controller)
        state.runtime.close()  # its training processes end, its Dask client disconnects, its memo is dropped
