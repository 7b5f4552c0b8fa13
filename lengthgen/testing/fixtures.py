"""The fixtures the plugin gives every test: ``scale`` (the quick and paper scales of a claim test),
``model_cache`` (the run's model cache; not ``cache``, which is pytest's own cache-provider fixture), ``runtime``
(the session's device, training processes, Dask client and memo, which the model cache carries too),
``until_decided`` (the ``--lengthgen-until-decided`` stopping rule, which a claim test hands to ``run_claim``),
``claim`` and ``control`` (the recorders of a claim test and of a negative control, kept on the test's item
for its report)."""

from __future__ import annotations

import dataclasses

import pytest

from lengthgen.testing.session import registry_of, session_cache, session_of
from lengthgen.testing.verdicts import RECORDER

# Every claim test runs at both scales; the quick variant is marked quick (it runs only under -m quick).
SCALE_PARAMS = [
    pytest.param("quick", marks=pytest.mark.quick, id="quick"),
    pytest.param("paper", marks=pytest.mark.paper, id="paper"),
]


@pytest.fixture(params=SCALE_PARAMS)
def scale(request: pytest.FixtureRequest):
    """The :class:`~lengthgen.scale.Scale` of the test's variant; ``--lengthgen-seeds`` replaces the paper's
    seeds."""
    from lengthgen.scale import SCALES

    chosen = SCALES[request.param]
    seeds = request.config.getoption("lengthgen_seeds")  # parsed by options.seeds_arg
    if seeds and chosen.name == "paper":
        chosen = dataclasses.replace(chosen, name="paper", seeds=seeds)
    return chosen


@pytest.fixture(scope="session")
def model_cache(pytestconfig: pytest.Config):
    """The run's :class:`~lengthgen.store.cache.Cache` (``--lengthgen-cache-dir``, ``--lengthgen-retrain``)."""
    return session_cache(pytestconfig)


@pytest.fixture(scope="session")
def runtime(pytestconfig: pytest.Config):
    """This process's :class:`~lengthgen.runtime.Runtime` (``--lengthgen-device``, ``--lengthgen-workers``,
    ``--lengthgen-scheduler``): made at configure, closed at unconfigure; ``model_cache.runtime`` is the same."""
    return session_of(pytestconfig).runtime


@pytest.fixture(scope="session")
def until_decided(pytestconfig: pytest.Config):
    """The ``--lengthgen-until-decided[=MAX]`` stopping rule of this run (a :class:`~lengthgen.sequential.Plan`), or
    None without the option (one look at the claim's own seeds)."""
    return session_of(pytestconfig).plan


def _recorder(request: pytest.FixtureRequest, marker_name: str, make):
    """The test's recorder for the id of its ``@pytest.mark.<marker_name>("Cn")``, kept for its report."""
    marker = request.node.get_closest_marker(marker_name)
    if marker is None or not marker.args:
        raise pytest.UsageError(
            f"{request.node.nodeid} uses the {marker_name} fixture without @pytest.mark.{marker_name}('Cn')"
        )
    recorder = make(registry_of(request.config).catalogue.get(marker.args[0]) or marker.args[0], request.node.nodeid)
    request.node.stash[RECORDER] = recorder
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
