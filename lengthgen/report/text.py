"""Short texts shared by the page, the terminal summary and the markdown summary: numbers, intervals, a
claim's headline measured value, a check against its threshold, a close call, a scale, the run's label.
They format the typed view of a run (``lengthgen.report.run_view``, the layer below); the few that take one
record (``headline``, ``verdict_label``, ``checks_passed``, ``is_prediction``) also take its dict."""

from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import Catalogue
from lengthgen.report import run_view
from lengthgen.report.run_view import CheckView, ClaimView, Measure, ScaleView, Sequential, claim_view, completeness

PER_SEED_SHOWN = 16  # per-seed values printed before "... (n values)"
SCALE_KEYS_HIDDEN = ("name", "seeds", "seed_list", "paper_seeds", "steps", "sequences", "lengths")


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


def shared_claims(claims: Sequence[ClaimView]) -> set[str]:
    """Claim ids with more than one test in ``claims`` (their tests are then named beside the id)."""
    seen: dict[str, int] = {}
    for c in claims:
        seen[c.claim] = seen.get(c.claim, 0) + 1
    return {claim for claim, n in seen.items() if n > 1}


def is_prediction(record: ClaimView | Mapping[str, Any]) -> bool:
    """A prediction beyond the paper (P1-P6), shown in its own "predictions" part."""
    return claim_view(record).is_prediction


def summary_text(quantity: Measure) -> str:
    """``mean [low, high] (n=...)`` of a measured quantity."""
    values = quantity.values
    text = num(quantity.mean)
    if quantity.ci95:
        text += f" {interval(quantity.ci95)}"
    return text + (f" (n={len(values)})" if len(values) > 1 else "")


def check_text(check: CheckView) -> str:
    """``value op threshold`` of a check, e.g. ``0.874 >= 0.85``."""
    return f"{num(check.value, 4)} {threshold_text(check.op, check.threshold)}"


def path_text(plan: Sequential | None) -> str:
    """The --lengthgen-until-decided path in a line, e.g. ``until decided (Bonferroni, 5 looks at 99%): seeds 3 -> 7
    -> 11, decided``."""
    if plan is None:
        return ""
    seeds = " -> ".join(str(look.seeds) for look in plan.path)
    return (
        f"until decided ({plan.rule}, {plan.looks_planned} looks planned up to {plan.max_seeds} seeds, each at "
        f"{100 * plan.level:.3g}%): seeds {seeds}, {plan.stopped}"
    )


def verdict_label(record: ClaimView | Mapping[str, Any]) -> str:
    """The verdict as shown, e.g. "reproduced (close)"."""
    return claim_view(record).verdict_label


def close_text(check: CheckView) -> str:
    """One close check in a line: its statistic, interval (kind, level), threshold and the seeds that would
    decide it, e.g. ``mean 0.1473 [0.1435, 0.1511] (95% t-interval) <= 0.15; about 4 seeds would decide it``."""
    kind = check.interval_kind or "?"
    needed = check.seeds_to_decide
    decide = (
        f"about {needed} seeds would decide it"
        if needed is not None
        else "no number of seeds decides it (the estimate sits on the threshold)"
    )
    what = "mean" if kind == "t" else "statistic"
    kind = {"t": "t-interval", "bootstrap": "seed bootstrap"}.get(kind, kind)
    return (
        f"{what} {num(check.value, 4)} {interval(check.interval, 4)} ({100 * check.level:.3g}% "
        f"{kind}) {threshold_text(check.op, check.threshold)}; {decide}"
    )


def checks_passed(record: ClaimView | Mapping[str, Any]) -> tuple[int, int]:
    """(checks passed, checks)."""
    return claim_view(record).checks_passed


def headline(record: ClaimView | Mapping[str, Any], compact: bool = False) -> str:
    """The measured value in one line: the failed deciding check, else the quantities of ``claim.measure``
    (those marked headline, if any, else all), else the deciding check. ``compact`` drops parenthesised
    parts of names."""

    def name(text: str) -> str:
        return re.sub(r"\s+\([^()]*\)", "", text) if compact else text

    claim = claim_view(record)
    check = claim.deciding
    if check is not None and not check.passed:
        return f"{name(check.name)}: {check_text(check)}"
    if claim.headlines:
        return "; ".join(f"{name(m.name)}: {summary_text(m)}" for m in claim.headlines)
    return f"{name(check.name)}: {check_text(check)}" if check else "no measurement recorded"


def scale_text(scale: ScaleView | Mapping[str, Any]) -> str:
    """``paper: 8 seeds, 4000 steps, 4096 sequences`` (plus any other scale keys a test recorded)."""
    if isinstance(scale, ScaleView):
        scale = scale.raw
    if not scale:
        return "not recorded"
    parts = []
    seeds, paper = scale.get("seeds"), scale.get("paper_seeds")
    if isinstance(seeds, int) and seeds > 0:
        parts.append(f"{seeds} seeds" + (f" (paper: {paper})" if isinstance(paper, int) and paper != seeds else ""))
    steps = scale.get("steps")
    if steps == 0:
        parts.append("no training")
    elif steps is not None:
        parts.append(f"{steps} steps")
    if scale.get("sequences"):
        parts.append(f"{scale['sequences']} sequences")
    parts += [f"{k}: {v}" for k, v in scale.items() if k not in SCALE_KEYS_HIDDEN]
    return f"{scale.get('name', '?')}" + (": " + ", ".join(parts) if parts else "")


def run_scale(records: Sequence[ClaimView | Mapping[str, Any]]) -> str:
    """quick, paper, or mixed (records at both scales); "none" without records."""
    return run_view.run_scale([claim_view(r) for r in records])


def run_label(records: Sequence[ClaimView | Mapping[str, Any]], catalogue: Catalogue) -> str:
    """E.g. ``paper scale, partial: 5 of 22 catalogue claims`` (``Completeness.label``; the claims of
    ``catalogue``, the run's)."""
    return completeness([claim_view(r) for r in records], catalogue).label


def machine_name(machine: Mapping[str, Any]) -> str:
    """The CPU of a costs file's ``machine`` block (``lengthgen timed``), in one style for every document:
    "AMD EPYC with AVX-512", "AMD EPYC with AVX2 and no AVX-512"."""
    vector = "AVX-512" if machine.get("avx512") else "AVX2 and no AVX-512"
    return f"{machine.get('cpu_model') or 'unknown CPU'} with {vector}"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)  # whole seconds first: 179.6 s is 3 min 00 s, not 2 min 60 s
    return f"{minutes} min {rest:02d} s"
