"""The run's answer (lengthgen/analysis/answer.py): at most MOST_WORDS words, the failing claims grouped by what
their failure rests on, the open choices counting only verdicts decided the other way; and the page's first
screen leads with it."""

from __future__ import annotations


import pytest

from lengthgen.catalogue import Entry
from lengthgen.records import ClaimRecorder, Declared
from lengthgen.records.verdict import decide
from lengthgen.analysis.answer import KIND_WORDS, MOST_WORDS, answer, failures, kind_of, seed_notes, words
from lengthgen.report.page import glossary
from lengthgen.analysis.run_view import RunView
from lengthgen.scale import PAPER
from tests.helpers import DATA

REFERENCE = DATA / "claims-reference.json.gz"


def test_the_reference_answer_fits_its_budget_and_counts_claims_not_tests():
    run = RunView.from_json(REFERENCE)
    text = answer(run)
    assert words(text) <= MOST_WORDS, text
    claims = len({r.claim for r in run.claims})
    holding = {r.claim for r in run.claims} - {f.label.split()[0] for f in failures(run.claims)}
    assert text.startswith(f"{len(holding)} of {claims} claims reproduce"), text
    assert "of 6 predictions hold" in text and "init=gpt2 is ruled out" in text


def claim_test(claim: str, variant: str, passing: bool, source: str, declared: Declared | None = None) -> dict:
    """A decided paper-scale test of ``claim`` with one check whose threshold comes from ``source`` (the paper's:
    the number 0.85 its quote states)."""
    entry = Entry(claim, "t", "w", "s", "0.85", "a", quote=("it reaches 0.85",))
    c = ClaimRecorder(entry, f"claims/test_x.py::test_{claim.lower()}[paper{'-' + variant if variant else ''}]")
    c.set_scale(name="paper", seeds=8, paper_seeds=8)
    quoted = "0.85" if source == "paper-number" else None
    c.check("statistic", [0.9 if passing else 0.5] * 8, ">=", 0.85, source=source, quoted=quoted)
    if declared is not None:
        c.expect_not_reproduced(PAPER, declared)
    decide(c.record)
    return c.record.to_dict()


EDGE = Declared(
    ("statistic",), "one flat seed", gist="one flat cell of 120", kind="structural", reason="a flat profile: 0.5"
)
NUMBER = Declared(("statistic",), "the fraction is lower", gist="carrier fraction lower")  # its kind by its checks
WORD = Declared(
    ("statistic",), "not near-perfect", gist="accuracy 0.93 at L=48", kind="suite-reading", reason="0.93 < 0.95"
)


def mixed_run() -> RunView:
    """One failure of each kind, a claim that fails in one of its two tests, and one that reproduces."""
    return RunView.from_records(
        [
            claim_test("C1", "", True, "paper-number"),
            claim_test("C8", "", False, "suite-reading", EDGE),
            claim_test("C4", "", False, "paper-number", NUMBER),
            claim_test("C20", "", False, "suite-reading", WORD),
            claim_test("C12", "d64", False, "suite-reading"),
            claim_test("C12", "d96", True, "suite-reading"),
        ],
        {},
    )


def test_each_failure_is_grouped_by_what_it_rests_on():
    run = mixed_run()
    kinds = {f.label: f.kind for f in failures(run.claims)}
    assert kinds == {"C8": "structural", "C4": "paper-statement", "C20": "suite-reading", "C12 d64": "suite-reading"}
    by = {r.claim: r for r in run.claims}
    assert kind_of(by["C8"]) == "structural"  # its declaration's kind
    assert kind_of(by["C4"]) == "paper-statement"  # no kind declared: a failed check labelled the paper's


def test_the_answer_names_each_group_with_its_gists_within_budget():
    text = answer(mixed_run())
    assert text.startswith("1 of 5 claims reproduce.") and "4 do not:" in text, text
    for kind in ("paper-statement", "suite-reading", "structural"):
        assert KIND_WORDS[kind] in text, (kind, text)
    assert "C8 (one flat cell of 120)" in text and "C4 (carrier fraction lower)" in text, text
    assert "C12 d64" in text and "C12 d96" not in text, text  # the failing variant alone, where others reproduce
    assert words(text) <= MOST_WORDS


def test_a_long_answer_drops_the_gists_before_it_overflows():
    gist = "ten words that say why this claim fails in detail"
    tests = [
        claim_test(f"C{i}", "", False, "suite-reading", Declared(("statistic",), "why", gist=gist))
        for i in range(1, 15)
    ]
    text = answer(RunView.from_records(tests, {}))
    assert words(text) <= MOST_WORDS and gist not in text, text
    assert "14 do not" in text


@pytest.mark.parametrize("planted", ["structural", "paper-statement", "suite-reading"])
def test_a_kind_is_named_only_where_a_failure_of_it_exists(planted):
    declared = {"structural": EDGE, "paper-statement": NUMBER, "suite-reading": WORD}[planted]
    source = "paper-number" if planted == "paper-statement" else "suite-reading"
    text = answer(RunView.from_records([claim_test("C4", "", False, source, declared)], {}))
    assert [k for k in KIND_WORDS if KIND_WORDS[k] in text] == [planted], text


def test_the_glossary_holds_only_the_verdicts_present():
    run = RunView.from_json(REFERENCE)
    present = {v.verdict for part in (run.records, run.robustness, run.multiverse) for v in part}
    assert {verdict for verdict, _ in glossary(run)} == present and "error" not in present
    assert "ruled out" in present  # the reference's multiverse holds init=gpt2's cells


def test_the_first_screen_leads_with_the_answer():
    from lengthgen.report.page import page

    run = RunView.from_json(REFERENCE)
    html = page(run, {})
    head = html[html.index("<header>") : html.index("</header>")]
    assert head.index('id="answer"') < head.index('id="run-scale"') < head.index('id="verdicts"')
    assert "claim tests:" in head and '<details class="small" id="glossary">' in head
    assert "init=gpt2 is ruled out" in head


def seeded_test(claim: str, passing: bool, seeds: list[int], setting: str = "", name: str = "") -> dict:
    """A decided paper-scale test of ``claim`` at ``seeds`` (a robustness cell at ``setting`` where given)."""
    test = name or f"claims/test_x.py::test_{claim.lower()}[paper]"
    c = ClaimRecorder(claim, f"claims/test_robustness.py::test_robustness[{setting}-{claim}]" if setting else test)
    c.set_scale(name="paper", seeds=len(seeds), paper_seeds=8, seed_list=seeds)
    if setting:
        c.set_setting(setting)
    c.check("statistic", [0.9 if passing else 0.5] * len(seeds), ">=", 0.85, source="suite-reading")
    decide(c.record)
    return c.record.to_dict()


PAPER_SEEDS, FRESH, MORE = list(range(8)), list(range(100, 108)), list(range(24))


def test_a_claim_that_fails_at_fresh_seeds_holds_at_the_papers_seeds_only():
    run = RunView.from_records(
        [
            seeded_test("C3", True, PAPER_SEEDS),
            seeded_test("C3", False, FRESH, "fresh-seeds"),
            seeded_test("C4", True, PAPER_SEEDS),
            seeded_test("C4", True, FRESH, "fresh-seeds"),
            seeded_test("C8", False, PAPER_SEEDS),  # fails at both: nothing moves with the seeds
            seeded_test("C8", False, FRESH, "fresh-seeds"),
        ],
        {},
    )
    notes = seed_notes(run)
    assert [(n.claim, n.paper_only, n.note) for n in notes] == [
        ("C3", True, "holds at the paper's seeds only: not reproduced at fresh seeds 100..107")
    ]
    text = answer(run)
    assert "C3 holds at the paper's seeds only." in text and words(text) <= MOST_WORDS, text


def test_a_verdict_that_flips_with_more_seeds_is_named():
    paper = RunView.from_records([seeded_test("C9", True, PAPER_SEEDS), seeded_test("C20", False, PAPER_SEEDS)], {})
    more = RunView.from_records([seeded_test("C9", False, MORE), seeded_test("C20", True, MORE)], {})
    notes = {n.claim: n for n in seed_notes(paper, more)}
    assert notes["C9"].paper_only and notes["C9"].note == "holds at the paper's seeds only: not reproduced at 24 seeds"
    assert not notes["C20"].paper_only and notes["C20"].note == "reproduces at 24 seeds"
    assert "C9 holds at the paper's seeds only; C20 reproduces at 24 seeds." in answer(paper, more)
    assert seed_notes(paper, paper) == [] and seed_notes(paper) == []  # the same seeds: nothing moves


def test_the_reference_answer_names_the_claims_that_hold_at_the_papers_seeds_only():
    from lengthgen.analysis import data

    joined = data.with_cells_of(data.read(REFERENCE), data.read(DATA / "claims-extended.json.gz"))
    run, more = RunView.from_data(joined), RunView.from_data(data.read(DATA / "claims-until-decided.json.gz"))
    only = {n.claim for n in seed_notes(run, more) if n.paper_only}
    grows = {n.claim for n in seed_notes(run, more) if not n.paper_only}
    assert only == {"C3", "C11"} and grows == {"C20"}, (only, grows)
    text = answer(run, more)
    assert "C3, C11 hold at the paper's seeds only; C20 reproduces at 24 seeds." in text, text
    assert words(text) <= MOST_WORDS, text
