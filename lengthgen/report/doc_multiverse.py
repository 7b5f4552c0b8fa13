"""The documents' values from a run's robustness map and multiverse: the map's lines and what broke in it per
setting, per multiverse row what the other readings do and what its curve hinges on, and the universes of the
recorded plan with the models each trained. The words are the templates' (``report/templates/docs/``). No torch.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

from lengthgen.multiverse_cells import UniverseCount, universe_counts
from lengthgen.records.record import ruled_out_of, universe_of
from lengthgen.registry import Registry
from lengthgen.analysis import multiverse as mv
from lengthgen.analysis.curve import Curve, curve, main_effects
from lengthgen.report.doc_claims import Shown, failing
from lengthgen.analysis.run_view import RunView


def map_breaks(run: RunView) -> list[tuple[str, list[Shown]]]:
    """Per setting of the robustness map (in the run's order), its cells that do not reproduce; settings where
    every cell reproduces left out."""
    settings: dict[str, list] = {}
    for c in run.robustness:
        settings.setdefault(c.setting or "?", []).append(c)
    found = [(setting, failing(cells)) for setting, cells in settings.items()]
    return [(setting, cells) for setting, cells in found if cells]


class OutcomeRow(NamedTuple):
    """A multiverse row that some reading ran: what the readings do to its verdict, and its curve."""

    row: str
    outcome: mv.RowOutcome
    curve: Curve
    hinges: list[str]  # the readings of consequential main effects


def outcome_rows(run: RunView, grid: mv.UniverseGrid) -> list[OutcomeRow]:
    found = mv.outcomes(grid)
    rows = []
    for row in sorted(found, key=run.catalogue.column_order):
        if found[row].state is None:
            continue
        spec = curve(run, row)
        rows.append(OutcomeRow(row, found[row], spec, [e.reading for e in main_effects(spec) if e.consequential]))
    return rows


class Universes(NamedTuple):
    """The universes of a run's recorded plan of cells, per multiverse column."""

    counts: list[UniverseCount]
    total: int  # cells in all
    default: int  # cells of the default run


def universes(data: Mapping[str, Any]) -> Universes:
    """ValueError (one line) for a run that recorded no plan of cells."""
    registry = Registry.from_data(data)
    if not registry.plan.cells:
        raise ValueError("the reference run records no multiverse plan (a run of an older version): re-record it")
    counts = universe_counts(registry.plan, registry.catalogue)
    return Universes(counts, sum(c.universes for c in counts), sum(c.default for c in counts))


class UniverseModels(NamedTuple):
    """A universe of a run's multiverse: its cells, the models they trained and their seconds of worker time."""

    name: str
    cells: int
    ruled_out: bool  # every one of its cells ruled out
    models: int
    seconds: float


def universe_models(data: Mapping[str, Any]) -> list[UniverseModels]:
    """Per universe of ``data``'s multiverse, in the registry's order; none where a cell does not record the
    models it trained (a run of an older version)."""
    cells = [c for c in data.get("multiverse") or [] if universe_of(c)]
    if any(c.get("models_trained") is None for c in cells):
        return []
    found: dict[str, list[Mapping[str, Any]]] = {}
    for c in cells:
        found.setdefault(universe_of(c), []).append(c)
    return [
        UniverseModels(
            name,
            len(mine),
            all(ruled_out_of(c) for c in mine),
            sum(int(c["models_trained"]) for c in mine),
            sum(float(c.get("runtime_s") or 0) for c in mine),
        )
        for name, mine in sorted(found.items(), key=lambda kv: mv.registry_order(kv[0]))
    ]
