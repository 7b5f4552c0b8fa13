"""Decided or within noise, by one rule, wherever a claim is run away from the paper's point (a robustness
setting, a multiverse universe): how a cell stands against the claim's verdict at the paper's point.

- ``holds``: the cell reproduces where the paper's point reproduces, or does not where it does not;
- ``other way``: it lands on the other side and is decided (no deciding check's interval contains its threshold):
  the setting or reading changes the verdict;
- ``within noise``: it lands on the other side, but a deciding check's interval contains its threshold (the
  same close-call rule as at the paper's point, ``lengthgen.records.verdict``): more seeds could move it back, so
  it is no change;
- ``ruled out``: a precondition the paper reports failed there, so the claim's checks did not run (a multiverse
  cell only): neither a change nor a hold.

A row's :class:`Spread` counts its cells so, and says it in one line for every rendering (the README, the page,
the terminal, the documents): "holds in 12 of 16 admissible universes; decided the other way under none; within
noise under lengths=per-batch (3 more)". It also tells a claim whose checks are all preconditions (it "defines
admissibility": a cell that runs its checks has already passed them) and the checks a claim shares with a
precondition. No torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from lengthgen.records import Check, ClaimRecord

HOLDS, OTHER_WAY, WITHIN_NOISE, RULED_OUT = "holds", "other way", "within noise", "ruled out"
STATES = (HOLDS, OTHER_WAY, WITHIN_NOISE, RULED_OUT)
RULED_OUT_VERDICT = "ruled out"  # the verdict of a cell whose precondition failed (lengthgen.records.VERDICTS)


def relation(cell: ClaimRecord, reference: ClaimRecord | None) -> str:
    """How ``cell`` stands against ``reference`` (the claim's test at the paper's point; None: a claim the paper's
    point reproduces by default): one of :data:`STATES`."""
    if cell.verdict == RULED_OUT_VERDICT or cell.ruled_out is not None:
        return RULED_OUT
    reproduces = reference.reproduces if reference is not None else True
    if cell.reproduces == reproduces:
        return HOLDS
    return WITHIN_NOISE if cell.close else OTHER_WAY


SETTING = re.compile(r"\b[A-Za-z]+=\d+\b")  # "K=2", "L=12", "H=1": what a name says it measures at
MODEL = re.compile(r"\b(rope|ape|nope|alibi|t5)\b", re.IGNORECASE)  # the encoding a name says it reads


def measured_at(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """What a check's (or a precondition's) name says it measures: its settings ("K=2", "L=12") and encodings."""
    return frozenset(SETTING.findall(name)), frozenset(m.lower() for m in MODEL.findall(name))


def twins(record: ClaimRecord) -> tuple[Check, ...]:
    """The checks of a cell that measure exactly what one of its preconditions measured: at its settings and
    model by their names (a check may name more settings: "lambda=0 K=1 L=12"), with the same values, comparison
    and threshold. The claim asserts there what admissibility already requires."""

    def same(check: Check, pre: Check) -> bool:
        (mine, encodings), (theirs, models) = measured_at(check.name), measured_at(pre.name)
        return (
            theirs <= mine
            and encodings == models
            and tuple(check.values or ()) == tuple(pre.values or ())
            and (check.op, check.threshold) == (pre.op, pre.threshold)
        )

    return tuple(c for c in record.checks if any(same(c, p) for p in record.preconditions))


def named(universes: Iterable[str]) -> str:
    """Universes by their readings alone, the combinations holding one of them counted: "lengths=per-batch (3
    more)", "init=flax, ape-rows=zero (10 more)"; a combination holding none of them named; "none" for none."""
    names = list(dict.fromkeys(universes))
    alone = [n for n in names if "+" not in n]
    holding = [n for n in names if "+" in n and set(n.split("+")) & set(alone)]
    others = [n for n in names if "+" in n and n not in holding]
    shown = ", ".join(alone) + (f" ({len(holding)} more)" if holding else "")
    return ", ".join(p for p in [shown] + others if p) or "none"


@dataclass(frozen=True)
class Spread:
    """Where a row's cells stand against its verdict at the paper's point (:func:`relation`)."""

    row: str  # the row: a claim, or "<id>-<variant>" for a variant run apart
    reference: ClaimRecord | None  # its claim test at the paper's point
    cells: tuple[tuple[str, ClaimRecord], ...]  # (column: a universe or a setting, its cell), recorded ones
    noun: str = "admissible universes"  # what the columns are, in the one-line text
    under: str = "under"  # how a column is named in words ("under init=gpt2", "at width-32")
    held: str = "in"  # how the count is said ("holds in 12 of 16 admissible universes", "holds at 3 of 8 settings")

    def where(self, state: str) -> tuple[str, ...]:
        return tuple(c for c, cell in self.cells if relation(cell, self.reference) == state)

    @property
    def count(self) -> tuple[int, int]:
        """(N, M): the paper's point's verdict holds in N of the M admissible columns, the paper's point counted."""
        admissible = [c for c, cell in self.cells if relation(cell, self.reference) != RULED_OUT]
        return len(self.where(HOLDS)) + 1, len(admissible) + 1

    @property
    def defines_admissibility(self) -> bool:
        """Every check of every admissible cell is one of its preconditions: the claim cannot fail in an
        alternative universe that is admissible (there must be such cells)."""
        admissible = [cell for _, cell in self.cells if relation(cell, self.reference) != RULED_OUT]
        return bool(admissible) and all(cell.checks and len(twins(cell)) == len(cell.checks) for cell in admissible)

    @property
    def shared(self) -> tuple[str, ...]:
        """The names of the checks an admissible cell shares with its preconditions (where some, not all, are)."""
        found: dict[str, None] = {}
        for _, cell in self.cells:
            if relation(cell, self.reference) != RULED_OUT:
                found.update(dict.fromkeys(c.name for c in twins(cell)))
        return tuple(found)

    def text(self) -> str:
        """One line: "holds in 12 of 16 admissible universes; decided the other way under none; within noise under
        lengths=per-batch (3 more)"; "defines admissibility: cannot fail in an alternative universe" for a claim
        made of preconditions; the ruled-out columns last."""
        ruled = self.where(RULED_OUT)
        tail = f"; ruled out: {named(ruled)}" if ruled else ""
        if self.defines_admissibility:
            return "defines admissibility: cannot fail in an alternative universe" + tail
        n, m = self.count
        parts = [f"holds {self.held} {n} of {m} {self.noun}"]
        other, noise = self.where(OTHER_WAY), self.where(WITHIN_NOISE)
        if other or noise:
            parts.append(f"decided the other way {self.under} {named(other)}")
        if noise:
            parts.append(f"within noise {self.under} {named(noise)}")
        return "; ".join(parts) + tail


def shared_text(spread: Spread, most: int = 3) -> str:
    """ "; 4 of its checks are its preconditions too (X, Y, ...)" for a claim sharing some checks with its
    preconditions, the first ``most`` named (0: the count alone); "" where it shares none."""
    if spread.defines_admissibility or not spread.shared:
        return ""
    said = f"; {len(spread.shared)} of its checks are its preconditions too"
    if not most:
        return said
    more = f" and {len(spread.shared) - most} more" if len(spread.shared) > most else ""
    return said + f" ({', '.join(spread.shared[:most])}{more})"


def spreads(
    rows: Sequence[str], cells: dict[tuple[str, str], ClaimRecord], paper: dict[str, ClaimRecord | None]
) -> dict[str, Spread]:
    """Per row, its spread over the recorded cells (``cells``: (column, row) -> record)."""
    return {
        row: Spread(row, paper.get(row), tuple((c, cell) for (c, r), cell in cells.items() if r == row)) for row in rows
    }
