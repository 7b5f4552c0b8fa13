"""Decided or within noise, by one rule, wherever a claim is run away from the paper's point (a robustness
setting, a multiverse universe): how a cell stands against the claim's verdict at the paper's point, one
:class:`Outcome` (its value the text every rendering prints):

- ``holds``: the cell reproduces where the paper's point reproduces, or does not where it does not;
- ``other way``: it lands on the other side, its own call is decided (no deciding check's interval contains its
  threshold), and the quantity the flip rests on differs from the paper's point beyond the seeds' noise
  (:func:`beyond_noise`): the setting or reading changes the verdict;
- ``within noise``: it lands on the other side, but a deciding check's interval contains its threshold (the
  same close-call rule as at the paper's point, ``lengthgen.records.verdict``), or the quantity the flip rests on
  does not differ from the paper's point beyond the seeds' noise: more seeds could move it back, so it is no
  change;
- ``ruled out``: a precondition the paper reports failed there, so the claim's checks did not run (a multiverse
  cell only): neither a change nor a hold.

A row's :class:`Spread` counts its cells so, and says it in one line for every rendering (the README, the page,
the terminal, the documents): "holds in 12 of 16 admissible universes; decided the other way under none; within
noise under lengths=per-batch (3 more)". It also tells a claim whose checks are all preconditions (it "defines
admissibility": a cell that runs its checks has already passed them) and the checks a claim shares with a
precondition. No torch.

The quantity a flip rests on is the deciding check of the side that fails (the cell, or the paper's point where
the cell reproduces), read on both sides by its name. It is compared over the seeds the two share, paired (the
same seed's value on both sides): a mean by the t-interval of its per-seed differences, a check every seed must
pass by the exact McNemar test of its per-seed failures; two runs that share no seeds (fresh seeds) are compared
unpaired (Welch's t-interval; Fisher's exact test of the failing counts). The difference is beyond noise where the
interval excludes 0, or the test's p-value is below ALPHA. A check without per-seed values (a statistic of the
seed-mean curve, an exact computation, a single number), or one measured on one side only, has nothing to pair:
its own close call decides, as above.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Mapping, Sequence

from lengthgen.catalogue import Catalogue

from lengthgen.records import Check, ClaimRecord
from lengthgen.records.check import fails
from lengthgen.records.verdicts import Verdict, look
from lengthgen.analysis.run_view import record_of
from lengthgen.stats import fisher_exact, mcnemar_exact, paired_t_interval, welch_interval


class Outcome(str, Enum):
    """How a cell stands against the claim's verdict at the paper's point (the module docstring says when each
    holds). Its value is the text every rendering prints: ``str``, ``format`` and f-strings give the value."""

    HOLDS = "holds"  # on the paper's point's side
    OTHER_WAY = "other way"  # on the other side, decided and beyond the seeds' noise
    WITHIN_NOISE = "within noise"  # on the other side, but a close call or no difference beyond the seeds' noise
    RULED_OUT = "ruled out"  # a precondition failed there: the claim's checks did not run

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


RULED_OUT_VERDICT = Verdict.RULED_OUT  # the verdict of a cell whose precondition failed
ALPHA = 0.05  # a difference from the paper's point is beyond noise at this two-sided level (the intervals' 95%)


def column_of(record: ClaimRecord | Mapping[str, Any], catalogue: Catalogue) -> str:
    """The grid row of a cell (or a claim test at the paper's point): its claim, or the column of its variant
    where the claim runs that variant apart (a width: "<id>-<variant>")."""
    view = record_of(record)
    entry = catalogue.get(view.claim)
    return entry.column(view.variant) if entry is not None else view.claim


def row_of(claim: ClaimRecord, catalogue: Catalogue) -> str | None:
    """The grid row a claim test at the paper's point is compared with; None when no cell checks what it
    checks (a claim whose cells run one variant's checks, ``cell_variant``, and a test of another variant)."""
    entry = catalogue.get(claim.claim)
    only = entry.cell_variant if entry is not None else ""
    if only and claim.variant and claim.variant != only:
        return None
    return column_of(claim, catalogue)


def reference(records: Sequence[ClaimRecord], row: str, catalogue: Catalogue) -> ClaimRecord | None:
    """The verdict at the paper's point a row's cells are compared with: of the claim tests at that row
    (a claim with several tests, one cell checks them all), the one whose verdict ranks worst."""
    matched = [r for r in records if row_of(r, catalogue) == row]
    if not matched:
        return None
    return max(matched, key=lambda r: -1 if look(r.verdict).rank is None else look(r.verdict).rank)


def relation(cell: ClaimRecord, reference: ClaimRecord | None) -> Outcome:
    """How ``cell`` stands against ``reference`` (the claim's test at the paper's point, of the same variant; None:
    a claim the paper's point reproduces by default)."""
    if cell.verdict == RULED_OUT_VERDICT or cell.ruled_out is not None:
        return Outcome.RULED_OUT
    reproduces = reference.reproduces if reference is not None else True
    if cell.reproduces == reproduces:
        return Outcome.HOLDS
    if cell.close:
        return Outcome.WITHIN_NOISE
    return Outcome.OTHER_WAY if beyond_noise(cell, reference) else Outcome.WITHIN_NOISE


def _per_seed(record: ClaimRecord, check: Check) -> dict[int, float | None] | None:
    """A check's values by seed (None where its values are not one per seed of the record's seed list)."""
    seeds = record.scale.get("seed_list")
    values = check.values
    if not values or not isinstance(seeds, list) or len(seeds) != len(values):
        return None
    return dict(zip(seeds, values))


def flip_check(cell: ClaimRecord, reference: ClaimRecord | None) -> tuple[Check, Check] | None:
    """The check a flip rests on, as (the cell's, the paper's point's): the failing side's deciding check, read on
    both sides by its name; None where either side lacks it."""
    if reference is None:
        return None
    failing = reference if cell.reproduces else cell
    decider = failing.deciding
    if decider is None:
        return None
    mine, theirs = cell.check(decider.name), reference.check(decider.name)
    return (mine, theirs) if mine is not None and theirs is not None else None


def beyond_noise(cell: ClaimRecord, reference: ClaimRecord | None) -> bool:
    """Whether the quantity ``cell``'s flip rests on differs from ``reference``'s beyond the seeds' noise (module
    docstring); True where there is nothing to compare (no reference, no per-seed values, a check on one side
    only): the cell's own close call has decided it then."""
    pair = flip_check(cell, reference)
    if pair is None:
        return True
    mine, theirs = pair
    at_cell, at_paper = _per_seed(cell, mine), _per_seed(reference, theirs)
    if at_cell is None or at_paper is None:
        return True
    shared = [s for s in at_cell if s in at_paper]
    counted = mine.counted and theirs.counted
    if not counted and not (mine.reduce == "mean" and theirs.reduce == "mean"):
        return True

    def failed(values) -> list[bool]:
        return [fails(v, mine.op, mine.threshold) for v in values]

    if len(shared) >= 2:
        first, second = [at_cell[s] for s in shared], [at_paper[s] for s in shared]
        if counted:
            return mcnemar_exact(failed(first), failed(second)) < ALPHA
        if any(v is None for v in first + second):
            return True
        interval = paired_t_interval(first, second)
    else:
        first, second = list(at_cell.values()), list(at_paper.values())
        if counted:
            return fisher_exact(sum(failed(first)), len(first), sum(failed(second)), len(second)) < ALPHA
        interval = welch_interval(first, second)
    return interval is None or not interval[0] <= 0 <= interval[1]


def measures_at(check: Check, pre: Check) -> bool:
    """Whether ``check`` measures at ``pre``'s coordinates (``Check.at``): every one of them, with the same value
    (a check may have more: {"lambda": 0, "K": 1, "L": 12}), and the same encoding (none where ``pre`` has none)."""
    return check.at.get("encoding") == pre.at.get("encoding") and all(
        key in check.at and check.at[key] == value for key, value in pre.at.items()
    )


def twins(record: ClaimRecord) -> tuple[Check, ...]:
    """The checks of a cell that measure exactly what one of its preconditions measured: at its coordinates
    (:func:`measures_at`), with the same values, comparison and threshold. The claim asserts there what
    admissibility already requires."""

    def same(check: Check, pre: Check) -> bool:
        return (
            measures_at(check, pre)
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

    def where(self, outcome: Outcome) -> tuple[str, ...]:
        """The columns whose cell stands so against the paper's point."""
        return tuple(c for c, cell in self.cells if relation(cell, self.reference) == outcome)

    @property
    def count(self) -> tuple[int, int]:
        """(N, M): the paper's point's verdict holds in N of the M admissible columns, the paper's point counted."""
        admissible = [c for c, cell in self.cells if relation(cell, self.reference) != Outcome.RULED_OUT]
        return len(self.where(Outcome.HOLDS)) + 1, len(admissible) + 1

    @property
    def defines_admissibility(self) -> bool:
        """Every check of every admissible cell is one of its preconditions: the claim cannot fail in an
        alternative universe that is admissible (there must be such cells)."""
        admissible = [cell for _, cell in self.cells if relation(cell, self.reference) != Outcome.RULED_OUT]
        return bool(admissible) and all(cell.checks and len(twins(cell)) == len(cell.checks) for cell in admissible)

    @property
    def shared(self) -> tuple[str, ...]:
        """The names of the checks an admissible cell shares with its preconditions (where some, not all, are)."""
        found: dict[str, None] = {}
        for _, cell in self.cells:
            if relation(cell, self.reference) != Outcome.RULED_OUT:
                found.update(dict.fromkeys(c.name for c in twins(cell)))
        return tuple(found)

    def text(self) -> str:
        """One line: "holds in 12 of 16 admissible universes; decided the other way under none; within noise under
        lengths=per-batch (3 more)"; "defines admissibility: cannot fail in an alternative universe" for a claim
        made of preconditions; the ruled-out columns last."""
        ruled = self.where(Outcome.RULED_OUT)
        tail = f"; ruled out: {named(ruled)}" if ruled else ""
        if self.defines_admissibility:
            return "defines admissibility: cannot fail in an alternative universe" + tail
        n, m = self.count
        parts = [f"holds {self.held} {n} of {m} {self.noun}"]
        other, noise = self.where(Outcome.OTHER_WAY), self.where(Outcome.WITHIN_NOISE)
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
