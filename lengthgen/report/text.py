"""Short texts shared by the page, the terminal summary and the markdown summary: numbers, intervals, a
claim's headline measured value, a check against its threshold, a close call, a scale, a duration.
They format the records' own types (``lengthgen.records``: ``ClaimRecord``, ``Check``, ``Measure``); ``headline``
also takes a record's dict."""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from lengthgen.records import ClaimRecord
from lengthgen.analysis.formats import (
    check_text,
    close_text,
    interval,
    num,
    per_seed,
    plain_numbers,
    summary_text,
    threshold_text,
    value_text,
)
from lengthgen.analysis.run_view import record_of

__all__ = [  # the formats every rendering shares (lengthgen.analysis.formats), beside this module's own texts
    "check_text",
    "close_text",
    "interval",
    "num",
    "per_seed",
    "plain_numbers",
    "summary_text",
    "threshold_text",
]

SCALE_KEYS_HIDDEN = ("name", "seeds", "seed_list", "paper_seeds", "steps", "sequences", "lengths")


def shared_claims(claims: Sequence[ClaimRecord]) -> set[str]:
    """Claim ids with more than one test in ``claims`` (their tests are then named beside the id)."""
    seen: dict[str, int] = {}
    for c in claims:
        seen[c.claim] = seen.get(c.claim, 0) + 1
    return {claim for claim, n in seen.items() if n > 1}


def path_text(plan: Mapping[str, Any] | None) -> str:
    """The --lengthgen-until-decided path (a record's ``looks``) in a line, e.g. ``until decided (Bonferroni, 5
    looks at 99%): seeds 3 -> 7 -> 11, decided``."""
    if not plan:
        return ""
    seeds = " -> ".join(str(look["seeds"]) for look in plan.get("path") or [])
    return (
        f"until decided ({plan.get('rule', '?')}, {plan.get('looks_planned', '?')} looks planned up to "
        f"{plan.get('max_seeds', '?')} seeds, each at {100 * float(plan.get('level', 0.95)):.3g}%): seeds {seeds}, "
        f"{plan.get('stopped', '?')}"
    )


def headline(record: ClaimRecord | Mapping[str, Any], compact: bool = False) -> str:
    """The measured value in one line: the failed deciding check, else the quantities of ``claim.measure``
    (those marked headline, if any, else all), else the deciding check. ``compact`` drops parenthesised
    parts of names."""

    def name(text: str) -> str:
        return re.sub(r"\s+\([^()]*\)", "", text) if compact else text

    claim = record_of(record)
    check = claim.deciding
    if check is not None and not check.passed:
        return f"{name(check.name)}: {check_text(check)}"
    if claim.headlines:
        return "; ".join(f"{name(m.name)}: {summary_text(m)}" for m in claim.headlines)
    return f"{name(check.name)}: {check_text(check)}" if check else "no measurement recorded"


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
    parts += [f"{k}: {value_text(v)}" for k, v in scale.items() if k not in SCALE_KEYS_HIDDEN]
    return f"{scale.get('name', '?')}" + (": " + ", ".join(parts) if parts else "")


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)  # whole seconds first: 179.6 s is 3 min 00 s, not 2 min 60 s
    return f"{minutes} min {rest:02d} s"
