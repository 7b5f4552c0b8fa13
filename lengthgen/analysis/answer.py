"""The run's answer, for a reviewer who reads ten seconds (the README's first lines and the page's): at most
:data:`MOST_WORDS` words, computed from the records.

1. How many of the paper's claims reproduce in every test, and how many of those are close calls.
2. The others, grouped by the kind of their failure (``ClaimRecord.failure_kind``: their declaration's kind, else
   by their failed checks' labels): the paper's own words or numbers fail, only the suite's reading of them
   fails, or a case the paper's account does not cover; each with a few words of why (its declaration's
   ``gist``) where the budget allows.
3. The predictions: how many hold.
4. The open choices, counting only verdicts a reading decides the other way (a cell within the seeds' noise is no
   change, ``lengthgen.analysis.outcome``), and the readings ruled out.
5. What the paper's numbers tell of the open choices (``lengthgen.analysis.stated_numbers.sentence``).
6. The claims whose verdict rests on the paper's seeds (:func:`seed_notes`): those that reproduce at the paper's
   seeds and are decided the other way at the robustness map's fresh seeds (by the map's own rule,
   ``lengthgen.analysis.robustness.spreads``) or in a run with seeds added until decided, "hold at the paper's seeds
   only"; a test that does not reproduce at the paper's seeds and does with seeds added says so.

No torch.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from lengthgen.records import ClaimRecord, Verdict
from lengthgen.records.record import FAILURE_KINDS
from lengthgen.analysis import multiverse as mv
from lengthgen.analysis.outcome import Outcome
from lengthgen.analysis.robustness import spreads
from lengthgen.analysis.run_view import RunView

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
HOLDS = (Verdict.REPRODUCED,)  # a test's verdict that counts as reproducing (a close call included: its label differs)
FRESH_SEEDS = "fresh-seeds"  # the robustness map's setting that reruns the paper's point at other seeds


def kind_of(record: ClaimRecord) -> str:
    """The kind of a non-reproducing test's failure (``ClaimRecord.failure_kind``; "suite-reading" for one that
    failed no check)."""
    return record.failure_kind or "suite-reading"


def failure_basis(record: ClaimRecord) -> str | None:
    """What a non-reproducing test's failure rests on: "prediction" for a prediction, else its kind (:func:`kind_of`);
    None for one that reproduces or has no verdict."""
    if record.verdict not in (Verdict.NOT_REPRODUCED, Verdict.NOT_REPRODUCED_UNDECLARED):
        return None
    return "prediction" if record.is_prediction else kind_of(record)


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


def reproducing(records: Sequence[ClaimRecord]) -> tuple[int, int, int]:
    """(claims whose every test reproduces, those of them with a close call, claims) among ``records``: how the
    answer counts the claims, and the page's counts beside it."""
    by: dict[str, list[ClaimRecord]] = {}
    for r in records:
        by.setdefault(r.claim, []).append(r)
    holding = [tests for tests in by.values() if all(r.verdict in HOLDS for r in tests)]
    close = sum(any(r.labelled_close for r in tests) for tests in holding)
    return len(holding), close, len(by)


def _claims(run: RunView) -> str:
    holding, close, claims = reproducing(run.claims)
    calls = f" ({close} close calls)" if close else ""
    return f"{holding} of {claims} claims reproduce{calls}."


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


@dataclass(frozen=True)
class SeedNote:
    """A claim test whose verdict moves with the seeds: at the paper's seeds against fresh seeds or more seeds."""

    claim: str  # the claim
    seeds: int  # the seeds of the run it differs in where it reproduces only with more seeds (else 0)
    test_name: str  # its test at the paper's point (the verdict table's row)
    paper_only: bool  # it reproduces at the paper's seeds and not at the other seeds ("holds at the paper's seeds
    # only"); False: it does not reproduce at the paper's seeds and does at more seeds
    note: str  # in words: "holds at the paper's seeds only: not reproduced at fresh seeds 100..107"


def _seeds_text(record: ClaimRecord) -> str:
    seeds = record.scale.get("seed_list") or []
    if len(seeds) > 1 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"seeds {seeds[0]}..{seeds[-1]}"
    return f"{len(seeds)} seeds"


def _paper_statement_fails(cell: ClaimRecord, tests: Sequence[ClaimRecord]) -> bool:
    """Whether a cell fails a check that its claim's tests at the paper's point label the paper's (by the quote's
    rule, ``lengthgen.records.basis``): the paper's own statement then fails at the cell's seeds. One counterexample
    falsifies a statement of every seed or 100 % of cells, whatever the seeds' noise says of a difference in rates."""
    papers = {c.name for r in tests for c in r.checks if c.basis == "paper"}
    return cell.verdict not in HOLDS and any(not c.passed and c.name in papers for c in cell.checks)


def seed_notes(run: RunView, more_seeds: RunView | None = None) -> list[SeedNote]:
    """The claim tests whose verdict moves with the seeds, in the run's order: a claim that reproduces in every test
    at the paper's seeds and whose fresh-seeds cell the robustness map decides the other way (beyond the seeds'
    noise, by the map's rule), or fails there a check labelled the paper's (:func:`_paper_statement_fails`), holds
    at the paper's seeds only, each of its tests; so does a test that
    reproduces and does not in ``more_seeds`` (the run with seeds added until decided, matched by test name); a
    test that does not reproduce and does there reproduces only with more seeds."""
    by: dict[str, list[ClaimRecord]] = {}
    for r in run.claims:
        by.setdefault(r.claim, []).append(r)
    fresh = {c.claim: c for c in run.robustness if c.setting == FRESH_SEEDS}
    moved = spreads(run.robustness, run.claims, run.catalogue) if fresh else {}
    later = {r.test_name: r for r in (more_seeds.claims if more_seeds is not None else ())}
    out = []
    for claim, tests in by.items():
        holds = all(r.verdict in HOLDS for r in tests)
        beyond_noise = claim in moved and FRESH_SEEDS in moved[claim].where(Outcome.OTHER_WAY)
        at_fresh = holds and (beyond_noise or (claim in fresh and _paper_statement_fails(fresh[claim], tests)))
        for r in tests:
            said = []
            if at_fresh:
                said.append(f"not reproduced at fresh {_seeds_text(fresh[claim])}")
            other = later.get(r.test_name)
            grown = other is not None and len(other.scale.get("seed_list") or ()) > len(r.scale.get("seed_list") or ())
            if grown and r.verdict in HOLDS and other.verdict not in HOLDS:
                said.append(f"not reproduced at {len(other.scale['seed_list'])} seeds")
            if said:
                out.append(SeedNote(claim, 0, r.test_name, True, f"holds at the paper's seeds only: {'; '.join(said)}"))
            elif grown and r.verdict not in HOLDS and other.verdict in HOLDS:
                close = " (close)" if other.labelled_close else ""
                seeds = len(other.scale["seed_list"])
                out.append(SeedNote(claim, seeds, r.test_name, False, f"reproduces{close} at {seeds} seeds"))
    return out


def _seeds(notes: Sequence[SeedNote]) -> str:
    """The answer's sentence on the seeds: the claims that hold at the paper's seeds only, and those whose failing
    test reproduces with more seeds."""
    only = list(dict.fromkeys(n.claim for n in notes if n.paper_only))
    grows = list(dict.fromkeys(n.claim for n in notes if not n.paper_only and n.claim not in only))
    parts = [f"{', '.join(only)} hold{'s' if len(only) == 1 else ''} at the paper's seeds only"] if only else []
    counts = {n.seeds for n in notes if not n.paper_only and n.claim in grows}
    if grows:  # they do not hold at the paper's seeds and do with more
        verb = "reproduces" if len(grows) == 1 else "reproduce"
        parts.append(f"{', '.join(grows)} {verb} at {counts.pop() if len(counts) == 1 else 'more'} seeds")
    return f"{'; '.join(parts)}." if parts else ""


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
    found = [o for o in mv.outcomes(grid).values() if o.state is not None]
    other = [o for o in found if o.spread.where(Outcome.OTHER_WAY)]
    noise = [o for o in found if o.spread.where(Outcome.WITHIN_NOISE) and not o.spread.where(Outcome.OTHER_WAY)]
    ruled = list(dict.fromkeys(u for o in found for u in o.spread.where(Outcome.RULED_OUT) if "+" not in u))
    if other:
        alone = Counter(u for o in other for u in dict.fromkeys(o.spread.where(Outcome.OTHER_WAY)) if "+" not in u)
        top = f" ({alone.most_common(1)[0][1]} under {alone.most_common(1)[0][0]})" if alone and not terse else ""
        said = f"Open choices decide {len(other)} verdicts otherwise{top}"
    else:
        said = "No open choice decides a verdict the other way"
    said += f"; {len(noise)} differ only within noise" if noise and not terse else ""
    said += f"; {', '.join(ruled)} {'is' if len(ruled) == 1 else 'are'} ruled out" if ruled else ""
    return said + "."


def _numbers(run: RunView, detail: int) -> str:
    """What the paper's numbers tell: with the claims behind each preference (``detail`` 2), the short form (1), or
    the preferences alone, without the leans that rest on one claim's numbers (0: none of them is a preference)."""
    from lengthgen.analysis.stated_numbers import sentence, table

    return sentence(table(run), detail >= 2, leans=detail >= 1) if run.multiverse else ""


def words(text: str) -> int:
    """Words as a reader counts them: whitespace-separated tokens."""
    return len(text.split())


FITTINGS = (  # what the answer says, most first: (kinds whose gists it spells out, how much of the stated numbers
    # it says (``_numbers``), the reading that decides most verdicts otherwise)
    (KINDS, 2, True),
    (("paper", "edge"), 2, True),
    (("paper", "edge"), 1, True),
    (("edge",), 1, True),
    ((), 1, True),
    ((), 1, False),
    ((), 0, False),
)


def answer(run: RunView, more_seeds: RunView | None = None) -> str:
    """The answer, at most :data:`MOST_WORDS` words: the first of :data:`FITTINGS` that fits (the few words of why
    per kind, the stated numbers' values), else the shortest. ``more_seeds``: the run with seeds added until
    decided, where there is one (:func:`seed_notes`)."""
    if not run.records:
        return "This run holds no claim test."
    head, predicted = _claims(run) if run.claims else "", _predictions(run)
    seeds = _seeds(seed_notes(run, more_seeds)) if run.claims else ""
    for gists, detail, most in FITTINGS:
        parts = [head, seeds, _failures(run, gists), predicted, _choices(run, terse=not most), _numbers(run, detail)]
        text = " ".join(p for p in parts if p)
        if words(text) <= MOST_WORDS:
            return text
    return text
