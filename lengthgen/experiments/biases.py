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
from lengthgen.config import EvalConfig
from lengthgen.experiments.common import column_means, mean
from lengthgen.experiments.phenomenon import PhenomenonResult, run_phenomenon

ENCODINGS = ("rope", "t5", "alibi")  # rotary first: the reference the bias schemes are compared with
NAMES = {"rope": "RoPE", "t5": "T5 bias", "alibi": "ALiBi", "ape": "APE", "nope": "NoPE"}


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

    def to_dict(self) -> dict[str, Any]:
        summary = []
        for encoding in self.encodings:
            for offset in self.offsets:
                summary.append(
                    {
                        "encoding": encoding,
                        "offset": offset,
                        "accuracy_in_range": self.range_accuracy(encoding, offset, self.in_range),
                        "accuracy_beyond": self.range_accuracy(encoding, offset, self.beyond),
                        "selected_offset": {L: self.selected_offsets(encoding, offset, L) for L in self.lengths},
                    }
                )
        return {**self.grid.to_dict(), "summary": summary}

    def table(self) -> str:
        """Per (encoding, K): mean accuracy inside / beyond the training range, and selected offsets per length."""
        n = len(self.seeds)
        lines = [
            f"mean over {n} seeds; training lengths up to {self.max_len}; "
            "offsets: the selected offset of each seed at that length ('=' when all seeds agree)",
            f"{'encoding':<8} {'K':>2}  {'acc<=' + str(self.max_len):>8} {'acc>' + str(self.max_len):>7}  "
            + " ".join(f"L={L:<5}" for L in self.lengths),
        ]
        for encoding in self.encodings:
            for offset in self.offsets:
                inside = self.range_accuracy(encoding, offset, self.in_range)
                outside = self.range_accuracy(encoding, offset, self.beyond)
                cells = []
                for L in self.lengths:
                    chosen = self.selected_offsets(encoding, offset, L)
                    cells.append(f"={chosen[0]}" if len(set(chosen)) == 1 else "/".join(map(str, sorted(set(chosen)))))
                lines.append(
                    f"{NAMES.get(encoding, encoding):<8} {offset:>2}  {mean(inside):>8.3f} "
                    f"{(mean(outside) if outside else float('nan')):>7.3f}  " + " ".join(f"{c:<7}" for c in cells)
                )
        return "\n".join(lines)


def run_biases(
    seeds: Sequence[int],
    steps: int = 4000,
    offsets: Sequence[int] = (1, 2, 3),
    encodings: Sequence[str] = ENCODINGS,
    evaluation: EvalConfig | None = None,
    cache: Cache | None = None,
    progress: bool | None = None,
) -> BiasesResult:
    unknown = [e for e in encodings if e not in NAMES]
    if unknown:
        raise ValueError(f"unknown encoding {unknown[0]!r} (known: {', '.join(NAMES)})")
    return BiasesResult(run_phenomenon(seeds, steps, offsets, encodings, evaluation, cache, progress))
