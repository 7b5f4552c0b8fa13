"""Numbers and the one-line texts of a check or a measured quantity, as every rendering shows them and the
analysis's own texts quote them (a multiverse outcome's numbers): the terminal, the markdown summary, the documents
(``lengthgen.report.text``) and the page's templates, which take the records' own ``Check`` and ``Measure`` and
call these as the environment's globals (``lengthgen.report.templating``). No torch, no Jinja2."""

from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

from lengthgen.records import Check, Measure

PER_SEED_SHOWN = 16  # per-seed values printed before "... (n values)"
PER_SEED_LABELLED = 64  # up to this many values a summary's list is labelled "per seed" (beyond it, "values")


def num(value: Any, digits: int = 3) -> str:
    """A number in ``digits`` significant digits; integers as integers; "n/a" for None or NaN."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return str(value)
    value = float(value)
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and abs(value) < 1e6:
        return str(int(value))
    return f"{value:.{digits}g}"


def value_text(value: Any) -> str:
    """Any recorded value as a reader reads it, never a Python repr: numbers by :func:`num`, a run of consecutive
    integers as ``0-7``, a list joined by commas, a mapping as ``key: value`` pairs joined by semicolons in
    parentheses (``{'0': [0, 1, 2]}`` -> ``(0: 0-2)``)."""
    if isinstance(value, Mapping):
        return "(" + "; ".join(f"{key}: {value_text(v)}" for key, v in value.items()) + ")"
    if isinstance(value, (list, tuple)):
        whole = all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        if whole and len(value) > 2 and list(value) == list(range(value[0], value[0] + len(value))):
            return f"{value[0]}-{value[-1]}"
        return ", ".join(value_text(v) for v in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return num(value, 4)
    return str(value)


WHOLE_FLOAT = re.compile(r"(?<![\w.])(-?\d+)\.0(?![\d.])")  # "16.0", "-3.0": a whole number written as a float


def plain_numbers(text: str) -> str:
    """A recorded sentence with its whole numbers written as :func:`num` writes them ("measured -3 != -3.0" ->
    "measured -3 != -3"), so that a value and its threshold read alike; every other character unchanged."""
    return WHOLE_FLOAT.sub(r"\1", text)


def interval(ci: Sequence[float] | None, digits: int = 3) -> str:
    return "" if not ci else f"[{num(ci[0], digits)}, {num(ci[1], digits)}]"


def threshold_text(op: str, threshold: Any) -> str:
    if op == "in":
        return f"in [{num(threshold[0], 4)}, {num(threshold[1], 4)}]"
    return f"{op} {num(threshold, 4)}"


def per_seed(values: Sequence[float] | None, limit: int = PER_SEED_SHOWN) -> str:
    if not values:
        return ""
    shown = ", ".join(num(v) for v in values[:limit])
    return shown if len(values) <= limit else f"{shown}, ... ({len(values)} values)"


def summary_text(quantity: Measure) -> str:
    """``mean [low, high] (n=...)`` of a measured quantity."""
    values = quantity.values
    text = num(quantity.mean)
    if quantity.ci95:
        text += f" {interval(quantity.ci95)}"
    return text + (f" (n={len(values)})" if len(values) > 1 else "")


def measure_note(quantity: Measure) -> str | None:
    """The values behind a measured quantity ("per seed: ..."); None for a single value."""
    values = quantity.values
    if len(values) <= 1:
        return None
    label = "per seed" if len(values) <= PER_SEED_LABELLED else "values"
    return f"{label}: {per_seed(values)}"


def check_text(check: Check) -> str:
    """``value op threshold`` of a check, e.g. ``0.874 >= 0.85``; a failed check every seed must pass shows its
    count of failing seeds and its worst seed, e.g. ``3 of 5 seeds at -40 (needs == -2)``."""
    if check.counted and check.failing:
        return f"{check.seed_count_text} (needs {threshold_text(check.op, check.threshold)})"
    return f"{num(check.value, 4)} {threshold_text(check.op, check.threshold)}"


def close_text(check: Check) -> str:
    """One close check in a line: its statistic, interval (kind, level), threshold and the seeds that would
    decide it, e.g. ``mean 0.1473 [0.1435, 0.1511] (95% t-interval) <= 0.15; about 4 seeds would decide it``."""
    kind = check.interval or "?"
    needed = check.seeds_to_decide
    decide = (
        f"about {needed} seeds would decide it"
        if needed is not None
        else "no number of seeds decides it (the estimate sits on the threshold)"
    )
    what = "mean" if kind in ("t", "bounded") else "statistic"
    kind = {"t": "t-interval", "bootstrap": "seed bootstrap"}.get(kind, kind)
    if check.interval == "bounded":
        kind = f"t-interval within [{num(check.bounds[0])}, {num(check.bounds[1])}]"
    return (
        f"{what} {num(check.value, 4)} {interval(check.deciding_interval, 4)} ({100 * check.level:.3g}% "
        f"{kind}) {threshold_text(check.op, check.threshold)}; {decide}"
    )


def values_note(check: Check) -> str | None:
    """The per-seed values behind a check's statistic, and how they were reduced to it (or its interval: a seed
    bootstrap, "exact"); None when there is nothing to say."""
    values = check.values
    kind = check.interval
    if kind == "exact":
        return "exact (no seeds, no interval)"
    if kind == "bootstrap":
        ci = check.ci95
        return f"95% seed bootstrap {interval(ci) if ci else '(too few seeds)'}" + (
            f"; values: {per_seed(values)}" if values else ""
        )
    if not values or len(values) < 2:
        return None
    n = len(values)
    if check.counted:  # the worst seed is shown: its count of failing seeds, not a mean's interval
        return f"{check.uncertainty}; worst seed shown; values: {per_seed(values)}"
    how = {
        "mean": f"mean of {n} {interval(check.ci95)}",
        "all": f"worst of {n} (every one must pass)",
        "min": f"min of {n}",
        "max": f"max of {n}",
    }.get(check.reduce, f"{n} values")
    return f"{how}; values: {per_seed(values)}"


def source_text(check: Check) -> str:
    """Where the check's threshold comes from, in words ("paper number", "suite reading", "not stated")."""
    return (check.threshold_source or "not stated").replace("-", " ")
