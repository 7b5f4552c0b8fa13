"""The README's rendered sections (``lengthgen docs``, between markers: :mod:`lengthgen.report.doc_sections`),
from the reference run (its claims, its robustness map and its multiverse) and the costs recorded beside it
(``lengthgen timed``): the answer in one paragraph, the verdict table, and what each command cost. Every number
in them is the run's; the prose around them is hand-written. No torch.
"""

from __future__ import annotations

from typing import Any, Mapping

from lengthgen.report import multiverse as mv
from lengthgen.report import text
from lengthgen.report.answer import sentence
from lengthgen.report.markdown import cell, table, test_ids
from lengthgen.report.run_view import RunView
from lengthgen.report.stated_numbers import PAPER, rank

PAPER_CHARS = 70  # characters of the paper's value in the README's table ("..." beyond)
MEASURED_CHARS = 110  # characters of the measured headline


def ruled_out_readings(grid: mv.UniverseGrid) -> dict[str, int]:
    """Per reading, the cells it rules out (a precondition failed), in the grid's order."""
    found: dict[str, int] = {}
    for (reading, _), view in grid.cells.items():
        if view.verdict == mv.RULED_OUT:
            found[reading] = found.get(reading, 0) + 1
    order = [n for n, _ in grid.readings]
    return {r: found[r] for r in sorted(found, key=lambda r: order.index(r) if r in order else len(order))}


def multiverse_sentence(run: RunView) -> str:
    """What the multiverse says of the verdicts, in one sentence ("" without a multiverse part)."""
    grid = mv.view_grid(run)
    if grid is None:
        return ""
    found = mv.outcomes(grid)
    ran = [o for o in found.values() if o.state != mv.NOT_RUN]
    changing = [o for o in ran if o.state == mv.CHANGES]
    part = f"Under the choices the paper leaves open, {len(ran) - len(changing)} of {len(ran)} verdicts hold in every"
    part += " admissible universe"
    if changing:
        by: dict[str, list[str]] = {}  # the readings under which verdicts change -> the rows they change
        for o in changing:
            by.setdefault(mv.compact(c.reading for c in o.changes), []).append(o.row)
        shown = "; ".join(f"{', '.join(rows)} under {readings}" for readings, rows in by.items())
        part += f"; {len(changing)} change ({shown})"
    ruled = ruled_out_readings(grid)
    if ruled:
        part += "; " + ", ".join(f"{r} is ruled out ({n} cells)" for r, n in ruled.items())
        part += ": under it the paper's heads do not fit the task in range, which the paper reports they do"
    return part + "."


def stated_sentence(data: Mapping[str, Any]) -> str:
    """Which universe the paper's stated numbers agree with most, beside the suite's readings ("" without one)."""
    if not data.get("multiverse"):
        return ""
    ranked = [r for r in rank(data) if r.compared]
    if not ranked:
        return ""
    best, paper = ranked[0], next((r for r in ranked if r.universe == PAPER), None)
    where = "the suite's readings" if best.universe == PAPER else best.universe
    said = f"The paper's stated numbers agree best with {where} ({best.agree} of {best.compared})"
    if paper is not None and best.universe != PAPER:
        said += f"; at the suite's readings {paper.agree} of {paper.compared} agree"
    return said + "."


def answer(run: RunView) -> str:
    """The README's answer: the run's sentence, the multiverse's and the stated numbers', in bold."""
    parts = [sentence(run), multiverse_sentence(run), stated_sentence(run.data)]
    return "**" + " ".join(p for p in parts if p) + "**\n"


def verdict_table(run: RunView) -> str:
    """A row per claim test at the paper's point: id (and variant), the claim in a few words, the paper's value,
    the measured headline, the verdict (bold unless reproduced), and what the multiverse's readings do to it."""
    grid = mv.view_grid(run)
    found = mv.outcomes(grid) if grid is not None else {}
    rows = []
    for c, shown_id in zip(run.records, test_ids(run.records)):
        verdict = c.verdict_label if c.verdict else "unknown"
        outcome = mv.outcome_for(grid, c, found)
        rows.append(
            [
                cell(shown_id),
                cell(c.title),
                cell(c.statement if c.is_prediction else c.paper_value, PAPER_CHARS),
                cell(text.headline(c, compact=True), MEASURED_CHARS),
                cell(verdict) if c.verdict == "reproduced" else f"**{cell(verdict)}**",
                cell(outcome.short()) if outcome is not None else "not run in the multiverse",
            ]
        )
    header = ["id", "claim", "paper", "measured", "verdict", "under other readings"]
    return "\n".join(table(header, rows)) + "\n"


def machine_line(costs: Mapping[str, Any], environment: Mapping[str, Any]) -> str:
    """ "Measured on an AMD EPYC with AVX-512, 2 cores, torch 2.13.0+cpu, on 2026-12-03"."""
    m = costs.get("machine", {})
    dates = sorted({s.get("date") for s in costs.get("steps", []) if s.get("date")})
    when = f", on {dates[0]}" if len(dates) == 1 else f", {dates[0]} to {dates[-1]}" if dates else ""
    torch = environment.get("torch")
    return (
        f"Measured on an {text.machine_name(m)}, {m.get('cores', '?')} cores"
        + (f", torch {torch}" if torch else "")
        + when
    )


def slower_line(costs: Mapping[str, Any], other: Mapping[str, Any] | None) -> str:
    """How much slower the other CPU was on a cold command both recorded ("" when they share none). A step
    of ``other`` that names its ``backward`` and carries ``against`` (the same command on this machine kind's
    faster CPU with that backward) is compared with that, not with this run."""
    if not other:
        return ""
    mine = {s["label"]: s for s in costs.get("steps", []) if s.get("cold")}
    for step in other.get("steps", []):
        here = step.get("against") or mine.get(step["label"])
        if step.get("cold") and here is not None and float(here["seconds"]) > 0:
            m = other.get("machine", {})
            ratio = float(step["seconds"]) / float(here["seconds"])
            took = text.duration(float(step["seconds"]))
            where = (
                f"On an {text.machine_name(m)} ({m.get('cores', '?')} cores, "
                f"{step.get('date', 'undated')}) the cold `{step['label']}`"
            )
            if step.get("against"):
                return (
                    f"{where} with the {step.get('backward', '?')} backward took {took}, {ratio:.1f}x its "
                    f"{text.duration(float(here['seconds']))} on {text.machine_name(here)} "
                    f"({here.get('date', 'undated')}); the engine's backward has not been timed there.\n"
                )
            return f"{where} took {took}: {ratio:.1f}x this machine's.\n"
    return ""


def ci_section(ci: Mapping[str, Any]) -> str:
    """What ``.ci/run`` costs, from the costs file a run of it on a clean clone wrote (``reports/costs.json``,
    kept as ``tests/data/costs-ci.json``): each timed step's wall time, how busy the 2 cores were (CPU time over
    cores x wall time, where recorded), their sum, and the machine."""
    steps = ci.get("steps", [])
    m = ci.get("machine", {})
    cores = int(m.get("cores") or 0)

    def busy(s: Mapping[str, Any]) -> str:
        cpu = s.get("cpu_seconds")
        return f"{100 * float(cpu) / (cores * float(s['seconds'])):.0f} %" if cpu and cores else "-"

    rows = [
        [f"`{cell(s['label'])}`", text.duration(float(s["seconds"])), busy(s), cell(s.get("closing") or "")]
        for s in steps
    ]
    total = sum(float(s["seconds"]) for s in steps)
    return (
        "\n".join(table(["step of `.ci/run`", "wall time", "cores busy", "pytest's closing line"], rows))
        + f"\n\nThe timed steps add up to {text.duration(total)} (the install and the lint besides). "
        + machine_line(ci, {})
        + ".\n"
    )


def costs_table(
    costs: Mapping[str, Any], environment: Mapping[str, Any], other: Mapping[str, Any] | None = None
) -> str:
    """The cost of each command as recorded (``lengthgen timed``): command, cold or warm, wall time, pytest's
    closing line; the machine beneath, and how much slower ``other`` (a slower CPU's costs) was."""
    rows = [
        [
            f"`{cell(s['label'])}`",
            "empty" if s.get("cold") else "the runs above",
            text.duration(float(s["seconds"])),
            cell(s.get("closing") or f"exit {s.get('exit')}"),
        ]
        for s in costs.get("steps", [])
    ]
    lines = table(["command", "model cache", "wall time", "pytest's closing line"], rows)
    slower = slower_line(costs, other)
    return "\n".join(lines) + "\n\n" + machine_line(costs, environment) + ".\n" + (f"\n{slower}" if slower else "")
