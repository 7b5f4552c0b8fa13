"""``lengthgen multiverse --record FILE``: the multiverse's declarations (``claims/multiverse_declared.json``)
written from a recorded run, every cell's outcome as the run found it (``lengthgen.analysis.declared.record``),
the file's hand-written reasons and the cells the run did not hold kept as they are, and its ``recorded`` block
(the machine and date of the run it was recorded from) kept too unless some cell's outcome changed. Review the
change with ``git diff``: a cell whose outcome moved is a finding to explain, in the file's reasons. No torch.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from lengthgen.analysis import declared


def record_run(data: dict[str, Any], path: Path) -> str:
    """Write the declarations of the run ``data`` (a claims.json's data) to ``path`` (kept where it exists:
    its reasons and the cells the run lacks); one line saying what changed. ValueError (one line) for a run
    without a multiverse, a cell that cannot be recorded, or a path that cannot be written."""
    from lengthgen.analysis.outcome import column_of
    from lengthgen.analysis.run_view import RunView

    run = RunView.from_json(data)
    cells = {(c.universe, column_of(c, run.catalogue)): c for c in run.multiverse}
    if not cells:
        raise ValueError("the run holds no multiverse cells (run `pytest claims -m multiverse -n auto` first)")
    papers: dict[str, declared.AtPaper] = {}  # column -> its declared patterns at the paper's point, over its tests
    for r in run.records:
        column = column_of(r, run.catalogue)
        before = papers.get(column, declared.AtPaper((), frozenset()))
        papers[column] = declared.AtPaper(
            before.patterns + (r.declared.checks if r.declared is not None else ()),
            before.failed | {c.name for c in r.failed_checks},
        )
    previous = declared.load(path) if Path(path).exists() else None
    environment = data.get("multiverse_environment") or data.get("environment", {})
    found = declared.record(cells, papers, environment, previous)
    before = previous.cells if previous is not None else {}
    moved = [k for k, c in found.cells.items() if before.get(k) != c]
    if previous is not None and not moved:  # the same outcomes: the file still says where they were recorded
        found = dataclasses.replace(found, recorded=previous.recorded)
    try:
        declared.write(path, found)
    except OSError as e:
        raise ValueError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    return f"wrote {path}: {len(found.cells)} cells, {len(cells)} from this run, {len(moved)} changed"
