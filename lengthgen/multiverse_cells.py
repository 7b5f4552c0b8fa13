"""The multiverse's cells as plain data, read off a plan of cells (:class:`lengthgen.readings.CellPlan`: the claims
compute it, a ``claims.json`` records it): which cells run by default and which are extended, and how many
universes each column of the grid has. Imports no torch.
"""

from __future__ import annotations

from dataclasses import dataclass

from lengthgen.catalogue import Catalogue
from lengthgen.readings import READINGS, SEPARATOR, CellPlan, Universe, universe


def combination(name: str) -> bool:
    """Whether the universe ``name`` combines two or more readings."""
    return SEPARATOR in name


def all_cells(plan: CellPlan) -> list[tuple[Universe, str]]:
    """Every (universe, column) cell of the plan."""
    return [(universe(u), column) for u, column in plan.cells]


def left_out(plan: CellPlan, catalogue: Catalogue) -> list[tuple[str, str, str]]:
    """(reading, column, why) of every cell of one reading left out of the default run, readings in the registry's
    order, columns in the catalogue's."""
    order = {r.name: i for i, r in enumerate(READINGS)}
    return sorted(plan.left_out, key=lambda cell: (order.get(cell[0], len(order)), catalogue.column_order(cell[1])))


@dataclass(frozen=True)
class UniverseCount:
    """How many universes a column of the grid has in a plan of cells, and where they run."""

    column: str  # a claim, or one of its variants run apart ("<id>-<variant>")
    alone: int  # readings alone (a ruled-out one among them: it runs, to be ruled out)
    combinations: int  # combinations of two or more readings admissible alone for it
    default: int  # cells of the default run (`-m multiverse`)
    extended: int  # cells left out of it for their cost (`-m multiverse_extended`)

    @property
    def universes(self) -> int:
        return self.alone + self.combinations


def universe_counts(plan: CellPlan, catalogue: Catalogue) -> list[UniverseCount]:
    """Per column of ``plan`` (in the catalogue's order), its universes: alone and combined, default and extended."""
    by_column: dict[str, list[str]] = {}
    for name, column in plan.cells:
        by_column.setdefault(column, []).append(name)
    return [
        UniverseCount(
            column,
            alone=sum(not combination(n) for n in names),
            combinations=sum(combination(n) for n in names),
            default=sum(not plan.extended(n, column) for n in names),
            extended=sum(plan.extended(n, column) for n in names),
        )
        for column, names in sorted(by_column.items(), key=lambda kv: catalogue.column_order(kv[0]))
    ]
