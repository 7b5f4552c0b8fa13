"""The markdown summary (lengthgen.report.markdown.summary_markdown): the verdict table a CI job summary or a
pull-request comment shows, rendered from the run's view."""

from __future__ import annotations

import copy

import pytest

from lengthgen.analysis.data import assemble
from lengthgen.report.markdown import cell, summary_markdown
from lengthgen.analysis.run_view import RunView
from tests.helpers import SHARED, registry
from tests.report_samples import ENVIRONMENT, all_records, controls, reproduced
from tests.unit.test_predictions_report import prediction
from tests.unit.test_robustness_report import map_records

BASELINE = SHARED / "baselines" / "claims-paper-1e63f06.json.gz"
HEADER = "| id | variant | verdict | paper | measured | close |"


def rows(markdown: str) -> dict[str, list[str]]:
    """The verdict table's rows by their first two cells ("C1", "C12 d64")."""
    out = {}
    for line in markdown.splitlines():
        if line.startswith("| C") or line.startswith("| P"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            if len(cells) == 6:
                out[f"{cells[0]} {cells[1]}".strip()] = cells
    return out


def test_the_table_has_a_row_per_claim_test_with_its_verdict_and_close_call():
    text = summary_markdown(RunView.from_records(all_records(), ENVIRONMENT, registry()))
    claims = len(registry().catalogue.claims)
    assert text.startswith(f"## lengthgen claims: mixed scale, partial: 8 of {claims} catalogue claims\n")
    assert HEADER in text and text.endswith("\n")
    table = rows(text)
    assert list(table) == ["C1", "C4", "C6", "C8", "C9", "C10", "C15", "C18"]
    assert table["C1"][2] == "reproduced" and table["C4"][2] == "**failed**"
    assert table["C10"][2] == "reproduced (close)" and table["C10"][5] == "close (1 check)"
    assert table["C4"][4] == "key carrier fraction K=2: 0.412 in [0.65, 0.95]"  # the failed deciding check
    assert table["C8"][4].endswith("1 of 8 seeds at 44 (needs &lt; 16)")  # "<" never reaches the markdown as HTML
    assert (
        "**Claims:** 3 reproduced, 1 reproduced (close), 1 not reproduced, 1 inconclusive, 1 failed, 1 skipped" in text
    )
    assert "Robustness map" not in text and "Multiverse" not in text
    assert "wall time 2 min 31 s; models trained 48, from the cache 72" in text


def test_predictions_get_their_own_table_and_count():
    text = summary_markdown(RunView.from_records([prediction("P4"), reproduced()], ENVIRONMENT, registry()))
    claims, predictions = text.split("### Predictions beyond the paper")
    assert "| C1 |" in claims and "| P4 |" in predictions and "| P4 |" not in claims
    assert "position interpolation at inference" in predictions  # a prediction's statement in the paper column
    assert "**Predictions:** 1 reproduced" in predictions


def test_pipes_and_markup_in_names_are_escaped():
    record = reproduced()
    record["paper_value"] = "a | b <script>alert(1)</script>\nsecond line"
    text = summary_markdown(RunView.from_records([record], ENVIRONMENT))
    assert "<script>" not in text
    assert rows(text)["C1"][3] == "a \\| b &lt;script&gt;alert(1)&lt;/script&gt; second line"
    assert cell("x" * 500, 20) == "x" * 17 + "..."


def test_controls_are_tallied_and_the_failing_ones_named():
    data = assemble(all_records(), ENVIRONMENT)
    data["controls"] = controls(data["records"][0])
    text = summary_markdown(RunView.from_json(data))
    assert "**Negative controls:** 1 of 2 discriminate" in text
    assert "- control C1 `test_control[paper]`: **failed**: every check passed on the counterfactual\n" in text


def test_robustness_and_multiverse_cells_are_compact_tables():
    data = assemble(all_records() + map_records(), ENVIRONMENT)
    data["multiverse"] = [
        dict(
            copy.deepcopy(data["robustness"][2]),
            mode={"kind": "reading", "reading": reading},
            verdict=v,
            test=f"claims/test_multiverse.py::test_reading[{reading}-C1]",
        )
        for reading, v in (("init-small", "reproduced"), ("mix-wide", "not reproduced (undeclared)"))
    ]
    text = summary_markdown(RunView.from_json(data))
    robustness = text[text.index("### Robustness map") : text.index("### Multiverse")]
    assert robustness.startswith("### Robustness map (3 cells: 2 reproduced, 1 not reproduced (undeclared) (close))")
    assert "| claim | offsets-far | width-32 | fresh-seeds |" in robustness  # the catalogue's setting order
    assert "| C1 | not reproduced (undeclared) (close) | reproduced |  |" in robustness
    assert "| C9 |  |  | reproduced |" in robustness
    multiverse = text[text.index("### Multiverse") :]
    assert multiverse.startswith("### Multiverse (2 cells: 1 reproduced, 1 not reproduced (undeclared))")
    assert "| claim | paper | init-small | mix-wide |" in multiverse  # the suite's reading first, for reference
    assert "| C1 | reproduced | reproduced | not reproduced (undeclared) |" in multiverse


@pytest.mark.skipif(not BASELINE.exists(), reason=f"{BASELINE} is not beside this checkout")
def test_the_baseline_summary():
    text = summary_markdown(RunView.from_json(BASELINE))
    table = rows(text)
    assert len(table) == 33 - 2 + 2  # C19's four tests: two functions x two schemes, each its own row
    assert table["C8"][2] == "**not reproduced**" and table["C11"][5] == "close (1 check)"
    assert table["C12 d64"][2] == "**not reproduced**" and table["C12 d96"][2] == "reproduced"
    assert "C19 alibi (selects_the_target_like_rope)" in table
    assert "**Claims:** 17 reproduced, 3 reproduced (close), 7 not reproduced" in text
    assert "**Predictions:** 3 reproduced, 1 reproduced (close), 2 not reproduced" in text
    assert "**Negative controls:** 30 of 30 discriminate" in text
