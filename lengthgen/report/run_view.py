"""One typed view of a run: ``claims.json`` (or the plugin's records and environment) parsed once into
frozen dataclasses, so every renderer (the terminal summary, the page, the robustness map, the markdown
summary, the diff) reads the same verdict labels, deciding checks and close calls instead of re-deriving
them from dicts.

- :class:`RunView`: the run (``RunView.from_json(path_or_dict)``, ``RunView.from_records(records,
  environment)``): its paper claims, predictions, negative controls, robustness and multiverse cells,
  environment, scale and completeness.
- :class:`ClaimView`: one claim test (or a cell): its verdict with a display label, colour class and rank
  (:data:`VERDICT_STYLES`), the deciding check, the close checks, the declared non-reproduction, the
  checks, the measured quantities, the scale, and its negative controls.
- :class:`CheckView`: one check with its interval, whether it is close, whether it is a declared
  expected failure, where its threshold comes from, and its per-seed values.
- :class:`ControlView`: one negative control.
- :class:`Measure`: one measured quantity (mean, interval, per-seed values), the one class for it: the
  renderers format it (``text.summary_text``; the page's row of it is ``views.MeasureRow``).

The verdict rule itself stays in :mod:`lengthgen.report.verdict` (``decide``, ``close_checks``,
``deciding_check``, ``standard_margin``): the view calls it once per record. The verdict's display is
derived here and only here: its label (:func:`verdict_label`, "reproduced (close)"), whether it is shown as
a close call (``ClaimView.labelled_close``), its style; the renderers read them. The file itself is read
and written by :mod:`lengthgen.report.data`, the layer below. Keys a file of an earlier version lacks
(``reading``, ``threshold_source``, ``multiverse``, ``interval``, ...) parse to None or empty.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from lengthgen.catalogue import NOT_IN_PAPER, Catalogue, Entry
from lengthgen.readings import CellPlan
from lengthgen.registry import Registry
from lengthgen.report import verdict as rule
from lengthgen.report.data import assemble, checked, claim_number, read

# ----------------------------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class VerdictStyle:
    verdict: str  # the verdict string as records carry it
    css: str  # the page's colour class ("v-reproduced", ...; static/page.css colours it)
    colour: str  # the verdict's colour (the overview's forest plot; page.css uses the same)
    short: str  # one word for the text robustness map ("ok", "FAILED", ...)
    rank: int | None  # severity, for ordering and for "better / worse" (higher is worse); None: skipped, apart
    page_order: int  # the page's verdict sort, what to look at first (0 first)
    meaning: str  # the verdict in one line (legends, the markdown summary)


VERDICT_STYLES: tuple[VerdictStyle, ...] = (  # in the order verdict counts are listed
    VerdictStyle("reproduced", "v-reproduced", "#1a7f37", "ok", 0, 7, "every check passed at the catalogue's point"),
    VerdictStyle(
        "not reproduced",
        "v-not-reproduced",
        "#9a4d00",
        "not-repr",
        1,
        4,
        "a declared non-reproduction: failed through exactly the checks the test names",
    ),
    VerdictStyle(
        "inconclusive",
        "v-inconclusive",
        "#0550ae",
        "inconcl",
        2,
        5,
        "too few seeds (or the test itself) left it undecided",
    ),
    VerdictStyle(
        "unexpectedly reproduced",
        "v-unexpectedly-reproduced",
        "#8250df",
        "NEW-ok",
        3,
        3,
        "a declared non-reproduction passed every check",
    ),
    VerdictStyle(
        "not reproduced (undeclared)",
        "v-not-reproduced-undeclared",
        "#8250df",
        "NEW-not-repr",
        4,
        2,
        "checks failed that the test does not declare: a finding, not a crash",
    ),
    VerdictStyle(
        "ruled out",
        "v-ruled-out",
        "#8c959f",
        "ruled-out",
        None,
        8,
        "a multiverse reading the paper's own results rule out: a precondition failed, the checks did not run",
    ),
    VerdictStyle("failed", "v-failed", "#cf222e", "FAILED", 5, 1, "an assertion outside the claim's checks"),
    VerdictStyle("error", "v-error", "#cf222e", "ERROR", 6, 0, "the test raised or its setup failed: the test broke"),
    VerdictStyle("skipped", "v-skipped", "#59636e", "skipped", None, 6, "the test did not run at this scale"),
)
UNKNOWN_STYLE = VerdictStyle(
    "unknown",
    "v-unknown",
    "#59636e",
    "?",
    None,
    len(VERDICT_STYLES),
    "no verdict recorded, or one this version does not know",
)
STYLES: dict[str, VerdictStyle] = {s.verdict: s for s in VERDICT_STYLES}
CLOSE_SUFFIX = " (close)"


def style(verdict: str | None) -> VerdictStyle:
    """The verdict's display row (:data:`UNKNOWN_STYLE` for None or a verdict this table lacks)."""
    return STYLES.get(verdict or "", UNKNOWN_STYLE)


def verdict_label(verdict: str | None, close: bool) -> str:
    """The verdict as shown: "reproduced (close)" / "not reproduced (close)" for a close call
    (``verdict.CLOSE_LABELLED``); "unknown" without a verdict."""
    shown = verdict or "unknown"
    return shown + CLOSE_SUFFIX if close and shown in rule.CLOSE_LABELLED else shown


def label_verdict(label: str) -> tuple[str, bool]:
    """``(verdict, close)`` of a shown label: :func:`verdict_label` read back ("reproduced (close)" ->
    ("reproduced", True))."""
    verdict = label.removesuffix(CLOSE_SUFFIX)
    return verdict, verdict != label


def label_order(labels: Iterable[str]) -> list[str]:
    """Shown labels in :data:`VERDICT_STYLES` order (a close label right after its verdict), unknown ones last
    in the order given."""
    labels = list(dict.fromkeys(labels))
    known = [s.verdict + suffix for s in VERDICT_STYLES for suffix in ("", CLOSE_SUFFIX)]
    return [v for v in known if v in labels] + [v for v in labels if v not in known]


# ----------------------------------------------------------------------------------------------- checks


def _pair(value: Any) -> tuple[Any, Any] | None:
    return None if value is None else (value[0], value[1])


def _tuple(value: Any) -> tuple[Any, ...] | None:
    return None if value is None else tuple(value)


@dataclass(frozen=True)
class CheckView:
    name: str  # what is compared
    value: float | None  # the statistic compared with the threshold (None: not finite in the JSON)
    op: str  # ">=", "<=", ">", "<", "==", "!=", "in"
    threshold: Any  # a number, or (low, high) for "in"
    passed: bool  # the comparison held
    values: tuple[float | None, ...] | None  # the per-seed (or per-cell) values the statistic summarises
    ci95: tuple[float, float] | None  # their 95% interval
    decision_ci: tuple[float, float] | None  # the interval at the run's decision level (--lengthgen-until-decided)
    interval: tuple[float, float] | None  # the deciding interval: decision_ci, else ci95
    interval_kind: str | None  # "t", "bootstrap", "exact" or None (``verdict.interval_kind``)
    level: float  # the level of ``interval`` (the --lengthgen-until-decided level, else 0.95)
    has_interval: bool  # whether the check can be close at all (``verdict.has_interval``)
    close: bool  # its deciding interval contains its threshold (``verdict.is_close``)
    expected_to_fail: bool  # named by the test's declared non-reproduction
    threshold_source: str | None  # "paper-number", "paper-range", "suite-reading", "catalogue-prediction"
    # (records.THRESHOLD_SOURCES); None in older files
    threshold_note: str | None  # the paper's words or number the threshold reads; None when not stated
    paper: str | None  # the paper's value for this quantity
    reduce: str | None  # how ``values`` became ``value``: mean, min, max, all (None: a single number)
    margin: tuple[float, float, float] | None  # (z, low, high): distance to the threshold in standard errors
    # and the deciding interval in the same units (``verdict.standard_margin``); None without an interval
    relative_margin: float | None  # distance to the threshold relative to it (``verdict._relative_margin``)
    seeds_to_decide: int | None  # about how many seeds would decide a close check (None when not close)
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)  # the check as recorded

    @property
    def expected_failure(self) -> bool:
        """Declared as a known non-reproduction (``expected_to_fail``)."""
        return self.expected_to_fail

    @property
    def distance(self) -> float | None:
        """The signed distance to the threshold, positive on the passing side (``verdict.distance``)."""
        return rule.distance(self.raw)

    @classmethod
    def parse(cls, check: Mapping[str, Any], record: Mapping[str, Any]) -> "CheckView":
        close = rule.is_close(check)
        return cls(
            name=check["name"],
            value=check.get("value"),
            op=check["op"],
            threshold=_pair(check["threshold"]) if check["op"] == "in" else check["threshold"],
            passed=bool(check["passed"]),
            values=_tuple(check.get("values")),
            ci95=_pair(check.get("ci95")),
            decision_ci=_pair(check.get("decision_ci")),
            interval=_pair(rule.decision_interval(check)),
            interval_kind=rule.interval_kind(check),
            level=rule.decision_level(record) if check.get("decision_ci") else 0.95,
            has_interval=rule.has_interval(check),
            close=close,
            expected_to_fail=bool(check.get("expected_to_fail")),
            threshold_source=check.get("threshold_source"),
            threshold_note=check.get("threshold_note"),
            paper=check.get("paper"),
            reduce=check.get("reduce"),
            margin=rule.standard_margin(check, record),
            relative_margin=rule._relative_margin(check),
            seeds_to_decide=rule.seeds_to_decide_check(check, record) if close else None,
            raw=check,
        )


# ----------------------------------------------------------------------------------------------- claims


@dataclass(frozen=True)
class Measure:
    name: str  # the measured quantity
    mean: float | None  # its mean over seeds (None: not finite)
    ci95: tuple[float, float] | None  # the 95% t-interval (None with one value)
    values: tuple[float | None, ...]  # the per-seed values
    headline: bool  # marked to be set beside the paper's value

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci95": self.ci95, "values": list(self.values)}


@dataclass(frozen=True)
class Declared:
    patterns: tuple[str, ...]  # fnmatch patterns of the checks a faithful implementation does not reproduce
    why: str  # the finding, in words
    strict: bool  # with the paper's seeds: an unexpected pass is not reproduced's opposite


@dataclass(frozen=True)
class ScaleView:
    name: str  # "quick", "paper", ... ("?" when not recorded)
    seeds: int | None  # seeds run
    paper_seeds: int | None  # the paper's protocol's seeds
    seed_list: tuple[int, ...] | None  # the seeds themselves
    steps: int | None  # training steps (0: no training)
    sequences: int | None  # evaluation sequences
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)  # every recorded key

    @property
    def too_few_seeds(self) -> bool:
        return rule.too_few_seeds(self.raw) is not None


@dataclass(frozen=True)
class Look:
    seeds: int  # seeds at this look
    close: bool  # still close after it
    shown: tuple[Mapping[str, Any], ...]  # its close checks, else its deciding check: name, value, op,
    # threshold, interval


@dataclass(frozen=True)
class Sequential:
    rule: str  # the stopping rule ("Bonferroni")
    looks_planned: Any  # looks planned
    max_seeds: Any  # the most seeds it may take
    level: float  # each look's interval level
    stopped: str  # why it stopped ("decided", ...)
    path: tuple[Look, ...]  # each look, in order
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)  # the record's block

    @classmethod
    def parse(cls, plan: Mapping[str, Any] | None) -> "Sequential | None":
        if not plan:
            return None
        looks = tuple(
            Look(
                int(look["seeds"]),
                bool(look.get("close")),
                tuple(look.get("close_checks") or ([look["deciding"]] if look.get("deciding") else [])),
            )
            for look in plan.get("path") or []
        )
        return cls(
            str(plan.get("rule", "?")),
            plan.get("looks_planned", "?"),
            plan.get("max_seeds", "?"),
            float(plan.get("level", 0.95)),
            str(plan.get("stopped", "?")),
            looks,
            plan,
        )


def test_name(nodeid: str) -> str:
    """The test function with its parameters, e.g. ``test_selects_the_target_like_rope[paper-alibi]``."""
    return (nodeid or "").rsplit("::", 1)[-1]


def variant_of(nodeid: str, *names: str | None) -> str:
    """The test's parameters without ``names`` (the scale's name, and for a cell its setting or reading
    and claim id), each a whole dash-separated part: ``...[paper-d64]`` -> ``d64``; "" without any."""
    match = re.search(r"\[(.*)\]$", test_name(nodeid))
    if not match:
        return ""
    params = match.group(1)
    for name in names:
        if name:
            params = re.sub(rf"(^|-){re.escape(name)}(?=-|$)", "", params, count=1).strip("-")
    return params


@dataclass(frozen=True)
class ControlView:
    claim: str  # the claim id whose checks it runs
    test: str  # pytest node id
    scale: ScaleView  # the scale it ran at
    verdict: str | None  # "discriminates", "failed", "skipped" (records.CONTROL_VERDICTS), or another string
    verdict_reason: str | None  # why
    counterfactual: str  # what it fed to the claim's checks, and why they must fail
    checks: tuple[CheckView, ...]  # the claim's checks on the counterfactual
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)  # the record as recorded

    @property
    def discriminates(self) -> bool:
        return self.verdict == "discriminates"

    @property
    def failed_checks(self) -> tuple[CheckView, ...]:
        return tuple(c for c in self.checks if not c.passed)

    @property
    def test_name(self) -> str:
        return test_name(self.test)

    @classmethod
    def parse(cls, record: Mapping[str, Any]) -> "ControlView":
        return cls(
            record["claim"],
            record.get("test", ""),
            _scale(record.get("scale")),
            record.get("verdict"),
            record.get("verdict_reason"),
            record.get("counterfactual") or "",
            tuple(CheckView.parse(c, record) for c in record.get("checks") or []),
            record,
        )


def _scale(scale: Mapping[str, Any] | None) -> ScaleView:
    scale = scale or {}
    return ScaleView(
        scale.get("name", "?"),
        scale.get("seeds"),
        scale.get("paper_seeds"),
        _tuple(scale.get("seed_list")),
        scale.get("steps"),
        scale.get("sequences"),
        scale,
    )


@dataclass(frozen=True)
class ClaimView:
    test: str  # pytest node id
    claim: str  # catalogue id, "C1" .. "C22" or "P1" .. "P6"
    where: str  # place in the paper (the record's, else the catalogue's)
    statement: str  # the claim (the record's, else the catalogue's)
    paper_value: str  # what the paper reports (for a prediction: "not tested by the paper ...")
    assertion: str  # the catalogue's check at paper scale
    title: str  # the claim in a few words (the record's, else the catalogue's; its statement where neither has one)
    kind: str  # "claim" or "prediction"
    variant: str  # the test's parameters without the scale ("d64", "alibi", ""; ``variant_of``)
    verdict: str | None  # the verdict as recorded (any string; None when the record has none)
    verdict_reason: str | None  # why (None for reproduced)
    outcome: str | None  # pytest's outcome
    close: bool  # a deciding check's interval contains its threshold (``verdict.close_checks``)
    checks: tuple[CheckView, ...]  # every check, in recorded order
    deciding: CheckView | None  # the one check that says most about the verdict (``verdict.deciding_check``)
    close_checks: tuple[CheckView, ...]  # the close deciding checks
    declared: Declared | None  # the declared non-reproduction
    measured: tuple[Measure, ...]  # the measured quantities, in recorded order
    scale: ScaleView  # the scale it ran at
    setting: str | None  # the robustness setting (None: the paper's point)
    reading: str | None  # the multiverse reading (None: the suite's own reading)
    runtime_s: float | None  # setup + call, seconds
    sequential: Sequential | None  # the --lengthgen-until-decided plan and path
    controls: tuple[ControlView, ...]  # its negative controls (same claim, same scale)
    choices: tuple[str, ...]  # details the paper leaves open, as decided here
    notes: tuple[str, ...]  # the test's notes
    inconclusive_reason: str | None  # the test's own reason to stay undecided
    threshold_basis: str | None  # "paper", "suite reading", "catalogue prediction" over its deciding checks
    # (records.THRESHOLD_BASES); None in older files
    verified: str | None  # what verify() concluded (records.VERIFIED); None in older files or when it raised
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)  # the record as recorded

    @property
    def style(self) -> VerdictStyle:
        return style(self.verdict)

    @property
    def verdict_label(self) -> str:
        """The verdict as shown, e.g. "reproduced (close)" ("unknown" without a verdict)."""
        return verdict_label(self.verdict, self.close)

    @property
    def labelled_close(self) -> bool:
        """Shown as a close call ("(close)" in the label: reproduced and not reproduced only)."""
        return self.close and (self.verdict or "") in rule.CLOSE_LABELLED

    @property
    def css(self) -> str:
        return self.style.css

    @property
    def rank(self) -> int | None:
        return self.style.rank

    @property
    def test_name(self) -> str:
        return test_name(self.test)

    @property
    def failed_checks(self) -> tuple[CheckView, ...]:
        return tuple(c for c in self.checks if not c.passed)

    @property
    def checks_passed(self) -> tuple[int, int]:
        """(passed, total)."""
        return sum(1 for c in self.checks if c.passed), len(self.checks)

    @property
    def measured_in_report_order(self) -> tuple[Measure, ...]:
        """The measured quantities as the report lists them: those marked headline first, then the rest."""
        marked = [self.measured_by_name[n] for n in self.raw.get("headlines") or [] if n in self.measured_by_name]
        return tuple(dict.fromkeys(marked + list(self.measured)))

    @property
    def measured_by_name(self) -> dict[str, Measure]:
        return {m.name: m for m in self.measured}

    @property
    def headlines(self) -> tuple[Measure, ...]:
        """The measured headline(s): the quantities marked headline (in marked order), else every measured
        quantity."""
        return tuple(m for m in self.measured_in_report_order if m.headline) or self.measured

    @property
    def is_prediction(self) -> bool:
        return self.kind == "prediction"

    @classmethod
    def parse(
        cls, record: Mapping[str, Any], controls: Sequence[ControlView] = (), entry: Entry | None = None
    ) -> "ClaimView":
        """The view of a record; ``entry``: its claim's catalogue entry (the run's), for the words an older
        record lacks."""
        claim_id = record["claim"]
        scale = _scale(record.get("scale"))
        checks = tuple(CheckView.parse(c, record) for c in record.get("checks") or [])
        by_name = {id(c.raw): c for c in checks}
        deciding = rule.deciding_check(record)
        close = rule.close_checks(record)
        measured = record.get("measured") or {}
        marked = [n for n in record.get("headlines") or [] if n in measured]
        declared = record.get("expected_failures")

        def words(key: str) -> str:
            value = record.get(key)
            return value if value else (getattr(entry, key, "") if entry else "")

        return cls(
            test=record.get("test", ""),
            claim=claim_id,
            where=words("where"),
            statement=words("statement"),
            paper_value=words("paper_value"),
            assertion=words("assertion"),
            title=words("title") or words("statement"),
            kind="prediction" if _predicts(record, entry) else "claim",
            variant=variant_of(
                record.get("test", ""),
                scale.raw.get("name"),
                record.get("setting"),
                record.get("reading"),
                claim_id if record.get("setting") or record.get("reading") else None,
            ),
            verdict=record.get("verdict"),
            verdict_reason=record.get("verdict_reason") or None,
            outcome=record.get("outcome"),
            close=bool(close),
            checks=checks,
            deciding=by_name[id(deciding)] if deciding is not None else None,
            close_checks=tuple(by_name[id(c)] for c in close),
            declared=(
                Declared(tuple(declared.get("patterns") or ()), declared.get("why") or "", bool(declared.get("strict")))
                if declared
                else None
            ),
            measured=tuple(
                Measure(
                    n,
                    measured[n].get("mean"),
                    _pair(measured[n].get("ci95")),
                    tuple(measured[n].get("values") or ()),
                    n in marked,
                )
                for n in measured
            ),
            scale=scale,
            setting=record.get("setting") or None,
            reading=record.get("reading") or None,
            runtime_s=record.get("runtime_s"),
            sequential=Sequential.parse(record.get("sequential")),
            controls=tuple(controls),
            choices=tuple(record.get("choices") or ()),
            notes=tuple(record.get("notes") or ()),
            inconclusive_reason=record.get("inconclusive_reason"),
            threshold_basis=record.get("threshold_basis"),
            verified=record.get("verified"),
            raw=record,
        )


def claim_view(record: ClaimView | Mapping[str, Any]) -> ClaimView:
    """The claim's view (a record's dict is parsed: ``ClaimView.parse``)."""
    return record if isinstance(record, ClaimView) else ClaimView.parse(record)


# ----------------------------------------------------------------------------------------------- the run


def _predicts(record: Mapping[str, Any], entry: Entry | None) -> bool:
    """Whether a record is of a prediction: it says so, or its catalogue entry does, or its paper value is a
    prediction's (a record of an older version, which says neither)."""
    return (
        bool(record.get("prediction"))
        or (entry is not None and entry.prediction)
        or record.get("paper_value") == NOT_IN_PAPER
    )


@dataclass(frozen=True)
class Completeness:
    ran: tuple[str, ...]  # catalogue claims with a record in this run, in catalogue order
    missing: tuple[str, ...]  # catalogue claims without one
    predicted: tuple[str, ...]  # predictions with a record
    scale: str  # "quick", "paper", "mixed" (records at several scales) or "none"
    claims: int = 0  # the catalogue's claims (the run's catalogue)
    predictions: int = 0  # its predictions

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def label(self) -> str:
        """E.g. ``paper scale, partial: 5 of 22 catalogue claims``; without a catalogue (a run of an older
        version recorded none) what ran, ``paper scale: 22 claims; 6 predictions (no catalogue recorded)``."""
        if not self.claims and not self.predictions:
            ran, predicted = len(self.ran), len(self.predicted)
            text = f"{self.scale} scale: {ran} claim{'s' if ran != 1 else ''}"
            text += f"; {predicted} prediction{'s' if predicted != 1 else ''}" if predicted else ""
            return text + " (no catalogue recorded)"
        extent = "complete" if self.complete else "partial"
        text = f"{self.scale} scale, {extent}: {len(self.ran)} of {self.claims} catalogue claims"
        return text + (f"; {len(self.predicted)} of {self.predictions} predictions" if self.predicted else "")


def run_scale(views: Sequence[ClaimView]) -> str:
    """quick, paper, or mixed (records at several scales, skipped ones aside); "none" without records."""
    names = {v.scale.raw.get("name") for v in views if v.verdict != "skipped"} - {None}
    if not names:
        names = {v.scale.raw.get("name") for v in views} - {None}
    if not names:
        return "none"
    return names.pop() if len(names) == 1 else "mixed"


def completeness(views: Sequence[ClaimView], catalogue: Catalogue) -> Completeness:
    ran = {v.claim for v in views}
    predicted = sorted({v.claim for v in views if v.is_prediction}, key=claim_number)
    ids = [e.id for e in catalogue.claims] if len(catalogue) else sorted(ran - set(predicted), key=claim_number)
    return Completeness(
        tuple(c for c in ids if c in ran),
        tuple(c for c in ids if c not in ran),
        tuple(predicted),
        run_scale(views),
        len(catalogue.claims),
        len(catalogue.predictions),
    )


def verdict_counts(views: Iterable[ClaimView]) -> dict[str, int]:
    """Claim tests per shown label (close calls counted apart), in :data:`VERDICT_STYLES` order."""
    counts = Counter(v.verdict_label for v in views)
    return {label: counts[label] for label in label_order(counts)}


PARTS = ("claims", "predictions", "records", "robustness", "multiverse", "cells")  # RunView's groups of claim tests


@dataclass(frozen=True)
class RunView:
    claims: tuple[ClaimView, ...]  # the paper's claims at the paper's point, in claims.json's order (by claim
    # number, then test)
    predictions: tuple[ClaimView, ...]  # the predictions beyond the paper (P1-P6), in the same order
    controls: tuple[ControlView, ...]  # every negative control, in the same order
    robustness: tuple[ClaimView, ...]  # the robustness map's cells (``setting`` set), by setting then claim
    multiverse: tuple[ClaimView, ...]  # the multiverse's cells (``reading`` set), by reading then claim
    environment: Mapping[str, Any]  # versions, fingerprints, wall time, cache counters of the run
    robustness_environment: Mapping[str, Any] | None  # that of the run that drew the map (None: no map)
    multiverse_environment: Mapping[str, Any] | None  # that of the run that drew the multiverse (None: none)
    completeness: Completeness  # catalogue coverage and the run's scale
    registry: Registry = field(default_factory=Registry)  # the claims' catalogue and multiverse plan, as recorded
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)  # the claims.json data

    @property
    def catalogue(self) -> Catalogue:
        """Every claim's catalogue entry, as the run recorded it (empty for a run of an older version)."""
        return self.registry.catalogue

    @property
    def plan(self) -> CellPlan:
        """The multiverse's plan of cells, as the run recorded it (empty where it recorded none)."""
        return self.registry.plan

    @property
    def records(self) -> tuple[ClaimView, ...]:
        """Every claim test at the paper's point: the claims, then the predictions (claims.json's "records")."""
        return self.claims + self.predictions

    @property
    def cells(self) -> tuple[ClaimView, ...]:
        """The robustness cells, then the multiverse cells."""
        return self.robustness + self.multiverse

    @property
    def scale(self) -> str:
        """The run's scale: quick, paper, mixed or none."""
        return self.completeness.scale

    def verdict_counts(self, part: str = "claims") -> dict[str, int]:
        """Shown labels counted over ``part``: one of :data:`PARTS`."""
        if part not in PARTS:
            raise ValueError(f"unknown part {part!r} of a run; expected one of {', '.join(PARTS)}")
        return verdict_counts(getattr(self, part))

    @classmethod
    def from_json(cls, source: Path | str | Mapping[str, Any]) -> "RunView":
        """The view of a report directory, a ``claims.json``, a ``claims.json.gz`` or their loaded data."""
        data = checked(source, "data") if isinstance(source, Mapping) else read(source)
        return cls.from_data(data)

    @classmethod
    def from_records(
        cls, records: Sequence[Mapping[str, Any]], environment: Mapping[str, Any], registry: Registry | None = None
    ) -> "RunView":
        """The view of the plugin's records (``ClaimRecord.to_dict()``), environment and the claims' registry, as
        ``claims.json`` would hold them (``report.data.assemble``: non-finite numbers to None, sorted, parts
        split)."""
        return cls.from_data(assemble(records, environment, registry))

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "RunView":
        registry = Registry.from_data(data)
        controls = tuple(ControlView.parse(c) for c in data.get("controls") or [])  # claims.json's order
        own: dict[tuple[str, str], list[ControlView]] = {}
        for c in controls:
            own.setdefault((c.claim, c.scale.raw.get("name")), []).append(c)

        def claim(record: Mapping[str, Any]) -> ClaimView:
            mine = own.get((record["claim"], (record.get("scale") or {}).get("name")), ())
            return ClaimView.parse(record, mine, registry.catalogue.get(record["claim"]))

        records = list(data.get("records") or [])
        readings = [r for r in records + list(data.get("robustness") or []) if r.get("reading")]
        records = [r for r in records if not r.get("reading")]  # a multiverse cell never sits in the table
        views = [claim(r) for r in records]
        cells = [claim(r) for r in data.get("robustness") or [] if not r.get("reading")]
        multiverse = [claim(r) for r in list(data.get("multiverse") or []) + readings]
        return cls(
            claims=tuple(v for v in views if not v.is_prediction),
            predictions=tuple(v for v in views if v.is_prediction),
            controls=controls,
            robustness=tuple(cells),
            multiverse=tuple(multiverse),
            environment=data.get("environment") or {},
            robustness_environment=data.get("robustness_environment") if cells else None,
            multiverse_environment=data.get("multiverse_environment") if multiverse else None,
            completeness=completeness(views, registry.catalogue),
            registry=registry,
            data=data,
        )
