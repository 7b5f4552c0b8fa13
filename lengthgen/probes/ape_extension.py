"""A longer APE table for evaluation beyond the trained table's rows (P1-P3 at L up to 128).

A trained APE head has ``positions`` = 48 rows; rows from Lmax on never received a gradient and still
hold their initial N(0, 1) values. To evaluate at L > 48 the head needs rows 48 .. L-1: they are the
rows that the same seed's initialisation would have drawn had the table been longer. Concretely, the
initial head of the same spec with a ``positions``-row table is built from the same init generator
(``generator(seed, "init")``, via ``build_model``: the caller's part, ``experiments/ape_longer.py``'s
``extended_model``), and its rows from the old table size on are appended to the trained table. The
position table is the last parameter the initialisation draws (after the embeddings, projections and
readout; ``OneLayerHead.reset_parameters``), so this is the init generator's own stream continued past
the 48 rows it drew: the first 48 rows of the longer initial table are exactly
the shorter one's (``tests/test_ape_extension.py`` checks it), and the trained rows 0..47 are copied
unchanged. Why this and not a generator derived from the init seed for the extension alone: it is what
"drawn from the same init generator" means literally, and it makes the extended head the one a longer
table would have given (its untrained rows are the same kind of initial vector as rows 16..47).

Pure functions of the weights: the trained table is never modified; ``extended_state`` returns a new
parameter dict with the longer table (the model built on it is evaluated and cached under the original
model's key plus the variant).
"""

from __future__ import annotations

import torch

from lengthgen.probes.ape_fixes import TABLE


def extended_table(table: torch.Tensor, initial: torch.Tensor) -> torch.Tensor:
    """The trained ``table`` (rows, d) followed by the rows of ``initial`` (positions, d) from ``rows`` on:
    ``initial`` is the table the seed's initialisation draws for a ``positions``-row table."""
    rows, positions = table.shape[0], initial.shape[0]
    if positions < rows:
        raise ValueError(f"positions={positions} is shorter than the trained table ({rows} rows)")
    return torch.cat((table, initial[rows:].to(table.dtype)), dim=0)  # (positions, d)


def extended_state(state: dict[str, torch.Tensor], initial: torch.Tensor) -> dict[str, torch.Tensor]:
    """A new parameter dict of an APE head with its table extended by the rows of ``initial`` (positions, d)."""
    if TABLE not in state:
        raise ValueError(f"not an APE head: no {TABLE!r} among {sorted(state)}")
    return {**state, TABLE: extended_table(state[TABLE], initial)}
