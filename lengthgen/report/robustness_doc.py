"""docs/robustness.md's rendered sections (``lengthgen docs``): the robustness map and what broke in it; per
multiverse row, what the other readings do to its verdict, and what the paper's stated numbers say about its
readings; all from the reference run. No torch.
"""

from __future__ import annotations

from typing import Any, Mapping

from lengthgen.multiverse_cells import sort_key
from lengthgen.report import multiverse as mv
from lengthgen.report.curve import curve, main_effects
from lengthgen.report.findings_doc import non_reproductions
from lengthgen.report.markdown import cell, table
from lengthgen.report.run_view import RunView
from lengthgen.report.stated_numbers import stated_view


def robustness_map(run: RunView) -> str:
    """The map as ``lengthgen robustness`` prints it (without its per-cell details), in a code block, with the
    models its run trained."""
    from lengthgen.report.robustness import map_lines

    if not run.robustness:
        return "The reference run holds no robustness map.\n"
    env = run.robustness_environment or {}
    return (
        "```\n"
        + "\n".join(map_lines(run.robustness, details=False))
        + "\n```\n\n"
        + f"The map's run trained {env.get('models_trained', '?')} models beyond the claims' and read "
        f"{env.get('models_from_cache', '?')} from the cache.\n"
    )


def map_breaks(run: RunView) -> str:
    """Per setting, each cell that does not reproduce: its failing checks with their numbers and the declared
    reason (``findings_doc.non_reproductions``, the claims' own renderer)."""
    settings: dict[str, list] = {}
    for c in run.robustness:
        settings.setdefault(c.setting or "?", []).append(c)
    parts = []
    for setting, cells in settings.items():
        body = non_reproductions(cells, none="")
        if body:
            parts.append(f"**{setting}**\n\n{body}")
    return "\n".join(parts) if parts else "Every cell of the map reproduces.\n"


def outcomes_table(run: RunView) -> str:
    """A row per multiverse row: its verdict at the paper's point, what the readings do to it, the joint answer
    of its curve and the readings it hinges on (consequential main effects)."""
    grid = mv.view_grid(run)
    if grid is None:
        return "The reference run holds no multiverse.\n"
    found = mv.outcomes(grid)
    rows = []
    for row in sorted(found, key=sort_key):
        outcome = found[row]
        if outcome.state == mv.NOT_RUN:
            continue
        base = outcome.paper.verdict_label if outcome.paper is not None else "no record"
        spec = curve(run, row)
        hinges = [e.reading for e in main_effects(spec) if e.consequential]
        rows.append(
            [
                cell(f"{row} ({base})"),
                cell(outcome.short()),
                cell(spec.summary()),
                cell(", ".join(hinges) or "nothing beyond the seeds' noise"),
            ]
        )
    header = ["claim (verdict at the paper's point)", "under the other readings", "its curve", "hinges on"]
    return "\n".join(table(header, rows)) + "\n"


def stated_numbers(data: Mapping[str, Any]) -> str:
    """The universes ranked by the stated numbers they agree with, per choice the reading they favour, and the
    untrained baselines under both definitions (``stated_numbers.stated_view``, as the page shows them)."""
    view = stated_view(data)
    if view is None:
        return "The reference run holds no multiverse.\n"
    rows = [[f"`{cell(universe)}`", f"{agree} of {compared}"] for universe, agree, compared in view.ranking]
    lines = table(["universe", "stated numbers that agree"], rows)
    if view.more:
        lines.append("")
        lines.append(f"and {view.more} more universes (`lengthgen multiverse --paper`).")
    lines += ["", "Per choice:", ""] + [f"- {line}" for line in view.per_choice]
    lines += ["", "The untrained baselines:", ""] + [f"- {line}" for line in view.baselines]
    return "\n".join(lines) + "\n"
