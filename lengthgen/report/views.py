"""View-models shared by the page's claims table, its claim sections and its grids (the robustness map, the
multiverse): a verdict's badge, a row of a measured quantity, a row of a checks table. Plain text and flags,
escaped by the templates that print them (``lengthgen.report.templating``). They read the typed view of a
run (``lengthgen.report.run_view``): a verdict's colour and whether it is shown as a close call are the
view's (``ClaimView.css``, ``ClaimView.labelled_close``), never decided here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from lengthgen.report import run_view, text
from lengthgen.report.run_view import CheckView, ClaimView, Measure

PER_SEED_SHOWN = 64  # up to this many values a summary's list is labelled "per seed" (beyond it, "values")


def verdict_class(verdict: str | None) -> str:
    """The verdict's colour class (``run_view.VERDICT_STYLES``; "v-unknown" for None or an unknown verdict)."""
    return run_view.style(verdict).css


@dataclass(frozen=True)
class Badge:
    css: str  # the verdict's class, "v-reproduced", ... ("v-unknown" for a missing or unknown verdict)
    shown: str  # the verdict as shown ("unknown" when the record has none)
    close: bool  # shown "<verdict> (close)" with a dashed border


def badge(claim: ClaimView) -> Badge:
    """A claim test's badge: its verdict, shown as a close call (dashed, "<verdict> (close)") when the run view
    labels it one (``ClaimView.labelled_close``: reproduced and not reproduced only)."""
    return Badge(claim.css, claim.verdict or "unknown", claim.labelled_close)


def verdict_badge(verdict: str | None) -> Badge:
    """The badge of a verdict alone, without its close call (a grid's block under its cell)."""
    return Badge(verdict_class(verdict), verdict or "unknown", False)


@dataclass(frozen=True)
class MeasureRow:
    name: str  # the measured quantity
    text: str  # "mean [95% interval] (n)" (``text.summary_text``)
    note: str | None  # the values behind it ("per seed: ..."); None for a single value


def measure_row(quantity: Measure) -> MeasureRow:
    """A measured quantity (``run_view.Measure``) as a row of the page: its summary and the values behind it."""
    values = quantity.values
    label = "per seed" if len(values) <= PER_SEED_SHOWN else "values"
    note = f"{label}: {text.per_seed(values)}" if len(values) > 1 else None
    return MeasureRow(quantity.name, text.summary_text(quantity), note)


def values_note(check: CheckView) -> str | None:
    """The per-seed values behind a check's statistic, and how they were reduced to it (or its interval:
    a seed bootstrap, "exact"); None when there is nothing to say."""
    values = check.values
    kind = check.interval_kind
    if kind == "exact":
        return "exact (no seeds, no interval)"
    if kind == "bootstrap":
        ci = check.ci95
        return f"95% seed bootstrap {text.interval(ci) if ci else '(too few seeds)'}" + (
            f"; values: {text.per_seed(values)}" if values else ""
        )
    if not values or len(values) < 2:
        return None
    n = len(values)
    how = {
        "mean": f"mean of {n} {text.interval(check.ci95)}",
        "all": f"worst of {n} (every one must pass)",
        "min": f"min of {n}",
        "max": f"max of {n}",
    }.get(check.reduce, f"{n} values")
    return f"{how}; values: {text.per_seed(values)}"


@dataclass(frozen=True)
class CheckRow:
    name: str  # the check's name
    value: str  # its statistic, 4 significant digits
    note: str | None  # the values behind the statistic (``values_note``)
    comparison: str  # "> 0.9", ... (``text.threshold_text``)
    close: bool  # its deciding interval contains the threshold
    paper: str  # the paper's value for it ("" when none)
    passed: bool  # the check passed
    expected_to_fail: bool  # a declared expected failure (a non-reproduction the test names)
    source: str  # where the threshold comes from (records.THRESHOLD_SOURCES; "not stated" for an older record)
    source_note: str | None  # the paper's words or number the threshold reads (the cell's tooltip)


def check_rows(checks: Sequence[CheckView]) -> tuple[CheckRow, ...]:
    return tuple(
        CheckRow(
            c.name,
            text.num(c.value, 4),
            values_note(c),
            text.threshold_text(c.op, c.threshold),
            c.close,
            c.paper or "",
            c.passed,
            c.expected_to_fail,
            (c.threshold_source or "not stated").replace("-", " "),
            c.threshold_note,
        )
        for c in checks
    )
