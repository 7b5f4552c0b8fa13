"""The report's files: ``claims.json`` (the records and the environment, ``analysis.data``) and the one-page
``index.html`` with its figures drawn (``report.page``, ``report.figures``). The top of the report: it
imports the documents it writes, and nothing in the report imports it.

- :func:`write_report` (called by the pytest plugin on the xdist controller at the end of a run): the
  records and the environment to ``claims.json``, keeping the parts of an earlier one this run lacks
  (``data.carry_over``), then the page;
- :func:`write_page` (also ``lengthgen report``) and :func:`render_page`: the page of a run's view or of a
  ``claims.json``'s data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from lengthgen.registry import Registry
from lengthgen.analysis.data import assemble, carry_over, dump
from lengthgen.report.figures import prune_drawings, render_record, spec_key
from lengthgen.report.page import page
from lengthgen.analysis.run_view import RunView
from lengthgen.report.specification import curve_views
from lengthgen.store.files import atomic_write


@dataclass
class ReportFiles:
    html: Path
    json: Path
    figure_errors: list[str] = field(default_factory=list)  # "<claim> figure 'name': why it could not be drawn"
    notes: list[str] = field(default_factory=list)  # what the terminal should say about the files (one line each)

    def __iter__(self):  # ``html, json = write_report(...)``
        return iter((self.html, self.json))


DRAWINGS = ".figures"  # kept drawings beside the page, reused when a rerun records the same figure


def render_page(
    data: Mapping[str, Any] | RunView, drawings: Path | None = None, more_seeds: RunView | None = None
) -> tuple[str, list[str]]:
    """``(html, figure_errors)`` of a run (its view, or a ``claims.json``'s data); ``drawings``: where figures
    drawn by earlier runs are kept (see ``figures.cached_render``), pruned to this page's figures; ``more_seeds``:
    the same claims with seeds added until decided, whose verdicts the answer names (``answer.seed_notes``)."""
    run = data if isinstance(data, RunView) else RunView.from_json(data)
    records = run.records
    figures = [r.figures for r in records]
    rendered = {i: render_record(f, drawings) for i, f in enumerate(figures)}
    curves = curve_views(run, drawings)
    if drawings is not None and drawings.exists():
        prune_drawings(drawings, {spec_key(s) for f in figures for s in f.values()} | {c.key for c in curves})
    errors = [
        f"{records[i].claim} figure {f.name!r}: {f.error}" for i, figs in rendered.items() for f in figs if f.error
    ]
    errors += [f"{c.column} specification curve: {c.error}" for c in curves if c.error]
    return page(run, rendered, curves, more_seeds), errors


def write_report(
    records: Sequence[Mapping[str, Any]],
    environment: Mapping[str, Any],
    out_dir: Path,
    registry: Registry | None = None,
) -> ReportFiles:
    """Write ``out_dir/claims.json`` and ``out_dir/index.html`` from the run's records and the claims' registry."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "claims.json"
    # keeps the part (claims / map) this run lacks, where the file there ran the same code
    data, refused = carry_over(assemble(records, environment, registry), json_path)
    dump(data, json_path)  # atomic
    files = write_page(data, out_dir, json_path)
    files.notes.extend([refused] if refused else [])
    return files


def write_page(
    data: Mapping[str, Any] | RunView,
    out_dir: Path,
    json_path: Path | None = None,
    more_seeds: RunView | None = None,
) -> ReportFiles:
    """Write ``out_dir/index.html`` from a run's view or a ``claims.json``'s data (``more_seeds``: see
    :func:`render_page`)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    html_text, errors = render_page(data, out_dir / DRAWINGS, more_seeds)
    html_path = out_dir / "index.html"
    atomic_write(html_path, html_text)
    return ReportFiles(html_path, json_path or out_dir / "claims.json", errors)
