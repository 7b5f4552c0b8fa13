"""The run's answer in one sentence (the page's first line; the README's first screen says the same): per
claim and per prediction, whether it reproduces in every one of its tests at the catalogue's point, in some,
or in none. Counts claims and predictions, not tests. No torch.
"""

from __future__ import annotations

from typing import Sequence

from lengthgen.report.run_view import ClaimView, RunView

HOLDS = ("reproduced",)  # a test's verdicts that count as reproducing (a close call included: its label differs)


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(ids)


def grouped(views: Sequence[ClaimView]) -> tuple[list[str], list[str], list[str], list[str]]:
    """(every test reproduces, some do, none does, undecided: a test without a decided verdict) claim ids."""
    by: dict[str, list[str]] = {}
    for v in views:
        by.setdefault(v.claim, []).append(v.verdict or "unknown")
    every, some, none, open_ = [], [], [], []
    for claim, verdicts in by.items():
        held = [x in HOLDS for x in verdicts]
        if any(x not in HOLDS + ("not reproduced", "not reproduced (undeclared)") for x in verdicts):
            open_.append(claim)
        elif all(held):
            every.append(claim)
        elif any(held):
            some.append(claim)
        else:
            none.append(claim)
    return every, some, none, open_


def _part(noun: str, views: Sequence[ClaimView], hold: str) -> str:
    every, some, none, open_ = grouped(views)
    total = len(every) + len(some) + len(none) + len(open_)
    parts = [f"{len(every)} {hold}"]
    if some:
        parts.append(f"{len(some)} in some of their tests ({_ids(some)})")
    if none:
        parts.append(f"{len(none)} do not ({_ids(none)})")
    if open_:
        parts.append(f"{len(open_)} are undecided or broke ({_ids(open_)})")
    return f"of {total} {noun}, " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0])


def sentence(run: RunView) -> str:
    """One sentence: "Of 22 claims, 16 reproduce in every test, 3 in some of their tests (C12, C13, C19) and 3
    do not (C8, C10, C20); of 6 predictions, 4 hold and 2 do not (P1, P2).", at the run's scale."""
    parts = []
    if run.claims:
        parts.append(_part("claims", run.claims, "reproduce in every test"))
    if run.predictions:
        parts.append(_part("predictions", run.predictions, "hold"))
    if not parts:
        return "This run holds no claim test."
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."
