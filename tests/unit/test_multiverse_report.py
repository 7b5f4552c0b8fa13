"""The multiverse in claims.json, the text grid and `lengthgen multiverse` (synthetic records, no training)."""

from __future__ import annotations

import json
import re

import pytest

from lengthgen.report import render_page
from lengthgen.report.markdown import summary_markdown
from lengthgen.analysis.multiverse import cell_id, outcome_for, outcomes, view_grid
from lengthgen.analysis.outcome import Outcome
from lengthgen.report.page import overview_rows
from lengthgen.analysis.run_view import RunView
from lengthgen.report.summary import terminal_lines
from tests.helpers import registry
from tests.report_samples import ENVIRONMENT, all_records, multiverse_records

from lengthgen.analysis.data import assemble
from lengthgen.analysis.multiverse import claim_summary
from lengthgen.report.multiverse import build_grid, grid_lines
from lengthgen.analysis.data import carry_over


def record(claim, reading=None, verdict="reproduced", failed=(), test=None):
    checks = [{"name": "ok check", "value": 1.0, "op": ">=", "threshold": 0.5, "passed": True}]
    checks += [
        {"name": n, "value": 0.1, "op": ">=", "threshold": 0.95, "passed": False, "values": [0.1, 0.1]} for n in failed
    ]
    return {
        "claim": claim,
        "reading": reading,
        "verdict": verdict,
        "checks": checks,
        "kind": "claim",
        "test": test or f"claims/test_multiverse.py::test_multiverse[{reading}-{claim}]",
        "scale": {},
    }


def test_assemble_puts_reading_records_in_multiverse_and_carry_over_keeps_them(tmp_path):
    code = {"suite_fingerprint": "abc"}  # the code every run below ran
    data = assemble([record("C1"), record("C1", "init=gpt2")], {"host": "x", **code}, registry())
    assert [r["claim"] for r in data["records"]] == ["C1"]
    assert [r["reading"] for r in data["multiverse"]] == ["init=gpt2"] and data["multiverse_environment"]
    previous = tmp_path / "claims.json"
    previous.write_text(json.dumps(data))
    only_grid, refused = carry_over(assemble([record("C8", "ape-rows=zero")], code), previous)
    assert only_grid["records"] == data["records"] and only_grid["multiverse"][0]["claim"] == "C8"
    assert refused is None and only_grid["catalogue"] == data["catalogue"]  # the registry of the same code's run
    only_claims, _ = carry_over(assemble([record("C3")], code), previous)
    assert only_claims["multiverse"] == data["multiverse"]
    other, refused = carry_over(assemble([record("C3")], {"suite_fingerprint": "def"}), previous)
    assert "multiverse" not in other and "catalogue" not in other  # another code's run: nothing carried
    assert refused.startswith(f"not carried over: {previous} ran other code (fingerprint abc, this run's def)")


def test_grid_marks_run_missing_and_failed_cells():
    cells = [
        record("C1", "init=gpt2", "not reproduced (undeclared)", ["RoPE K=1 L=48: accuracy"]),
        record("C12", "init=torch", test="x::test_multiverse[init=torch-C12-d64]"),
    ]
    grid = build_grid(cells, registry=registry())
    by = {(c["reading"], c["column"]): c for c in grid["cells"]}
    assert by["init=gpt2", "C1"]["failed_checks"][0]["name"] == "RoPE K=1 L=48: accuracy"
    assert by["init=torch", "C12-d64"]["verdict"] == "reproduced" and by["init=torch", "C12"]["verdict"] == "missing"
    assert ("ape-value=token", "C3") not in by  # C3 reads RoPE heads only
    text = "\n".join(grid_lines(cells, registry=registry()))
    assert (
        "NEW-not-repr" in text
        and "FAIL RoPE K=1 L=48: accuracy" in text
        and "left to the extended run (-m multiverse_extended): 23 cells of C1, C12-d64" in text
    )
    d64 = dict(record("C12", test="t[paper-d64]"), scale={"name": "paper"})  # C12's first width at the paper's point
    summary = claim_summary([record("C1", test="t1"), d64], cells, registry())
    assert summary["C1"] == (
        "holds in 1 of 2 admissible universes; decided the other way under init=gpt2; init=gpt2: not reproduced "
        "(undeclared) (RoPE K=1 L=48: accuracy: 0.1, needs >= 0.95)"
    )
    assert summary["C12-d64"] == "holds in 2 of 2 admissible universes"


def test_without_a_catalogue_the_rows_go_by_claim_number():
    cells = [record(claim, "init=gpt2") for claim in ("C12", "P1", "C8", "C1")]
    assert build_grid(cells)["columns"] == ["C1", "C8", "C12", "P1"]
    assert build_grid(cells, registry=registry())["columns"][:3] == ["C1", "C3", "C4"]  # the plan's rows too


def test_cli_lists_the_registry_and_refuses_a_missing_report(tmp_path, tmp_path_factory, capsys):
    from lengthgen.cli import main

    assert main(["multiverse", "--list"]) == 0
    out = capsys.readouterr().out
    assert "init=gpt2" in out and "who:" in out and "left at one reading:" in out
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(assemble([record("C1", "init=gpt2")], {})))
    grid = tmp_path_factory.mktemp("out") / "multiverse.json"  # outside the run's folder, which is only read
    assert main(["multiverse", "--run", str(path), "--out", str(grid)]) == 0
    assert json.loads(grid.read_text())["cells"] and sorted(tmp_path.iterdir()) == [path]


# ----------------------------------------------------------------------------------------------- the report
# The samples' cells (tests.report_samples.multiverse_records) against their claims at the paper's point:
# C1 reproduced, NEW-not-repr under init=gpt2, ok under ape-value=token; C8 not reproduced, ok under
# init=gpt2, not-repr (carried) under ape-rows=zero; C10 reproduced (close), ok under ape-value=token; C4 no cell.


@pytest.fixture(scope="module")
def view() -> RunView:
    return RunView.from_records(all_records() + multiverse_records(), ENVIRONMENT, registry())


@pytest.fixture(scope="module")
def html(view) -> str:
    return render_page(view)[0]


def claims_row(html: str, claim: str) -> str:
    table = html[html.index('<table id="claims">') :]
    table = table[: table.index("</table>")]
    return re.search(rf'<tr class="v-row[^"]*"[^>]*data-claim="{claim}">.*?</tr>', table, re.S).group(0)


def test_outcomes_hold_change_or_not_run(view):
    found = outcomes(view_grid(view))
    by_claim = {c.claim: outcome_for(view_grid(view), c, found) for c in view.claims}
    assert by_claim["C1"].state is Outcome.OTHER_WAY and [c.universe for c in by_claim["C1"].changes] == ["init=gpt2"]
    assert by_claim["C1"].text() == (
        "holds in 2 of 3 admissible universes; decided the other way under init=gpt2; init=gpt2: not reproduced "
        "(undeclared) (APE K=1 L=20: accuracy: 0.31, needs <= 0.15)"
    )
    assert by_claim["C8"].text() == (  # one seed of eight fails at the paper's point, none under init=gpt2
        "holds in 2 of 3 admissible universes; decided the other way under none; within noise under init=gpt2; "
        "init=gpt2: reproduced, within noise (APE K=3 L=48: peak absolute position of every seed: 12 < 16)"
    )
    assert by_claim["C10"].state is Outcome.HOLDS
    assert by_claim["C10"].text().startswith("holds in 2 of 2 admissible universes")
    assert by_claim["C4"].state is None and by_claim["C4"].text() == "not run in the multiverse"
    assert outcome_for(view_grid(RunView.from_records(all_records(), ENVIRONMENT, registry())), view.claims[0]) is None


def test_the_page_grid_links_and_colours_each_cell(html, view):
    grid = html[html.index('<table id="multiverse-grid"') :]
    grid = grid[: grid.index("</table>")]
    header = re.findall(r"<th[^>]*>([^<]*)</th>", grid[: grid.index("</thead>")])
    assert header[:2] == ["claim", "paper"] and "init=gpt2" in header and not any("+" in h for h in header)
    c1 = re.search(r'<tr><th class="claim">C1</th>(.*?)</tr>', grid).group(1)
    cells = re.findall(r'<td class="([^"]*)"[^>]*>(?:<a href="#([^"]*)">([^<]*)</a>|([^<]*))</td>', c1)
    assert cells[0] == ("cell v-reproduced", "C1-paper", "ok", "")  # the suite's reading: the claim's own section
    gpt2 = header.index("init=gpt2") - 1
    # C1 hinges on init=gpt2 in the samples (APE at L = 20 moves from 0.05 to 0.31): the cell is marked
    assert cells[gpt2] == ("cell v-not-reproduced-undeclared", cell_id("init=gpt2", "C1"), "NEW-not-repr \u25c6", "")
    assert cells[header.index("init=torch") - 1][0] == "na muted"  # init=torch changes the two-layer models only
    assert cells[header.index("lengths=per-batch") - 1][0] == "v-unknown"  # planned, no record
    c8 = re.search(r'<tr><th class="claim">C8</th>(.*?)</tr>', grid).group(1)
    assert '<td class="cell v-not-reproduced" title="C8: 1 of 1 checks fail as expected' in c8
    block = html[html.index(f'id="{cell_id("init=gpt2", "C1")}"') :]
    block = block[: block.index("</details>")]
    assert "C1 under init=gpt2" in block and "APE K=1 L=20: accuracy" in block and "RoPE K=1 L=48: accuracy" in block
    assert block.index("APE K=1 L=20") < block.index("RoPE K=1 L=48")  # the failed check first
    assert len(re.findall(r'<details class="grid-cell" id="multiverse-', html)) == len(view.multiverse)


def test_the_claims_table_says_what_other_readings_do(html):
    assert '<th title="the multiverse' in html and "Under other readings</button></th>" in html
    c1 = claims_row(html, "C1")
    assert 'class="readings-cell readings-changes"' in c1 and f'href="#{cell_id("init=gpt2", "C1")}"' in c1
    assert "not reproduced (undeclared)</span>" in c1 and "APE K=1 L=20: accuracy: 0.31, needs &lt;= 0.15" in c1
    assert "holds in 2 of 3 admissible universes" in c1
    assert "holds in 2 of 2 admissible universes" in claims_row(html, "C10")
    assert "readings-not-run" in claims_row(html, "C4") and "not run in the multiverse" in claims_row(html, "C4")
    plain = render_page(RunView.from_records(all_records(), ENVIRONMENT, registry()))[0]
    assert "Under other readings" not in plain and 'class="readings-cell' not in plain  # no multiverse part: no column
    assert 'id="multiverse-grid"' not in plain and "No multiverse in this report" in plain


def test_the_forest_plot_marks_claims_whose_verdict_depends_on_a_reading(html, view):
    from lengthgen.report.figures import DEPENDS_MARK, depends_label, forest

    tests = {c.claim: c.test for c in view.claims}
    rows = overview_rows(view.records, frozenset({tests["C1"], tests["C8"]}))
    marked = {r["label"].split(":")[0] for r in rows if r["depends"]}
    assert marked == {"C1", "C8"}
    assert depends_label(rows[0]).endswith(DEPENDS_MARK)
    assert not depends_label({"label": "C4: x"}).endswith(DEPENDS_MARK)
    _, caption = forest(rows)
    assert f"{DEPENDS_MARK} after a label: the verdict changes under another reading" in caption
    assert DEPENDS_MARK not in forest([dict(r, depends=False) for r in rows])[1]
    assert f"{DEPENDS_MARK} after a label" in html  # the page's overview says it, C1 and C8 change


def test_the_terminal_prints_the_multiverse_as_a_grid_not_among_the_claims(view):
    lines = terminal_lines(view, 160)
    start = next(i for i, line in enumerate(lines) if line.startswith("multiverse (paper scale"))
    header = lines[start + 1].split()
    assert header[:2] == ["claim", "paper"] and "init=gpt2" in header
    rows = {
        line.split()[0]: line.split()[1:]
        for line in lines[start + 2 :]
        if line[:1] in "CP" and "under" not in line and len(line.split()) == len(header)
    }
    assert rows["C1"][0] == "ok" and rows["C1"][header.index("init=gpt2") - 1] == "NEW-not-repr"
    assert rows["C1"][header.index("lengths=per-batch") - 1] == "?"  # the run's plan: a cell planned, no record
    assert "C12-d64" in rows  # C12's first width: a row of its own
    left = [line for line in lines if line.startswith("left to the extended run (-m multiverse_extended): ")]
    assert len(left) == 1 and left[0].endswith("of C1, C8, C10")  # the rows it recorded cells of, no others
    assert rows["C10"][0] == "ok~" and rows["C10"][header.index("ape-value=token") - 1] == "ok"
    details = "\n".join(lines)
    assert "C1 under init=gpt2: not reproduced (undeclared) (at the paper's point: reproduced)" in details
    assert "    FAIL APE K=1 L=20: accuracy: 0.31, needs <= 0.15" in details
    assert "C10 under" not in details  # a cell that holds is in the grid only
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("claim scale")) :]
    assert not any("multiverse" in line or "init=gpt2" in line for line in table)
    assert sum(1 for line in table if line.startswith("C1 ")) == 1
    alone = terminal_lines(RunView.from_records(multiverse_records(), ENVIRONMENT, registry()), 160)
    assert alone[-1].startswith("wall time") and not any(line.startswith("claim scale") for line in alone)


def test_the_markdown_table_gains_the_column_only_with_a_multiverse(view):
    text = summary_markdown(view)
    assert "| id | variant | verdict | paper | measured | close | under other readings |" in text
    c1 = next(line for line in text.splitlines() if line.startswith("| C1 |"))
    assert c1.endswith(
        "| **holds in 2 of 3 admissible universes; decided the other way under init=gpt2; init=gpt2: not reproduced "
        "(undeclared) (APE K=1 L=20: accuracy: 0.31, needs &lt;= 0.15)** |"
    )
    c4 = next(line for line in text.splitlines() if line.startswith("| C4 |"))
    assert c4.endswith("| not run in the multiverse |")
    assert "| holds in 2 of 2 admissible universes |" in text  # C10
    grid = text[text.index("### Multiverse") :]
    assert "| claim | paper | init=gpt2 | ape-rows=zero | ape-value=token |" in grid
    assert "| C1 | reproduced | not reproduced (undeclared) | ? | reproduced |" in grid
    assert "| C10 | reproduced (close) | ? | ? | reproduced |" in grid
    assert "under other readings" not in summary_markdown(RunView.from_records(all_records(), ENVIRONMENT, registry()))


def test_cli_prints_the_paper_column_and_the_changed_cells(tmp_path, tmp_path_factory, capsys):
    from lengthgen.cli import main
    from lengthgen.report import write_report

    files = write_report(all_records() + multiverse_records(), ENVIRONMENT, tmp_path, registry())
    grid = tmp_path_factory.mktemp("out") / "multiverse.json"
    assert main(["multiverse", "--run", str(files.json), "--out", str(grid)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^C8 +not-repr ", out, re.M)
    assert "C8 under init=gpt2: reproduced (at the paper's point: not reproduced)" in out
    data = json.loads(grid.read_text())
    assert data["paper"]["C8"] == "not reproduced" and data["columns"][0] == "C1"
    changed = {(c["reading"], c["column"]) for c in data["cells"] if c.get("changed")}
    assert changed == {("init=gpt2", "C1"), ("init=gpt2", "C8")}


def test_a_ruled_out_cell_is_not_a_change_and_is_named():
    """A reading the paper's own results rule out is neither reproduced nor not: excluded from the admissible
    universes, named apart."""
    cells = [record("C1", "init=gpt2", "ruled out"), record("C1", "lengths=per-batch")]
    summary = claim_summary([record("C1", test="t1")], cells)
    assert summary["C1"].startswith("holds in 2 of 2 admissible universes; ruled out: init=gpt2"), summary["C1"]
    grid = build_grid(cells)
    assert {c["verdict"] for c in grid["cells"] if c["reading"] == "init=gpt2" and c["column"] == "C1"} == {"ruled out"}
    assert "ruled-out" in "\n".join(grid_lines(cells))


# ------------------------------------------------------------------------------- the plan a claims run records


def test_a_claims_run_records_the_plan_and_list_counts_each_claims_universes(tmp_path, capsys):
    """A claims run (its claims' registry at hand) records the catalogue and the plan of every cell in its
    claims.json; ``--list`` counts each claim's universes from it, as many as the registry has cells."""
    import claims.multiverse as planner
    from lengthgen.cli import main
    from lengthgen.readings import CellPlan

    from claims.registry import catalogue

    data = assemble(all_records(), ENVIRONMENT, registry())
    declared = planner.load_declarations()
    assert CellPlan.from_dict(json.loads(json.dumps(data["multiverse_plan"]))) == planner.plan(declared)
    assert [e["id"] for e in data["catalogue"]] == [e.id for e in catalogue()]
    assert "catalogue" not in assemble(all_records(), ENVIRONMENT) and "multiverse_plan" not in assemble([], {})
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(data))
    assert main(["multiverse", "--list", "--run", str(path)]) == 0
    out = capsys.readouterr().out
    counts = dict(re.findall(r"^  (C\d+(?:-d64)?|P\d) +(\d+) universes:", out, re.M))
    every = planner.all_cells(declared)
    assert counts["C8"] == str(sum(column == "C8" for _, column in every))
    assert f"all: {len(every)} cells, {len(planner.cells(declared))} in the default run" in out


def test_list_refuses_a_given_report_without_a_plan_and_hints_for_the_default(tmp_path, capsys, monkeypatch):
    from lengthgen.cli import main

    data = assemble(all_records(), ENVIRONMENT, registry())
    del data["multiverse_plan"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    assert main(["multiverse", "--list", "--run", str(old)]) == 2
    assert "records no multiverse plan" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)  # no reports/claims.json here: the registry, and how to get the counts
    assert main(["multiverse", "--list"]) == 0
    assert "universes per claim: reports/claims.json is not there" in capsys.readouterr().out


def test_a_malformed_plan_is_one_line():
    from lengthgen.readings import CellPlan

    with pytest.raises(ValueError, match="malformed multiverse plan"):
        CellPlan.from_dict({"cells": [["init=gpt2"]]})
    with pytest.raises(ValueError, match="unknown reading"):
        CellPlan.from_dict({"touched": [], "cells": [["init=nope", "C1"]]})


def universes_section(data, extended=None, cold=None) -> str:
    """docs/robustness.md's ``universes`` section of the run ``data`` (its models from ``cold``, default ``data``),
    with ``extended`` the costs file of the extended cells' cold run."""
    from types import SimpleNamespace

    from lengthgen.report.doc_costs import Costs
    from lengthgen.report.doc_multiverse import universe_models, universes
    from lengthgen.report.doc_render import sections

    cold = data if cold is None else cold
    doc = SimpleNamespace(
        universes=universes(data),
        universe_models=universe_models(cold),
        run=SimpleNamespace(multiverse_environment=cold.get("multiverse_environment")),
        extended_costs=Costs.of(extended).part("multiverse_extended"),
    )
    return sections("docs/robustness.md", doc, only="universes")["universes"]


def test_the_universes_section_needs_a_recorded_plan():
    from lengthgen.report.doc_multiverse import universes

    data = assemble(all_records(), ENVIRONMENT, registry())
    assert "| C8 | " in universes_section(data)
    del data["multiverse_plan"]
    with pytest.raises(ValueError, match="records no multiverse plan"):
        universes(data)


def test_the_recorded_registry_is_read_in_one_place():
    """``Registry.from_data``: what the view, ``--list``, the universes section and the stated numbers' ranking
    read; a run that recorded no plan (or no catalogue) reads as an empty one."""
    from lengthgen.readings import EMPTY as NO_PLAN
    from lengthgen.registry import Registry

    data = assemble(all_records(), ENVIRONMENT, registry())
    recorded = Registry.from_data(json.loads(json.dumps(data)))
    assert recorded == registry() and recorded.plan.to_dict() == data["multiverse_plan"]
    assert RunView.from_data(data).registry == recorded
    del data["multiverse_plan"]
    assert Registry.from_data(data).plan is NO_PLAN and Registry.from_data(data).catalogue == registry().catalogue
    del data["catalogue"]
    assert Registry.from_data(data) == Registry() and not len(RunView.from_data(data).catalogue)


@pytest.mark.parametrize(
    "seconds, text",
    [(0.25, "250 ms"), (119.94, "119.9 s"), (179.6, "3 min 00 s"), (2811.4, "46 min 51 s"), (None, "n/a")],
)
def test_a_duration_rounds_to_whole_seconds_before_it_splits_minutes(seconds, text):
    from lengthgen.report.text import duration

    assert duration(seconds) == text


@pytest.mark.parametrize(
    "machine, name",
    [
        ({"cpu_model": "AMD EPYC", "cores": 2, "avx512": True}, "AMD EPYC with AVX-512"),
        ({"cpu_model": "AMD EPYC", "cores": 2, "avx512": False}, "AMD EPYC with AVX2 and no AVX-512"),
        ({}, "unknown CPU with AVX2 and no AVX-512"),
    ],
)
def test_every_document_names_a_costs_files_machine_alike(machine, name):
    from tests.helpers import costs_section

    step = {"label": "pytest claims -n auto", "seconds": 300.0, "cold": True, "closing": "59 passed"}
    costs = {"machine": machine, "steps": [step]}
    slower = {"machine": machine, "steps": [dict(step, seconds=600.0)]}
    extended = {"machine": machine, "steps": [dict(step, label="pytest claims -m multiverse_extended -n auto")]}
    assert f"Measured on an {name}, " in costs_section(costs, {})
    assert f"On an {name} (" in costs_section(costs, {}, slower)
    data = assemble(all_records(), ENVIRONMENT, registry())
    assert f"cores of an {name}, " in universes_section(data, extended)


def test_the_extended_cells_cost_is_every_part_of_their_cold_run():
    data = assemble(all_records(), ENVIRONMENT, registry())

    def extended_cost(costs) -> str:
        """The universes section's closing paragraph: what the extended cells' cold runs cost ("" without one)."""
        text = universes_section(data, costs)
        return text[text.index("The extended cells") :] if "The extended cells" in text else ""

    def step(label, seconds, closing):
        return {"label": label, "seconds": seconds, "closing": closing}

    machine = {"cpu_model": "AMD EPYC", "cores": 2, "avx512": True}
    first = step("pytest claims -m multiverse_extended -n auto", 2811.4, "42 failed, 82 passed in 2806.75s")
    later = step("pytest claims -m multiverse_extended -n auto -k steps", 150.2, "4 passed in 148.00s")
    other = step("pytest claims -n auto", 300.0, "59 passed")
    text = extended_cost({"machine": machine, "steps": [first, other, later]})
    assert "in 2 parts (49 min 22 s in all)" in text and "46 min 51 s" in text and "2 min 30 s" in text
    assert "AMD EPYC with AVX-512" in text and "not yet declared" in text  # a part with failures says why
    assert "not yet declared" not in extended_cost({"machine": machine, "steps": [later]})
    warm = step("pytest claims -m multiverse_extended -n auto", 121.0, "103 passed, 52 xfailed in 119.2s")
    assert "not yet declared" not in extended_cost({"machine": machine, "steps": [warm]})  # xfailed is no failure
    assert extended_cost({"machine": machine, "steps": [other]}) == extended_cost(None) == ""


def test_the_extended_cells_join_the_grid_only_from_the_same_code():
    from lengthgen.analysis.data import with_cells_of

    data = assemble(all_records() + [record("C1", "init=gpt2")], {"code_fingerprint": "abc"})
    other = assemble([record("C1", "init=gpt2"), record("C8", "init=flax+ape-rows=zero")], {"code_fingerprint": "abc"})
    merged = with_cells_of(data, other)
    assert [(c["reading"], c["claim"]) for c in merged["multiverse"]] == [
        ("init=gpt2", "C1"),
        ("init=flax+ape-rows=zero", "C8"),
    ]
    assert merged["multiverse_extended_environment"]["code_fingerprint"] == "abc"
    other["multiverse_environment"] = {"code_fingerprint": "def"}
    with pytest.raises(ValueError, match="computed with other code"):
        with_cells_of(data, other)


def test_cli_add_joins_the_cells_of_a_run_of_the_same_code(tmp_path, tmp_path_factory, capsys):
    from lengthgen.cli import main

    base, more = tmp_path / "claims.json", tmp_path / "extended.json"
    base.write_text(json.dumps(assemble(all_records() + [record("C1", "init=gpt2")], {"code_fingerprint": "abc"})))
    more.write_text(json.dumps(assemble([record("C8", "init=flax+ape-rows=zero")], {"code_fingerprint": "abc"})))
    grid = tmp_path_factory.mktemp("out") / "multiverse.json"
    assert main(["multiverse", "--run", str(base), "--add", str(more), "--out", str(grid)]) == 0
    cells = json.loads(grid.read_text())["cells"]
    assert {c["reading"] for c in cells} >= {"init=gpt2", "init=flax+ape-rows=zero"}
    more.write_text(json.dumps(assemble([record("C8", "init=flax+ape-rows=zero")], {"code_fingerprint": "def"})))
    capsys.readouterr()
    assert main(["multiverse", "--run", str(base), "--add", str(more)]) == 2
    assert "computed with other code" in capsys.readouterr().err


def test_the_models_each_universe_trained_need_every_cells_count():
    from lengthgen.report.doc_multiverse import universe_models

    cells = [dict(record("C1", "init=gpt2"), models_trained=48, ruled_out=True), dict(record("C8", "init=flax"))]
    data = {"multiverse": cells, "multiverse_environment": {"models_trained": 48, "models_from_cache": 5}}
    assert universe_models(data) == []  # a cell of an older version does not say
    planned = assemble(all_records(), ENVIRONMENT, registry())
    assert "models each universe" not in universes_section(planned, cold=data)
    cells[1]["models_trained"] = 0
    shown = universes_section(planned, cold=data)
    assert "| `init=gpt2` | 1 | ruled out | 48 |" in shown and "| `init=flax` | 1 | run | 0 |" in shown
    current = dict(cells[0], mode={"kind": "reading", "reading": "init=gpt2", "ruled_out": "the RoPE heads do not fit"})
    del current["ruled_out"], current["reading"]  # a cell as the records write it now: its reading in its mode
    assert "| `init=gpt2` | 1 | ruled out | 48 |" in universes_section(
        planned, cold=dict(data, multiverse=[current, cells[1]])
    )


def check(name, value, op=">=", threshold=0.95, passed=True, **more):
    from lengthgen.records import Check

    return Check.from_dict({"name": name, "value": value, "op": op, "threshold": threshold, "passed": passed, **more})


def test_checks_group_by_quantity_comparison_and_outcome_with_every_value_as_recorded():
    from lengthgen.report.views import check_groups

    checks = [
        check("RoPE K=1 L=12: accuracy", 1.0),
        check("RoPE K=1 L=16: accuracy", 0.99661),
        check("APE K=1 L=12: accuracy", 0.98),
        check("APE K=1 L=20: accuracy", 0.0638, "<=", 0.15),
        check("RoPE K=2 L=12: accuracy", 0.97),
        check("share of cells peaking inside", 1.0, ">=", 0.9),
    ]
    groups = check_groups(checks)
    high, low, alone = groups
    assert (high.quantity, high.comparison, high.count, high.span) == ("accuracy", ">= 0.95", 4, ("0.97", "1"))
    assert high.runs == (
        ("RoPE K=1", (("1", "L=12"), ("0.9966", "L=16"))),
        ("APE K=1", (("0.98", "L=12"),)),
        ("RoPE K=2", (("0.97", "L=12"),)),
    )
    assert (low.quantity, low.comparison, low.lone) == ("APE K=1 L=20: accuracy", "<= 0.15", True)
    assert alone.lone and alone.runs == (("", (("1", ""),)),) and alone.quantity == "share of cells peaking inside"
    assert sum(g.count for g in groups) == len(checks)
    failing = check_groups([check("every seed", 0.0, passed=False), check("every seed", 0.1, passed=True)])
    assert [g.passed for g in failing] == [False, True]  # one outcome per group


def test_a_cells_reason_names_the_failed_checks_its_table_shows_in_full():
    from lengthgen.records import ClaimRecord
    from lengthgen.records.verdict import not_reproduced_reason
    from lengthgen.report.grid import BELOW, block

    failed = [
        check(f"K={k} L=48: accuracy", 0.5 + k / 100, passed=False, values=[0.5, 0.6], expected_to_fail=True)
        for k in range(1, 7)
    ]
    reason = not_reproduced_reason("C1", failed, 8, "the far end dilutes")
    cell = ClaimRecord.from_dict(
        {"claim": "C1", "verdict": "not reproduced", "verdict_reason": reason, "test": "t", "scale": {}}
    )
    cell = ClaimRecord(**{**cell.__dict__, "checks": [*failed, check("K=1 L=12: accuracy", 1.0)]})
    shown = block(cell, "a", "C1", "under x")
    assert shown.reason == f"C1: 6 of 8 checks fail as expected (the far end dilutes): {BELOW}; the other 2 checks hold"
    assert [k.name for k in shown.rows] == [k.name for k in failed]  # each one in the table, with its numbers
    other = ClaimRecord(**{**cell.__dict__, "verdict_reason": "written otherwise"})
    assert block(other, "a", "C1", "under x").reason == "written otherwise"  # left as it is
