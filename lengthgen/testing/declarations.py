"""The names the suite's pytest plugin declares, apart from what it does: the ini key that makes a session the
suite's (:data:`SUITE_INI`), the markers of claim tests (:data:`MARKERS`) and the hook a claims directory answers
(:class:`LengthgenHooks`: how the plugin learns the claims without importing them).

The plugin brings this module into every session it is loaded in (``pytest_plugins`` of
:mod:`~lengthgen.testing.plugin`), so another project needs no copy of the suite's ``pytest.ini``: its ini sets
``lengthgen_suite = true`` and its claim tests carry these markers under ``--strict-markers``. The repository's
``pytest.ini`` also loads it by name (``-p lengthgen.testing.declarations`` in ``addopts``), so that a session
with the plugin disabled (``pytest -p no:lengthgen``) still knows the key its ini sets and the markers and hook
its tests use, and ``--strict-config`` / ``--strict-markers`` still reject every other unknown name. A name
declared does nothing: the plugin's behaviour stays off wherever the key is unset or the plugin is disabled.
pytest registers a module once by its name, however many ways name it.
"""

from __future__ import annotations

import pytest

SUITE_INI = "lengthgen_suite"  # the ini key (bool) that makes a session the suite's (lengthgen.testing.plugin)
MARKERS = (  # each marker as `pytest --markers` lists it: name(arguments): what it means
    "claim(id): the claim (C<n>) or prediction (P<n>) a test checks, by its catalogue id; its record "
    "goes into the report",
    "control(id): the negative control of a claim or prediction: its checks, fed a counterfactual, must fail",
    "quick: the reduced-scale variant of a claim test (runs only with -m quick)",
    "paper: the paper-scale variant of a claim test (the default)",
    "robustness: a cell of the robustness map, a claim at a setting off the paper's point (runs only with "
    "-m robustness)",
    "multiverse: a cell of the multiverse, a claim under another reading of an open choice (runs only with "
    "-m multiverse)",
    "multiverse_extended: a multiverse cell left out of the default run for its cost (runs only with "
    "-m multiverse_extended)",
)


class LengthgenHooks:
    """The plugin's own hook, which a claims directory implements in its ``conftest.py`` (the suite's does:
    ``claims/conftest.py``)."""

    @pytest.hookspec(firstresult=True)
    def pytest_lengthgen_registry(self, config: pytest.Config):
        """Return the claims' :class:`lengthgen.registry.Registry`: every claim's catalogue entry (what each record,
        the page and the documents show of it) and the plan of the multiverse's cells. Called once per process that
        runs claim tests, lazily (it may import the claims, and torch with them); the xdist controller takes its
        workers' instead. A project without the hook gets an empty registry: its claims then need no entry beyond
        the id of their marker."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """The plugin's own hook, ``pytest_lengthgen_registry``: a claims directory's conftest answers it with the
    claims' registry."""
    pluginmanager.add_hookspecs(LengthgenHooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        SUITE_INI,
        type="bool",
        default=False,
        help="this session is the lengthgen suite's: the lengthgen plugin records claims, writes the "
        "report and caps torch threads (without it the plugin only adds its options, this key and its markers)",
    )


def pytest_configure(config: pytest.Config) -> None:
    for line in MARKERS:
        config.addinivalue_line("markers", line)
