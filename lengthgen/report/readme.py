"""The README's rendered sections (``lengthgen docs``, between markers: :mod:`lengthgen.report.doc_sections`),
from the reference run (its claims, its robustness map and its multiverse) and the costs recorded beside it
(``lengthgen timed``): the answer in one paragraph, the verdict table, and what each command cost. Every number
in them is the run's; the prose around them is hand-written. No torch.
"""

from __future__ import annotations

from typing import Any, Mapping

from lengthgen.report import multiverse as mv
from lengthgen.report import text
from lengthgen.records import ClaimRecord
from lengthgen.report.answer import answer as run_answer
from lengthgen.report.answer import kind_of
from lengthgen.report.markdown import cell, table, test_ids
from lengthgen.report.run_view import RunView

PAPER_CHARS = 70  # characters of the paper's value in the README's table ("..." beyond)
MEASURED_CHARS = 110  # characters of the measured headline
OUTCOME_CHARS = 240  # characters of what the other readings do (its whole sentence, in practice)


def answer(run: RunView) -> str:
    """The README's answer: the run's answer in at most 80 words (``lengthgen.report.answer``)."""
    return run_answer(run) + "\n"


BASIS_WORDS = {"paper": "the paper's number", "suite reading": "the suite's reading", "edge": "boundary or one cell"}


def basis(record: ClaimRecord) -> str:
    """What a non-reproducing test's failure rests on, in a few words ("" for a test that reproduces)."""
    if record.verdict == "reproduced":
        return ""
    if record.verdict not in ("not reproduced", "not reproduced (undeclared)"):
        return ""
    if record.is_prediction:
        return "the prediction's threshold"
    return BASIS_WORDS[kind_of(record)]


def verdict_table(run: RunView) -> str:
    """A row per claim test at the paper's point: id (and variant), the claim in a few words, the paper's value,
    the measured headline, the verdict (bold unless reproduced), what a failure rests on (its failing checks'
    threshold basis, or a boundary or single-cell effect), and what the multiverse's readings do to it."""
    grid = mv.view_grid(run)
    found = mv.outcomes(grid) if grid is not None else {}
    rows = []
    for c, shown_id in zip(run.records, test_ids(run.records)):
        verdict = c.label if c.verdict else "unknown"
        outcome = mv.outcome_for(grid, c, found)
        rows.append(
            [
                cell(shown_id),
                cell(c.title),
                cell(c.statement if c.is_prediction else c.paper_value, PAPER_CHARS),
                cell(text.headline(c, compact=True), MEASURED_CHARS),
                cell(verdict) if c.verdict == "reproduced" else f"**{cell(verdict)}**",
                cell(basis(c)),
                cell(outcome.short(), OUTCOME_CHARS) if outcome is not None else "not run in the multiverse",
            ]
        )
    header = ["id", "claim", "paper", "measured", "verdict", "fails against", "under other readings"]
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
