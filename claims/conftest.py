"""What the claims hand the plugin, their collection order for xdist, and the ``phenomenon`` fixture.

``scale`` (every claim test over the quick and paper scales; the quick variant is marked ``quick`` and
runs only under ``-m quick``) and ``model_cache`` (the run's model cache; pytest's own ``cache`` keeps its name)
come from the plugin (``lengthgen.testing.fixtures``). Experiment results are memoised per process
(``claims.memo``), and their models come from the shared cache (one lock per model), so a model is trained once
per run whether or not xdist is used, and not again while the cache holds it.

The claims' registry (every claim's catalogue entry and the multiverse's plan of cells) reaches the plugin through
its hook, ``pytest_lengthgen_registry``: asked in a process that runs claim tests, never at import. The xdist
controller, which renders the report but collects nothing, receives it from its workers, so that it starts them
without importing torch or the claims (seconds on one core before any worker could start; docs/speed.md).
"""

from __future__ import annotations

import pytest

from lengthgen.scale import Scale

from claims.scheduling import TogetherScheduling


def pytest_lengthgen_registry(config: pytest.Config):
    """The claims' registry: their catalogue and the multiverse's plan (imports every claim module, and torch)."""
    from lengthgen.registry import Registry

    from claims.multiverse import plan
    from claims.registry import catalogue

    return Registry(catalogue(), plan())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The order xdist hands claim tests to workers: each claim's ``schedule`` (the heaviest trainers first,
    alternating between model families that share few models, then the claims that only read models trained by
    then). Together with the cache's lock protocol (a worker first trains what nobody else holds), this keeps both
    workers busy on a cold run; it changes no result. Tests of one claim keep their order."""
    from claims.registry import CLAIMS

    last = max(spec.schedule for spec in CLAIMS.values()) + 1

    def rank(item: pytest.Item) -> int:
        marker = item.get_closest_marker("claim")
        claim_id = marker.args[0] if marker is not None and marker.args else None
        return CLAIMS[claim_id].schedule if claim_id in CLAIMS else last

    items.sort(key=rank)  # stable: tests of one claim keep their order


@pytest.hookimpl(optionalhook=True)  # xdist's hook: unknown under -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Under ``--dist load`` (``-n``'s default), the tests that read the same transformers run on one worker
    (``claims/scheduling.py``); any other ``--dist`` keeps xdist's scheduler."""
    return TogetherScheduling(config, log) if config.getvalue("dist") == "load" else None


@pytest.fixture
def phenomenon(scale: Scale, model_cache):
    """The C1 grid (RoPE and APE, K in {1, 2, 3}, the paper's 8 seeds) at the test's scale."""
    from claims.grid import phenomenon_result

    return phenomenon_result(scale, model_cache)
