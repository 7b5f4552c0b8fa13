"""Where the plugin keeps its state: ``pytest.StashKey``s of ``config.stash`` (one process's view; every xdist
worker has its own) and ``item.stash``, and the names values travel under between xdist processes."""

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

# config.stash
CACHE = pytest.StashKey[Any]()  # this process's lengthgen.store.cache.Cache, made on first use (None until then)
FRESH_AFTER_TIME = pytest.StashKey["float | None"]()  # --lengthgen-retrain: cached models older than it are ignored
STARTED = pytest.StashKey[float]()  # time.time() at configure: the report's start and wall time
RUN = pytest.StashKey[Any]()  # this process's lengthgen.testing.run.RunRecords
REGISTRY = pytest.StashKey[Any]()  # the claims' lengthgen.registry.Registry, once asked for (registry_of)
PLAN = pytest.StashKey[Any]()  # --lengthgen-until-decided: its lengthgen.sequential.Plan, or None (one look); every
# xdist worker keeps its own, and the until_decided fixture hands it to the claim tests
RUNTIME = pytest.StashKey[Any]()  # this process's lengthgen.runtime.Runtime, made at configure and closed at
# unconfigure (absent in the xdist controller, which trains nothing)

# item.stash
RECORDER = pytest.StashKey[Any]()  # the test's ClaimRecorder or ControlRecorder, once its fixture ran
DURATION = pytest.StashKey[float]()  # seconds of the test's phases reported so far
TRAINED_BEFORE = pytest.StashKey[int]()  # models this process had trained when the test's setup began


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


def registry_of(config: pytest.Config):
    """The claims' :class:`~lengthgen.registry.Registry` for this process: its workers' (an xdist controller), else
    the claims' conftest's answer to ``pytest_lengthgen_registry`` (asked once), else an empty one."""
    if config.stash.get(REGISTRY, None) is None:
        from lengthgen.registry import EMPTY

        config.stash[REGISTRY] = config.hook.pytest_lengthgen_registry(config=config) or EMPTY
    return config.stash[REGISTRY]
