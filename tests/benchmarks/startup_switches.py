"""A pytest plugin that switches off one of the suite's start-up tweaks, for measuring what each saves
(``scripts/record-startup``, rendered into docs/speed.md by ``lengthgen docs``). Loaded with
``-p tests.benchmarks.startup_switches --startup-switch-off=NAME``; without the option it does nothing.

Each switch undoes its tweak from outside the library, so the library keeps no switch of its own.
"""

from __future__ import annotations

import gc

import pytest

SWITCHES = {  # each tweak a switch undoes: what it is and where it lives in the library
    "gc-freeze": "gc.freeze() after collection in every process that runs tests (session.pytest_collection_finish)",
    "hypothesis-unregister": "hypothesis's pytest plugin unregistered in a process that never imported hypothesis "
    "(session.drop_idle_hypothesis_summary)",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--startup-switch-off",
        choices=sorted(SWITCHES),
        default=None,
        help="switch off one of the suite's start-up tweaks (for scripts/record-startup)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("startup_switch_off") == "hypothesis-unregister":
        from lengthgen.testing import session

        session.drop_idle_hypothesis_summary = lambda config: None  # the process keeps hypothesis's plugin


@pytest.hookimpl(trylast=True)  # after the suite's own, which froze the objects alive after collection
def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.getoption("startup_switch_off") == "gc-freeze":
        gc.unfreeze()
