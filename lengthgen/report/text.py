"""Short texts shared by the page and the terminal summary: numbers, intervals, a record's headline
measured value, its deciding check, its scale, and the run's scale and coverage."""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import CATALOGUE, PREDICTIONS
from lengthgen.report import verdict

PER_SEED_SHOWN = 16  # per-seed values printed before "... (n values)"
SCALE_KEYS_HIDDEN = ("name", "seeds", "seed_list", "paper_seeds", "steps", "sequences", "lengths")


PREDICTION_BASE = 1000  # predictions P1.. sort after every paper claim C1..C22


def claim_number(claim_id: str) -> int:
    """C7 -> 7, P2 -> 1002 (after the paper's claims), anything else last."""
    match = re.fullmatch(r"([CP])(\d+)", claim_id)
    if not match:
        return 10_000
    return int(match.group(2)) + (PREDICTION_BASE if match.group(1) == "P" else 0)


def is_prediction(record: Mapping[str, Any]) -> bool:
    """A record of a prediction beyond the paper (P1-P6), shown in its own "predictions" part."""
    return record.get("claim", "") in PREDICTIONS


def sort_key(record: Mapping[str, Any]) -> tuple:
    return claim_number(record["claim"]), record.get("claim", ""), record.get("test", "")


def test_name(record: Mapping[str, Any]) -> str:
    """The test function with its parameters, e.g. ``test_selects_the_target_like_rope[paper-alibi]``."""
    return (record.get("test") or "").rsplit("::", 1)[-1]


def shared_claims(records: Sequence[Mapping[str, Any]]) -> set[str]:
    """Claim ids with more than one record in the run (their tests are then named beside the id)."""
    counts = Counter(r["claim"] for r in records)
    return {claim for claim, n in counts.items() if n > 1}


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


def summary_text(summary: Mapping[str, Any]) -> str:
    """``mean [low, high] (n=...)`` of a ``Summary`` as a dict."""
    values = summary.get("values") or []
    text = num(summary.get("mean"))
    if summary.get("ci95"):
        text += f" {interval(summary['ci95'])}"
    return text + (f" (n={len(values)})" if len(values) > 1 else "")


def check_text(check: Mapping[str, Any]) -> str:
    """``value op threshold`` of a check, e.g. ``0.874 >= 0.85``."""
    return f"{num(check['value'], 4)} {threshold_text(check['op'], check['threshold'])}"


def margin(check: Mapping[str, Any]) -> float | None:
    """How far a passing inequality check is from failing, relative to its threshold (None for ==, !=)."""
    return verdict._relative_margin(check)


def deciding_check(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The check that says most about the verdict (``lengthgen.report.verdict.deciding_check``)."""
    return verdict.deciding_check(record)


def path_text(record: Mapping[str, Any]) -> str:
    """The --until-decided path in a line, e.g. ``until decided (Bonferroni, 5 looks at 99%): seeds 3 -> 7
    -> 11, decided``."""
    plan = record.get("sequential") or {}
    if not plan:
        return ""
    seeds = " -> ".join(str(look["seeds"]) for look in plan.get("path") or [])
    return (f"until decided ({plan.get('rule', '?')}, {plan.get('looks_planned', '?')} looks planned up to "
            f"{plan.get('max_seeds', '?')} seeds, each at {100 * float(plan.get('level', 0.95)):.3g}%): seeds {seeds}, "
            f"{plan.get('stopped', '?')}")


def verdict_label(record: Mapping[str, Any]) -> str:
    """The verdict as shown, e.g. "reproduced (close)"."""
    return verdict.label(record)


def close_text(check: Mapping[str, Any], record: Mapping[str, Any]) -> str:
    """One close check in a line: its statistic, interval (kind, level), threshold and the seeds that would
    decide it, e.g. ``mean 0.1473 [0.1435, 0.1511] (95% t-interval) <= 0.15; about 4 seeds would decide it``."""
    kind = verdict.interval_kind(check) or "?"
    level = verdict.decision_level(record) if check.get("decision_ci") else 0.95
    needed = verdict.seeds_to_decide_check(check, record)
    decide = (f"about {needed} seeds would decide it" if needed is not None
              else "no number of seeds decides it (the estimate sits on the threshold)")
    what = "mean" if kind == "t" else "statistic"
    kind = {"t": "t-interval", "bootstrap": "seed bootstrap"}.get(kind, kind)
    return (f"{what} {num(check['value'], 4)} {interval(verdict.decision_interval(check), 4)} ({100 * level:.3g}% "
            f"{kind}) {threshold_text(check['op'], check['threshold'])}; {decide}")


def checks_passed(record: Mapping[str, Any]) -> tuple[int, int]:
    checks = record.get("checks") or []
    return sum(1 for c in checks if c["passed"]), len(checks)


def headline_measures(record: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The measured quantities in report order: those marked ``headline`` first, then the rest."""
    measured = record.get("measured") or {}
    first = [n for n in record.get("headlines") or [] if n in measured]
    return [(n, measured[n]) for n in first] + [(n, s) for n, s in measured.items() if n not in first]


def headline(record: Mapping[str, Any], compact: bool = False) -> str:
    """The measured value in one line: the first failed check, else the quantities of ``claim.measure``
    (those marked headline, if any, else all), else the deciding check. ``compact`` drops parenthesised
    parts of names."""
    def name(text: str) -> str:
        return re.sub(r"\s+\([^()]*\)", "", text) if compact else text

    measured = headline_measures(record)
    marked = [(n, m) for n, m in measured if n in (record.get("headlines") or [])]
    measured = marked or measured
    check = deciding_check(record)
    if check is not None and not check["passed"]:
        return f"{name(check['name'])}: {check_text(check)}"
    if measured:
        return "; ".join(f"{name(n)}: {summary_text(s)}" for n, s in measured)
    return f"{name(check['name'])}: {check_text(check)}" if check else "no measurement recorded"


def scale_text(scale: Mapping[str, Any]) -> str:
    """``paper: 8 seeds, 4000 steps, 4096 sequences`` (plus any other scale keys a test recorded)."""
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


def run_scale(records: Sequence[Mapping[str, Any]]) -> str:
    """quick, paper, or mixed (records at both scales); "none" without records."""
    names = {r.get("scale", {}).get("name") for r in records if r.get("verdict") != "skipped"} - {None}
    if not names:
        names = {r.get("scale", {}).get("name") for r in records} - {None}
    if not names:
        return "none"
    return names.pop() if len(names) == 1 else "mixed"


def coverage(records: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """(catalogue ids with a record in this run, catalogue ids without one)."""
    ran = {r["claim"] for r in records}
    return [c for c in CATALOGUE if c in ran], [c for c in CATALOGUE if c not in ran]


def run_label(records: Sequence[Mapping[str, Any]]) -> str:
    """E.g. ``paper scale, partial: 5 of 22 catalogue claims``."""
    ran, missing = coverage(records)
    extent = "complete" if not missing else "partial"
    label = f"{run_scale(records)} scale, {extent}: {len(ran)} of {len(CATALOGUE)} catalogue claims"
    predicted = sorted({r["claim"] for r in records if is_prediction(r)}, key=claim_number)
    return label + (f"; {len(predicted)} of {len(PREDICTIONS)} predictions" if predicted else "")


def verdict_counts(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Records per shown verdict (``verdict_label``: close calls counted apart), in ``verdict.LABELS`` order."""
    counts = Counter(verdict.label(r) if r.get("verdict") else "unknown" for r in records)
    ordered = {v: counts[v] for v in verdict.LABELS if counts[v]}
    ordered.update({v: n for v, n in counts.items() if v not in verdict.LABELS})
    return ordered


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {seconds % 60:02.0f} s"
