"""The paper's stated numbers shown: ``lengthgen multiverse --paper``'s lines and the view the page and
docs/robustness.md lay out, from what ``lengthgen.analysis.stated_numbers`` computes over a run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from lengthgen.analysis.run_view import RunView
from lengthgen.analysis.stated_numbers import (
    FAVOURED,
    PAPER,
    SAME_WAY_CLAIMS,
    Number,
    Table,
    against_first,
    baseline_lines,
    preference_line,
    preferences,
    rank,
    resample_plan,
    sentence,
    table,
)

TOP_UNIVERSES = 8  # the ranking's rows a document shows (the rest: `lengthgen multiverse --paper`)


def measurement(n: Number) -> str:
    """Which measurement the number is compared with: the claim's words, and the width where it is compared at each
    of its widths."""
    if not n.width:
        return n.stated.why
    return f"compared at each width of the claim, here {n.width}" + (
        f"; the claim: {n.stated.why}" if n.stated.why else ""
    )


def number_line(found: Table, n: Number, universe: str = PAPER) -> str:
    m = found.measured(universe, n)
    mark = "agrees" if m.agrees else "n/a" if m.agrees is None else "DISAGREES"
    how = f" [{measurement(n)}]" if measurement(n) else ""
    return f"{n.name}: paper {n.stated.text}, measured {m.shown}: {mark}{how}"


def paper_lines(run: RunView | Mapping[str, Any], top: int = 12) -> list[str]:
    """``lengthgen multiverse --paper``: the numbers that discriminate and those that do not, the ranking, each
    reading against the suite's, and the untrained baselines."""
    run = run if isinstance(run, RunView) else RunView.from_json(run)
    found = table(run)
    lines = [f"the paper's {len(found.numbers)} stated numbers, each against the one measurement it names:"]
    lines += [f"  {number_line(found, n)}" for n in found.numbers]
    lines.append(f"agree in every universe ({len(found.agree_everywhere)}): say nothing about the choices")
    lines += [f"  {n.name}" for n in found.agree_everywhere]
    lines.append(f"disagree in every universe ({len(found.disagree_everywhere)}): a finding about the implementation")
    lines += [f"  {n.name}" for n in found.disagree_everywhere]
    lines.append(f"discriminating ({len(found.discriminating)}): the universes are compared on these")
    lines += [f"  {n.name}" for n in found.discriminating]
    lines.append(
        "universes by how likely they make the discriminating numbers (sum of bounded log-probabilities; agree):"
    )
    ranked = rank(found)
    lines.append(
        "  (against the first: the share of paired resamples in which the first makes the numbers more likely; a "
        f"tie below {100 * FAVOURED:.0f} %; {resample_plan(found).text()})"
    )
    for r, versus in zip(ranked[:top], against_first(found, ranked[:top])):
        lines.append(f"  {r.log_likelihood:9.2f}  {r.agree:>2}/{r.compared:<2} {r.universe}: {versus}")
    if len(ranked) > top:
        lines.append(f"  ... {len(ranked) - top} more universes")
    lines.append(
        f"each reading against the suite's (favoured where it wins in >= {100 * FAVOURED:.0f} % of paired resamples "
        f"and numbers of >= {SAME_WAY_CLAIMS} claims move its way, each beyond the noise):"
    )
    lines += [f"  {preference_line(p)}" for p in preferences(found)]
    lines.append("the untrained baselines:")
    lines += [f"  {line}" for line in baseline_lines(found)]
    return lines


@dataclass(frozen=True)
class StatedView:
    """What the paper's stated numbers say about its readings, as the page and docs/robustness.md show it."""

    numbers: tuple[tuple[str, str, str, str, str], ...]  # (claim, quantity, paper, measured at the suite's, why)
    discriminating: tuple[str, ...]  # the numbers that discriminate
    agree_everywhere: tuple[str, ...]  # the numbers that agree in every universe
    disagree_everywhere: tuple[str, ...]  # ... that disagree in every universe
    ranking: tuple[tuple[str, str, str, str], ...]  # (universe, summed bounded log-probability, agree/compared,
    # against the first), the top rows
    more: int  # universes ranked below the rows shown
    per_choice: tuple[str, ...]  # each reading against the suite's
    sentence: str  # what the numbers tell, in one sentence
    baselines: tuple[str, ...]  # the untrained baselines under both definitions


def stated_view(run: RunView) -> StatedView | None:
    """The stated numbers against the run's universes (None without a multiverse part)."""
    if not run.multiverse:
        return None
    found = table(run)
    ranked = rank(found)

    def mark(n: Number) -> str:
        m = found.measured(PAPER, n)
        return f"{m.shown}: {'agrees' if m.agrees else 'n/a' if m.agrees is None else 'disagrees'}"

    return StatedView(
        tuple(
            (f"{n.claim} {n.width}".strip(), n.stated.quantity, n.stated.text, mark(n), measurement(n))
            for n in found.numbers
        ),
        tuple(n.name for n in found.discriminating),
        tuple(n.name for n in found.agree_everywhere),
        tuple(n.name for n in found.disagree_everywhere),
        tuple(
            (r.universe, f"{r.log_likelihood:.2f}", f"{r.agree} of {r.compared}", versus)
            for r, versus in zip(ranked[:TOP_UNIVERSES], against_first(found, ranked[:TOP_UNIVERSES]))
        ),
        max(0, len(ranked) - TOP_UNIVERSES),
        tuple(preference_line(p) for p in preferences(found)),
        sentence(found),
        tuple(baseline_lines(found)),
    )
