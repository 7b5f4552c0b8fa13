"""Relative biases against rotary (C19, Sec. 5.1): ALiBi and T5's learned relative bias as encodings of the
one-layer head, trained on the fixed-offset task beside RoPE.

The grid is the phenomenon's (``experiments/phenomenon.py``: every (encoding, K, seed) trained on lengths
[8, 16] and evaluated at the paper's lengths) with the encodings rope, t5 and alibi; the RoPE models are
the C1 grid's own (same specs, so the cache trains them once). What C19 reads off it, per (encoding, K,
seed): the selected offset (argmax of the mean attention, relative to the query) at every length and
whether it changes beyond the training range, and the accuracy inside (L <= Lmax) and beyond it.
The encodings themselves: ``encodings/alibi.py`` (fixed slopes) and ``encodings/t5.py`` (bucketing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from lengthgen.store.cache import Cache
from lengthgen.context import Context
from lengthgen.experiments.common import column_means, mean
from lengthgen.experiments.phenomenon import PhenomenonResult, run_phenomenon
from lengthgen.experiments.results import Column, length_columns, text_table, to_json

ENCODINGS = ("rope", "t5", "alibi")  # rotary first: the reference the bias schemes are compared with
NAMES = {"rope": "RoPE", "t5": "T5 bias", "alibi": "ALiBi", "ape": "APE", "nope": "NoPE"}


@dataclass(frozen=True)
class BiasesSummary:
    """One (encoding, K) of the grid: accuracy inside and beyond the training range, selected offsets."""

    encoding: str  # positional encoding
    offset: int  # target offset K
    accuracy_in_range: list[float]  # per seed: mean accuracy over the lengths L <= Lmax
    accuracy_beyond: list[float]  # per seed: mean accuracy over the lengths L > Lmax
    selected_offset: dict[int, list[int]]  # evaluation length -> every seed's selected offset


def selection_cell(chosen: Sequence[int]) -> str:
    """ "=s" where every seed selects s, else the distinct selected offsets joined by "/"."""
    return f"={chosen[0]}" if len(set(chosen)) == 1 else "/".join(map(str, sorted(set(chosen))))


def columns(result: "BiasesResult") -> tuple[Column, ...]:
    """Per (encoding, K): the seed-mean accuracy inside / beyond Lmax and the selected offsets per length."""
    return (
        Column("encoding", lambda r: NAMES.get(r.encoding, r.encoding), "<8"),
        Column("K", lambda r: r.offset, ">2"),
        Column(f"acc<={result.max_len}", lambda r: mean(r.accuracy_in_range), ">8.3f", gap="  "),
        Column(
            f"acc>{result.max_len}", lambda r: mean(r.accuracy_beyond) if r.accuracy_beyond else float("nan"), ">7.3f"
        ),
        *length_columns(result.lengths, lambda r, i, L: selection_cell(r.selected_offset[L]), "<7"),
    )


@dataclass
class BiasesResult:
    grid: PhenomenonResult  # the (encoding, K) x seeds grid of trained and evaluated models

    @property
    def encodings(self) -> tuple[str, ...]:
        return self.grid.encodings

    @property
    def offsets(self) -> tuple[int, ...]:
        return self.grid.offsets

    @property
    def seeds(self) -> tuple[int, ...]:
        return self.grid.seeds

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.grid.lengths

    @property
    def max_len(self) -> int:
        return self.grid.max_len

    @property
    def in_range(self) -> tuple[int, ...]:
        """Evaluation lengths inside the training range (L <= Lmax)."""
        return tuple(L for L in self.lengths if L <= self.max_len)

    @property
    def beyond(self) -> tuple[int, ...]:
        """Evaluation lengths beyond the training range (L > Lmax)."""
        return tuple(L for L in self.lengths if L > self.max_len)

    @property
    def reference_length(self) -> int:
        """The longest in-range evaluation length: the selection there is what must persist beyond it."""
        if not self.in_range:
            raise ValueError(f"no evaluation length inside the training range (<= {self.max_len})")
        return max(self.in_range)

    def accuracy(self, encoding: str, offset: int, length: int) -> list[float]:
        return self.grid.accuracy(encoding, offset, length)

    def selected_offsets(self, encoding: str, offset: int, length: int) -> list[int]:
        return self.grid.selected_offsets(encoding, offset, length)

    def range_accuracy(self, encoding: str, offset: int, lengths: Sequence[int]) -> list[float]:
        """Per seed, the accuracy averaged over ``lengths``."""
        per_length = [self.accuracy(encoding, offset, L) for L in lengths]
        return column_means(per_length)

    def selection_shift(self, encoding: str, offset: int, length: int) -> list[int]:
        """Per seed, selected offset at ``length`` minus the one at the reference length (0: unchanged)."""
        here = self.selected_offsets(encoding, offset, length)
        there = self.selected_offsets(encoding, offset, self.reference_length)
        return [a - b for a, b in zip(here, there)]

    def summary(self, encoding: str, offset: int) -> BiasesSummary:
        return BiasesSummary(
            encoding=encoding,
            offset=offset,
            accuracy_in_range=self.range_accuracy(encoding, offset, self.in_range),
            accuracy_beyond=self.range_accuracy(encoding, offset, self.beyond),
            selected_offset={L: self.selected_offsets(encoding, offset, L) for L in self.lengths},
        )

    def to_json(self) -> dict[str, Any]:
        summary = [self.summary(encoding, offset) for encoding in self.encodings for offset in self.offsets]
        return {**self.grid.to_json(), "summary": to_json(summary)}

    def table(self) -> str:
        """Per (encoding, K): mean accuracy inside / beyond the training range, and selected offsets per length."""
        title = (
            f"mean over {len(self.seeds)} seeds; training lengths up to {self.max_len}; "
            "offsets: the selected offset of each seed at that length ('=' when all seeds agree)"
        )
        return text_table(title, columns(self), [self.summary(e, K) for e in self.encodings for K in self.offsets])


def run_biases(
    ctx: Context, cache: Cache | None, offsets: Sequence[int] = (1, 2, 3), encodings: Sequence[str] = ENCODINGS
) -> BiasesResult:
    """The grid of ``encodings`` x K at ``ctx`` (the unknown encodings refused before any training)."""
    unknown = [e for e in encodings if e not in NAMES]
    if unknown:
        raise ValueError(f"unknown encoding {unknown[0]!r} (known: {', '.join(NAMES)})")
    return BiasesResult(run_phenomenon(ctx, cache, offsets, encodings))
