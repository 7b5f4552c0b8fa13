"""A claim test's figures are drawn as soon as its record exists, by the process that ran the test, into the
drawings the report keeps (``<report dir>/.figures``, ``lengthgen.report.writer.DRAWINGS``); the report at the
end then reads them instead of drawing them all one after another.

- Under xdist the drawing moves from the controller's last seconds, with the workers idle, into the run,
  beside the other worker's training.
- In a serial run with training processes (``--lengthgen-workers``), it goes to those processes and overlaps
  the next tests; the report waits for what is still being drawn.

It changes no figure: a drawing is kept under its spec's key (``lengthgen.report.figures.spec_key``: the spec,
the renderer's code, matplotlib's version), and the page draws whatever is missing, a figure whose spec fails
included (it names the error there).
"""

from __future__ import annotations

from concurrent.futures import wait
from pathlib import Path
from typing import Any, Mapping

import pytest

from lengthgen.testing.session import session_of


def draw_soon(config: pytest.Config, figures: Mapping[str, Any] | None) -> None:
    """Draw a record's ``figures`` (name -> spec) into the report's kept drawings: in the training processes of
    this process's runtime when it has them, else here, now."""
    if not figures:
        return
    from lengthgen.engine import cluster, parallel
    from lengthgen.report.writer import DRAWINGS

    state = session_of(config)
    folder = state.report_dir / DRAWINGS
    specs = [dict(spec) for spec in figures.values() if isinstance(spec, Mapping)]
    runtime = state.runtime
    if runtime is not None and runtime.workers > 1 and not cluster.active(runtime):
        import torch

        threads = torch.get_num_threads()
        state.memo.pending += [parallel.submit(runtime, draw, spec, folder, threads=threads) for spec in specs]
        return
    for spec in specs:
        draw(spec, folder)


def draw(spec: Mapping[str, Any], folder: Path) -> None:
    """Draw one figure into ``folder`` unless it is there; a spec that cannot be drawn, or a folder that
    cannot be written, is left to the page (module-level: it travels to a training process by reference)."""
    from lengthgen.report.figures import FigureError, cached_render

    try:
        cached_render(spec, folder)
    except (FigureError, OSError):
        pass


def finish_drawing(config: pytest.Config) -> None:
    """Wait for the drawings still in the training processes (before the report reads them)."""
    pending = session_of(config).memo.pending
    wait(pending)
    pending.clear()
