"""Small builders shared by the unit tests."""

from __future__ import annotations

import functools
from pathlib import Path

from lengthgen.config import ModelConfig, RunSpec, TaskConfig, TrainConfig
from lengthgen.registry import Registry

ROOT = Path(__file__).resolve().parents[1]  # the checkout: the package, claims/, tests/, docs/
DATA = ROOT / "tests" / "data"  # the recorded runs and measurements the tests and documents read
UNKNOWN_CLAIM = "X-0"  # an id no claim module can declare (a module's id is letters then digits: test_<id>_<words>)
SHARED = ROOT.parent / "shared"  # the paper and its catalogue beside a working checkout (absent in a clone)


def tiny_spec(encoding: str = "rope", steps: int = 20, offset: int = 2, **model) -> RunSpec:
    """A configuration that trains in well under a second (small batch, few steps)."""
    return RunSpec(
        TaskConfig(offset=offset),
        ModelConfig(encoding=encoding, **{"d": 16, **model}),
        TrainConfig(steps=steps, batch=32, record_every=10),
    )


@functools.cache
def registry() -> Registry:
    """The claims' registry, as a claims run records it: their catalogue and the multiverse's plan of cells (built
    once per process, on first use: it imports every claim module, and torch)."""
    from claims.multiverse import load_declarations, plan
    from claims.registry import catalogue

    return Registry(catalogue(), plan(load_declarations()))


def costs_section(costs: dict, environment: dict, other: dict | None = None) -> str:
    """docs/costs.md's ``costs`` section of a costs file (``lengthgen timed``), its run's ``environment`` and ``other``
    (a slower CPU's costs file)."""
    from types import SimpleNamespace

    from lengthgen.report.doc_costs import Costs, slower
    from lengthgen.report.doc_render import sections

    spent = Costs.of(costs)
    doc = SimpleNamespace(
        costs=spent,
        slower=slower(spent, Costs.of(other) if other is not None else None),
        run=SimpleNamespace(environment=environment),
    )
    return sections("docs/costs.md", doc, only="costs")["costs"]


def ci_section(ci: dict) -> str:
    """docs/costs.md's ``ci-costs`` section of the costs file a ``.ci/run`` wrote."""
    from types import SimpleNamespace

    from lengthgen.report.doc_costs import Costs
    from lengthgen.report.doc_render import sections

    return sections("docs/costs.md", SimpleNamespace(ci=Costs.of(ci)), only="ci-costs")["ci-costs"]


def catalogue_page(data: dict) -> str:
    """docs/catalogue.md as a run's data (a claims.json's) renders it."""
    from types import SimpleNamespace

    from lengthgen.analysis.data import threshold_sources
    from lengthgen.report.doc_render import whole
    from lengthgen.analysis.run_view import RunView

    doc = SimpleNamespace(run=RunView.from_data(data), sources=threshold_sources(data))
    return whole("docs/catalogue.md", doc)
