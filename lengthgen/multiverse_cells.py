"""The multiverse's cells as plain data: a claim's columns (C12/C13 per width), the cells left out of the default
run for their cost (:data:`LEFT_OUT`), and the cells of the plan the claims' registry hands over
(:func:`lengthgen.readings.planned`: empty in a process that never loaded ``claims/multiverse.py``, such as a
``lengthgen`` command that only renders a ``claims.json``). Imports no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lengthgen.readings import READINGS, SEPARATOR, CellPlan, Universe, claim_order, planned, universe

# Which cells run by default (the cost budget: `pytest claims -m multiverse -n auto` within 12 minutes cold on
# 2 quiet cores of a machine where the claims take 6.5, after the claims' run whose models it reuses): every cell
# but those below. The cells below are EXTENDED: tests too (marked ``multiverse_extended``: `pytest claims -m
# multiverse_extended -n auto` runs them, `-m "multiverse or multiverse_extended"` the whole multiverse), left out
# of the default run for their cost, each with the reason. A cell that its preconditions rule out (init=gpt2, and
# every alternative at once for the one-layer claims: claims/preconditions.py) costs only the C1 grid that rules
# it out, so those run by default.
SWEEPS = ("C17", "C18")  # 80 models per universe: the expensive ones
OWN_MODELS = ("C9", "C11", "C14", "C21", "C22", "P5")  # claims that reproduce at the paper's point on models of
# their own (weight decays, linear heads, other bases, content heads, NoPE heads): 30 + 10 + 20 + 15 + 15 models
_RETRAINS = ("lengths=per-batch", "init=flax")  # the one-layer readings that retrain every one-layer claim (those
# ruled out, init=gpt2, train only the C1 grid that rules them out)
LONGER = "two-layer-steps=900"  # the two-layer reading that trains the transformers 3x as long
_APE_READINGS = ("ape-rows=zero", "ape-value=token")  # the readings of the APE table alone
LEFT_OUT: dict[tuple[str, str], str] = {
    **{
        (u, c): "the C17/C18 sweep (80 models per universe, a third of a universe's cost): extended"
        for u in _RETRAINS
        for c in SWEEPS
    },
    **{
        (u, c): "a reproduction on models of its own under a one-layer reading (its own models are 1-2 minutes "
        "per reading): extended; the C1 grid's claims and the non-reproductions keep every reading"
        for u in _RETRAINS
        for c in OWN_MODELS
    },
    **{
        (u, "C9"): "C9's weight-decay sweep on models of its own (30 per reading) under a reading of the APE table: "
        "extended, as its other reproductions on models of their own; C9 keeps its own reading "
        "(weight-decay=decoupled) in the default run"
        for u in _APE_READINGS
    },
    **{
        (LONGER, c): "the transformers of both widths trained 3x as long (900 steps): over a quarter of the default "
        "run's time for 4 of its cells: extended, so that the default run keeps its budget"
        for c in ("C12", "C13")
    },
}
COMBINATIONS_WHY = (  # why every combination of two or more readings is extended
    "a combination of readings admissible alone retrains every model its claim reads (a universe's cost per "
    "cell; `lengthgen multiverse --list` counts each claim's universes): extended"
)
WIDTH_VARIANTS = {"C12": ("", "-d64"), "C13": ("", "-d64")}  # "" is d = 96 (the suite's), "-d64" the first width


def columns(claim: str) -> tuple[str, ...]:
    """The grid's columns of a claim: itself, or C12/C13 per width ("C12", "C12-d64")."""
    return tuple(claim + v for v in WIDTH_VARIANTS.get(claim, ("",)))


def split_column(column: str) -> tuple[str, int | None]:
    """("C12", 64) for "C12-d64"; ("C12", None) for "C12" (the claim's own width)."""
    claim, _, variant = column.partition("-d")
    return claim, int(variant) if variant else None


def sort_key(column: str) -> tuple[Any, ...]:
    claim, width = split_column(column)
    return (*claim_order(claim), width or 0)


def combination(name: str) -> bool:
    """Whether the universe ``name`` combines two or more readings."""
    return SEPARATOR in name


def extended(universe: str, column: str) -> bool:
    """Whether the cell is left out of the default run: a combination (:data:`COMBINATIONS_WHY`), or a cell of
    :data:`LEFT_OUT` (by claim or by width column)."""
    return combination(universe) or (universe, column) in LEFT_OUT or (universe, split_column(column)[0]) in LEFT_OUT


def all_cells() -> list[tuple[Universe, str]]:
    """Every (universe, column) cell of the plan."""
    return [(universe(u), column) for u, column in planned().cells]


def cells() -> list[tuple[Universe, str]]:
    """The cells of the default run (`-m multiverse`): every cell but the extended ones."""
    return [(u, column) for u, column in all_cells() if not extended(u.name, column)]


def extended_cells() -> list[tuple[Universe, str]]:
    """The cells left out of the default run for their cost (`-m multiverse_extended`)."""
    return [(u, column) for u, column in all_cells() if extended(u.name, column)]


def left_out() -> list[tuple[str, str, str]]:
    """(universe, column, why) of every cell left out of the default run, universes in the registry's order,
    columns by number: read off :data:`LEFT_OUT` alone (a claim's entry covers each of its columns), so it needs
    no plan of cells (``tests/test_multiverse_registry.py`` checks that each is a cell of the registry)."""
    order = {r.name: i for i, r in enumerate(READINGS)}
    found = [
        (universe, column, why)
        for (universe, key), why in LEFT_OUT.items()
        for column in (columns(key) if key in WIDTH_VARIANTS else (key,))
    ]
    return sorted(found, key=lambda cell: (order[cell[0]], sort_key(cell[1])))


@dataclass(frozen=True)
class UniverseCount:
    """How many universes a column of the grid has in a plan of cells, and where they run."""

    column: str  # a claim, or C12/C13 at a width ("C12-d64")
    alone: int  # readings alone (a ruled-out one among them: it runs, to be ruled out)
    combinations: int  # combinations of two or more readings admissible alone for it
    default: int  # cells of the default run (`-m multiverse`)
    extended: int  # cells left out of it for their cost (`-m multiverse_extended`)

    @property
    def universes(self) -> int:
        return self.alone + self.combinations


def universe_counts(plan: CellPlan) -> list[UniverseCount]:
    """Per column of ``plan`` (by claim number), its universes: alone and combined, default and extended."""
    by_column: dict[str, list[str]] = {}
    for name, column in plan.cells:
        by_column.setdefault(column, []).append(name)
    return [
        UniverseCount(
            column,
            alone=sum(not combination(n) for n in names),
            combinations=sum(combination(n) for n in names),
            default=sum(not extended(n, column) for n in names),
            extended=sum(extended(n, column) for n in names),
        )
        for column, names in sorted(by_column.items(), key=lambda kv: sort_key(kv[0]))
    ]
