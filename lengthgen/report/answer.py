"""The run's answer, for a reviewer who reads ten seconds (the README's first lines and the page's): at most
:data:`MOST_WORDS` words, computed from the records.

1. How many of the paper's claims reproduce in every test, and how many of those are close calls.
2. The others, grouped by the kind of their failure (``ClaimRecord.failure_kind``: their declaration's kind, else
   by their failed checks' labels): the paper's own words or numbers fail, only the suite's reading of them
   fails, or a case the paper's account does not cover; each with a few words of why (its declaration's
   ``gist``) where the budget allows.
3. The predictions: how many hold.
4. The open choices, counting only verdicts a reading decides the other way (a cell within the seeds' noise is no
   change, ``lengthgen.report.outcome``), and the readings ruled out.
5. What the paper's numbers tell of the open choices (``lengthgen.report.stated_numbers.sentence``).

No torch.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from lengthgen.records import ClaimRecord
from lengthgen.records.record import FAILURE_KINDS
from lengthgen.report import multiverse as mv
from lengthgen.report.outcome import OTHER_WAY, RULED_OUT, WITHIN_NOISE
from lengthgen.report.run_view import RunView

MOST_WORDS = 80  # the answer's budget: a reviewer's ten seconds
KINDS = FAILURE_KINDS  # how a non-reproduction's failure is grouped (module docstring)
FAILURE_WORDS = {  # each kind of failure as the documents name it (the verdict table, the non-reproductions)
    "paper-statement": "the paper's own statement",
    "suite-reading": "the suite's reading alone",
    "structural": "structural: a case the paper's account does not cover",
}
KIND_WORDS = {  # each group's few words of why, in the answer
    "paper-statement": "against the paper's own statement",
    "suite-reading": "against the suite's reading alone",
    "structural": "in a case the paper's account does not cover",
}
HOLDS = ("reproduced",)  # a test's verdict that counts as reproducing (a close call included: its label differs)


def kind_of(record: ClaimRecord) -> str:
    """The kind of a non-reproducing test's failure (``ClaimRecord.failure_kind``; "suite-reading" for one that
    failed no check)."""
    return record.failure_kind or "suite-reading"


@dataclass(frozen=True)
class Failure:
    """A claim that does not reproduce in some test: how it is named, what it rests on, why in a few words."""

    label: str  # the claim, with its failing variant where some of its tests reproduce ("C12 d64")
    kind: str  # one of KINDS
    gist: str  # a few words of why (its declaration's), "" where none is declared


def failures(records: Sequence[ClaimRecord]) -> list[Failure]:
    """Per claim with a test that does not reproduce, one failure per kind (its failing tests' variants named)."""
    by: dict[str, list[ClaimRecord]] = {}
    for r in records:
        by.setdefault(r.claim, []).append(r)
    out = []
    for claim, tests in by.items():
        failing = [r for r in tests if r.verdict not in HOLDS]
        if not failing:
            continue
        for kind in KINDS:
            mine = [r for r in failing if kind_of(r) == kind]
            if not mine:
                continue
            variants = list(dict.fromkeys(r.variant for r in mine if r.variant))
            whole = len(failing) == len(tests)
            label = claim if whole or not variants else f"{claim} {'/'.join(variants)}"
            gist = next((r.declared.gist for r in mine if r.declared is not None and r.declared.gist), "")
            out.append(Failure(label, kind, gist))
    return out


def _claims(run: RunView) -> str:
    by: dict[str, list[ClaimRecord]] = {}
    for r in run.claims:
        by.setdefault(r.claim, []).append(r)
    holding = [tests for tests in by.values() if all(r.verdict in HOLDS for r in tests)]
    close = sum(any(r.labelled_close for r in tests) for tests in holding)
    calls = f" ({close} close calls)" if close else ""
    return f"{len(holding)} of {len(by)} claims reproduce{calls}."


def _failures(run: RunView, gists: Sequence[str]) -> str:
    """The claims that do not reproduce in some test, by kind; ``gists``: the kinds whose few words of why fit."""
    found = failures(run.claims)
    if not found:
        return ""
    claims = len({f.label.split()[0] for f in found})
    parts = []
    for kind in KINDS:
        mine = [f for f in found if f.kind == kind]
        if mine:
            shown = ", ".join(f"{f.label} ({f.gist})" if kind in gists and f.gist else f.label for f in mine)
            parts.append(f"{KIND_WORDS[kind]}, {shown}")
    return f"{claims} do not: {'; '.join(parts)}."


def _predictions(run: RunView) -> str:
    if not run.predictions:
        return ""
    ids = list(dict.fromkeys(r.claim for r in run.predictions))
    failing = list(dict.fromkeys(r.claim for r in run.predictions if r.verdict not in HOLDS))
    return f"{len(ids) - len(failing)} of {len(ids)} predictions hold."


def _choices(run: RunView, terse: bool = False) -> str:
    grid = mv.view_grid(run)
    if grid is None:
        return ""
    found = [o for o in mv.outcomes(grid).values() if o.state != mv.NOT_RUN]
    other = [o for o in found if o.spread.where(OTHER_WAY)]
    noise = [o for o in found if o.spread.where(WITHIN_NOISE) and not o.spread.where(OTHER_WAY)]
    ruled = list(dict.fromkeys(u for o in found for u in o.spread.where(RULED_OUT) if "+" not in u))
    if other:
        alone = Counter(u for o in other for u in dict.fromkeys(o.spread.where(OTHER_WAY)) if "+" not in u)
        top = f" ({alone.most_common(1)[0][1]} under {alone.most_common(1)[0][0]})" if alone and not terse else ""
        said = f"Open choices decide {len(other)} verdicts otherwise{top}"
    else:
        said = "No open choice decides a verdict the other way"
    said += f"; {len(noise)} differ only within noise" if noise else ""
    said += f"; {', '.join(ruled)} {'is' if len(ruled) == 1 else 'are'} ruled out" if ruled else ""
    return said + "."


def _numbers(run: RunView, detail: bool) -> str:
    from lengthgen.report.stated_numbers import sentence, table

    return sentence(table(run), detail) if run.multiverse else ""


def words(text: str) -> int:
    """Words as a reader counts them: whitespace-separated tokens."""
    return len(text.split())


FITTINGS = (  # what the answer says, most first: (kinds whose gists it spells out, the stated numbers' values,
    # the reading that decides most verdicts otherwise)
    (KINDS, True, True),
    (("paper", "edge"), True, True),
    (("paper", "edge"), False, True),
    (("edge",), False, True),
    ((), False, True),
    ((), False, False),
)


def answer(run: RunView) -> str:
    """The answer, at most :data:`MOST_WORDS` words: the first of :data:`FITTINGS` that fits (the few words of why
    per kind, the stated numbers' values), else the shortest."""
    if not run.records:
        return "This run holds no claim test."
    head, predicted = _claims(run) if run.claims else "", _predictions(run)
    for gists, detail, most in FITTINGS:
        parts = [head, _failures(run, gists), predicted, _choices(run, terse=not most), _numbers(run, detail)]
        text = " ".join(p for p in parts if p)
        if words(text) <= MOST_WORDS:
            return text
    return text
