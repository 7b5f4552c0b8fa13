"""The analysis of a recorded run: the pure computations over its records that the report, the documents and
the command line show. Nothing here renders: no Jinja2, no matplotlib, no torch, and nothing of
``lengthgen.report``, which imports these modules and lays their results out (pyproject.toml's import-linter
contracts ``analysis-is-no-view`` and ``analysis-layers``, ARCHITECTURE.md). The statistics every computation
uses (intervals, paired tests) are ``lengthgen.stats``.

The modules, bottom up (each imports only those below it):

- ``data`` (claims.json: its order, its parts, reading and writing it), ``declared`` (the multiverse's
  declarations file), ``formats`` (how a number, a threshold or a check is written), ``strays`` (which series of
  a figure stray from the rest, and where);
- ``run_view``: a run as the records it holds, their verdicts settled where they were made (claims, verdict
  labels and close calls, deciding and close checks, measured quantities, controls, cells);
- ``outcome``: how a cell stands against the paper's point (holds, the other way, within noise, ruled out)
  and a claim's spread over its cells;
- ``multiverse`` (the grid of readings x claims, and per claim test what the other readings do to its
  verdict) and ``robustness`` (per claim, where its cells at the map's settings stand);
- ``curve`` (a claim's specification curve and the readings' main effects), ``stated_numbers`` (the paper's
  stated numbers against each universe), ``diff`` (two runs compared);
- ``answer``: the answer in 80 words, from the stated numbers, the multiverse and the failures' kinds.
"""
