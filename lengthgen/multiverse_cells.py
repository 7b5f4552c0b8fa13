"""The multiverse's cells as plain data: a claim's columns (C12/C13 per width), the cells left out of the default
run for their cost (:data:`LEFT_OUT`), and the cells of the plan the claims' registry hands over
(:func:`lengthgen.readings.planned`: empty in a process that never loaded ``claims/multiverse.py``, such as a
``lengthgen`` command that only renders a ``claims.json``). Imports no torch.
"""

from __future__ import annotations

from typing import Any

from lengthgen.readings import UNIVERSE_BY_NAME, UNIVERSES, Universe, claim_order, planned

# Which cells run by default (the cost budget: `pytest claims -m multiverse -n auto` within 15 minutes cold on
# 2 quiet cores, and CI's .ci/run within 40): the cells of every non-reproduction, of every claim read off the
# C1 grid, of C19, and of every two-layer reading, under each reading that touches them. The cells below are
# EXTENDED: they are tests too (marked ``multiverse_extended``: `pytest claims -m multiverse_extended -n auto`
# runs them, `-m "multiverse or multiverse_extended"` the whole multiverse), left out of the default run for
# their cost, each with the reason. The whole multiverse (98 cells) ran once cold on 2026-12-01 (the README's
# docs/robustness.md, "Multiverse", gives every cell's verdict and cost).
SWEEPS = ("C17", "C18")  # 80 models per universe: the expensive ones
OWN_MODELS = ("C9", "C11", "C14", "C21", "C22", "P5")  # claims that reproduce at the paper's point on models of
# their own (weight decays, linear heads, other bases, content heads, NoPE heads): 30 + 10 + 20 + 15 + 15 models
_SINGLE = ("lengths=per-batch", "init=gpt2")  # the one-layer readings that retrain every one-layer claim
LEFT_OUT: dict[tuple[str, str], str] = {
    **{
        (u, c): "the C17/C18 sweep (80 models per universe, a third of a universe's cost): extended"
        for u in _SINGLE + ("all-alternatives",)
        for c in SWEEPS
    },
    **{
        (u, c): "a reproduction on models of its own under a one-layer reading (its own models are 1-2 minutes "
        "per reading): extended; the C1 grid's claims and the non-reproductions keep every reading"
        for u in _SINGLE
        for c in OWN_MODELS
    },
    **{
        ("all-alternatives", c): "the first width (d = 64) at 900 steps under every alternative (3 min of the "
        "budget): extended; two-layer-steps=900 runs d = 64 at 900 steps, the other readings at 300"
        for c in ("C12-d64", "C13-d64")
    },
}
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


def extended(universe: str, column: str) -> bool:
    """Whether the cell is left out of the default run (:data:`LEFT_OUT`, by claim or by width column)."""
    return (universe, column) in LEFT_OUT or (universe, split_column(column)[0]) in LEFT_OUT


def all_cells() -> list[tuple[Universe, str]]:
    """Every (universe, column) cell of the plan."""
    return [(UNIVERSE_BY_NAME[u], column) for u, column in planned().cells]


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
    order = {u.name: i for i, u in enumerate(UNIVERSES)}
    found = [
        (universe, column, why)
        for (universe, key), why in LEFT_OUT.items()
        for column in (columns(key) if key in WIDTH_VARIANTS else (key,))
    ]
    return sorted(found, key=lambda cell: (order[cell[0]], sort_key(cell[1])))
