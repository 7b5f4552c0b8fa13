"""Why some multiverse cells are left out of the default run (``-m multiverse``) and run only in the extended one
(``-m multiverse_extended``): their cost. Each claim names the readings whose cells are left out, with one of these
reasons (``ClaimSpec.left_out``); every combination of two or more readings is extended too
(:data:`COMBINATIONS_COST`). The budget: ``pytest claims -m multiverse -n auto`` within 12 minutes cold on 2 quiet
cores, after the claims' run whose models it reuses. A cell that its preconditions rule out costs only the models
that rule it out, so those run by default.
"""

from __future__ import annotations

SWEEP_COST = "the carrier sweep (80 models per universe, a third of a universe's cost): extended"
OWN_MODELS_COST = (
    "a reproduction on models of its own under a one-layer reading (its own models are 1-2 minutes per reading): "
    "extended; the phenomenon grid's claims and the non-reproductions keep every reading"
)
LONGER_COST = (
    "the transformers of both widths trained 3x as long (900 steps): over a quarter of the default run's time for 4 "
    "of its cells: extended, so that the default run keeps its budget"
)
COMBINATIONS_COST = (
    "a combination of readings admissible alone retrains every model its claim reads (a universe's cost per cell; "
    "`lengthgen multiverse --list` counts each claim's universes): extended"
)
