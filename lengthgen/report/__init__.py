"""The reproduction report: ``claims.json`` (the records) and a one-page, self-contained ``index.html``.

- :func:`write_report` (called by the pytest plugin on the xdist controller at the end of a run, and
  :func:`write_page` by ``lengthgen report``): the records and the environment to ``claims.json``, the
  figures drawn and the page to ``index.html`` (``writer``).
- :func:`summary_lines`: the same table in short, for the terminal.

The report renders what ``lengthgen.analysis`` computes over the records (the run's typed view, the
multiverse's outcomes, the curve, the stated numbers, the diff, the answer): it imports the analysis, never the
other way. The modules, bottom up (each imports only those below it: pyproject.toml's import-linter contract
``report-layers``, ARCHITECTURE.md):

- ``costs`` (the costs file of ``lengthgen timed``) and ``doc_sections`` (a document's marked sections);
- ``text`` (one-line summaries), ``templating`` (the Jinja2 environment; ``templates/`` and ``static/`` hold
  the template, CSS and JS), ``figure_specs`` (what each claim plots);
- ``views`` (the page's badges and rows), then ``grid`` (the verdict grid the robustness map and the
  multiverse share: text lines, the page's cells and blocks);
- the renderers: ``robustness`` (the map), ``multiverse`` (the readings x claims grid), ``figures`` (drawing
  the specs with matplotlib Agg);
- the documents: ``summary`` (terminal), ``markdown`` (--lengthgen-summary-md), ``diff_render`` (``lengthgen
  diff``), ``curve`` (a claim's specification curve as text and as a figure), ``stated_numbers`` (the stated numbers'
  lines and the page's view of them); what ``lengthgen docs`` writes:
  the values (``doc_claims``, ``doc_multiverse``, ``doc_costs``, ``doc_bench``, ``doc_development``), the one
  context of the recorded runs they fill (``doc_context``) and the documents rendered from their templates
  (``doc_render``, ``templates/docs/``); then ``page`` (the HTML page's view models), and ``writer`` (the
  files).

The report and its analysis import no torch (contract ``report-torch-free``); the run's
environment block it shows is collected by the plugin (``lengthgen.testing.environment``).
"""

from __future__ import annotations

from lengthgen.report.summary import summary_lines
from lengthgen.report.writer import ReportFiles, render_page, write_page, write_report

__all__ = ["ReportFiles", "render_page", "summary_lines", "write_page", "write_report"]
