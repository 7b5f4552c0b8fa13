"""The page's templates: every value from claims.json is escaped by Jinja2's autoescaping (a check
named like a script tag stays text), a variable the view-model lacks raises instead of printing
nothing, and the stylesheet and script come from the package's data files."""

from __future__ import annotations

from types import SimpleNamespace

import jinja2
import pytest

from lengthgen.records.verdict import REASON_CHECKS
from lengthgen.records.verdicts import Verdict
from lengthgen.report import render_page, templating
from lengthgen.report.doc_render import environment
from lengthgen.report.markdown import verdict_cell
from lengthgen.analysis.data import assemble
from lengthgen.report.robustness import grid_view
from tests.report_samples import ENVIRONMENT, reproduced
from tests.unit.test_robustness_report import map_records

SCRIPT = '<script>alert("x")</script>'


def test_a_check_name_with_a_script_tag_comes_out_escaped():
    record = reproduced()
    record["checks"][0]["name"] = SCRIPT
    record["statement"] = f"a statement with {SCRIPT} & an 'apostrophe'"
    html, _ = render_page(assemble([record], ENVIRONMENT))
    assert SCRIPT not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html  # its row in the checks table
    assert "with &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; an &#39;apostrophe&#39;" in html
    assert html.count("<script>") == 1  # the page's own sorting script, inlined from static/page.js


def test_the_robustness_map_escapes_its_cells_too():
    cells = map_records()
    cells[0]["verdict_reason"] = SCRIPT
    grid = templating.environment().get_template("robustness.html.j2").module.grid(grid_view(cells))
    assert SCRIPT not in grid and 'title="&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"' in grid


def test_a_missing_template_variable_raises():
    with pytest.raises(jinja2.UndefinedError):
        templating.render("page.html.j2")  # no context at all
    with pytest.raises(jinja2.UndefinedError, match="nothing_here"):
        templating.environment().from_string("{{ nothing_here }}").render()
    badge = templating.environment().get_template("macros.html.j2").module.badge
    with pytest.raises(jinja2.UndefinedError):
        badge(object())  # a view-model without the fields the macro prints


def test_the_page_inlines_its_stylesheet_and_script_from_the_package():
    html, _ = render_page(assemble([reproduced()], ENVIRONMENT))
    assert f"<style>\n{templating.static_text('page.css')}</style>" in html
    assert f"<script>\n{templating.static_text('page.js')}</script>" in html
    with pytest.raises(ValueError, match="no-such.css"):
        templating.static_text("no-such.css")


def _failing(count: int) -> SimpleNamespace:
    checks = [
        SimpleNamespace(name=f"check {i}", value=0.1, op=">=", threshold=0.5, reduce="mean", values=())
        for i in range(count)
    ]
    record = SimpleNamespace(
        label="not reproduced", verdict="failed", failed_checks=checks, checks=checks, declared=None
    )
    return SimpleNamespace(id="C1", record=record)


def test_the_documents_spell_out_as_many_failing_checks_as_a_verdicts_reason_and_bold_a_verdict_in_one_place():
    shared = environment().from_string(
        '{% import "docs/_shared.md.j2" as shared %}{{ shared.non_reproductions(t, "") }}'
    )
    many = shared.render(t=[_failing(REASON_CHECKS + 2)])
    assert f"check {REASON_CHECKS - 1}: measured" in many and f"check {REASON_CHECKS}:" not in many
    assert "; and 2 more." in many
    assert "more" not in shared.render(t=[_failing(REASON_CHECKS)])
    for verdict in (Verdict.REPRODUCED, Verdict.FAILED, None):
        record = SimpleNamespace(label=verdict and verdict.value.upper(), verdict=verdict)
        assert environment().from_string("{{ c|verdict_cell }}").render(c=record) == verdict_cell(record)
    assert verdict_cell(SimpleNamespace(label="REPRODUCED", verdict=Verdict.REPRODUCED)) == "REPRODUCED"
    assert verdict_cell(SimpleNamespace(label="", verdict=None)) == "**unknown**"


def test_the_documents_render_through_the_text_environment_with_filters_of_their_own():
    docs, texts = environment(), templating.text_environment()
    for setting in ("autoescape", "trim_blocks", "lstrip_blocks", "keep_trailing_newline", "undefined", "loader"):
        assert getattr(docs, setting) == getattr(texts, setting), setting
    assert docs.filters["cell"] is texts.filters["cell"] and docs.globals["num"] is texts.globals["num"]
    assert "verdict_cell" in docs.filters and "verdict_cell" not in texts.filters  # the overlay's dicts are its own
    assert "reason_checks" in docs.globals and "reason_checks" not in texts.globals
    assert "reason_checks" not in templating.environment().globals


def test_a_text_grid_table_has_a_width_and_a_cell_per_column():
    from lengthgen.report.grid import TableText, table_text

    table = table_text("claim", 6, ["a", "wider-than-nine"], [("C1", ["ok", "not-repr~"])])
    assert table.widths == (9, 15)
    with pytest.raises(ValueError, match="'C2'"):
        TableText("claim", 6, ("a",), (9,), (("C2", ("ok", "ok")),))
    with pytest.raises(ValueError, match=r"\(9,\)"):
        TableText("claim", 6, ("a", "b"), (9,), ())
