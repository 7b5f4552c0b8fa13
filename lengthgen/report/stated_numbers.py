"""What the paper's numbers say about its readings: every number the paper states (:mod:`lengthgen.stated`)
against its measured counterpart in every universe of a run (the paper's point, each reading, each
combination), the universes ranked by how many agree, and per choice which reading the numbers favour.
``lengthgen multiverse --paper`` prints it. No torch.

A universe that does not touch a claim measures it as the paper's point does (the same models), so the
paper's point's record stands in for it; a universe whose cell of that claim is ruled out does not compare
(its reading is not one the paper can have used); a planned cell without a record is not compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import Catalogue, Stated
from lengthgen.readings import READINGS, CellPlan
from lengthgen.registry import Registry

PAPER = "paper"
RULED_OUT = "ruled out"


@dataclass(frozen=True)
class Placed:
    """A stated number with the claim and the grid column whose record measures it."""

    claim: str  # the claim it belongs to
    column: str  # the grid column whose record measures it (the claim, or "<id>-<variant>")
    number: Stated  # the number as the claim states it

    def __getattr__(self, name: str) -> Any:
        return getattr(self.number, name)


def stated_numbers(catalogue: Catalogue) -> list[Placed]:
    """Every number the run's catalogue states, in the catalogue's order."""
    return [Placed(e.id, f"{e.id}-{s.variant}" if s.variant else e.id, s) for e in catalogue for s in e.stated]


def candidates(record: Mapping[str, Any], stated: Placed) -> list[tuple[str, float, tuple[float, float] | None]]:
    """(name, value, interval) of every check or measured quantity of ``record`` the stated number names."""
    found = []
    for c in record.get("checks", []):
        if any(fnmatchcase(c["name"], p) for p in stated.names):
            found.append((c["name"], float(c["value"]), tuple(c["ci95"]) if c.get("ci95") else None))
    for name, summary in (record.get("measured") or {}).items():
        if any(fnmatchcase(name, p) for p in stated.names):
            ci = summary.get("ci95")
            found.append((name, float(summary["mean"]), tuple(ci) if ci else None))
    return found


def agrees_with(stated: Placed, value: float, interval: tuple[float, float] | None) -> bool:
    """The paper's value within its rounding of the measured interval (a range: the value inside it)."""
    h = stated.half_unit
    if stated.low != stated.high:
        return stated.low - h <= value <= stated.high + h
    low, high = interval if interval is not None else (value, value)
    return low - h <= stated.low <= high + h


@dataclass(frozen=True)
class Comparison:
    stated: Placed  # the paper's number
    universe: str  # where it was measured
    agrees: bool | None  # None: not compared (ruled out, no record, no measurement)
    measured: str  # the measured value(s) in short, or why it was not compared


def compare(stated: Placed, record: Mapping[str, Any] | None, universe: str) -> Comparison:
    if record is None:
        return Comparison(stated, universe, None, "no record")
    if record.get("verdict") == RULED_OUT or record.get("ruled_out"):
        return Comparison(stated, universe, None, RULED_OUT)
    if stated.all_checks_pass:
        checks = record.get("checks", [])
        ok = bool(checks) and all(c.get("passed") for c in checks)
        return Comparison(stated, universe, ok, f"{sum(bool(c.get('passed')) for c in checks)}/{len(checks)} checks")
    found = candidates(record, stated)
    if not found:
        return Comparison(stated, universe, None, "not measured")
    each = [agrees_with(stated, v, ci) for _, v, ci in found]
    ok = any(each) if stated.match == "any" else all(each)
    values = sorted(v for _, v, _ in found)
    shown = f"{values[0]:.3g}" if len(values) == 1 else f"{values[0]:.3g}-{values[-1]:.3g}"
    return Comparison(stated, universe, ok, shown)


def _column(record: Mapping[str, Any], catalogue: Catalogue) -> str:
    from lengthgen.report.multiverse import column_of

    return column_of(record, catalogue)


def records_by_universe(
    data: Mapping[str, Any], catalogue: Catalogue
) -> tuple[dict[str, Mapping[str, Any]], dict[tuple[str, str], Mapping[str, Any]]]:
    """The paper's point's records by column, and the multiverse's cells by (universe, column)."""
    paper = {
        _column(r, catalogue): r
        for r in data.get("records", [])
        if r.get("kind", "claim") == "claim"
        and not r.get("reading")
        and not r.get("setting")
        and (r.get("scale") or {}).get("name", "paper") == "paper"
    }
    cells = {(r["reading"], _column(r, catalogue)): r for r in data.get("multiverse", []) if r.get("reading")}
    return paper, cells


def record_in(
    universe: str, column: str, paper, cells, plan: CellPlan, catalogue: Catalogue
) -> Mapping[str, Any] | None:
    """The record that measures ``column`` in ``universe``: the cell of the universe's readings that touch its
    claim (a reading that does not touch a claim leaves its models as they are: C1 under
    ``lengths=per-batch+init=torch``, a two-layer reading beside a one-layer one, is C1 under
    ``lengths=per-batch``), or the paper's point's where none does; None for a cell planned but not recorded."""
    if universe == PAPER:
        return paper.get(column)
    claim = catalogue.claim_of(column)
    parts = [p for p in universe.split("+") if claim in touched_claims(p, cells, plan, catalogue)]
    if not parts:
        return paper.get(column)
    return cells.get(("+".join(parts), column))


def touched_claims(universe: str, cells, plan: CellPlan, catalogue: Catalogue) -> set[str]:
    """The claims whose models ``universe`` changes: the plan's (the one the run recorded), else what the run
    shows: each of its readings' recorded cells and the cells left out of the default run for it."""
    found = set(plan.claims_of(universe))
    if found:
        return found
    parts = set(universe.split("+"))
    found = {catalogue.claim_of(column) for u, column in cells if set(u.split("+")) <= parts}
    return found | {catalogue.claim_of(column) for u, column, _ in plan.left_out if u in parts}


@dataclass(frozen=True)
class Ranked:
    universe: str
    agree: int  # stated numbers that agree
    compared: int  # stated numbers compared
    comparisons: tuple[Comparison, ...]


def rank(data: Mapping[str, Any]) -> list[Ranked]:
    """Every universe of the run (and the paper's point) with its agreements, most agreeing first: first the
    universes that compare as many stated numbers as any (a universe of one model family's readings, such as a
    two-layer combination, or a ruled-out one compares fewer: 3 of 3 is not more agreement than 16 of 20), then
    by the share that agrees."""
    registry = Registry.from_data(data)
    paper, cells = records_by_universe(data, registry.catalogue)
    plan, catalogue = registry.plan, registry.catalogue
    universes = [PAPER] + list(dict.fromkeys(u for u, _ in cells))
    out = []
    for u in universes:
        comps = tuple(
            compare(s, record_in(u, s.column, paper, cells, plan, catalogue), u) for s in stated_numbers(catalogue)
        )
        done = [c for c in comps if c.agrees is not None]
        out.append(Ranked(u, sum(c.agrees for c in done), len(done), comps))
    full = max((r.compared for r in out), default=0)

    def share(r: Ranked) -> float:
        return r.agree / r.compared if r.compared else 0.0

    return sorted(out, key=lambda r: (r.compared < full, -share(r), -r.compared, r.universe != PAPER))


def by_choice(ranked: Sequence[Ranked]) -> list[str]:
    """Per reading run alone: which reading the stated numbers of the claims it touches favour, against the
    suite's reading on the same numbers, or that they cannot tell."""
    by = {r.universe: r for r in ranked}
    base = by.get(PAPER)
    lines = []
    for reading in READINGS:
        mine = by.get(reading.name)
        if mine is None or base is None:
            continue
        pairs = [
            (a, b)
            for a, b in zip(mine.comparisons, base.comparisons)
            if a.agrees is not None and b.agrees is not None and a.measured != b.measured
        ]
        ruled = sum(1 for c in mine.comparisons if c.measured == RULED_OUT)
        if ruled and not pairs:
            lines.append(f"{reading.name}: ruled out for the claims whose numbers it would move ({ruled})")
            continue
        gain = sum(a.agrees for a, _ in pairs) - sum(b.agrees for _, b in pairs)
        if not pairs:
            lines.append(f"{reading.name}: no stated number moves under it: the paper's numbers cannot tell")
        elif gain == 0:
            lines.append(
                f"{reading.name}: the paper's numbers cannot tell it from the suite's reading ({len(pairs)} move, "
                "as many agree under each)"
            )
        else:
            winner = reading.name if gain > 0 else "the suite's reading"
            lines.append(
                f"{reading.name}: the paper's numbers favour {winner} by {abs(gain)} of {len(pairs)} that move"
            )
    return lines


def baseline_lines(data: Mapping[str, Any]) -> list[str]:
    """The untrained baselines under the two definitions: the untrained model's measured fraction (the suite's)
    and 1/d at the width of the column that measures it, against the paper's."""
    catalogue = Registry.from_data(data).catalogue
    paper, _ = records_by_universe(data, catalogue)
    out = []
    for s in stated_numbers(catalogue):
        if s.baseline_width is None:
            continue
        record = paper.get(s.column)
        measured = compare(s, record, PAPER) if record is not None else None
        inverse = 1.0 / s.baseline_width
        agrees = abs(inverse - s.low) <= s.half_unit
        verdict = "agrees" if measured and measured.agrees else "disagrees"
        out.append(
            f"{s.column} baseline, paper {s.text}: the untrained model measures "
            f"{measured.measured if measured else 'n/a'} ({verdict}); "
            f"1/d at d = {s.baseline_width} is {inverse:.4f} ({'agrees' if agrees else 'disagrees'})"
        )
    return out


def paper_lines(data: Mapping[str, Any], top: int = 10) -> list[str]:
    """``lengthgen multiverse --paper``: the ranking, the per-choice reading, the baselines."""
    ranked = rank(data)
    lines = [
        f"the paper's {len(stated_numbers(Registry.from_data(data).catalogue))} stated numbers against every universe "
        "(agree / compared), most agreeing first:"
    ]
    for r in ranked[:top]:
        lines.append(f"  {r.agree:>2} / {r.compared:<2}  {r.universe}")
    if len(ranked) > top:
        lines.append(f"  ... {len(ranked) - top} more universes")
    base = next((r for r in ranked if r.universe == PAPER), None)
    if base is not None:
        lines.append("at the paper's point (the suite's readings):")
        for c in base.comparisons:
            mark = "agrees" if c.agrees else "n/a" if c.agrees is None else "DISAGREES"
            lines.append(
                f"  {c.stated.claim} {c.stated.quantity}: paper {c.stated.text}, measured {c.measured}: {mark}"
            )
    lines.append("per choice:")
    lines += [f"  {line}" for line in by_choice(ranked)]
    lines.append("the untrained baselines:")
    lines += [f"  {line}" for line in baseline_lines(data)]
    return lines


TOP_UNIVERSES = 8  # the ranking's rows a document shows (the rest: `lengthgen multiverse --paper`)


@dataclass(frozen=True)
class StatedView:
    """What the paper's stated numbers say about its readings, as the page and docs/robustness.md show it."""

    ranking: tuple[tuple[str, int, int], ...]  # (universe, agree, compared), most agreeing first, the top rows
    more: int  # universes ranked below the rows shown
    at_paper: tuple[tuple[str, str, str, str], ...]  # (claim, quantity, paper, measured: agrees/disagrees)
    per_choice: tuple[str, ...]  # per reading run alone: the reading the numbers favour, or that they cannot tell
    baselines: tuple[str, ...]  # the untrained baselines under both definitions


def stated_view(data: Mapping[str, Any]) -> StatedView | None:
    """The stated numbers against the run's universes (None without a multiverse part)."""
    if not data.get("multiverse"):
        return None
    ranked = rank(data)
    paper = next((r for r in ranked if r.universe == PAPER), None)
    at_paper = ()
    if paper is not None:
        at_paper = tuple(
            (
                c.stated.claim,
                c.stated.quantity,
                c.stated.text,
                f"{c.measured}: {'agrees' if c.agrees else 'n/a' if c.agrees is None else 'disagrees'}",
            )
            for c in paper.comparisons
        )
    return StatedView(
        tuple((r.universe, r.agree, r.compared) for r in ranked[:TOP_UNIVERSES]),
        max(0, len(ranked) - TOP_UNIVERSES),
        at_paper,
        tuple(by_choice(ranked)),
        tuple(baseline_lines(data)),
    )


def share(agree: int, compared: int) -> str:
    """ "16 / 20"."""
    return f"{agree} / {compared}" if compared else "n/a"
