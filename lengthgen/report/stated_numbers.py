"""What the paper's numbers say about its readings: every number the paper states (each claim's ``stated``, in the
run's catalogue) against the one measurement it names, in every universe of a run (the paper's point, each reading,
each combination), and which readings the numbers can tell apart. ``lengthgen multiverse --paper`` prints it; the
page, the README and docs/robustness.md show it. No torch.

One agreement rule, for a value and a range alike: a universe agrees with a stated number when the measurement's
95 % interval (a point for an exact computation) meets the paper's value or range widened by its rounding (half a
unit of its last digit); a range the paper states across settings agrees when every setting does.

A count of agreements rewards noise (a wide interval agrees with more), so the universes are ranked instead by how
likely each makes the paper's numbers: per number, the probability that the measurement's seed mean lies in the
paper's widened value or range, under its sampling distribution over seeds (Student's t with the seeds' standard
error; across settings, the product over them), summed as logs over the numbers that discriminate: those whose
agreement differs between universes. The numbers that agree in every universe, or disagree in every one, say
something about the implementation and nothing about the choices: they are listed apart.

A reading is *favoured* over the suite's only where its advantage survives the seeds' noise: the seeds of every
measurement are resampled (a bootstrap from the recorded per-seed values, one generator seeded per record and
number, so a record two universes share is resampled alike), the universes rescored, and a reading that wins in at
least :data:`FAVOURED` of the resamples is favoured (the suite's reading, where it wins as often); otherwise the
numbers cannot tell them apart: a tie, as is a reading that moves no discriminating number.

A universe that does not touch a claim measures it as the paper's point does (the same models), so the paper's
point's record stands in for it; a universe whose cell of that claim is ruled out does not compare (its reading is
not one the paper can have used).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from lengthgen.catalogue import Catalogue, Stated
from lengthgen.readings import BY_NAME as READINGS_BY_NAME
from lengthgen.readings import READINGS, CellPlan
from lengthgen.records import ClaimRecord
from lengthgen.report.multiverse import column_of
from lengthgen.report.run_view import RunView
from lengthgen.sequential import t_quantile

PAPER = "paper"
FAVOURED = 0.95  # the share of bootstrap resamples a reading must win to be favoured
RESAMPLES = 2000  # bootstrap resamples of the seeds
BOOTSTRAP_SEED = 20261205  # the ranking's own generator seed: the same answer on every rerun
LOG_FLOOR = math.log(1e-12)  # the log-probability of a number a universe cannot produce (a point outside it)
TOP_UNIVERSES = 8  # the ranking's rows a document shows (the rest: `lengthgen multiverse --paper`)


def _special() -> Any:
    from scipy import special  # the report's quantiles and probabilities need scipy.special alone

    return special


@dataclass(frozen=True)
class Number:
    """A stated number placed in the run: its claim and the grid column whose record measures it."""

    claim: str  # the claim it belongs to
    column: str  # the grid column whose record measures it (the claim, or "<id>-<variant>")
    stated: Stated  # the number as the claim states it, with its measurement

    @property
    def window(self) -> tuple[float, float]:
        """The paper's value or range, widened by its rounding."""
        h = 0.5 * 10.0**-self.stated.digits
        return self.stated.low - h, self.stated.high + h

    @property
    def name(self) -> str:
        return f"{self.claim} {self.stated.quantity}"


def numbers(catalogue: Catalogue) -> list[Number]:
    """Every number the run's catalogue states, in the catalogue's order."""
    return [Number(e.id, f"{e.id}-{s.variant}" if s.variant else e.id, s) for e in catalogue for s in e.stated]


# ----------------------------------------------------------------------------------------------- one measurement


@dataclass(frozen=True)
class SettingValues:
    """One setting's measurement of a number in one record: its per-seed values (averaged over the number's
    measures, seed by seed) or its exact value."""

    values: tuple[float, ...]  # per seed (one value: an exact computation, or one seed)

    @property
    def mean(self) -> float:
        return math.fsum(self.values) / len(self.values)

    @property
    def se(self) -> float:
        n = len(self.values)
        if n < 2:
            return 0.0
        m = self.mean
        return math.sqrt(math.fsum((v - m) ** 2 for v in self.values) / (n - 1) / n)

    @property
    def interval(self) -> tuple[float, float]:
        """The seed mean's 95 % t-interval (a point without spread)."""
        se = self.se
        if se == 0:
            return self.mean, self.mean
        half = t_quantile(0.975, len(self.values) - 1) * se
        return self.mean - half, self.mean + half


def settings(record: ClaimRecord, stated: Stated) -> list[SettingValues] | None:
    """The record's measurement of ``stated``: one setting (its measures averaged seed by seed), or one per measure
    across settings; None where the record lacks a measure."""
    found = {c.name: c.values if c.values else (c.value,) for c in record.checks}
    found.update({m.name: m.values if m.values else (m.mean,) for m in record.measured})
    if any(name not in found or not found[name] or None in found[name] for name in stated.measures):
        return None
    series = [tuple(float(v) for v in found[name]) for name in stated.measures]
    if stated.across:
        return [SettingValues(s) for s in series]
    if len({len(s) for s in series}) != 1:
        return None
    return [SettingValues(tuple(math.fsum(seed) / len(seed) for seed in zip(*series)))]


def agrees(number: Number, found: Sequence[SettingValues]) -> bool:
    """The one agreement rule: every setting's 95 % interval meets the paper's widened value or range."""
    low, high = number.window
    return all(s.interval[1] >= low and s.interval[0] <= high for s in found)


def log_probability(number: Number, values: np.ndarray) -> np.ndarray:
    """log P(the seed mean lies in the paper's widened value or range), under Student's t with the seeds' standard
    error, for each row of ``values`` (resamples x seeds); a point (no spread) has probability 1 inside, 0 out."""
    low, high = number.window
    n = values.shape[-1]
    mean = values.mean(axis=-1)  # (resamples,)
    se = values.std(axis=-1, ddof=1) / math.sqrt(n) if n > 1 else np.zeros_like(mean)  # (resamples,)
    inside = ((mean >= low) & (mean <= high)).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = _special().stdtr(max(n - 1, 1), (high - mean) / se) - _special().stdtr(max(n - 1, 1), (low - mean) / se)
        p = np.where(se > 0, t, inside)
        return np.maximum(np.log(np.maximum(p, 0.0)), LOG_FLOOR)


@dataclass(frozen=True)
class Measured:
    """A stated number in one universe."""

    number: Number  # the paper's number
    universe: str  # where it was measured
    record: ClaimRecord | None  # the record that measures it there (None: not compared)
    found: tuple[SettingValues, ...]  # its measurement (empty: not compared)
    agrees: bool | None  # None: not compared (ruled out, no record, no measurement)
    why_not: str = ""  # why it was not compared

    @property
    def shown(self) -> str:
        """The measured value(s) in short, or why it was not compared."""
        if self.agrees is None:
            return self.why_not
        if self.number.stated.all_checks_pass:
            passed, total = self.record.checks_passed
            return f"{passed}/{total} checks"
        means = sorted(s.mean for s in self.found)
        return f"{means[0]:.3g}" if len(means) == 1 else f"{means[0]:.3g}-{means[-1]:.3g}"

    @property
    def log_p(self) -> float | None:
        """Its log-probability at the recorded seeds (None where not compared, or where it is a count of checks)."""
        if self.agrees is None or not self.found:
            return None
        return float(sum(log_probability(self.number, np.array([s.values]))[0] for s in self.found))


def measured_in(number: Number, record: ClaimRecord | None, universe: str) -> Measured:
    if record is None:
        return Measured(number, universe, None, (), None, "no record")
    if record.ruled_out is not None or record.verdict == "ruled out":
        return Measured(number, universe, None, (), None, "ruled out")
    if number.stated.all_checks_pass:
        ok = bool(record.checks) and all(c.passed for c in record.checks)
        return Measured(number, universe, record, (), ok)
    found = settings(record, number.stated)
    if found is None:
        return Measured(number, universe, None, (), None, "not measured")
    return Measured(number, universe, record, tuple(found), agrees(number, found))


# ----------------------------------------------------------------------------------------------- the universes


def record_in(
    universe: str,
    column: str,
    paper: Mapping[str, ClaimRecord],
    cells: Mapping[tuple[str, str], ClaimRecord],
    plan: CellPlan,
    catalogue: Catalogue,
) -> ClaimRecord | None:
    """The record that measures ``column`` in ``universe``: the cell of the universe's readings that touch its claim
    (a reading that does not touch a claim leaves its models as they are), or the paper's point's where none does;
    None for a cell not recorded."""
    if universe == PAPER:
        return paper.get(column)
    claim = catalogue.claim_of(column)
    parts = [p for p in universe.split("+") if claim in touched(p, cells, plan, catalogue)]
    if not parts:
        return paper.get(column)
    return cells.get(("+".join(parts), column))


def touched(universe: str, cells, plan: CellPlan, catalogue: Catalogue) -> set[str]:
    """The claims whose models ``universe`` changes: the plan's, else what the run shows (its recorded cells and
    the cells left out of the default run for it)."""
    found = set(plan.claims_of(universe))
    if found:
        return found
    parts = set(universe.split("+"))
    found = {catalogue.claim_of(column) for u, column in cells if set(u.split("+")) <= parts}
    return found | {catalogue.claim_of(column) for u, column, _ in plan.left_out if u in parts}


@dataclass(frozen=True)
class Table:
    """Every stated number in every universe of a run."""

    numbers: tuple[Number, ...]  # the run's stated numbers
    universes: tuple[str, ...]  # the paper's point first, then the run's universes in the registry's order
    rows: Mapping[str, tuple[Measured, ...]]  # universe -> each number measured there (the numbers' order)

    def marks(self, number: Number) -> list[bool]:
        """Its agreement in every universe that compared it."""
        i = self.numbers.index(number)
        return [m.agrees for u in self.universes if (m := self.rows[u][i]).agrees is not None]

    @property
    def discriminating(self) -> tuple[Number, ...]:
        """The numbers whose agreement differs between universes."""
        return tuple(n for n in self.numbers if len(set(self.marks(n))) > 1)

    @property
    def agree_everywhere(self) -> tuple[Number, ...]:
        return tuple(n for n in self.numbers if self.marks(n) and all(self.marks(n)))

    @property
    def disagree_everywhere(self) -> tuple[Number, ...]:
        return tuple(n for n in self.numbers if self.marks(n) and not any(self.marks(n)))

    def measured(self, universe: str, number: Number) -> Measured:
        return self.rows[universe][self.numbers.index(number)]

    def compares_all(self, universe: str) -> bool:
        """The universe compares every discriminating number (a ruled-out cell does not)."""
        return all(self.measured(universe, n).agrees is not None for n in self.discriminating)


def table(run: RunView) -> Table:
    """The run's stated numbers in every universe its multiverse holds."""
    from lengthgen.report.multiverse import registry_order

    catalogue, plan = run.catalogue, run.plan
    paper = {column_of(r, catalogue): r for r in run.records if r.scale.get("name", "paper") == "paper"}
    cells = {(r.universe, column_of(r, catalogue)): r for r in run.multiverse}
    universes = (PAPER,) + tuple(sorted(dict.fromkeys(u for u, _ in cells), key=registry_order))
    found = tuple(numbers(catalogue))
    rows = {
        u: tuple(measured_in(n, record_in(u, n.column, paper, cells, plan, catalogue), u) for n in found)
        for u in universes
    }
    return Table(found, universes, rows)


# ----------------------------------------------------------------------------------------------- the ranking


def _key(measured: Measured, number: Number) -> int:
    """A stable seed for resampling one measurement of one number: the number and the measured values, so the
    same measurement (a record two universes share, or equal values in two records) is resampled alike."""
    values = ";".join(",".join(repr(v) for v in s.values) for s in measured.found)
    return zlib.crc32(f"{number.name}|{values}".encode("utf-8"))


def resampled(measured: Measured, resamples: int, seed: int) -> np.ndarray:
    """Its log-probability in each bootstrap resample of its seeds ((resamples,)), one generator per record and
    number; a setting of one value (an exact computation) is its own resample."""
    rng = np.random.default_rng([seed, _key(measured, measured.number)])
    total = np.zeros(resamples)
    for setting in measured.found:
        values = np.asarray(setting.values)
        if values.size > 1:
            values = values[rng.integers(0, values.size, size=(resamples, values.size))]  # (resamples, seeds)
        else:
            values = np.broadcast_to(values, (resamples, 1))
        total += log_probability(measured.number, values)
    return total


@dataclass(frozen=True)
class Ranked:
    """A universe and how likely it makes the paper's discriminating numbers."""

    universe: str  # its name ("paper": the suite's readings)
    log_likelihood: float  # the sum of the discriminating numbers' log-probabilities at the recorded seeds
    agree: int  # discriminating numbers that agree there
    compared: int  # discriminating numbers compared there
    complete: bool  # it compares every discriminating number


def rank(found: Table) -> list[Ranked]:
    """The universes by how likely they make the discriminating numbers, most likely first; those that do not
    compare every discriminating number (a ruled-out cell among them) after the others."""
    out = []
    for u in found.universes:
        rows = [found.measured(u, n) for n in found.discriminating]
        logs = [m.log_p for m in rows if m.log_p is not None]
        out.append(
            Ranked(
                u,
                float(sum(logs)),
                sum(bool(m.agrees) for m in rows),
                sum(m.agrees is not None for m in rows),
                found.compares_all(u),
            )
        )
    return sorted(out, key=lambda r: (not r.complete, -r.log_likelihood, r.universe != PAPER))


def scores(found: Table, universe: str, resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """The universe's summed log-probability over the discriminating numbers in each bootstrap resample."""
    total = np.zeros(resamples)
    for n in found.discriminating:
        m = found.measured(universe, n)
        if m.log_p is not None:
            total += resampled(m, resamples, seed)
    return total


def win_share(mine: np.ndarray, theirs: np.ndarray) -> float:
    """The share of resamples in which ``mine`` scores above ``theirs`` (a tie counts half): the bootstrap rule's
    statistic, compared with :data:`FAVOURED`."""
    return float(np.mean(mine > theirs) + 0.5 * np.mean(mine == theirs))


def against_first(found: Table, ranked: Sequence[Ranked]) -> list[str]:
    """Each ranked universe against the first, by the bootstrap rule: "the first"; "a tie (N %)" where the first
    wins in fewer than :data:`FAVOURED` of the resamples; "below the first (N %)" where it wins in at least that
    many; "compares fewer" for a universe that does not compare every discriminating number (its score sums fewer
    numbers)."""
    if not ranked:
        return []
    first = scores(found, ranked[0].universe)
    out = ["the first"]
    for r in ranked[1:]:
        if not r.complete:
            out.append("compares fewer")
            continue
        wins = win_share(first, scores(found, r.universe))
        out.append(f"below the first ({100 * wins:.0f} %)" if wins >= FAVOURED else f"a tie ({100 * wins:.0f} %)")
    return out


@dataclass(frozen=True)
class Preference:
    """What the discriminating numbers say of one universe against the suite's readings."""

    universe: str  # the universe
    moved: tuple[tuple[Number, str, str], ...]  # (number, its value there, at the suite's readings) that move
    wins: float  # the share of resamples in which it makes the numbers more likely than the suite's readings do
    verdict: str  # "favoured", "the suite's reading favoured", "tie" (within the seeds' noise, or nothing moved),
    # "not compared"


def prefer(found: Table, universe: str, resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED) -> Preference:
    """The universe against the suite's readings, by the bootstrap rule (module docstring). A universe that compares
    none of the discriminating numbers (its cells of them ruled out, or not recorded) is "not compared"."""
    if found.discriminating and all(found.measured(universe, n).agrees is None for n in found.discriminating):
        return Preference(universe, (), 0.5, "not compared")
    moved = tuple(
        (n, found.measured(universe, n).shown, found.measured(PAPER, n).shown)
        for n in found.discriminating
        if found.measured(universe, n).agrees is not None
        and found.measured(universe, n).found != found.measured(PAPER, n).found
    )
    if not moved:
        return Preference(universe, (), 0.5, "tie")
    mine, theirs = scores(found, universe, resamples, seed), scores(found, PAPER, resamples, seed)
    if np.array_equal(mine, theirs):
        return Preference(universe, moved, 0.5, "tie")
    wins = win_share(mine, theirs)
    verdict = "favoured" if wins >= FAVOURED else "the suite's reading favoured" if wins <= 1 - FAVOURED else "tie"
    return Preference(universe, moved, wins, verdict)


def label(universe: str) -> str:
    """A universe in words a reader knows its model family by: its readings' labels."""
    parts = [READINGS_BY_NAME[p].label if p in READINGS_BY_NAME else p for p in universe.split("+")]
    return " with ".join(parts)


def instead(universe: str) -> str:
    """What the suite reads in the universe's place ("nanoGPT's N(0, 0.02)")."""
    return " with ".join(
        READINGS_BY_NAME[p].instead if p in READINGS_BY_NAME else "the suite's" for p in universe.split("+")
    )


MOVED_SHOWN = 3  # numbers a reading's line spells out (the rest are counted)


def moved_text(p: Preference, most: int = MOVED_SHOWN) -> str:
    """The discriminating numbers a reading moves: "C13 its baseline 0.02: 0.0522 (suite 0.0554)", the first few."""
    shown = [f"{n.name} {n.stated.text}: {there} (suite {here})" for n, there, here in p.moved[:most]]
    more = f"; and {len(p.moved) - most} more" if len(p.moved) > most else ""
    return "; ".join(shown) + more


def preference_line(p: Preference) -> str:
    """One reading against the suite's in words."""
    if p.verdict == "not compared":
        return f"{p.universe}: not compared: its cells of the numbers that discriminate are ruled out or not recorded"
    if p.verdict == "tie" and not p.moved:
        return f"{p.universe}: a tie: it moves none of the numbers that discriminate"
    values = moved_text(p)
    share = f"wins in {100 * p.wins:.0f} % of {RESAMPLES} resamples"
    if p.verdict == "favoured":
        return f"{p.universe}: favoured, {label(p.universe)} ({values}; {share})"
    if p.verdict == "the suite's reading favoured":
        over = f"{instead(p.universe)} over {label(p.universe)}"
        return f"{p.universe}: the suite's reading favoured, {over} ({values}; {share})"
    return (
        f"{p.universe}: a tie within the seeds' noise: the paper's numbers cannot tell it from the suite's reading "
        f"({values}; {share})"
    )


def preferences(found: Table) -> list[Preference]:
    """Every reading alone against the suite's readings, in the registry's order."""
    names = [r.name for r in READINGS if r.name in found.universes]
    return [prefer(found, u) for u in names]


def sentence(found: Table, detail: bool = True) -> str:
    """What the paper's numbers tell of the open choices, in one sentence: the readings they favour (with the
    number that does it, where ``detail``) and that they cannot tell the others apart."""
    prefs = preferences(found)
    if not prefs:
        return ""
    parts = []
    for p in prefs:
        if p.verdict == "favoured":
            n, there, here = p.moved[0]
            said = (
                f" ({n.claim}'s {n.stated.text}: {there} against {here} under {instead(p.universe)})" if detail else ""
            )
            parts.append(f"{label(p.universe)}{said}")
        elif p.verdict == "the suite's reading favoured":
            parts.append(f"{instead(p.universe)} over {label(p.universe).split(' ')[0]}")
    if not parts:
        return "The paper's numbers cannot tell the open choices apart."
    return f"The paper's numbers favour {' and '.join(parts)}; the rest they cannot tell apart."


def baseline_lines(found: Table) -> list[str]:
    """The untrained baselines under the two definitions: the untrained model's measured fraction (the suite's)
    and 1/d at the width of the column that measures it, against the paper's."""
    out = []
    for n in found.numbers:
        width = n.stated.baseline_width
        if width is None:
            continue
        m = found.measured(PAPER, n)
        inverse = 1.0 / width
        near = abs(inverse - n.stated.low) <= 0.5 * 10.0**-n.stated.digits
        if m.agrees is None:
            measures = f"is not compared ({m.shown})"
        else:
            measures = f"measures {m.shown} ({'agrees' if m.agrees else 'disagrees'})"
        out.append(
            f"{n.column} baseline, paper {n.stated.text}: the untrained model {measures}; 1/d at d = {width} is "
            f"{inverse:.4f} ({'agrees' if near else 'disagrees'})"
        )
    return out


# ----------------------------------------------------------------------------------------------- the renderings


def number_line(found: Table, n: Number, universe: str = PAPER) -> str:
    m = found.measured(universe, n)
    mark = "agrees" if m.agrees else "n/a" if m.agrees is None else "DISAGREES"
    how = f" [{n.stated.why}]" if n.stated.why else ""
    return f"{n.name}: paper {n.stated.text}, measured {m.shown}: {mark}{how}"


def paper_lines(run: RunView | Mapping[str, Any], top: int = 12) -> list[str]:
    """``lengthgen multiverse --paper``: the numbers that discriminate and those that do not, the ranking, each
    reading against the suite's, and the untrained baselines."""
    run = run if isinstance(run, RunView) else RunView.from_json(run)
    found = table(run)
    lines = [f"the paper's {len(found.numbers)} stated numbers, each against the one measurement it names:"]
    lines += [f"  {number_line(found, n)}" for n in found.numbers]
    lines.append(f"agree in every universe ({len(found.agree_everywhere)}): say nothing about the choices")
    lines += [f"  {n.name}" for n in found.agree_everywhere]
    lines.append(f"disagree in every universe ({len(found.disagree_everywhere)}): a finding about the implementation")
    lines += [f"  {n.name}" for n in found.disagree_everywhere]
    lines.append(f"discriminating ({len(found.discriminating)}): the universes are compared on these")
    lines += [f"  {n.name}" for n in found.discriminating]
    lines.append("universes by how likely they make the discriminating numbers (sum of log-probabilities; agree):")
    ranked = rank(found)
    lines.append(
        "  (against the first: the share of resamples in which the first makes the numbers more likely; a tie "
        f"below {100 * FAVOURED:.0f} %)"
    )
    for r, versus in zip(ranked[:top], against_first(found, ranked[:top])):
        lines.append(f"  {r.log_likelihood:9.2f}  {r.agree:>2}/{r.compared:<2} {r.universe}: {versus}")
    if len(ranked) > top:
        lines.append(f"  ... {len(ranked) - top} more universes")
    lines.append(
        f"each reading against the suite's (favoured where it wins in >= {100 * FAVOURED:.0f} % of resamples):"
    )
    lines += [f"  {preference_line(p)}" for p in preferences(found)]
    lines.append("the untrained baselines:")
    lines += [f"  {line}" for line in baseline_lines(found)]
    return lines


@dataclass(frozen=True)
class StatedView:
    """What the paper's stated numbers say about its readings, as the page and docs/robustness.md show it."""

    numbers: tuple[tuple[str, str, str, str, str], ...]  # (claim, quantity, paper, measured at the suite's, why)
    discriminating: tuple[str, ...]  # the numbers that discriminate
    agree_everywhere: tuple[str, ...]  # the numbers that agree in every universe
    disagree_everywhere: tuple[str, ...]  # ... that disagree in every universe
    ranking: tuple[tuple[str, str, str, str], ...]  # (universe, log-likelihood, agree/compared, against the first),
    # the top rows
    more: int  # universes ranked below the rows shown
    per_choice: tuple[str, ...]  # each reading against the suite's
    sentence: str  # what the numbers tell, in one sentence
    baselines: tuple[str, ...]  # the untrained baselines under both definitions


def stated_view(run: RunView) -> StatedView | None:
    """The stated numbers against the run's universes (None without a multiverse part)."""
    if not run.multiverse:
        return None
    found = table(run)
    ranked = rank(found)

    def mark(n: Number) -> str:
        m = found.measured(PAPER, n)
        return f"{m.shown}: {'agrees' if m.agrees else 'n/a' if m.agrees is None else 'disagrees'}"

    return StatedView(
        tuple((n.claim, n.stated.quantity, n.stated.text, mark(n), n.stated.why) for n in found.numbers),
        tuple(n.name for n in found.discriminating),
        tuple(n.name for n in found.agree_everywhere),
        tuple(n.name for n in found.disagree_everywhere),
        tuple(
            (r.universe, f"{r.log_likelihood:.2f}", f"{r.agree} of {r.compared}", versus)
            for r, versus in zip(ranked[:TOP_UNIVERSES], against_first(found, ranked[:TOP_UNIVERSES]))
        ),
        max(0, len(ranked) - TOP_UNIVERSES),
        tuple(preference_line(p) for p in preferences(found)),
        sentence(found),
        tuple(baseline_lines(found)),
    )
