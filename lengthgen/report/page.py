"""The one-page HTML report: self-contained (inline CSS, a few lines of inline JS, figures as base64
PNG), readable offline. Built from ``claims.json``'s data and the rendered figures; no claim-specific
code: every claim is shown the same way.

This module turns the data into view-models (frozen dataclasses of plain text and numbers: the sort
ranks, the close calls, the overview's rows are decided here); the templates in ``report/templates``
only lay them out, and escape every value they print (``lengthgen.report.templating``).
"""

from __future__ import annotations

import base64
import re
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from markupsafe import Markup

from lengthgen.catalogue import CATALOGUE
from lengthgen.records import VERDICTS
from lengthgen.report import text
from lengthgen.report.figures import FigureError, Rendered, forest
from lengthgen.report.templating import render, static_text
from lengthgen.report.verdict import close_checks, deciding_check, interval_kind, is_close, standard_margin
from lengthgen.report.views import (Badge, CheckRow, Measure, check_rows, measure, record_badge, values_note,
                                    verdict_class)

PAPER_TITLE = "Relative Positions Generalize, Absolute Positions Memorize"
CHECKS_OPEN = 12  # a claim's checks table starts expanded up to this many checks
MEASURED_IN_TABLE = 3  # headline quantities shown in the claims table (all of them in the claim's section)
REASON_SHOWN = 160  # characters of a verdict's reason shown in the claims table
OVERVIEW_NAME = 56  # characters of a deciding check's name in the overview's row labels
CLOSE_RANK = 0.5  # a close call sorts just before its verdict's clear calls
PATH_CHECKS_SHOWN = 3  # close checks spelled out per look of an --until-decided path (the rest are counted)
VERDICT_RANK = {v: i for i, v in enumerate(("failed", "not reproduced", "inconclusive", "skipped", "reproduced"))}
assert set(VERDICT_RANK) == set(VERDICTS), "every verdict needs a sort rank and a colour"
TEMPLATE = "page.html.j2"  # the page's template (report/templates)


def anchors(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """A unique, readable anchor per record: C1-paper, C1-paper-2, ..."""
    seen: dict[str, int] = {}
    out = []
    for r in records:
        base = f"{r['claim']}-{r.get('scale', {}).get('name', 'run')}"
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return out


@dataclass(frozen=True)
class Deciding:
    name: str  # the deciding check's name
    value: str  # its statistic, 4 significant digits
    note: str | None  # the values behind it (``values_note``)


@dataclass(frozen=True)
class Threshold:
    name: str  # the deciding check's name
    comparison: str  # "statistic [interval] > threshold" (``text.check_text``)
    failed: bool  # the deciding check failed
    close: str | None  # why it is a close call and the seeds to decide it (``text.close_text``); None if clear


@dataclass(frozen=True)
class ClaimRow:
    css: str  # the verdict's class
    data_id: int  # the sort key of "ID": claim number * 1000 + the row's place (stable for equal claims)
    data_verdict: str  # the sort key of "Verdict": VERDICT_RANK, less CLOSE_RANK for a close call
    data_close: str  # "true" / "false": a close call (reproduced or not reproduced only)
    claim: str  # "C4"
    anchor: str  # the claim section's id
    where: str  # where in the paper
    statement: str  # the claim
    test: str | None  # the test's name, when several tests record this claim
    paper_value: str  # the paper's value
    measures: tuple[Measure, ...]  # headline quantities (at most MEASURED_IN_TABLE)
    more_measures: int  # headline quantities left to the claim's section
    deciding: Deciding | None  # the deciding check, shown when no quantity is
    checks_passed: int  # checks passed
    checks: int  # checks in all
    threshold: Threshold | None  # the deciding check against its threshold
    assertion: str  # the catalogue's check
    scale: str  # the scale's description
    runtime: str  # the test's runtime
    badge: Badge  # the verdict
    reason: str | None  # why the verdict, in full (the cell's tooltip)
    reason_short: str  # its first line, at most REASON_SHOWN characters
    seeds_path: tuple[int, ...] | None  # seeds at each look of an --until-decided claim; None otherwise
    stopped: str  # why the --until-decided claim stopped ("" when not one)


def claim_rows(records: Sequence[Mapping[str, Any]], ids: Sequence[str]) -> tuple[ClaimRow, ...]:
    rows = []
    shared = text.shared_claims(records)
    for i, (r, anchor) in enumerate(zip(records, ids)):
        verdict = r.get("verdict")
        close = bool(close_checks(r)) and verdict in text.verdict.CLOSE_LABELLED
        rank = VERDICT_RANK.get(verdict, len(VERDICT_RANK)) - (CLOSE_RANK if close else 0)
        measured = text.headline_measures(r)
        check = text.deciding_check(r)
        passed, total = text.checks_passed(r)
        reason = r.get("verdict_reason") or None
        first = reason.splitlines()[0] if reason else ""
        plan = r.get("sequential")
        rows.append(ClaimRow(
            css=verdict_class(verdict), data_id=text.claim_number(r["claim"]) * 1000 + i, data_verdict=f"{rank:g}",
            data_close=str(close).lower(), claim=r["claim"], anchor=anchor, where=r.get("where", ""),
            statement=r.get("statement", ""), test=text.test_name(r) if r["claim"] in shared else None,
            paper_value=r.get("paper_value", ""),
            measures=tuple(measure(name, s) for name, s in measured[:MEASURED_IN_TABLE]),
            more_measures=max(len(measured) - MEASURED_IN_TABLE, 0),
            deciding=(Deciding(check["name"], text.num(check["value"], 4), values_note(check))
                      if check is not None and not measured else None),
            checks_passed=passed, checks=total,
            threshold=(Threshold(check["name"], text.check_text(check), not check["passed"],
                                 text.close_text(check, r) if is_close(check) else None)
                       if check is not None else None),
            assertion=r.get("assertion", ""), scale=text.scale_text(r.get("scale", {})),
            runtime=text.duration(r.get("runtime_s")), badge=record_badge(r), reason=reason,
            reason_short=first if len(first) <= REASON_SHOWN else first[: REASON_SHOWN - 3].rstrip() + "...",
            seeds_path=tuple(look["seeds"] for look in plan.get("path") or []) if plan else None,
            stopped=plan.get("stopped", "") if plan else "",
        ))
    return tuple(rows)


@dataclass(frozen=True)
class Figure:
    name: str  # the figure's name in its record
    title: str  # its title (the image's alt text)
    caption: str  # its caption ("" for none)
    png_base64: str | None  # the drawing; None when it could not be drawn
    error: str | None  # why it could not be drawn


def figure_views(rendered: Sequence[Rendered]) -> tuple[Figure, ...]:
    return tuple(Figure(f.name, f.title, f.caption or "", f.png_base64, f.error) for f in rendered)


@dataclass(frozen=True)
class Control:
    test: str  # the control's test name
    scale: str  # its scale
    counterfactual: str  # what it fed to the claim's checks
    discriminates: bool  # the claim's checks failed on it, as they must
    failed: int  # checks that failed on the counterfactual
    total: int  # checks run on it
    verdict: str  # the control's verdict ("?" when it has none)
    reason: str  # why that verdict
    checks: tuple[CheckRow, ...]  # the checks shown: the failed ones, or all if none failed


def control_views(controls: Sequence[Mapping[str, Any]]) -> tuple[Control, ...]:
    """The claim's negative controls: the counterfactual each fed to the claim's checks, and how they failed."""
    out = []
    for c in controls:
        checks = c.get("checks") or []
        failed = [k for k in checks if not k["passed"]]
        verdict = c.get("verdict") or "?"
        out.append(Control(text.test_name(c), text.scale_text(c.get("scale", {})), c.get("counterfactual") or "",
                           verdict == "discriminates", len(failed), len(checks), verdict,
                           c.get("verdict_reason") or "", check_rows(failed or checks)))
    return tuple(out)


@dataclass(frozen=True)
class Look:
    seeds: int  # seeds at this look
    state: str  # "close" or "decided"
    checks: str  # its close checks (else the deciding check): statistic [interval] threshold


@dataclass(frozen=True)
class SeedPath:
    summary: str  # the plan and where it stopped (``text.path_text``)
    looks: tuple[Look, ...]  # each look, in order


def seed_path(record: Mapping[str, Any]) -> SeedPath | None:
    """The --until-decided path: the plan, and the seeds and deciding intervals at each look."""
    plan = record.get("sequential")
    if not plan:
        return None
    looks = []
    for look in plan.get("path") or []:
        shown = look.get("close_checks") or ([look["deciding"]] if look.get("deciding") else [])
        cells = "; ".join(f"{c['name']}: {text.num(c['value'], 4)} {text.interval(c.get('interval'), 4)} "
                          f"{text.threshold_text(c['op'], c['threshold'])}" for c in shown[:PATH_CHECKS_SHOWN])
        more = f"; and {len(shown) - PATH_CHECKS_SHOWN} more" if len(shown) > PATH_CHECKS_SHOWN else ""
        looks.append(Look(look["seeds"], "close" if look.get("close") else "decided", cells + more))
    return SeedPath(text.path_text(record), tuple(looks))


@dataclass(frozen=True)
class Section:
    css: str  # the verdict's class
    anchor: str  # the section's id
    claim: str  # "C4"
    badge: Badge  # the verdict
    scale: str  # the scale's description
    statement: str  # the claim
    facts: tuple[tuple[str, str], ...]  # (label, value): where, paper value, catalogue check, ...
    close_calls: tuple[tuple[str, str], ...]  # (check, its interval and the seeds to decide it)
    path: SeedPath | None  # the --until-decided path
    measured: tuple[Measure, ...]  # every measured quantity
    failed: tuple[CheckRow, ...]  # the failed checks
    holds_note: bool  # a declared non-reproduction: say how many checks hold inside it
    checks: tuple[CheckRow, ...]  # every check
    checks_passed: int  # checks passed
    checks_open: bool  # the table of every check starts expanded
    choices: tuple[str, ...]  # what the paper leaves open
    notes: tuple[str, ...]  # the test's notes
    controls: tuple[Control, ...]  # the claim's negative controls
    figures: tuple[Figure, ...]  # the claim's figures


def section(record: Mapping[str, Any], anchor: str, rendered: Sequence[Rendered],
            controls: Sequence[Mapping[str, Any]] = ()) -> Section:
    verdict = record.get("verdict")
    facts = [
        ("where", record.get("where", "")),
        ("paper value", record.get("paper_value", "")),
        ("catalogue check", record.get("assertion", "")),
        ("scale", text.scale_text(record.get("scale", {}))),
        ("runtime", text.duration(record.get("runtime_s"))),
        ("test", record.get("test", "")),
    ]
    if record.get("verdict_reason"):
        facts.append(("why " + (verdict or "unknown"), record["verdict_reason"]))
    checks = record.get("checks") or []
    failed = [c for c in checks if not c["passed"]]
    passed, total = text.checks_passed(record)
    return Section(
        css=verdict_class(verdict), anchor=anchor, claim=record["claim"], badge=record_badge(record),
        scale=text.scale_text(record.get("scale", {})), statement=record.get("statement", ""), facts=tuple(facts),
        close_calls=tuple((c["name"], text.close_text(c, record)) for c in close_checks(record)),
        path=seed_path(record),
        measured=tuple(measure(n, s) for n, s in (record.get("measured") or {}).items()),
        failed=check_rows(failed), holds_note=bool(record.get("expected_failures") and failed),
        checks=check_rows(checks), checks_passed=passed, checks_open=total <= CHECKS_OPEN,
        choices=tuple(record.get("choices") or []), notes=tuple(record.get("notes") or []),
        controls=control_views(controls), figures=figure_views(rendered),
    )


def overview_rows(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The overview's rows: each claim test's deciding check, as ``figures.forest`` takes them."""
    rows = []
    shared = text.shared_claims(records)
    for r in records:
        check = deciding_check(r)
        if check is None or r.get("verdict") == "skipped":
            continue
        margin = standard_margin(check, r)
        kind = "interval" if margin is not None else ("exact" if interval_kind(check) == "exact" else "none")
        name = check["name"] if len(check["name"]) <= OVERVIEW_NAME else check["name"][: OVERVIEW_NAME - 3] + "..."
        param = re.search(r"\[(.*)\]$", text.test_name(r))
        test = f" [{param.group(1)}]" if r["claim"] in shared and param else ""
        row = {"label": f"{r['claim']}{test}: {name}", "verdict": r.get("verdict"), "close": bool(close_checks(r)),
               "kind": kind, "passed": bool(check["passed"])}
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


def overview(records: Sequence[Mapping[str, Any]]) -> Overview | None:
    """The forest plot before the table (drawn afresh: one figure for the whole run); None without rows."""
    rows = overview_rows(records)
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


ENVIRONMENT_ROWS = (
    ("lengthgen", "library version"),
    ("code_fingerprint", "code fingerprint (core numeric files, in every cache key)"),
    ("suite_fingerprint", "suite fingerprint (every .py of the package and claims)"),
    ("torch", "torch"),
    ("python", "Python"),
    ("numpy", "numpy"),
    ("matplotlib", "matplotlib"),
    ("platform", "platform"),
    ("cpus", "CPUs"),
    ("threads_per_process", "torch threads per process"),
    ("workers", "pytest-xdist workers"),
    ("started", "started"),
    ("wall_time_s", "wall time (pytest configured to the last test)"),
    ("models_trained", "models trained"),
    ("models_from_cache", "models from the cache (hits)"),
    ("evaluations_computed", "evaluations computed"),
    ("evaluations_from_cache", "evaluations from the cache"),
    ("damaged_entries", "damaged cache entries recomputed"),
    ("cache_by_kind", "cache use by kind"),
    ("cache_dir", "cache directory"),
    ("command", "command"),
    ("exit_status", "pytest exit status"),
)


def environment_rows(environment: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """(label, value) of the run's environment: the known keys in ENVIRONMENT_ROWS' order, then the rest."""
    rows = []
    for key, label in ENVIRONMENT_ROWS:
        if key not in environment or environment[key] is None:
            continue
        value = environment[key]
        rows.append((label, text.duration(float(value)) if key == "wall_time_s" else str(value)))
    known = {k for k, _ in ENVIRONMENT_ROWS} | {"cache"}
    rows += [(k, str(v)) for k, v in environment.items() if k not in known]
    return tuple(rows)


def not_run(records: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, str, str], ...]:
    """(claim, where, statement) of each catalogue claim without a record in this run."""
    _, missing = text.coverage(records)
    return tuple((c, CATALOGUE[c].where, CATALOGUE[c].statement) for c in missing)


@dataclass(frozen=True)
class Chip:
    css: str  # the verdict's class
    close: bool  # a "(close)" count: dashed border
    count: int  # claim tests with this verdict
    label: str  # the verdict as counted ("reproduced (close)", ...)


def chips(records: Sequence[Mapping[str, Any]]) -> tuple[Chip, ...]:
    return tuple(Chip(verdict_class(v.removesuffix(" (close)")), v.endswith(" (close)"), n, v)
                 for v, n in text.verdict_counts(records).items())


def page(data: Mapping[str, Any], rendered: Mapping[int, Sequence[Rendered]]) -> str:
    """The HTML of ``data`` (``{"environment": ..., "records": [...]}``, records sorted by claim)."""
    from lengthgen.report.robustness import grid_view

    records = data["records"]
    ids = anchors(records)
    controls = data.get("controls") or []

    def own_controls(r: Mapping[str, Any]) -> list[Mapping[str, Any]]:  # the claim's controls at its scale
        scale = r.get("scale", {}).get("name")
        return [c for c in controls if c["claim"] == r["claim"] and c.get("scale", {}).get("name") == scale]

    sections = [tuple(section(r, a, rendered.get(i, []), own_controls(r))
                      for i, (r, a) in enumerate(zip(records, ids)) if text.is_prediction(r) == part)
                for part in (False, True)]  # the paper's claims, then the predictions beyond it
    predicted = [i for i, r in enumerate(records) if text.is_prediction(r)]
    claimed = [i for i in range(len(records)) if i not in predicted]
    # The stylesheet and the script are the package's own files, inlined as they are: Markup keeps the
    # autoescaping from turning their quotes and ">" selectors into entities (they hold no claims.json text).
    css, js, grid_css = (Markup(static_text(name)) for name in ("page.css", "page.js", "robustness.css"))
    return render(
        TEMPLATE,
        css=css, js=js, paper_title=PAPER_TITLE,
        run_label=text.run_label(records), tests=len(records),
        generated=time.strftime("%Y-%m-%d %H:%M:%S %Z"),  # when this page was drawn (the run's start is below)
        chips=chips(records), overview=overview(records),
        claims=claim_rows([records[i] for i in claimed], [ids[i] for i in claimed]), not_run=not_run(records),
        predictions=claim_rows([records[i] for i in predicted], [ids[i] for i in predicted]),
        robustness=grid_view(data.get("robustness") or [], data.get("robustness_environment")),
        robustness_css=grid_css,
        environment=environment_rows(data.get("environment") or {}),
        claim_sections=sections[0], prediction_sections=sections[1],
    )
