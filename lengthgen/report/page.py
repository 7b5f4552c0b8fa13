"""The one-page HTML report: self-contained (inline CSS, a few lines of inline JS, figures as base64
PNG), readable offline. Built from ``claims.json``'s data and the rendered figures; no claim-specific
code: every claim is shown the same way.

This module turns the data into view-models (frozen dataclasses of plain text and numbers: the sort
ranks, the close calls, the overview's rows are decided here); the templates in ``report/templates``
only lay them out, and escape every value they print (``lengthgen.report.templating``). The page's fixed words,
the answer's glossary terms and the environment's row labels, are data in ``report/static/page.json``.
"""

from __future__ import annotations

import base64
import json
import re
import time
from functools import cache
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from markupsafe import Markup, escape

from lengthgen.analysis import multiverse as mv
from lengthgen.report import multiverse as mv_grid
from lengthgen.report import text
from lengthgen.analysis.data import claim_number
from lengthgen.analysis.formats import plain_numbers
from lengthgen.analysis.outcome import Outcome
from lengthgen.report.figures import FigureError, Rendered, compact_png, forest
from lengthgen.report.robustness import grid_view
from lengthgen.analysis.answer import answer, reproducing
from lengthgen.records import Check, ClaimRecord, Measure, Verdict
from lengthgen.records import verdicts
from lengthgen.records.record import variant_of
from lengthgen.records.verdicts import CLOSE_SUFFIX, SHOWN, label_verdict
from lengthgen.analysis.run_view import RunView
from lengthgen.report.specification import CurveView
from lengthgen.report.stated_numbers import stated_view
from lengthgen.report.templating import render, static_text
from lengthgen.report.views import Badge, CheckGroup, badge, check_groups, verdict_class

CHECKS_OPEN = 12  # a claim's checks table starts expanded up to this many checks
MEASURED_IN_TABLE = 3  # headline quantities shown in the claims table (all of them in the claim's section)
REASON_SHOWN = 160  # characters of a verdict's reason shown in the claims table
OVERVIEW_NAME = 56  # characters of a deciding check's name in the overview's row labels
CLOSE_RANK = 0.5  # a close call sorts just before its verdict's clear calls
PATH_CHECKS_SHOWN = 3  # close checks spelled out per look of an --until-decided path (the rest are counted)
TEMPLATE = "page.html.j2"  # the page's template (report/templates)


def anchors(claims: Sequence[ClaimRecord]) -> list[str]:
    """A unique, readable anchor per claim test: C1-paper, C1-paper-2, ..."""
    seen: dict[str, int] = {}
    out = []
    for r in claims:
        base = f"{r.claim}-{r.scale.get('name', 'run')}"
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return out


@dataclass(frozen=True)
class UniverseChange:
    universe: str  # the universe under which the verdict differs
    badge: Badge  # the cell's verdict
    href: str  # the anchor of the cell's checks (the multiverse grid's block)
    numbers: str  # its deciding (failed) check with its numbers (``multiverse.numbers``)


READINGS_CLASSES = {  # a row's outcome over the universes (``multiverse.RowOutcome.state``) -> its cell's class
    Outcome.HOLDS: "holds",
    Outcome.WITHIN_NOISE: "noise",
    Outcome.OTHER_WAY: "changes",
    None: "not-run",
}


@dataclass(frozen=True)
class ReadingsCell:
    state: str  # "holds", "noise", "changes" or "not-run": the row's outcome as a class (READINGS_CLASSES)
    text: str  # the outcome in one line (``multiverse.RowOutcome.short``; the cell's tooltip)
    changes: tuple[UniverseChange, ...]  # the universes under which the verdict differs


def readings_cell(outcome: mv.RowOutcome | None) -> ReadingsCell | None:
    """A claims-table row's "under other readings" cell; None when the run has no multiverse part."""
    if outcome is None:
        return None
    return ReadingsCell(
        READINGS_CLASSES[outcome.state],
        outcome.short(),
        tuple(UniverseChange(c.universe, badge(c.view), c.anchor, c.numbers) for c in outcome.changes + outcome.noise),
    )


@dataclass(frozen=True)
class ClaimRow:
    data_id: int  # the sort key of "ID": claim number * 1000 + the row's place (stable for equal claims)
    data_verdict: str  # the sort key of "Verdict": the verdict's page_order (``Verdict.look``), less
    # CLOSE_RANK for a close call
    data_runtime: str  # the sort key of "Runtime": seconds ("" when not recorded)
    claim: str  # "C4"
    anchor: str  # the claim section's id
    where: str  # where in the paper
    statement: str  # the claim
    test: str | None  # the test's name, when several tests record this claim
    paper_value: str  # the paper's value
    measures: tuple[Measure, ...]  # headline quantities (at most MEASURED_IN_TABLE)
    more_measures: int  # headline quantities left to the claim's section
    deciding: Check | None  # the deciding check, shown when no quantity is
    checks_passed: int  # checks passed
    checks: int  # checks in all
    threshold: Check | None  # the deciding check, against its threshold
    assertion: str  # the catalogue's check
    scale: str  # the scale's description
    runtime: str  # the test's runtime
    badge: Badge  # the verdict (its class colours the row)
    reason: str | None  # why the verdict, in full (the cell's tooltip)
    reason_short: str  # its first line, at most REASON_SHOWN characters
    seeds_path: tuple[int, ...] | None  # seeds at each look of an --until-decided claim; None otherwise
    stopped: str  # why the --until-decided claim stopped ("" when not one)
    readings: ReadingsCell | None  # what the multiverse's other readings do to the verdict; None: no multiverse


def claim_rows(
    claims: Sequence[ClaimRecord], ids: Sequence[str], readings: Mapping[str, mv.RowOutcome | None] | None = None
) -> tuple[ClaimRow, ...]:
    """The claims (or predictions) table's rows; ``readings``: each test's multiverse outcome, by test id
    (None or absent: the run has no multiverse part)."""
    readings = readings or {}
    rows = []
    shared = text.shared_claims(claims)
    for i, (r, anchor) in enumerate(zip(claims, ids)):
        rank = verdicts.look(r.verdict).page_order - (CLOSE_RANK if r.labelled_close else 0)
        measured = r.measured_in_report_order
        check = r.deciding
        passed, total = r.checks_passed
        reason = plain_numbers(r.verdict_reason) if r.verdict_reason else r.verdict_reason
        first = reason.splitlines()[0] if reason else ""
        plan = r.looks
        rows.append(
            ClaimRow(
                data_id=claim_number(r.claim) * 1000 + i,
                data_verdict=f"{rank:g}",
                data_runtime="" if r.runtime_s is None else f"{r.runtime_s:.3f}",
                claim=r.claim,
                anchor=anchor,
                where=r.where,
                statement=r.statement,
                test=r.test_name if r.claim in shared else None,
                paper_value=r.paper_value,
                measures=tuple(measured[:MEASURED_IN_TABLE]),
                more_measures=max(len(measured) - MEASURED_IN_TABLE, 0),
                deciding=check if check is not None and not measured else None,
                checks_passed=passed,
                checks=total,
                threshold=check,
                assertion=r.assertion,
                scale=text.scale_text(r.scale),
                runtime=text.duration(r.runtime_s),
                badge=badge(r),
                reason=reason,
                reason_short=first if len(first) <= REASON_SHOWN else first[: REASON_SHOWN - 3].rstrip() + "...",
                seeds_path=tuple(int(look["seeds"]) for look in plan.get("path") or []) if plan else None,
                stopped=plan.get("stopped", "") if plan else "",
                readings=readings_cell(readings.get(r.test)),
            )
        )
    return tuple(rows)


@dataclass(frozen=True)
class ControlRow:
    test: str  # the control's test name
    scale: str  # its scale
    counterfactual: str  # what it fed to the claim's checks
    discriminates: bool  # the claim's checks failed on it, as they must
    failed: int  # checks that failed on the counterfactual
    total: int  # checks run on it
    verdict: str  # the control's verdict ("?" when it has none)
    reason: str  # why that verdict
    checks: tuple[CheckGroup, ...]  # the checks shown, grouped (views.check_groups): the failed ones, or all if none


def control_views(controls: Sequence[ClaimRecord]) -> tuple[ControlRow, ...]:
    """The claim's negative controls: the counterfactual each fed to the claim's checks, and how they failed."""
    return tuple(
        ControlRow(
            c.test_name,
            text.scale_text(c.scale),
            c.counterfactual,
            c.discriminates,
            len(c.failed_checks),
            len(c.checks),
            c.verdict or "?",
            plain_numbers(c.verdict_reason or ""),
            check_groups(c.failed_checks or c.checks),
        )
        for c in controls
    )


@dataclass(frozen=True)
class LookRow:
    seeds: int  # seeds at this look
    state: str  # "close" or "decided"
    checks: str  # its close checks (else the deciding check): statistic [interval] threshold


@dataclass(frozen=True)
class PathRow:
    summary: str  # the plan and where it stopped (``text.path_text``)
    looks: tuple[LookRow, ...]  # each look, in order


def seed_path(claim: ClaimRecord) -> PathRow | None:
    """The --until-decided path: the plan, and the seeds and deciding intervals at each look."""
    plan = claim.looks
    if not plan:
        return None
    looks = []
    for look in plan.get("path") or []:
        shown = look.get("close_checks") or ([look["deciding"]] if look.get("deciding") else [])
        cells = "; ".join(
            f"{c['name']}: {text.num(c['value'], 4)} {text.interval(c.get('interval'), 4)} "
            f"{text.threshold_text(c['op'], c['threshold'])}"
            for c in shown[:PATH_CHECKS_SHOWN]
        )
        more = f"; and {len(shown) - PATH_CHECKS_SHOWN} more" if len(shown) > PATH_CHECKS_SHOWN else ""
        looks.append(LookRow(int(look["seeds"]), "close" if look.get("close") else "decided", cells + more))
    return PathRow(text.path_text(plan), tuple(looks))


@dataclass(frozen=True)
class Section:
    anchor: str  # the section's id
    claim: str  # "C4"
    badge: Badge  # the verdict (its class colours the section)
    scale: str  # the scale's description
    title: str  # the claim in a few words
    statement: str  # the claim
    facts: tuple[tuple[str, str], ...]  # (label, value): where, paper value, catalogue check, ...
    close_calls: tuple[tuple[str, str], ...]  # (check, its interval and the seeds to decide it)
    path: PathRow | None  # the --until-decided path
    measured: tuple[Measure, ...]  # every measured quantity
    failed: tuple[Check, ...]  # the failed checks
    holds_note: bool  # a declared non-reproduction: say how many checks hold inside it
    checks: tuple[Check, ...]  # the checks shown in full under "all checks": the failed and the close ones
    passed: tuple[CheckGroup, ...]  # every other check, grouped by quantity and comparison (views.check_groups)
    checks_total: int  # checks in all
    checks_passed: int  # checks passed
    checks_open: bool  # the table of every check starts expanded
    choices: tuple[str, ...]  # what the paper leaves open
    notes: tuple[str, ...]  # the test's notes
    controls: tuple[ControlRow, ...]  # the claim's negative controls
    figures: tuple[Rendered, ...]  # the claim's figures


def section(
    claim: ClaimRecord, anchor: str, rendered: Sequence[Rendered], controls: Sequence[ClaimRecord] = ()
) -> Section:
    facts = [
        ("where", claim.where),
        ("paper value", claim.paper_value),
        ("catalogue check", claim.assertion),
        ("scale", text.scale_text(claim.scale)),
        ("runtime", text.duration(claim.runtime_s)),
        ("test", claim.test),
    ]
    if claim.verdict_reason:
        facts.append(("why " + (claim.verdict or "unknown"), plain_numbers(claim.verdict_reason)))
    failed = claim.failed_checks
    passed, total = claim.checks_passed
    return Section(
        anchor=anchor,
        claim=claim.claim,
        badge=badge(claim),
        scale=text.scale_text(claim.scale),
        title=claim.title,
        statement=claim.statement,
        facts=tuple(facts),
        close_calls=tuple((c.name, text.close_text(c)) for c in claim.close_checks),
        path=seed_path(claim),
        measured=tuple(claim.measured),
        failed=tuple(failed),
        holds_note=bool(claim.declared and failed),
        checks=tuple(c for c in claim.checks if not c.passed or c.close),
        passed=check_groups([c for c in claim.checks if c.passed and not c.close]),
        checks_total=total,
        checks_passed=passed,
        checks_open=total <= CHECKS_OPEN,
        choices=claim.choices,
        notes=claim.notes,
        controls=control_views(controls),
        figures=tuple(rendered),
    )


def overview_rows(claims: Sequence[ClaimRecord], depends: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """The overview's rows: each claim test's deciding check, as ``figures.forest`` takes them; a test in
    ``depends`` (test ids whose verdict changes under another reading) is marked ``depends``."""
    rows = []
    shared = text.shared_claims(claims)
    for r in claims:
        check = r.deciding
        if check is None or r.verdict is Verdict.SKIPPED:
            continue
        margin = check.margin
        kind = "interval" if margin is not None else ("exact" if check.interval == "exact" else "none")
        name = check.name if len(check.name) <= OVERVIEW_NAME else check.name[: OVERVIEW_NAME - 3] + "..."
        params = variant_of(r.test)  # every parameter of the test, its scale's name too
        test = f" [{params}]" if r.claim in shared and params else ""
        row = {
            "label": f"{r.claim}{test}: {name}",
            "verdict": r.verdict,
            "close": r.close,
            "kind": kind,
            "passed": check.passed,
            "depends": r.test in depends,
        }
        if margin is not None:
            row.update(margin=margin[0], low=margin[1], high=margin[2])
        rows.append(row)
    return rows


@dataclass(frozen=True)
class Overview:
    png_base64: str | None  # the forest plot; None when it could not be drawn
    error: str | None  # why it could not be drawn
    tests: int  # claim tests in it
    close: int  # of them close calls
    caption: str  # how to read it (``figures.forest``)


def overview(claims: Sequence[ClaimRecord], depends: frozenset[str] = frozenset()) -> Overview | None:
    """The forest plot before the table (drawn afresh: one figure for the whole run); None without rows;
    ``depends``: the tests whose verdict changes under another reading (marked in the plot)."""
    rows = overview_rows(claims, depends)
    if not rows:
        return None
    close = sum(1 for r in rows if r["close"])
    try:
        png, caption = forest(rows)
    except FigureError as error:
        return Overview(None, str(error), len(rows), close, "")
    except Exception as error:  # a drawing problem must not lose the report
        return Overview(None, f"{type(error).__name__}: {error}", len(rows), close, "")
    return Overview(base64.b64encode(png).decode("ascii"), None, len(rows), close, caption)


@cache
def words() -> dict[str, Any]:
    """The page's fixed words (``static/page.json``): "terms", the words the answer uses before the page explains
    them, in the order a reader meets them, each with its meaning (as lines) and a regular expression for its uses
    in the answer (plurals, capitals); "environment", the environment block's known keys in the order the page
    lists them, each with its label. Read once, when first asked for (no file is read at import)."""
    return json.loads(static_text("page.json"))


def environment_value(key: str, value: Any) -> str:
    """One environment value as a reader reads it: a duration, MiB per process, or the value itself."""
    if key == "wall_time_s":
        return text.duration(float(value))
    if key == "peak_rss_mib" and isinstance(value, Mapping):
        return ", ".join(f"{name} {float(mib):.0f} MiB" for name, mib in value.items())
    return str(value)


def environment_rows(environment: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """(label, value) of the run's environment: the known keys (:func:`words`' "environment") in their order, under
    their labels, then the rest under their own names."""
    labels = words()["environment"]
    rows = []
    for key, label in labels.items():
        if environment.get(key) is not None:
            rows.append((label, environment_value(key, environment[key])))
    known = labels.keys() | {"cache"}
    rows += [(k, str(v)) for k, v in environment.items() if k not in known]
    return tuple(rows)


def not_run(run: RunView) -> tuple[tuple[str, str, str], ...]:
    """(claim, where, statement) of each catalogue claim without a record in this run."""
    return tuple((c, run.catalogue.entry(c).where, run.catalogue.entry(c).statement) for c in run.completeness.missing)


@dataclass(frozen=True)
class Chip:
    css: str  # the verdict's class
    close: bool  # a "(close)" count: dashed border
    count: int  # claim tests with this verdict
    label: str  # the verdict as counted ("reproduced (close)", ...)


def chips(counts: Mapping[str, int]) -> tuple[Chip, ...]:
    """One chip per shown label of ``RunView.verdict_counts`` (read back by ``verdicts.label_verdict``)."""
    chips = []
    for label, n in counts.items():
        verdict, close = label_verdict(label)
        chips.append(Chip(verdict_class(verdict), close, n, label))
    return tuple(chips)


def counted(count: int, noun: str, verb: str = "", verb_plural: str = "") -> str:
    """``1 prediction reproduces`` / ``3 predictions reproduce``: the noun (and a verb) agreeing with the count."""
    many = count != 1
    parts = [str(count), noun + ("s" if many else "")]
    if verb:
        parts.append(verb_plural if many else verb)
    return " ".join(parts)


def claim_chips(records: Sequence[ClaimRecord], noun: str) -> tuple[Chip, ...]:
    """Claims counted as the answer counts them: those whose every test reproduces (close calls apart), and those
    with a test that does not (``answer.reproducing``); ``noun``: "claim" or "prediction" (made plural where the
    count asks)."""
    holding, close, claims = reproducing(records)
    clear, failing = holding - close, claims - holding
    shown = [
        Chip(verdict_class(Verdict.REPRODUCED), False, clear, counted(clear, noun, "reproduces", "reproduce")),
        Chip(
            verdict_class(Verdict.REPRODUCED),
            True,
            close,
            counted(close, noun, "reproduces", "reproduce") + CLOSE_SUFFIX,
        ),
        Chip(
            verdict_class(Verdict.NOT_REPRODUCED),
            False,
            failing,
            counted(failing, noun, "does not in some test", "do not in some test"),
        ),
    ]
    return tuple(c for c in shown if c.count)


@dataclass(frozen=True)
class Term:
    term: str  # the word as the glossary lists it
    meaning: str  # what it means, in a sentence or two
    pattern: str  # a regular expression for its uses in the answer (plurals, capitals)

    @property
    def anchor(self) -> str:
        """Its id on the page ("g-open-choice")."""
        return "g-" + self.term.replace(" ", "-")


@cache
def terms() -> tuple[Term, ...]:
    """The glossary's terms (:func:`words`' "terms"), in the order a reader meets them."""
    return tuple(Term(t["term"], " ".join(t["meaning"]), t["pattern"]) for t in words()["terms"])


def linked_answer(sentence: str) -> Markup:
    """The answer with the first use of each glossary term (:func:`terms`) followed by a small link to its meaning
    on the page (its tooltip says it too); every other character escaped as the templates escape text."""
    found: list[tuple[int, int, Term]] = []
    for t in terms():
        m = re.search(rf"\b{t.pattern}\b", sentence, flags=re.IGNORECASE)
        if m and not any(a < m.end() and m.start() < b for a, b, _ in found):
            found.append((m.start(), m.end(), t))
    out, at = [], 0
    for start, end, t in sorted(found, key=lambda f: f[0]):
        out.append(escape(sentence[at:end]))  # the term's words stay as the answer writes them
        out.append(Markup('<a class="term" href="#{}" title="{}: {}">?</a>').format(t.anchor, t.term, t.meaning))
        at = end
    out.append(escape(sentence[at:]))
    return Markup("").join(out)


def glossary(run: RunView) -> tuple[tuple[str, str], ...]:
    """(verdict, meaning) of each verdict this run's tests and cells hold, in the report's order."""
    present = {v.verdict for part in ("records", "robustness", "multiverse") for v in getattr(run, part)}
    return tuple((v.value, v.look.meaning) for v in SHOWN if v in present)


def compact_base64(png: str) -> str:
    """A base64 PNG drawn elsewhere (the specification curves) stored as the page stores its own figures
    (``figures.compact_png``)."""
    return base64.b64encode(compact_png(base64.b64decode(png))).decode("ascii")


def page(
    run: RunView,
    rendered: Mapping[int, Sequence[Rendered]],
    curves: Sequence[CurveView] = (),
    more_seeds: RunView | None = None,
) -> str:
    """The HTML of a run; ``rendered``: each claim test's figures, by its place in ``run.records``; ``curves``:
    the multiverse rows' specification curves, drawn (``specification.curve_views``); ``more_seeds``: the same
    claims with seeds added until decided, whose verdicts the answer names as ``lengthgen docs`` does."""
    records = run.records
    ids = anchors(records)
    universes = mv.view_grid(run)  # None without a multiverse part
    found = mv.outcomes(universes) if universes is not None else {}
    readings = {r.test: mv.outcome_for(universes, r, found) for r in records}
    depends = frozenset(t for t, o in readings.items() if o is not None and o.state is Outcome.OTHER_WAY)
    # the places in run.records of the paper's claims, then of the predictions beyond it
    claimed, predicted = ([i for i, r in enumerate(records) if r.is_prediction == part] for part in (False, True))
    sections = [
        tuple(section(records[i], ids[i], rendered.get(i, []), run.controls_of(records[i])) for i in places)
        for places in (claimed, predicted)
    ]
    # The stylesheet and the script are the package's own files, inlined as they are: Markup keeps the
    # autoescaping from turning their quotes and ">" selectors into entities (they hold no claims.json text).
    css, js, grid_css = (Markup(static_text(name)) for name in ("page.css", "page.js", "robustness.css"))
    return render(
        TEMPLATE,
        css=css,
        js=js,
        run_label=run.completeness.label,
        tests=len(records),
        generated=time.strftime("%Y-%m-%d %H:%M:%S %Z"),  # when this page was drawn (the run's start is below)
        chips=chips(run.verdict_counts("records")),
        claim_chips=claim_chips(run.claims, "claim"),
        prediction_chips=claim_chips(run.predictions, "prediction"),
        answer=linked_answer(answer(run, more_seeds)),
        terms=terms(),
        claims_count=counted(len({r.claim for r in run.claims}), "claim"),
        predictions_count=counted(len({r.claim for r in run.predictions}), "prediction"),
        glossary=glossary(run),
        overview=overview(records, depends),
        claims=claim_rows([records[i] for i in claimed], [ids[i] for i in claimed], readings),
        not_run=not_run(run),
        predictions=claim_rows([records[i] for i in predicted], [ids[i] for i in predicted], readings),
        with_readings=universes is not None,
        robustness=grid_view(run.robustness, run.robustness_environment, run.catalogue),
        multiverse=mv_grid.grid_view(
            run,
            {r.test: a for r, a in zip(records, ids)},
            frozenset((reading, c.column) for c in curves for reading in c.hinges_on),
        ),
        curves=tuple(replace(c, png=compact_base64(c.png)) if c.png else c for c in curves),
        stated=stated_view(run),
        robustness_css=grid_css,
        environment=environment_rows(run.environment),
        claim_sections=sections[0],
        prediction_sections=sections[1],
    )
