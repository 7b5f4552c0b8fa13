"""A claim test's figures are drawn into the report's kept drawings as soon as its record exists (here, or in
the training processes of a serial run), and the page then reads them instead of drawing them again."""

from __future__ import annotations

from pathlib import Path

import pytest

from lengthgen.engine import parallel
from lengthgen.report import figure_specs as specs
from lengthgen.report import figures
from lengthgen.report.writer import DRAWINGS
from lengthgen.runtime import Runtime
from lengthgen.testing import drawing
from lengthgen.testing.run import RunRecords
from lengthgen.testing.session import SESSION, LengthgenSession


class _Config:
    """What ``draw_soon`` reads of a pytest config: the stash, with the session object (its report directory, and
    the session's runtime where one is given)."""

    def __init__(self, report_dir: Path, runtime: Runtime | None = None):
        self.stash = pytest.Stash()
        self.stash[SESSION] = LengthgenSession(
            started=0.0, fresh_after=None, plan=None, report_dir=report_dir, run=RunRecords(), runtime=runtime
        )


FIGURES = {
    "one": specs.lines("a", "x", "y", [specs.series("s", [1, 2], y=[0.1, 0.2])]),
    "two": specs.bars("b", "f", ["K=2"], [{"label": "keys", "values": [0.8]}]),
}


def _reads_only(monkeypatch):
    def refuse(spec):
        raise AssertionError("a drawing made when the record was made was drawn again")

    monkeypatch.setattr(figures, "render", refuse)


def test_a_records_figures_are_drawn_here_and_the_page_reads_them(tmp_path, monkeypatch):
    config = _Config(tmp_path / "reports")
    drawing.draw_soon(config, FIGURES)
    folder = tmp_path / "reports" / DRAWINGS
    assert sorted(p.stem for p in folder.glob("*.json")) == sorted(figures.spec_key(s) for s in FIGURES.values())
    _reads_only(monkeypatch)
    assert all(r.png_base64 for r in figures.render_record(FIGURES, folder))


def test_a_spec_that_cannot_be_drawn_is_left_to_the_page(tmp_path):
    config = _Config(tmp_path / "reports")
    drawing.draw_soon(config, {"bad": {"kind": "pie", "title": "Pie"}, **FIGURES})  # no exception
    assert len(list((tmp_path / "reports" / DRAWINGS).glob("*.json"))) == 2
    drawing.draw_soon(config, None)
    drawing.draw_soon(config, {})
    drawing.finish_drawing(config)  # nothing pending


@pytest.mark.slow
def test_a_serial_run_with_training_processes_draws_there(tmp_path, monkeypatch):
    with Runtime(workers=2) as runtime:
        config = _Config(tmp_path / "reports", runtime)
        _reads_only(monkeypatch)  # in this process: the training processes import their own renderer
        drawing.draw_soon(config, FIGURES)
        assert len(config.stash[SESSION].memo.pending) == 2
        assert parallel.has_pool(runtime)
        drawing.finish_drawing(config)
        assert config.stash[SESSION].memo.pending == []
    assert len(list((tmp_path / "reports" / DRAWINGS).glob("*.json"))) == 2
