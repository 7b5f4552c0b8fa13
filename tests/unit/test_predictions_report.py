"""The predictions (P1-P6) in the catalogue and the report: entries as claims.md fixes them, sorted after
C22, their own section of the page and of the terminal summary, and coverage that stays about C1-C22."""

from __future__ import annotations

import re

import pytest

from lengthgen.records import ClaimRecorder
from lengthgen.report import render_page, summary_lines
from lengthgen.analysis.data import assemble, claim_number
from lengthgen.analysis.run_view import RunView, completeness, record_of
from lengthgen.records.verdict import decide
from tests.helpers import SHARED, UNKNOWN_CLAIM, registry
from tests.report_samples import ENVIRONMENT, PAPER8, reproduced

from claims.registry import CLAIMS, claim

CLAIMS_MD = SHARED / "paper" / "claims.md"


def prediction(claim_id: str = "P4") -> dict:
    c = ClaimRecorder(CLAIMS[claim_id].entry, f"claims/test_p.py::test_{claim_id}[paper]")
    c.set_scale(**PAPER8)
    c.check("K=2 L=48: accuracy under interpolation", [0.05] * 8, "<=", 0.15)
    record = c.record
    decide(record)
    return record.to_dict()


@pytest.mark.skipif(not CLAIMS_MD.exists(), reason=f"the catalogue {CLAIMS_MD} is not beside this checkout")
def test_entries_are_the_catalogues_words():
    rows = {}
    for line in CLAIMS_MD.read_text().splitlines():
        match = re.match(r"\| (P\d) \| (.*?) \| (.*?) \| (.*) \|$", line)
        if match:
            rows[match.group(1)] = match.groups()[1:]
    predictions = [e.id for e in registry().catalogue.predictions]
    assert set(rows) == {f"P{i}" for i in range(1, 7)} and set(rows) <= set(predictions)  # a prediction added since
    for pid, (where, statement, assertion) in rows.items():
        entry = claim(pid)
        assert (entry.where, entry.statement, entry.assertion) == (where, statement, assertion)
        assert entry.prediction and registry().catalogue.is_prediction(pid)
    assert not set(predictions) & {e.id for e in registry().catalogue.claims}


def test_predictions_sort_after_the_papers_claims():
    ids = ["P2", "C22", "P1", "C3", "P10"]
    assert sorted(ids, key=claim_number) == ["C3", "C22", "P1", "P2", "P10"]
    with pytest.raises(ValueError, match=f"'{UNKNOWN_CLAIM}'"):
        claim(UNKNOWN_CLAIM)


def test_coverage_counts_the_papers_claims_and_says_predictions_apart():
    records = [reproduced(), prediction("P4"), prediction("P1")]
    catalogue = registry().catalogue
    claims, predictions = len(catalogue.claims), len(catalogue.predictions)

    def label(records):
        return completeness([record_of(r) for r in records], catalogue).label

    assert label(records) == (f"paper scale, partial: 1 of {claims} catalogue claims; 2 of {predictions} predictions")
    assert label([reproduced()]) == f"paper scale, partial: 1 of {claims} catalogue claims"


def test_summary_groups_the_predictions_after_the_claims():
    lines = summary_lines(RunView.from_records([prediction("P4"), reproduced()], ENVIRONMENT, registry()), width=140)
    heading = next(i for i, line in enumerate(lines) if line.startswith("predictions beyond the paper"))
    assert lines[1].startswith("C1") and lines[heading + 1].startswith("P4")
    assert "position interpolation at inference" in lines[heading + 1]  # the prediction in the paper column
    assert any(line.startswith("predictions: 1 reproduced") for line in lines)
    of = f"1 of {len(registry().catalogue.predictions)} predictions"
    assert any(line.startswith("run:") and "; 1 reproduced" in line and of in line for line in lines)


def test_page_has_a_predictions_table_and_section():
    data = assemble([prediction("P4"), reproduced()], ENVIRONMENT, registry())
    html, _ = render_page(data)
    assert html.index('<table id="claims">') < html.index('<table id="predictions">')
    assert html.index("Claims in detail") < html.index("Predictions in detail") < html.index('id="P4-paper"')
    claims_table = html[html.index('<table id="claims">') : html.index("</table>", html.index('<table id="claims">'))]
    assert 'data-claim="P4"' not in claims_table and 'data-claim="C1"' in claims_table
