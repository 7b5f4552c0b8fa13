"""One comparison of a measured statistic with a threshold (:class:`Check`) and one measured quantity without a
threshold (:class:`Measure`): what a claim test records, serialised once with the facts derived from it, and read
back as the same types by everything that shows a run (the terminal, the page, the markdown summary, the diff, the
grids and the curves). Plain: no torch; scipy's statistics only where an interval is computed.

The facts a check derives at creation (its ``close``, ``has_interval``, ``basis``) follow one rule, the same at the
paper's point, in a robustness cell and in a multiverse cell:

- Every check states its uncertainty (``uncertainty``), by the kind of its statistic:
  a mean over seeds has its 95% t-interval, for a quantity with bounds (``bounds``: an accuracy, a share, a
  fraction in [0, 1]) clipped to them (``interval == "bounded"``: the same coverage, no end outside the bounds;
  ``lengthgen.stats.bounded_interval``); a statistic of the seed-mean curve has the seed bootstrap
  (``interval == "bootstrap"``); a check that every seed must pass, or a min or max over seeds, counts the seeds
  that fail (``failing``, its statistic the worst seed) with the exact Clopper-Pearson interval of the failing
  share (``failing_ci``); an exact computation says so; a single number without seeds says that.
- A check *has an interval* when its statistic is a mean over seeds (a t or bounded interval) or a statistic of
  the seed-mean curve, and it is an inequality or an "in" range. Every other check is never close: an exact
  computation (no seeds); a check that every seed must pass, or a min or max over seeds (more seeds can only
  find a worse seed: its count of failing seeds is what a comparison with another run reads); an identity
  ``==`` / ``!=`` (a discrete outcome such as a selected offset); a single number.
- A check is *close* when it has an interval and that interval (its ``decision_ci`` under
  ``--lengthgen-until-decided``, else its 95% ``ci95``) contains its threshold (either bound of "in"): more seeds
  could flip it. A check that is not close is *decided*.
- Its *basis* is where its threshold comes from, in the words the report groups by: the paper's number or range
  ("paper"), the suite's reading of the paper's words ("suite reading"), a prediction's threshold ("catalogue
  prediction").

A check carries what it measures as data: ``at``, its coordinates (``{"encoding": "rope", "K": 2, "L": 40}``, the
ones its name prints), which is what a multiverse cell's checks are matched with its preconditions by
(``lengthgen.analysis.outcome.twins``). A record written before checks carried them is read by its names
(:func:`coordinates_of`).
"""

from __future__ import annotations

import math
import numbers
import operator
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping, Sequence

from lengthgen.config import ENCODINGS
from lengthgen.sequential import seeds_to_decide, standard_error
from lengthgen.stats import clip, clopper_pearson, t_interval

OPS = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
    "in": lambda value, bounds: bounds[0] <= value <= bounds[1],
}
INTERVAL_OPS = (">=", ">", "<=", "<", "in")  # comparisons whose check can be close (not == / !=)
REDUCTIONS = ("mean", "min", "max", "all")  # how per-seed values become the statistic
EVERY_SEED = {  # (reduction, comparison) of a check that every seed must pass: its seeds that fail are counted
    ("min", ">="),
    ("min", ">"),
    ("max", "<="),
    ("max", "<"),
}
INTERVAL_KINDS = ("t", "bounded", "bootstrap", "exact")  # how a check's interval was computed
UNIT_BOUNDS = (0.0, 1.0)  # an accuracy, a share, a fraction
# The quantities a check's name reads that have bounds, for a check that states none (``bounds_of``): an accuracy
# (not a difference of two), a carrier fraction, a share or fraction of cells. A check states its own bounds where
# its quantity is measured (``ClaimRecorder.check(..., bounds=...)``); a record written before checks stated them
# is read by these words.
BOUNDED_WORDS = re.compile(r"\baccuracy\b|\bcarrier fraction\b|^share of\b|^fraction of\b")
UNBOUNDED_WORDS = re.compile(r"\bminus\b| - ")  # a difference of two bounded quantities is not in their bounds
DECISION_LEVEL = 0.95  # the level of ci95; --lengthgen-until-decided raises a run's decision level

THRESHOLD_SOURCES = ("paper-number", "paper-range", "suite-reading", "catalogue-prediction")
# Where a check's threshold comes from (``Check.threshold_source``); which label a check may carry is decided by
# rule from its claim's quote and the token it reads (``Check.quoted``; lengthgen/records/basis.py):
# paper-number: the paper states it: a number within its rounding or an exact condition (the selected offset
#   equals the target in 100% of cells, c > 0, c falls with width);
# paper-range: the paper's own range, unwidened;
# suite-reading: the suite's reading of the paper's words or numbers: a qualitative word ("near-perfect" as
#   >= 0.95, "near chance" as <= 1/m + 0.10, "a few hundred steps" as before step 1000, "every seed" where the
#   quote does not say every, all or 100%), a margin around a number the paper states (0.96 read as >= 0.85), or the
#   paper's range widened (0.72-0.86 read as [0.65, 0.95]);
# catalogue-prediction: a prediction's threshold, fixed by the catalogue before its test was written; the paper
#   states none.
BASES = {  # a source's basis: how the report groups failures
    "paper-number": "paper",
    "paper-range": "paper",
    "suite-reading": "suite reading",
    "catalogue-prediction": "catalogue prediction",
    None: "suite reading",  # a check that states no source counts as the suite's reading
}
THRESHOLD_BASES = ("paper", "suite reading", "catalogue prediction")


def summarise(values: Sequence[float]) -> tuple[float, tuple[float, float] | None]:
    """The mean over ``values`` and its two-sided 95% t-interval (None below two values; a point for no spread;
    ``lengthgen.stats.t_interval``)."""
    values = tuple(float(v) for v in values)
    if not values:
        raise ValueError("cannot summarise an empty list of values")
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return mean, None
    return mean, t_interval(values) or (mean, mean)


def bounds_of(name: str) -> tuple[float, float] | None:
    """The bounds of the quantity a check's name reads, for a check that states none (``BOUNDED_WORDS``):
    (0, 1) for an accuracy, a carrier fraction, a share or fraction of cells; None for any other."""
    said = name.partition(": ")[2] or name
    if UNBOUNDED_WORDS.search(said) or not BOUNDED_WORDS.search(said):
        return None
    return UNIT_BOUNDS


# The coordinates a check's name prints, for a check read without ``at`` (written before checks carried them):
# "K=2", "L=12", "lambda=0" (a name, "=", digits) and the encoding it names.
PRINTED_SETTING = re.compile(r"\b([A-Za-z]+)=(\d+)\b")
PRINTED_ENCODING = re.compile(rf"\b({'|'.join(ENCODINGS)})\b", re.IGNORECASE)


def coordinates_of(name: str) -> dict[str, Any]:
    """The coordinates an older record's check name prints: each setting's first value ("K=2 L=40" ->
    ``{"K": 2, "L": 40}``) and ``"encoding"`` where the name names one encoding (none where it names two: a
    comparison of them). Only for a check read without ``at``; a check made now states its own."""
    at: dict[str, Any] = {}
    encodings = {m.lower() for m in PRINTED_ENCODING.findall(name)}
    if len(encodings) == 1:
        at["encoding"] = encodings.pop()
    for key, value in PRINTED_SETTING.findall(name):
        at.setdefault(key, int(value))
    return at


def coordinate(name: str, key: Any, value: Any) -> str | int | float:
    """One coordinate's value of the check ``name`` as JSON holds it: a str (an encoding), an int (K, L, a width)
    or a float (a lambda, a base); ValueError naming it for any other key or value."""
    if not isinstance(key, str) or not key:
        raise ValueError(f"check {name!r}: coordinate {key!r} must be a non-empty name")
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"check {name!r}: coordinate {key}={value!r} must be a str or a number")


def fails(value: float | None, op: str, threshold: Any) -> bool:
    """Whether one seed's value fails ``op threshold`` (a value that is not finite fails)."""
    if value is None or not math.isfinite(float(value)):
        return True
    return not OPS[op](float(value), threshold)


def worst(values: Sequence[float | None], op: str, threshold: Any) -> float | None:
    """The worst seed of a check that every seed must pass: of the failing values the one furthest from the
    threshold (a value that is not finite first: None), else the passing one nearest to failing."""
    failing = [v for v in values if fails(v, op, threshold)]
    if any(v is None or not math.isfinite(float(v)) for v in failing):
        return None
    pool = [float(v) for v in (failing or values)]
    if op in (">=", ">"):
        return min(pool)
    if op in ("<=", "<"):
        return max(pool)
    if op == "in":
        return min(pool, key=lambda v: min(v - threshold[0], threshold[1] - v))
    if op == "==":  # failing: the furthest from the threshold; else every value equals it
        return max(pool, key=lambda v: abs(v - float(threshold)))
    return min(pool, key=lambda v: abs(v - float(threshold)))  # "!=": the nearest to the threshold


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{float(value):.4g}"


def _pair(value: Any) -> tuple[float, float] | None:
    """An interval read back from JSON, where a bound that was not finite is null (read as NaN)."""
    if value is None:
        return None
    return tuple(math.nan if v is None else float(v) for v in value[:2])  # type: ignore[return-value]


@dataclass(frozen=True)
class Measure:
    """A measured quantity without a threshold: its mean over seeds, 95% interval and per-seed values."""

    name: str  # what is measured
    mean: float | None  # the mean over ``values`` (None: not finite in a JSON file)
    ci95: tuple[float, float] | None  # its 95% t-interval (None with one value)
    values: tuple[float | None, ...]  # the per-seed (or per-cell) values
    headline: bool = False  # set beside the paper's value: the report shows headline quantities first

    @classmethod
    def of(cls, name: str, values: float | Sequence[float], headline: bool = False) -> "Measure":
        values = (values,) if isinstance(values, (int, float)) else tuple(values)
        mean, ci = summarise(values)
        return cls(name, mean, ci, tuple(float(v) for v in values), headline)

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci95": self.ci95, "values": list(self.values), "headline": self.headline}

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any], headline: bool = False) -> "Measure":
        return cls(
            name,
            data.get("mean"),
            _pair(data.get("ci95")),
            tuple(data.get("values") or ()),
            bool(data.get("headline", headline)),
        )


def contains(interval: Sequence[float] | None, op: str, threshold: Any) -> bool:
    """Whether the threshold (either bound of an "in" range) lies within ``interval``."""
    if interval is None:
        return False
    low, high = float(interval[0]), float(interval[1])
    points = [threshold[0], threshold[1]] if op == "in" else [threshold]
    return any(low <= float(p) <= high for p in points)


def interval_of(op: str, reduce: str | None, interval: str | None) -> bool:
    """Whether a check of this comparison, reduction and interval kind can be close (module docstring)."""
    if op not in INTERVAL_OPS:
        return False
    if interval in ("t", "bounded"):
        return reduce == "mean"
    return interval == "bootstrap"


@dataclass(frozen=True)
class Check:
    """One comparison of a measured statistic with a threshold, with the facts derived from it."""

    name: str  # what is compared, e.g. "RoPE K=2 L=40: accuracy (mean over seeds)"
    value: float | None  # the statistic compared with the threshold (None: not finite in a JSON file)
    op: str  # one of OPS
    threshold: float | tuple[float, float]  # a number, or (low, high) for "in"
    passed: bool  # the comparison held (every value, for reduce "all")
    values: tuple[float | None, ...] | None = None  # the per-seed (or per-cell) values the statistic summarises
    ci95: tuple[float, float] | None = None  # 95% interval of the statistic (t over seeds, or the seed bootstrap)
    paper: str | None = None  # the paper's value for this quantity, as the paper states it
    reduce: str | None = None  # how ``values`` became ``value``: mean, min, max, all (None: a single number)
    interval: str | None = None  # how ``ci95`` was computed: "t", "bootstrap", "exact" (None: no interval)
    decision_ci: tuple[float, float] | None = None  # the interval at the run's decision level (--until-decided)
    level: float = DECISION_LEVEL  # the level of the deciding interval (decision_ci where set, else ci95)
    seeds: int | None = None  # the seeds behind its interval (None: no seeds, or an older record's check)
    threshold_source: str | None = None  # where the threshold comes from: one of THRESHOLD_SOURCES (None: unstated)
    threshold_note: str | None = None  # the paper's words or number the threshold reads, e.g. '"near-perfect"'
    quoted: str | None = None  # the token of its claim's quote a paper label reads ("0.98"; records.basis)
    expected_to_fail: bool = False  # named by the record's declared non-reproduction
    bounds: tuple[float, float] | None = None  # the quantity's bounds, e.g. (0, 1) for an accuracy (None: none)
    at: Mapping[str, Any] = field(default_factory=dict, hash=False)  # its coordinates, the ones its name prints:
    # {"encoding": "rope", "K": 2, "L": 40} (empty: none); written only when it has some; a dict, so not hashed
    has_interval: bool = field(default=False, init=False)  # derived: it can be close (module docstring)
    failing: int | None = field(default=None, init=False)  # derived: seeds that fail (a check every seed must pass)
    failing_ci: tuple[float, float] | None = field(default=None, init=False)  # derived: the failing share's exact
    # 95% interval (Clopper-Pearson)
    close: bool = field(default=False, init=False)  # derived: its deciding interval contains its threshold
    basis: str = field(default="", init=False)  # derived: "paper", "suite reading" or "catalogue prediction"

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"check {self.name!r}: unknown comparison {self.op!r}")
        if self.threshold_source not in BASES:
            raise ValueError(
                f"check {self.name!r}: unknown threshold source {self.threshold_source!r}; expected one of "
                f"{', '.join(THRESHOLD_SOURCES)}"
            )
        if self.bounds is not None:
            low, high = (float(b) for b in self.bounds)
            if not low < high:
                raise ValueError(f"check {self.name!r}: bounds {self.bounds!r} must be (low, high) with low < high")
            object.__setattr__(self, "bounds", (low, high))
        if not isinstance(self.at, Mapping):
            raise ValueError(f"check {self.name!r}: at={self.at!r} must be a mapping of coordinate -> value")
        object.__setattr__(self, "at", {key: coordinate(self.name, key, value) for key, value in self.at.items()})
        if self.counted:
            object.__setattr__(self, "value", worst(self.values, self.op, self.threshold))
            failing = sum(1 for v in self.values if fails(v, self.op, self.threshold))
            object.__setattr__(self, "failing", failing)
            object.__setattr__(self, "failing_ci", clopper_pearson(failing, len(self.values)))
        elif self._bounded_mean():  # its t-interval (at each level) clipped to the bounds
            object.__setattr__(self, "interval", "bounded")
            object.__setattr__(self, "ci95", clip(self.ci95, self.bounds))
            object.__setattr__(self, "decision_ci", clip(self.decision_ci, self.bounds))
        with_interval = interval_of(self.op, self.reduce, self.interval)
        object.__setattr__(self, "has_interval", with_interval)
        object.__setattr__(self, "close", with_interval and contains(self.deciding_interval, self.op, self.threshold))
        object.__setattr__(self, "basis", BASES[self.threshold_source])

    @property
    def counted(self) -> bool:
        """Every seed must pass it (reduce "all", or a min that must clear a floor, a max that must stay under a
        ceiling, over recorded values): its failing seeds count."""
        every = self.reduce == "all" or (self.reduce, self.op) in EVERY_SEED
        return every and bool(self.values)

    def _bounded_mean(self) -> bool:
        """A mean over seeds of a bounded quantity (its values within the bounds) whose t-interval is clipped to
        them."""
        if self.bounds is None or self.reduce != "mean" or self.interval not in ("t", "bounded") or not self.values:
            return False
        if self.ci95 is None or any(v is None or not math.isfinite(float(v)) for v in self.values):
            return False
        return all(self.bounds[0] <= float(v) <= self.bounds[1] for v in self.values)

    @property
    def seed_count_text(self) -> str | None:
        """ "3 of 5 seeds at -40" (the failing seeds, the worst value) for a check every seed must pass; "0 of 5
        seeds fail" where none fails; None for any other check."""
        if not self.counted:
            return None
        n, shown = len(self.values), _num(self.value)
        if not self.failing:
            return f"0 of {n} seeds fail"
        return f"{self.failing} of {n} seed{'s' if n > 1 else ''} at {shown}"

    @property
    def uncertainty(self) -> str:
        """Its uncertainty statement, in words (module docstring): the interval and its kind, the failing seeds
        with their share's exact interval, "exact", or why it has none."""
        if self.counted:
            low, high = self.failing_ci
            return (
                f"{self.failing} of {len(self.values)} seeds fail (failing share 95% exact interval "
                f"[{low:.2f}, {high:.2f}], Clopper-Pearson)"
            )
        if self.interval == "exact":
            return "exact (no seeds, no interval)"
        ci = self.ci95
        if self.interval in ("t", "bounded", "bootstrap") and ci is not None:
            kind = {"t": "t-interval", "bootstrap": "seed bootstrap"}.get(self.interval, "")
            if self.interval == "bounded":
                kind = f"t-interval within [{_num(self.bounds[0])}, {_num(self.bounds[1])}]"
            return f"95% {kind} [{_num(ci[0])}, {_num(ci[1])}]"
        if self.values and len(self.values) == 1:
            return "one seed: no interval"
        return "a single number without seeds: no interval"

    @property
    def decided(self) -> bool:
        """Not close: its interval (if any) excludes its threshold, so more seeds would not flip it."""
        return not self.close

    @property
    def deciding_interval(self) -> tuple[float, float] | None:
        """The interval that decides whether it is close: ``decision_ci`` under --until-decided, else ``ci95``."""
        return self.decision_ci or self.ci95

    @property
    def distance(self) -> float | None:
        """The statistic's signed distance to its threshold, positive on the passing side (nearest bound of "in");
        None for ``==`` / ``!=`` or a statistic that is not finite."""
        return self.distance_of(self.value)

    def distance_of(self, point: float | None) -> float | None:
        """:attr:`distance` of ``point`` in place of the statistic."""
        if point is None or not math.isfinite(float(point)):
            return None
        point, op, threshold = float(point), self.op, self.threshold
        if op in (">=", ">"):
            return point - float(threshold)
        if op in ("<=", "<"):
            return float(threshold) - point
        if op == "in":
            return min(point - float(threshold[0]), float(threshold[1]) - point)
        return None

    @property
    def standard_error(self) -> float | None:
        """The statistic's standard error, from its 95% interval (None without an interval)."""
        if not self.has_interval or self.ci95 is None:
            return None
        return standard_error(self.unclipped(self.ci95), self.seeds or 0, self.se_kind)

    @property
    def se_kind(self) -> str:
        """How its interval implies a standard error (``lengthgen.sequential.standard_error``): a t-interval (bounded
        or not) by the t quantile, a seed bootstrap by the normal quantile."""
        return "t" if self.interval == "bounded" else self.interval or ""

    def unclipped(self, interval: tuple[float, float] | None) -> tuple[float, float] | None:
        """A bounded check's t-interval before it was clipped to the bounds (its wider side about the mean, mirrored:
        a t-interval is symmetric); any other interval as it is."""
        if self.interval != "bounded" or interval is None or self.value is None:
            return interval
        half = max(float(self.value) - interval[0], interval[1] - float(self.value))
        return (float(self.value) - half, float(self.value) + half)

    @property
    def margin(self) -> tuple[float, float, float] | None:
        """``(z, low, high)``: the distance to the threshold in standard errors (positive: the check holds) and its
        deciding interval in the same units, so that the interval contains 0 exactly when the check is close;
        None for a check without an interval. No spread at all gives an infinite margin."""
        gap, se, shown = self.distance, self.standard_error, self.deciding_interval
        if gap is None or se is None or shown is None:
            return None
        ends = sorted((self.distance_of(shown[0]), self.distance_of(shown[1])))
        if self.op == "in":  # the interval's distance to the nearer bound, at the interval's own ends
            ends = sorted((min(ends[0], gap), max(ends[1], gap)))
        if se == 0:
            inf = math.copysign(math.inf, gap) if gap else 0.0
            return inf, inf, inf
        return gap / se, ends[0] / se, ends[1] / se

    @property
    def relative_margin(self) -> float | None:
        """How far the statistic is from its threshold, relative to it (None for ``==`` / ``!=``)."""
        gap = self.distance
        if gap is None:
            return None
        scale = self.threshold[1] - self.threshold[0] if self.op == "in" else abs(self.threshold)
        return gap / max(float(scale), 1e-12)

    @property
    def seeds_to_decide(self) -> int | None:
        """About how many seeds would put the threshold outside its interval at the decision level (a close check;
        None for one that is decided or has no usable interval)."""
        if not self.close:
            return None
        se = standard_error(self.unclipped(self.deciding_interval), self.seeds or 0, self.se_kind, self.level)
        gap = self.distance
        if se is None or gap is None:
            return None
        return seeds_to_decide(abs(gap), se, max(self.seeds or 0, 1), self.level)

    def describe(self) -> str:
        """One line: its name, statistic, comparison and per-seed values."""
        threshold = f"[{self.threshold[0]}, {self.threshold[1]}]" if self.op == "in" else f"{self.threshold}"
        shown = f"{self.value:.4g}" if self.value is not None else "n/a"
        text = f"{self.name}: measured {shown} {self.op} {threshold}"
        if self.counted and self.failing:
            text += f" ({self.failing} of {len(self.values)} seeds fail)"
        if self.values is not None and len(self.values) > 1:
            text += f" (per seed {', '.join('n/a' if v is None else f'{v:.3g}' for v in self.values)})"
        return text

    def to_dict(self) -> dict[str, Any]:
        """The check with its derived facts, as a claims.json holds it."""
        data = asdict(self)
        for key in ("values", "ci95", "decision_ci", "threshold", "bounds", "failing_ci"):
            if isinstance(data[key], tuple):
                data[key] = list(data[key])
        if not data["at"]:  # a check without coordinates is written as before they existed
            del data["at"]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], seeds: int | None = None, level: float | None = None) -> "Check":
        """The check a claims.json holds; its derived facts recomputed (the same rule wrote them). ``seeds`` and
        ``level``: its record's, for a check of an older version that does not record its own. A check without
        ``at`` gets the coordinates its name prints (:func:`coordinates_of`): none for a check made now without
        coordinates (its name prints none), and for an older record's check the ones it was matched by."""
        known = {f.name for f in fields(cls) if f.init}
        values = {k: v for k, v in data.items() if k in known}
        for key in ("values", "ci95", "decision_ci"):
            if values.get(key) is not None:
                values[key] = tuple(values[key])
        if values.get("op") == "in":
            values["threshold"] = _pair(values["threshold"])
        kind = values.get("interval")
        if kind is None and values.get("reduce") == "mean" and values.get("ci95"):
            values["interval"] = "t"  # an older record: a mean over seeds with an interval is a t-interval
        if values.get("seeds") is None:
            listed = values.get("values")
            values["seeds"] = len(listed) if values.get("interval") in ("t", "bounded") and listed else seeds
        if "bounds" not in data:  # written before checks stated their bounds: read by the quantity's name
            values["bounds"] = bounds_of(values["name"])
        elif values.get("bounds") is not None:
            values["bounds"] = tuple(values["bounds"])
        if "level" not in data:
            values["level"] = level if level is not None and values.get("decision_ci") else DECISION_LEVEL
        if "at" not in data:  # no coordinates written: none, or a record written before checks carried them
            values["at"] = coordinates_of(values["name"])
        return cls(**values)


# ----------------------------------------------------------------------------------------------- preconditions


PRECONDITION_MODEL = re.compile(r"\s*\b[KL]=\d+\b")  # a check name's K and length: what remains names the model


def model_of(name: str) -> str:
    """The model a precondition's check measures, by its name: "RoPE K=1 L=12: in-range accuracy" -> "RoPE",
    "content H=2 L=16: ..." -> "content H=2"."""
    return PRECONDITION_MODEL.sub("", name.split(":")[0]).strip()


def fit_text(checks: Sequence[Check]) -> str:
    """Which models fail a precondition and which fit, with their seed means' range: "the RoPE models do not fit in
    range (0.54-0.60); APE fits (1.00)"."""
    by: dict[str, list[Check]] = {}
    for c in checks:
        by.setdefault(model_of(c.name.partition(": ")[2] or c.name), []).append(c)

    def span(mine: list[Check]) -> str:
        low, high = min(c.value for c in mine), max(c.value for c in mine)
        return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}"

    failing = [m for m, mine in by.items() if not all(c.passed for c in mine)]
    fitting = [m for m in by if m not in failing]
    said = "; ".join(f"the {m} models do not fit in range ({span(by[m])})" for m in failing)
    if fitting:
        said += "; " + ", ".join(f"{m} fits ({span(by[m])})" for m in fitting)
    return said
