"""The claim tests' collection order and the ``phenomenon`` fixture.

``scale`` (every claim test over the quick and paper scales; the quick variant is marked ``quick`` and
runs only under ``-m quick``) and ``model_cache`` (the run's model cache; pytest's own ``cache`` keeps its name)
come from the plugin (``lengthgen.testing.fixtures``).
Experiment results are memoised per process (``claims.memo``), and their models come from the shared cache (one
lock per model), so a model is trained once per run whether or not xdist is used, and not again while the
cache holds it.

Every process that collects the claims (a serial run, each xdist worker) imports ``claims.multiverse``, which
hands the claims' plan of multiverse cells to the report (``use_plan``); the xdist controller, which renders
the report but collects nothing, receives the plan from its workers (``lengthgen.testing.run``), so that it
starts its workers without importing torch or the claims' registry (about 2.5 s on one core before any worker
could start). A controller whose workers sent none (none finished) imports the module itself at the end.
"""

from __future__ import annotations

import pytest

from lengthgen.scale import Scale

from claims.scheduling import TogetherScheduling

# The order xdist hands claim tests to workers: the heaviest trainers first, alternating between model
# families that share few models, then the claims that only read models trained by then. Together with
# the cache's lock protocol (a worker first trains what nobody else holds), this keeps both workers busy
# on a cold run; it changes no result.
# The predictions: P5 trains its own NoPE heads (early, beside the grid's trainers); the others only
# evaluate the C1 grid's heads anew (after the grid's other readers).
SCHEDULE = (
    "C1",
    "C17",
    "C12",
    "C19",
    "P5",
    "C9",
    "C14",
    "C21",
    "C11",
    "C10",
    "C8",
    "C13",
    "C22",
    "C18",
    "C4",
    "C5",
    "C3",
    "P1",
    "P3",
    "P6",
    "P4",
    "P2",
    "C6",
    "C7",
    "C16",
    "C20",
    "C2",
    "C15",
)


def _hand_over_plan() -> None:
    """Import ``claims.multiverse``: importing it hands the multiverse plan to the report (imports torch)."""
    import claims.multiverse  # noqa: F401


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _hand_over_plan()  # every process that collects (the xdist controller does not)

    def rank(item: pytest.Item) -> int:
        marker = item.get_closest_marker("claim")
        claim_id = marker.args[0] if marker is not None and marker.args else None
        return SCHEDULE.index(claim_id) if claim_id in SCHEDULE else len(SCHEDULE)

    items.sort(key=rank)  # stable: tests of one claim keep their order


@pytest.hookimpl(optionalhook=True)  # xdist's hook: unknown under -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Under ``--dist load`` (``-n``'s default), the tests that read the same transformers run on one worker
    (``claims/scheduling.py``); any other ``--dist`` keeps xdist's scheduler."""
    return TogetherScheduling(config, log) if config.getvalue("dist") == "load" else None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Before the report: an xdist controller none of whose workers sent the plan loads it itself."""
    from lengthgen.readings import EMPTY, planned

    if planned() is EMPTY:
        _hand_over_plan()


@pytest.fixture
def phenomenon(scale: Scale, model_cache):
    """The C1 grid (RoPE and APE, K in {1, 2, 3}, the paper's 8 seeds) at the test's scale."""
    from claims.grid import phenomenon_result

    return phenomenon_result(scale, model_cache)
