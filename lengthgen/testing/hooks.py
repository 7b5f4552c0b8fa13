"""The plugin's own hook, which a claims directory implements in its ``conftest.py`` (the suite's does:
``claims/conftest.py``): how the plugin learns the claims without importing them."""

from __future__ import annotations

import pytest


@pytest.hookspec(firstresult=True)
def pytest_lengthgen_registry(config: pytest.Config):
    """Return the claims' :class:`lengthgen.registry.Registry`: every claim's catalogue entry (what each record,
    the page and the documents show of it) and the plan of the multiverse's cells. Called once per process that
    runs claim tests, lazily (it may import the claims, and torch with them); the xdist controller takes its
    workers' instead. A project without the hook gets an empty registry: its claims then need no entry beyond
    the id of their marker."""
