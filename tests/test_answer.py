"""The run's answer in one sentence (lengthgen/report/answer.py) and the page's first screen: the sentence,
counts in labelled units, the glossary folded and limited to the verdicts present."""

from __future__ import annotations

from pathlib import Path

from lengthgen.report.answer import grouped, sentence
from lengthgen.report.page import glossary
from lengthgen.report.run_view import RunView

REFERENCE = Path(__file__).parent / "data" / "claims-reference.json.gz"


def test_the_sentence_counts_claims_and_predictions_not_tests():
    run = RunView.from_json(REFERENCE)
    text = sentence(run)
    every, some, none, open_ = grouped(run.claims)
    assert text.startswith(f"Of {len(every) + len(some) + len(none) + len(open_)} claims, {len(every)} reproduce")
    assert len({v.claim for v in run.claims}) == 22 and "of 6 predictions" in text
    assert all(c in text for c in some + none)


def test_a_claim_with_a_failing_test_among_passing_ones_reproduces_in_part():
    views = RunView.from_records(
        [
            {"claim": c, "verdict": v, "test": f"t{i}", "kind": "claim", "scale": {"name": "paper"}, "checks": []}
            | {"where": "", "statement": "", "paper_value": "", "assertion": ""}
            for i, (c, v) in enumerate([("C12", "reproduced"), ("C12", "not reproduced"), ("C8", "not reproduced")])
        ],
        {},
    )
    assert grouped(views.claims) == ([], ["C12"], ["C8"], [])
    assert (
        sentence(views) == "Of 2 claims, 0 reproduce in every test, 1 in some of their tests (C12) and 1 do not (C8)."
    )


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
    assert sentence(run) in head and "claim tests:" in head and '<details class="small" id="glossary">' in head
    # the README's answer goes on with the multiverse and the stated numbers: the page's second line says the same
    readings = head[head.index('id="answer-readings"') : head.index('id="run-scale"')]
    assert "verdicts hold in every admissible universe" in readings and "init=gpt2 is ruled out" in readings
    assert "The paper&#39;s stated numbers agree best with" in readings
