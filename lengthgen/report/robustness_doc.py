"""docs/robustness.md's rendered sections (``lengthgen docs``): the robustness map and what broke in it; per
multiverse row, what the other readings do to its verdict, and what the paper's stated numbers say about its
readings; all from the reference run. No torch.
"""

from __future__ import annotations

from typing import Any, Mapping

from lengthgen.multiverse_cells import universe_counts
from lengthgen.records.record import reading_of
from lengthgen.registry import Registry
from lengthgen.report import multiverse as mv
from lengthgen.report.curve import curve, main_effects
from lengthgen.report.findings_doc import non_reproductions
from lengthgen.report.markdown import cell, table
from lengthgen.report.run_view import RunView
from lengthgen.report.text import duration, machine_name
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
        + "\n".join(map_lines(run.robustness, details=False, catalogue=run.catalogue, records=run.records))
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
    for row in sorted(found, key=run.catalogue.column_order):
        outcome = found[row]
        if outcome.state == mv.NOT_RUN:
            continue
        base = outcome.paper.label if outcome.paper is not None else "no record"
        spec = curve(run, row)
        hinges = [e.reading for e in main_effects(spec) if e.consequential]
        rows.append(
            [
                cell(f"{row} ({base})"),
                cell(outcome.short(), 240),
                cell(spec.summary()),
                cell(", ".join(hinges) or "nothing beyond the seeds' noise"),
            ]
        )
    header = ["claim (verdict at the paper's point)", "under the other readings", "its curve", "hinges on"]
    ruled = [f"- {line}." for line in mv.ruled_out_lines(grid)]
    tail = "\n\nThe readings that rule cells out, and which of the paper's models fail under them:\n\n" + "\n".join(
        ruled
    )
    return "\n".join(table(header, rows)) + (tail if ruled else "") + "\n"


def stated_numbers(run: RunView) -> str:
    """What the paper's stated numbers tell of its readings (``stated_numbers.stated_view``, as the page shows it):
    the sentence, the discriminating numbers and the others apart, the ranking, each reading against the suite's,
    the untrained baselines."""
    view = stated_view(run)
    if view is None:
        return "The reference run holds no multiverse.\n"
    lines = [f"**{view.sentence}**", ""]
    lines += [f"- Discriminating: {'; '.join(view.discriminating) or 'none'}."]
    agree, disagree = "; ".join(view.agree_everywhere) or "none", "; ".join(view.disagree_everywhere) or "none"
    lines += [f"- Agree in every universe (they say nothing about the choices): {agree}."]
    lines += [f"- Disagree in every universe (a finding about the implementation): {disagree}."]
    rows = [[f"`{cell(u)}`", score, agree] for u, score, agree in view.ranking]
    lines += ["", *table(["universe", "log-likelihood of the discriminating numbers", "they agree"], rows)]
    if view.more:
        lines += ["", f"and {view.more} more universes (`lengthgen multiverse --paper`)."]
    lines += ["", "Per reading:", ""] + [f"- {line}" for line in view.per_choice]
    lines += ["", "The untrained baselines:", ""] + [f"- {line}" for line in view.baselines]
    lines += ["", "Each number and the one measurement it names:", ""]
    lines += table(
        ["claim", "quantity", "paper", "measured at the suite's readings", "the measurement"],
        [[cell(x) for x in row] for row in view.numbers],
    )
    return "\n".join(lines) + "\n"


def universes(
    data: Mapping[str, Any], extended: Mapping[str, Any] | None = None, cold: Mapping[str, Any] | None = None
) -> str:
    """Per multiverse column, its universes in the plan of cells ``data`` recorded: readings alone, combinations,
    and how many the default run holds (``lengthgen multiverse --list`` prints the same); the models each universe
    of ``cold`` (a cold run's data, default ``data``) trained, where it records them; and with ``extended`` (the
    costs file of the cold run of the extended cells) what that run cost."""
    registry = Registry.from_data(data)
    if not registry.plan.cells:
        raise ValueError("the reference run records no multiverse plan (a run of an older version): re-record it")
    counts = universe_counts(registry.plan, registry.catalogue)
    rows = [
        [c.column, str(c.universes), str(c.alone), str(c.combinations), str(c.default), str(c.extended)] for c in counts
    ]
    total, default = sum(c.universes for c in counts), sum(c.default for c in counts)
    head = ["claim", "universes", "readings alone", "combinations", "default run", "extended"]
    summary = f"{total} cells in all: {default} in the default run, {total - default} extended."
    models = universe_models(cold if cold is not None else data)
    return "\n".join(table(head, rows)) + f"\n\n{summary}\n" + models + extended_cost(extended)


def extended_cost(costs: Mapping[str, Any] | None) -> str:
    """What the cold runs of the extended cells cost (its costs file, ``lengthgen timed``: one step per run of a
    part of them, each after the claims' run), on which CPU."""
    steps = [step for step in (costs or {}).get("steps", []) if "multiverse_extended" in step.get("label", "")]
    if not steps:
        return ""
    machine = (costs or {}).get("machine", {})
    runs = [f"`{step['label']}`: {duration(float(step['seconds']))} ({step.get('closing', '')})" for step in steps]
    total = duration(sum(float(step["seconds"]) for step in steps))
    return (
        f"\nThe extended cells ran cold on {machine.get('cores', '?')} cores of an {machine_name(machine)}, "
        "after the claims' run, "
        f"in {len(steps)} part{'s' if len(steps) > 1 else ''} ({total} in all): "
        + "; ".join(runs)
        + "."
        + (
            " The failures were the cells not yet declared, recorded from these runs."
            if any(" failed" in f" {step.get('closing', '')}" for step in steps)  # " failed": not "xfailed"
            else ""
        )
        + "\n"
    )


def universe_models(data: Mapping[str, Any]) -> str:
    """Per universe the run holds, its cells and the models they trained (the run's multiverse, after the claims'
    run whose models at the paper's point it reuses: a universe trains only the models its readings change)."""
    from lengthgen.report.multiverse import registry_order

    cells = [c for c in data.get("multiverse") or [] if reading_of(c)]
    if not cells or any(c.get("models_trained") is None for c in cells):
        return ""
    found: dict[str, list[Mapping[str, Any]]] = {}
    for c in cells:
        found.setdefault(reading_of(c), []).append(c)
    rows = [
        [
            f"`{name}`",
            str(len(mine)),
            "ruled out" if all(c.get("ruled_out") for c in mine) else "run",
            str(sum(int(c["models_trained"]) for c in mine)),
            f"{sum(float(c.get('runtime_s') or 0) for c in mine):.0f} s",
        ]
        for name, mine in sorted(found.items(), key=lambda kv: registry_order(kv[0]))
    ]
    env = data.get("multiverse_environment") or {}
    return (
        "\nThe models each universe of the default run trained (the reference run's multiverse, cold after the "
        "claims' run whose models it reuses; a model two cells share counts once), and its cells' seconds of worker "
        "time:\n\n"
        + "\n".join(table(["universe", "cells", "state", "models trained", "seconds"], rows))
        + f"\n\nIn all the run trained {env.get('models_trained', '?')} models beyond the claims' and read "
        f"{env.get('models_from_cache', '?')} from the cache.\n"
    )
