"""The multiverse's cells (``claims/test_multiverse.py``): each claim's own measure and check functions under
a universe of ``lengthgen.experiments.multiverse`` (one alternative reading, or every alternative at once),
always at paper scale with the catalogue's seeds, assertions unchanged.

The readings act through the specs the experiments build (``paper_spec``, ``two_layer_spec``: the active
universe, :func:`lengthgen.experiments.multiverse.under`), so a cell is the claim's ``measure(scale, cache)``
called inside ``under(universe)``; ``claims.support.memo`` keys on the universe. Claims with several tests at
the paper's point are one cell with every test's checks (C19: both schemes, both checks, as the robustness
map does); C12 and C13 are a cell per width (``C12`` is d = 96, the suite's width; ``C12-d64`` the first
width tried, a declared non-reproduction at the paper's point).

Which cells run by default (the cost budget: ``pytest claims -m multiverse -n auto`` within 15 minutes cold
on 2 quiet cores) and which are extended (``-m multiverse_extended``): :data:`LEFT_OUT`.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Callable

from lengthgen.experiments.multiverse import (  # noqa: F401 (re-exported)
    LEFT_OUT, cells, columns, extended_cells, left_out, sort_key, split_column)
from lengthgen.scale import PAPER, Scale

from claims import robustness

def claim_module(claim_id: str):
    """The claim's test module: ``claims/test_cNN_*.py`` or, for a prediction, ``claims/test_pN_*.py``."""
    if claim_id.startswith("P"):
        import importlib
        import pkgutil
        from pathlib import Path

        prefix = f"test_p{int(claim_id[1:])}_"
        names = [m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith(prefix)]
        if len(names) != 1:
            raise ValueError(f"prediction {claim_id}: expected one module claims/{prefix}*.py, found {names}")
        return importlib.import_module(f"claims.{names[0]}")
    return robustness.claim_module(claim_id)


@dataclass(frozen=True)
class Cell:
    """What one cell measures and checks (the claim's own functions)."""

    measure: Callable[[Scale, Any], Any]  # (scale, cache) -> the claim's result
    checks: tuple[Callable[[Any, Any], None], ...]  # the claim's check functions, each (claim, result)
    scale: Scale  # paper scale, at the claim's own steps (C12/C13's 300, C19's, ...)


def cell(column: str) -> Cell:
    """The measure, checks and scale of a column (the universe is applied by the caller: ``under``)."""
    claim_id, width = split_column(column)
    module = claim_module(claim_id)
    scale = getattr(module, "run_scale", lambda s: s)(PAPER)
    if claim_id == "C19":
        checks = tuple(functools.partial(f, encoding=e) for e in module.BIAS_SCHEMES
                       for f in (module.check_invariance, module.check_target))
    else:
        checks = (module.check,)
    if width is not None:
        return Cell(lambda s, cache: module.measure(s, cache, width), checks, scale)
    return Cell(lambda s, cache: module.measure(s, cache), checks, scale)


def own_declaration(column: str) -> tuple[tuple[str, ...], str] | None:
    """The claim's own declared non-reproduction at the paper's point (its failing checks and why), or None."""
    claim_id, width = split_column(column)
    module = claim_module(claim_id)
    if claim_id in ("C8", "C10", "P1", "P2"):
        return tuple(module.NOT_REPRODUCED_CHECKS), module.NOT_REPRODUCED_WHY
    if claim_id == "C19":
        return tuple(module.ALIBI_NOT_TARGET) + tuple(module.ALIBI_NOT_SOLVED), module.ALIBI_WHY
    if claim_id == "C20":
        return tuple(module.NOT_REPRODUCED["paper"]), module.NOT_REPRODUCED_WHY
    if claim_id == "C12" and width == 64:
        return (f"{module.MARGIN_CHECK}*",), module.FIRST_WIDTH_WHY
    if claim_id == "C13" and width == 64:
        return tuple(module.selection_check(L) for L in module.FIRST_WIDTH_FAILING["paper"]), module.FIRST_WIDTH_WHY
    return None


def non_strict(scale: Scale, claim_id: str) -> Scale:
    """``scale`` with its seeds explicit: a declaration made at it is not strict (a pass reads reproduced)."""
    count = getattr(claim_module(claim_id), "PAPER_SEEDS", None) if claim_id.startswith("P") else None
    count = count if count is not None else robustness.paper_seeds(claim_id)
    return dataclasses.replace(scale, seeds=tuple(scale.seed_list(count)))
