"""What the paper's numbers say about its readings: every number the paper states (each claim's ``stated``, in the
run's catalogue) against the one measurement it names, in every universe of a run (the paper's point, each reading,
each combination), and which readings the numbers can tell apart. ``lengthgen multiverse --paper`` prints it; the
page, the README and docs/robustness.md show it (``lengthgen.report.stated_numbers``). No torch.

The paper's number is itself a mean over the paper's seeds (the claim's recorded ``paper_seeds``: 8 or 5), so it
carries seed noise as the suite's mean does, and it is rounded (a two-digit 0.98 stands for [0.975, 0.985]). One
rule scores a measurement against it (:func:`probability`): the probability that two runs differ by at least what
is seen, the suite's mean against the paper's, with the seeds' variance s^2 estimated from the suite's own seeds:
a two-sided Student's t tail of the gap with variance s^2/n_suite + s^2/n_paper + w^2/12 (w the rounding unit,
10^-digits; the last term is the variance of a value uniform over its rounding interval). A range the paper states
across settings scores each setting by its gap to the range widened by its rounding (0 inside), the settings'
probabilities multiplied: one number however many settings it spans. A universe *agrees* with a number where that
probability is at least :data:`AGREE_P` (in every setting).

The universes are ranked by the sum of the log-probabilities of the numbers that discriminate (those whose
agreement differs between universes); each number's term is bounded below by log :data:`LEAST_P`, so no number the
suite cannot produce (a point far outside) outweighs the rest. The numbers that agree in every universe, or
disagree in every one, say something about the implementation and nothing about the choices: they are listed apart.
A number of a claim run at several widths that names none is compared at every width, each named: never at one
width chosen after seeing a result.

A reading is *favoured* over the suite's only where (1) its advantage survives the seeds' noise: the seeds are
resampled *paired* (:func:`paired_resamples`: every measurement with n seeds draws the same seed indices in a
resample, so universes that share seeds share their resampled seeds; with few seeds every distinct resample is
enumerated with its multinomial weight), and the reading wins in at least :data:`FAVOURED` of them; and (2) numbers
of at least :data:`SAME_WAY_CLAIMS` different claims move its way, each beyond the noise by the same rule. A
preference that passes (1) on one claim's numbers alone "rests on one number" (that claim's, named) and is not
favoured; one within the noise is a tie, as is a reading that moves no discriminating number.

A universe that does not touch a claim measures it as the paper's point does (the same models), so the paper's
point's record stands in for it; a universe whose cell of that claim is ruled out does not compare (its reading is
not one the paper can have used).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from lengthgen.catalogue import Catalogue, Stated
from lengthgen.readings import BY_NAME as READINGS_BY_NAME
from lengthgen.readings import READINGS, CellPlan
from lengthgen.records import ClaimRecord, Verdict
from lengthgen.analysis.outcome import column_of
from lengthgen.analysis.run_view import RunView
from lengthgen.stats import BOOTSTRAP_RESAMPLES, distinct_resamples, every_resample, resample_indices, t_tail

PAPER = "paper"
FAVOURED = 0.95  # the (weighted) share of paired resamples a reading must win to be favoured
AGREE_P = 0.05  # a measurement agrees with a number where runs differ by as much at least this often
LEAST_P = 1e-3  # the least probability one number's term counts: no number outweighs the rest by more than log 1000
SAME_WAY_CLAIMS = 2  # a preference needs numbers of this many different claims moving its way
ENUMERATE_MOST = 20000  # enumerate every distinct joint resample up to this many
BOOTSTRAP_SEED = 20261205  # the random resamples' generator seed: the same answer on every rerun


@dataclass(frozen=True)
class Number:
    """A stated number placed in the run: its claim and the grid column whose record measures it."""

    claim: str  # the claim it belongs to
    column: str  # the grid column whose record measures it (the claim, or "<id>-<variant>")
    stated: Stated  # the number as the claim states it, with its measurement
    paper_seeds: int = 0  # the seeds the paper's mean is over (the claim's paper count; 0: unknown, the suite's)
    width: str = ""  # the column's variant where the claim is compared at several widths ("d64"), else ""

    @property
    def window(self) -> tuple[float, float]:
        """The paper's value or range, widened by its rounding."""
        h = self.stated.half_unit
        return self.stated.low - h, self.stated.high + h

    @property
    def name(self) -> str:
        return f"{self.claim}{f' {self.width}' if self.width else ''} {self.stated.quantity}"

    @property
    def short(self) -> str:
        """The number as a reader finds it in the paper: "C13's 0.98"."""
        return f"{self.claim}'s {self.stated.text}"


def numbers(
    catalogue: Catalogue, paper_seeds: Mapping[str, int] | None = None, widths: Mapping[str, str] | None = None
) -> list[Number]:
    """Every number the run's catalogue states, in the catalogue's order. A number of a claim run at several widths
    that names none (``variant`` empty) is placed at each of its columns, each named by ``widths`` (column ->
    variant, from the paper's point's records); ``paper_seeds``: column -> the paper's seed count."""
    seeds, named = paper_seeds or {}, widths or {}
    out = []
    for e in catalogue:
        for s in e.stated:
            own = f"{e.id}-{s.variant}" if s.variant else e.id
            columns = e.columns if not s.variant and len(e.columns) > 1 and named else (own,)
            for column in columns:
                width = named.get(column, "") if len(columns) > 1 else ""
                out.append(Number(e.id, column, s, seeds.get(column, 0), width))
    return out


# ----------------------------------------------------------------------------------------------- one measurement


@dataclass(frozen=True)
class SettingValues:
    """One setting's measurement of a number in one record: its per-seed values (averaged over the number's
    measures, seed by seed) or its exact value."""

    values: tuple[float, ...]  # per seed (one value: an exact computation, or one seed)

    @property
    def mean(self) -> float:
        return math.fsum(self.values) / len(self.values)


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


def probability(number: Number, values: np.ndarray) -> np.ndarray:
    """The probability that two runs differ by at least what is seen (module docstring), for each row of ``values``
    (... x seeds): the suite's seed mean against the paper's value (a mean over ``number.paper_seeds`` seeds, the
    same spread, rounded) or its range widened by its rounding. Without spread (an exact computation, one seed) the
    rounding alone is the noise; a range then scores 1 inside and 0 outside."""
    values = np.asarray(values, dtype=float)
    n = values.shape[-1]
    mean = values.mean(axis=-1)
    var = values.var(axis=-1, ddof=1) if n > 1 else np.zeros_like(mean)
    noise = var / n + var / (number.paper_seeds or n)
    low, high = number.window
    if number.stated.low == number.stated.high:
        gap = np.abs(mean - number.stated.low)
        noise = noise + (2 * number.stated.half_unit) ** 2 / 12
    else:
        gap = np.maximum(0.0, np.maximum(low - mean, mean - high))
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = t_tail(gap / np.sqrt(noise), n - 1 if n > 1 else np.inf)
    return np.minimum(np.where(noise > 0, tail, (gap == 0).astype(float)), 1.0)


def agrees(number: Number, found: Sequence[SettingValues]) -> bool:
    """The one agreement rule: in every setting, runs differ by what is seen at least :data:`AGREE_P` of the time."""
    return all(float(probability(number, np.array(s.values))) >= AGREE_P for s in found)


def log_score(number: Number, found: Sequence[np.ndarray]) -> np.ndarray:
    """One number's term: the log of its settings' probabilities multiplied, bounded below by log :data:`LEAST_P`
    (``found``: per setting, its values as rows of resamples x seeds, or one row)."""
    with np.errstate(divide="ignore"):
        total = sum(np.log(probability(number, v)) for v in found)
    return np.maximum(total, math.log(LEAST_P))


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
        """Its bounded log-probability at the recorded seeds (None where not compared, or a count of checks)."""
        if self.agrees is None or not self.found:
            return None
        return float(log_score(self.number, [np.array(s.values) for s in self.found]))


def measured_in(number: Number, record: ClaimRecord | None, universe: str) -> Measured:
    if record is None:
        return Measured(number, universe, None, (), None, "no record")
    if record.ruled_out is not None or record.verdict is Verdict.RULED_OUT:
        return Measured(number, universe, None, (), None, Verdict.RULED_OUT.value)
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
    from lengthgen.analysis.multiverse import registry_order

    catalogue, plan = run.catalogue, run.plan
    paper = {column_of(r, catalogue): r for r in run.records if r.scale.get("name", "paper") == "paper"}
    cells = {(r.universe, column_of(r, catalogue)): r for r in run.multiverse}
    universes = (PAPER,) + tuple(sorted(dict.fromkeys(u for u, _ in cells), key=registry_order))
    seeds = {column: int(r.scale.get("paper_seeds") or 0) for column, r in paper.items()}
    widths = {column: r.variant for column, r in paper.items() if r.variant}
    found = tuple(numbers(catalogue, seeds, widths))
    rows = {
        u: tuple(measured_in(n, record_in(u, n.column, paper, cells, plan, catalogue), u) for n in found)
        for u in universes
    }
    return Table(found, universes, rows)


# ----------------------------------------------------------------------------------------------- the ranking


@dataclass(frozen=True)
class Resamples:
    """Paired bootstrap resamples of the seeds: per seed count, the seed indices each resample draws, shared by
    every measurement with that many seeds (so two universes that share seeds share their resampled seeds)."""

    indices: Mapping[int, np.ndarray]  # seed count -> (resamples, seeds) indices into a measurement's seeds
    weights: np.ndarray  # (resamples,): each resample's probability under the bootstrap; they sum to 1
    distinct: int  # the distinct joint resamples there are
    enumerated: bool  # every distinct one is here (else random draws)

    @property
    def size(self) -> int:
        return len(self.weights)

    def text(self) -> str:
        """How the resamples were taken, in words: "all 126 distinct paired resamples"."""
        if self.enumerated:
            return f"all {self.distinct} distinct paired resamples"
        return f"{self.size} random paired resamples of {self.distinct} distinct"


def paired_resamples(
    counts: Iterable[int], most: int = ENUMERATE_MOST, draws: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> Resamples:
    """Paired resamples for measurements with the given seed counts (counts under 2 have nothing to resample):
    every distinct joint resample with its weight where there are at most ``most`` (``lengthgen.stats``'
    :func:`every_resample` per seed count, joined), else ``draws`` random ones per seed count
    (:func:`resample_indices`, one after another from one generator seeded with ``seed``), equally weighted. A
    general statistic: nothing here knows the paper."""
    sizes = sorted({int(c) for c in counts if c >= 2})
    distinct = math.prod(distinct_resamples(n) for n in sizes)
    if distinct <= most:
        parts = [every_resample(n) for n in sizes]
        grid = [g.ravel() for g in np.meshgrid(*[np.arange(len(w)) for _, w in parts], indexing="ij")] if parts else []
        weights = np.prod([w[g] for (_, w), g in zip(parts, grid)], axis=0) if parts else np.ones(1)
        indices = {n: rows[g] for n, (rows, _), g in zip(sizes, parts, grid)}
        return Resamples(indices, np.asarray(weights, dtype=float), distinct, True)
    rng = np.random.default_rng(seed)
    indices = {n: resample_indices(n, draws, rng) for n in sizes}
    return Resamples(indices, np.full(draws, 1.0 / draws), distinct, False)


def resample_plan(found: Table) -> Resamples:
    """The paired resamples of a table: over the seed counts of every discriminating number's measurements."""
    counts = {len(s.values) for u in found.universes for n in found.discriminating for s in found.measured(u, n).found}
    return paired_resamples(counts)


def resampled(measured: Measured, plan: Resamples) -> np.ndarray:
    """Its bounded log-probability in each paired resample ((resamples,)); a setting of one value (an exact
    computation) is its own resample."""
    rows = []
    for setting in measured.found:
        values = np.asarray(setting.values)
        rows.append(values[plan.indices[values.size]] if values.size in plan.indices else values[None, :])
    return np.broadcast_to(log_score(measured.number, rows), (plan.size,))


@dataclass(frozen=True)
class Ranked:
    """A universe and how likely it makes the paper's discriminating numbers."""

    universe: str  # its name ("paper": the suite's readings)
    log_likelihood: float  # the sum of the discriminating numbers' bounded log-probabilities at the recorded seeds
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


def scores(found: Table, universe: str, plan: Resamples | None = None) -> np.ndarray:
    """The universe's summed bounded log-probability over the discriminating numbers in each paired resample."""
    plan = plan if plan is not None else resample_plan(found)
    total = np.zeros(plan.size)
    for n in found.discriminating:
        m = found.measured(universe, n)
        if m.log_p is not None:
            total += resampled(m, plan)
    return total


def win_share(mine: np.ndarray, theirs: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The (weighted) share of resamples in which ``mine`` scores above ``theirs`` (a tie counts half): the
    bootstrap rule's statistic, compared with :data:`FAVOURED`."""
    w = np.full(len(mine), 1.0 / len(mine)) if weights is None else np.asarray(weights) / np.sum(weights)
    return float(np.sum(w * (mine > theirs)) + 0.5 * np.sum(w * (mine == theirs)))


def against_first(found: Table, ranked: Sequence[Ranked]) -> list[str]:
    """Each ranked universe against the first, by the bootstrap rule: "the first"; "a tie (N %)" where the first
    wins in fewer than :data:`FAVOURED` of the paired resamples; "below the first (N %)" where it wins in at least
    that many; "compares fewer" for a universe that does not compare every discriminating number (its score sums
    fewer numbers)."""
    if not ranked:
        return []
    plan = resample_plan(found)
    first = scores(found, ranked[0].universe, plan)
    out = ["the first"]
    for r in ranked[1:]:
        if not r.complete:
            out.append("compares fewer")
            continue
        wins = win_share(first, scores(found, r.universe, plan), plan.weights)
        out.append(f"below the first ({100 * wins:.0f} %)" if wins >= FAVOURED else f"a tie ({100 * wins:.0f} %)")
    return out


FAVOURED_VERDICT = "favoured"
SUITE_FAVOURED = "the suite's reading favoured"
ONE_CLAIM = "rests on one claim"
NO_NUMBER = "no one number beyond its own noise"  # what a lean rests on when only the sum of the moves leans
TIE = "tie"
NOT_COMPARED = "not compared"


@dataclass(frozen=True)
class Preference:
    """What the discriminating numbers say of one universe against the suite's readings."""

    universe: str  # the universe
    moved: tuple[tuple[Number, str, str], ...]  # (number, its value there, at the suite's readings) that move
    wins: float  # the weighted share of paired resamples in which it makes the numbers more likely than the suite's
    verdict: str  # FAVOURED_VERDICT, SUITE_FAVOURED, ONE_CLAIM (beyond the noise on one claim's numbers), TIE
    # (within the seeds' noise, or nothing moved), NOT_COMPARED
    toward: tuple[Number, ...] = ()  # the moved numbers that move the winning side's way, each beyond the noise
    leans: str = ""  # the side the noise-surviving preference leans to: the universe, PAPER, or "" (none)
    resamples: str = ""  # how the seeds were resampled, in words

    @property
    def claims(self) -> tuple[str, ...]:
        """The claims whose numbers move the winning side's way."""
        return tuple(dict.fromkeys(n.claim for n in self.toward))


def rests_on(numbers_: Sequence[Number]) -> str:
    """What a one-claim preference rests on: "one number: C13's 0.98"; several numbers of one claim (or of its
    widths) named with the claim once: "one claim's numbers: C13's 0.98, 0.02"; none (the sum of the moves leans,
    but no number moves beyond its own noise): :data:`NO_NUMBER`."""
    if not numbers_:
        return NO_NUMBER
    texts = list(dict.fromkeys(n.stated.text for n in numbers_))
    if len(texts) == 1:
        widths = [n.width for n in numbers_ if n.width]
        at = f", at {' and '.join(widths)}" if widths else ""
        return f"one number: {numbers_[0].short}{at}"
    return f"one claim's numbers: {numbers_[0].claim}'s {', '.join(texts)}"


def moves_toward(there: Measured, here: Measured, mine: bool, plan: Resamples) -> bool:
    """One number moves a preference's way beyond the seeds' noise: its own term wins in at least :data:`FAVOURED`
    of the paired resamples for the universe (``mine``), or for the suite's reading."""
    if there.log_p is None or here.log_p is None:
        return False
    wins = win_share(resampled(there, plan), resampled(here, plan), plan.weights)
    return wins >= FAVOURED if mine else wins <= 1 - FAVOURED


def prefer(found: Table, universe: str, plan: Resamples | None = None) -> Preference:
    """The universe against the suite's readings, by the paired bootstrap rule and the two-claims rule (module
    docstring). A universe that compares none of the discriminating numbers (its cells of them ruled out, or not
    recorded) is "not compared"."""
    if found.discriminating and all(found.measured(universe, n).agrees is None for n in found.discriminating):
        return Preference(universe, (), 0.5, NOT_COMPARED)
    pairs = [
        (n, found.measured(universe, n), found.measured(PAPER, n))
        for n in found.discriminating
        if found.measured(universe, n).agrees is not None
        and found.measured(universe, n).found != found.measured(PAPER, n).found
    ]
    moved = tuple((n, there.shown, here.shown) for n, there, here in pairs)
    if not moved:
        return Preference(universe, (), 0.5, TIE)
    plan = plan if plan is not None else resample_plan(found)
    mine, theirs = scores(found, universe, plan), scores(found, PAPER, plan)
    if np.array_equal(mine, theirs):
        return Preference(universe, moved, 0.5, TIE, resamples=plan.text())
    wins = win_share(mine, theirs, plan.weights)
    leans = universe if wins >= FAVOURED else PAPER if wins <= 1 - FAVOURED else ""
    if not leans:
        return Preference(universe, moved, wins, TIE, resamples=plan.text())
    toward = tuple(n for n, there, here in pairs if moves_toward(there, here, leans == universe, plan))
    if len(dict.fromkeys(n.claim for n in toward)) < SAME_WAY_CLAIMS:
        verdict = ONE_CLAIM
    else:
        verdict = FAVOURED_VERDICT if leans == universe else SUITE_FAVOURED
    return Preference(universe, moved, wins, verdict, toward, leans, plan.text())


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
    """One reading against the suite's in words, with how many claims' numbers the preference rests on."""
    if p.verdict == NOT_COMPARED:
        return f"{p.universe}: not compared: its cells of the numbers that discriminate are ruled out or not recorded"
    if p.verdict == TIE and not p.moved:
        return f"{p.universe}: a tie: it moves none of the numbers that discriminate"
    values = moved_text(p)
    share = f"wins in {100 * p.wins:.0f} % of {p.resamples}"
    claims = f"numbers of {len(p.claims)} claims ({', '.join(p.claims)}) move its way"
    if p.verdict == FAVOURED_VERDICT:
        return f"{p.universe}: favoured, {label(p.universe)}: {claims} ({values}; {share})"
    if p.verdict == SUITE_FAVOURED:
        over = f"{instead(p.universe)} over {label(p.universe)}"
        return f"{p.universe}: the suite's reading favoured, {over}: {claims} ({values}; {share})"
    if p.verdict == ONE_CLAIM and not p.toward:
        return f"{p.universe}: not favoured: the lean to {lean_side(p)} rests on {NO_NUMBER} ({values}; {share})"
    if p.verdict == ONE_CLAIM:
        return (
            f"{p.universe}: not favoured: the lean to {lean_side(p)} rests on {rests_on(p.toward)}, and no other "
            f"claim's number moves its way ({values}; {share})"
        )
    return (
        f"{p.universe}: a tie within the seeds' noise: the paper's numbers cannot tell it from the suite's reading "
        f"({values}; {share})"
    )


def preferences(found: Table) -> list[Preference]:
    """Every reading alone against the suite's readings, in the registry's order."""
    names = [r.name for r in READINGS if r.name in found.universes]
    plan = resample_plan(found)
    return [prefer(found, u, plan) for u in names]


def sentence(found: Table, detail: bool = True, leans: bool = True) -> str:
    """What the paper's numbers tell of the open choices, in one sentence: the readings they favour (with the claims
    whose numbers move their way, where ``detail``), the leans that rest on one claim's numbers (each named with
    them where ``detail``, else together; none where not ``leans``), and that they cannot tell the rest apart."""
    prefs = preferences(found)
    if not prefs:
        return ""
    parts, single = [], [p for p in prefs if p.verdict == ONE_CLAIM and leans]
    for p in prefs:
        said = f" (numbers of {', '.join(p.claims)})" if detail else ""
        if p.verdict == FAVOURED_VERDICT:
            parts.append(f"{label(p.universe)}{said}")
        elif p.verdict == SUITE_FAVOURED:
            parts.append(f"{instead(p.universe)} over {label(p.universe).split(' ')[0]}{said}")
    lean = ""
    if single and detail:
        lean = "".join(f"; {lean_side(p)} is not favoured: its lead rests on {rests_on(p.toward)}" for p in single)
    elif single:
        claims = list(dict.fromkeys(c for p in single for c in p.claims))
        lean = f"; other leans rest on {' and '.join(claims)} alone" if claims else f"; other leans rest on {NO_NUMBER}"
    if not parts:
        return f"The paper's numbers favour no open choice{lean}."
    rest = "; the rest they cannot tell apart" if detail or (leans and not single) else ""
    return f"The paper's numbers favour {' and '.join(parts)}{lean}{rest}."


def lean_side(p: Preference) -> str:
    """The side a one-claim lean goes to, in words: the reading's label, or the suite's over it."""
    return label(p.universe) if p.leans == p.universe else f"{instead(p.universe)} over {label(p.universe)}"


def baseline_lines(found: Table) -> list[str]:
    """The untrained baselines under the two definitions: the untrained model's measured fraction (the suite's)
    and 1/d at the width of the column that measures it, against the paper's."""
    out = []
    for n in found.numbers:
        width = n.stated.baseline_width
        if width is None or n.column != (f"{n.claim}-{n.stated.variant}" if n.stated.variant else n.claim):
            continue  # the width its 1/d reading names is its own column's
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
