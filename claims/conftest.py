"""What the claims hand the plugin, their collection order for xdist, and the ``phenomenon`` and ``declarations``
fixtures.

``scale`` (every claim test over the quick and paper scales; the quick variant is marked ``quick`` and
runs only under ``-m quick``) and ``model_cache`` (the run's model cache; pytest's own ``cache`` keeps its name)
come from the plugin (``lengthgen.testing.fixtures``). Experiment results are memoised in each process's session
runtime (``claims.memo``, ``model_cache.runtime``), and their models come from the shared cache (one lock per
model), so a model is trained once per run whether or not xdist is used, and not again while the cache holds it.

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

    from claims.multiverse import plan, session_declarations
    from claims.registry import catalogue

    return Registry(catalogue(), plan(session_declarations(config)))


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """A registry that cannot be built (two modules declaring one id: ``claims.registry.DuplicateClaim``) is a usage
    error, one line naming both modules, before any module is collected; the xdist controller, which collects
    nothing and imports no claim, leaves it to its workers."""
    if session.config.pluginmanager.has_plugin("dsession"):
        return
    try:
        import claims.registry  # noqa: F401  (builds the registry)
    except ValueError as error:
        if type(error).__module__ != "claims.registry":
            raise
        raise pytest.UsageError(str(error)) from None


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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A multiverse cell the declarations file does not hold, whose verdict fails the test, says the step that
    records it (``claims.multiverse.RECORD_STEP``): in the failure and in its record's reason, which the plugin
    puts on the test report after the call."""
    from lengthgen.records import VerdictFailed

    try:
        return (yield)
    except VerdictFailed as failure:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if getattr(item, "originalname", None) != "test_multiverse" or "column" not in params:
            raise
        from claims.multiverse import RECORD_STEP, recorded, session_declarations

        if recorded(session_declarations(item.config), params["universe_name"], params["column"]):
            raise
        recorder = item.funcargs.get("claim")
        if recorder is not None and recorder.record.verdict_reason:
            recorder.record.verdict_reason = f"{recorder.record.verdict_reason}; {RECORD_STEP}"
        raise VerdictFailed(f"{failure}\n{RECORD_STEP}") from None


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


@pytest.fixture(scope="session")
def declarations(pytestconfig: pytest.Config):
    """The multiverse cells' expected outcomes (``claims/multiverse_declared.json``), read once per session."""
    from claims.multiverse import session_declarations

    return session_declarations(pytestconfig)
