"""An APE head with a longer table, for evaluation beyond the trained positions (P1, P3): the trained rows stay,
the rows beyond them are the seed's own initial rows, the init generator continued (``probes/ape_extension.py``
appends them). The files here and there decide the numbers of every such evaluation, so both join its cache key
(:data:`LONGER_FILES`)."""

from __future__ import annotations

import dataclasses

from lengthgen.engine.train import TrainedModel, build_model
from lengthgen.probes.ape_extension import extended_state

LONGER_FILES = ("probes/ape_extension.py", "experiments/ape_longer.py")  # join the cache key of a longer table's eval


def extended_model(model: TrainedModel, positions: int) -> TrainedModel:
    """The model with its APE table extended to ``positions`` rows (unchanged if it is not an APE head): the
    extension is the initial table the seed's init generator draws for the longer spec (``build_model``),
    appended by ``probes/ape_extension.py``."""
    if model.spec.model.encoding != "ape":
        return model
    longer = model.spec.replace(model={"positions": positions})
    initial = build_model(longer, model.seed).encoding.pos.weight.detach()  # (positions, d), generator(seed, "init")
    return dataclasses.replace(model, spec=longer, state=extended_state(model.state, initial))
