"""The record one claim test leaves (:class:`ClaimRecord`), the same type from the process that ran the test to
the page: what the test measured and checked, where it ran (:data:`Mode`: the paper's point, a negative control, a
robustness setting or a multiverse universe), what it declared, and its verdict. ``to_dict`` writes it for
``claims.json``; ``from_dict`` reads it back, from this version's files and from older ones (their flat fields).
Plain data: no torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from lengthgen.catalogue import NOT_IN_PAPER, SETTING_NAMES
from lengthgen.records.basis import derived
from lengthgen.records.check import THRESHOLD_BASES, Check, Measure
from lengthgen.records.verdicts import Verdict, parse
from lengthgen.records.verdicts import label as verdict_label

SCALE_NAMES = ("paper", "quick")  # the scales a declaration can name
FAILURE_KINDS = ("paper-statement", "suite-reading", "structural")  # what a declared non-reproduction fails:
# paper-statement: the paper's own words or numbers fail (a check the rule of records.basis labels the paper's);
# suite-reading: only the suite's reading of the paper's words fails (no check of a number or condition the
#   paper states), while what the paper states holds;
# structural: a case the paper's account does not cover (a mechanism its sentence does not foresee)
GIST_WORDS = 10  # a declaration's gist: a few words


@dataclass(frozen=True)
class Declared:
    """A known non-reproduction: the checks a faithful implementation fails, and why. A claim's spec declares it
    (``claims/spec.py``); the record holds the one in force where it ran, with its strictness."""

    checks: tuple[str, ...]  # fnmatch patterns of the checks expected to fail (only checks that really fail)
    why: str  # the finding without numbers (the verdict's reason adds this run's measured values)
    scales: tuple[str, ...] = ("paper",)  # the scales it is declared at
    carried: bool = False  # structural (not one seed's): carried to the robustness map's fresh seeds unchanged
    at: str | None = None  # the robustness setting it is a finding of (None: the paper's point)
    strict: bool = True  # a pass of every check is a finding ("unexpectedly reproduced"): with the paper's seeds
    gist: str = ""  # the finding in a few words, for the headline ("one flat cell of 120")
    kind: str | None = None  # what fails: one of FAILURE_KINDS (None: a multiverse cell's, or an older record's)
    reason: str = ""  # the kind's one-line measured reason (what was measured that makes it that kind)

    def __post_init__(self) -> None:
        if isinstance(self.checks, str) or not self.checks or not all(isinstance(c, str) and c for c in self.checks):
            raise ValueError(f"declared checks {self.checks!r} must be a non-empty tuple of patterns")
        if not isinstance(self.why, str) or not self.why.strip():
            raise ValueError(f"declared why {self.why!r} must say why")
        if not self.scales or not set(self.scales) <= set(SCALE_NAMES):
            raise ValueError(f"declared scales {self.scales!r} must be among {SCALE_NAMES}")
        if not isinstance(self.carried, bool) or not isinstance(self.strict, bool):
            raise ValueError(f"carried={self.carried!r} and strict={self.strict!r} must be bools")
        if self.at is not None and self.at not in SETTING_NAMES:
            raise ValueError(f"declared at={self.at!r}: not a robustness setting (known: {', '.join(SETTING_NAMES)})")
        if len(self.gist.split()) > GIST_WORDS:
            raise ValueError(f"declared gist {self.gist!r}: at most {GIST_WORDS} words")
        if self.kind is not None and self.kind not in FAILURE_KINDS:
            raise ValueError(f"declared kind={self.kind!r}: expected one of {FAILURE_KINDS}")
        if self.kind is not None and (not isinstance(self.reason, str) or not self.reason.strip()):
            raise ValueError(f"declared kind={self.kind!r} needs its one-line measured reason")
        if "\n" in self.reason:
            raise ValueError(f"declared reason {self.reason!r}: one line")

    def to_dict(self) -> dict[str, Any]:
        return {
            "checks": list(self.checks),
            "why": self.why,
            "scales": list(self.scales),
            "carried": self.carried,
            "at": self.at,
            "strict": self.strict,
            "gist": self.gist,
            "kind": self.kind,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Declared":
        """A record's declaration (an older record's ``expected_failures``: ``patterns``, ``why``, ``strict``)."""
        return cls(
            tuple(data.get("checks") or data.get("patterns") or ()),
            data.get("why") or "(no reason recorded)",
            tuple(data.get("scales") or SCALE_NAMES),
            bool(data.get("carried", False)),
            data.get("at"),
            bool(data.get("strict", True)),
            data.get("gist") or "",
            data.get("kind"),
            data.get("reason") or "",
        )


# ----------------------------------------------------------------------------------------------- where it ran


@dataclass(frozen=True)
class PaperPoint:
    """The paper's operating point: the catalogue's scale and seeds (or ``--lengthgen-seeds``)."""

    kind = "paper"


@dataclass(frozen=True)
class Control:
    """A negative control: the claim's checks fed a counterfactual, which must fail."""

    counterfactual: str  # what replaced the real result, and why the checks must fail
    kind = "control"


@dataclass(frozen=True)
class AtSetting:
    """A cell of the robustness map: the claim at a setting off the paper's point."""

    setting: str  # the robustness setting's name ("width-32")
    kind = "setting"


@dataclass
class InUniverse:
    """A cell of the multiverse: the claim in another universe, another reading of one or more of the choices the
    paper leaves open."""

    universe: str  # the universe's name (a reading, or readings joined by "+"; ``lengthgen.readings.Universe``)
    preconditions: list[Check] = field(default_factory=list)  # what the paper reports of the models the claim
    # reads, measured on the universe's models before its checks (claims/preconditions.py)
    ruled_out: str | None = None  # why a precondition ruled the cell out (None: admissible)
    expected_ruled_out: tuple[str, ...] | None = None  # the preconditions the declarations expect to fail
    kind = "universe"


Mode = PaperPoint | Control | AtSetting | InUniverse
UNIVERSE_KINDS = ("universe", "reading")  # a multiverse cell's mode kind: this version's, and the older name
PAPER_POINT = PaperPoint()


def mode_to_dict(mode: Mode) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": mode.kind}
    if isinstance(mode, Control):
        data["counterfactual"] = mode.counterfactual
    elif isinstance(mode, AtSetting):
        data["setting"] = mode.setting
    elif isinstance(mode, InUniverse):
        data.update(
            universe=mode.universe,
            preconditions=[c.to_dict() for c in mode.preconditions],
            ruled_out=mode.ruled_out,
            expected_ruled_out=list(mode.expected_ruled_out) if mode.expected_ruled_out is not None else None,
        )
    return data


def mode_from_dict(data: Mapping[str, Any], record: Mapping[str, Any]) -> Mode:
    """The mode a record holds (``"mode"``), or an older record's from its flat fields."""
    mode = data or {}
    kind = mode.get("kind")
    if kind is None:  # an older record: kind, counterfactual, setting, reading, preconditions, ruled_out
        if record.get("kind") == "control":
            return Control(record.get("counterfactual") or "")
        if record.get("setting"):
            return AtSetting(record["setting"])
        if record.get("reading"):
            mode = {"universe": record["reading"], **{k: record.get(k) for k in ("preconditions", "ruled_out")}}
            mode["expected_ruled_out"] = record.get("expected_ruled_out")
            kind = "universe"
        else:
            return PAPER_POINT
    if kind == "control":
        return Control(mode.get("counterfactual") or "")
    if kind == "setting":
        return AtSetting(mode["setting"])
    if kind in UNIVERSE_KINDS:
        expected = mode.get("expected_ruled_out")
        return InUniverse(
            mode.get("universe") or mode["reading"],
            [Check.from_dict(c) for c in mode.get("preconditions") or []],
            mode.get("ruled_out"),
            tuple(expected) if expected is not None else None,
        )
    return PAPER_POINT


def setting_of(data: Mapping[str, Any]) -> str | None:
    """The robustness setting a record's dict ran at (this version's ``mode``, or an older flat ``setting``)."""
    return (data.get("mode") or {}).get("setting") or data.get("setting") or None


def universe_of(data: Mapping[str, Any]) -> str | None:
    """The multiverse universe a record's dict ran in (its ``mode``'s ``universe``, or an older ``reading``)."""
    mode = data.get("mode") or {}
    return mode.get("universe") or mode.get("reading") or data.get("reading") or None


def ruled_out_of(data: Mapping[str, Any]) -> str | None:
    """Why a precondition ruled a record's dict out (its ``mode``, or an older flat ``ruled_out``); None where
    none did."""
    return (data.get("mode") or {}).get("ruled_out") or data.get("ruled_out") or None


# ----------------------------------------------------------------------------------------------- the record


def by_rule(check: Check, quote: tuple[str, ...]) -> Check:
    """``check`` with the label the rule gives it from its claim's ``quote`` (``basis.derived``): a paper label
    without a token of the quote reads as the suite's reading, whatever the record wrote."""
    source = derived(check.threshold_source, quote, check.quoted, check.op, check.threshold, check.reduce)
    return check if source == check.threshold_source else replace(check, threshold_source=source)


def test_name(nodeid: str) -> str:
    """The test function with its parameters, e.g. ``test_selects_the_target_like_rope[paper-alibi]``."""
    return (nodeid or "").rsplit("::", 1)[-1]


def variant_of(nodeid: str, *names: str | None) -> str:
    """The test's parameters without ``names`` (the scale's name, and for a cell its setting or universe and claim
    id), each a whole dash-separated part: ``...[paper-d64]`` -> ``d64``; "" without any."""
    match = re.search(r"\[(.*)\]$", test_name(nodeid))
    if not match:
        return ""
    params = match.group(1)
    for name in names:
        if name:
            params = re.sub(rf"(^|-){re.escape(name)}(?=-|$)", "", params, count=1).strip("-")
    return params


class VerdictField:
    """A record's ``verdict`` field: whatever it is set to (a :class:`Verdict`, its word, None) it holds a Verdict
    or None, so that every reader gets the one type; an unknown word is a ValueError where it is set."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name  # the instance keeps the parsed verdict under the field's own name (its __dict__ reads
        # as a plain dataclass's); this descriptor, a data descriptor, is looked up first

    def __get__(self, record: Any, owner: type | None = None) -> Verdict | None:
        return None if record is None else record.__dict__.get(self.name)  # None on the class: the field's default

    def __set__(self, record: Any, value: str | Verdict | None) -> None:
        record.__dict__[self.name] = parse(value)


@dataclass
class ClaimRecord:
    """What one claim test (or negative control, or cell) leaves: filled by a recorder, decided once by its
    verdict (``lengthgen.records.verdict.decide``), read back by the report as the same type."""

    claim: str  # the catalogue id
    where: str = ""  # place in the paper (the catalogue entry's)
    statement: str = ""  # the paper's claim
    paper_value: str = ""  # what the paper reports (a prediction: NOT_IN_PAPER)
    assertion: str = ""  # the catalogue's check at paper scale, in words
    title: str = ""  # the claim in a few words
    prediction: bool = False  # a prediction beyond the paper, not one of its claims
    test: str = ""  # pytest node id
    quote: tuple[str, ...] = ()  # the paper's sentence(s) the claim tests (its catalogue entry's): the rule of
    # lengthgen/records/basis.py reads its checks' labels from it
    mode: Mode = PAPER_POINT  # where it ran: the paper's point, a control, a robustness setting, a universe
    scale: dict[str, Any] = field(default_factory=dict)  # name, seeds, paper_seeds, seed_list, steps, sequences, ...
    checks: list[Check] = field(default_factory=list)  # every comparison with a threshold, in recorded order
    measured: list[Measure] = field(default_factory=list)  # quantities without a threshold, in recorded order
    figures: dict[str, Any] = field(default_factory=dict)  # plain data for the report's figures
    choices: list[str] = field(default_factory=list)  # details the paper leaves open, as decided here
    notes: list[str] = field(default_factory=list)  # what the test adds in words
    declared: Declared | None = None  # the known non-reproduction in force where it ran
    looks: dict[str, Any] | None = None  # --lengthgen-until-decided: the plan, the path (seeds, intervals per look)
    inconclusive_reason: str | None = None  # the test's own reason to stay undecided
    runtime_s: float | None = None  # setup + call of the test, seconds (shared experiments count once)
    models_trained: int | None = None  # models its process trained during it
    verdict: Verdict | None = VerdictField()  # decided once (a control's among verdicts.CONTROL_VERDICTS); a word
    # set here (a record's JSON, a test's) is parsed into a Verdict where it is set
    verdict_reason: str | None = None  # why, for every verdict but reproduced
    close_names: list[str] = field(default_factory=list)  # the close deciding checks' names (verdict.decide)
    deciding_name: str | None = None  # the name of the check that says most about the verdict (verdict.decide)

    # --- where it ran
    @property
    def kind(self) -> str:
        """ "control" for a negative control, else "claim"."""
        return "control" if isinstance(self.mode, Control) else "claim"

    @property
    def setting(self) -> str | None:
        return self.mode.setting if isinstance(self.mode, AtSetting) else None

    @property
    def universe(self) -> str | None:
        return self.mode.universe if isinstance(self.mode, InUniverse) else None

    @property
    def counterfactual(self) -> str | None:
        return self.mode.counterfactual if isinstance(self.mode, Control) else None

    @property
    def preconditions(self) -> list[Check]:
        return self.mode.preconditions if isinstance(self.mode, InUniverse) else []

    @property
    def ruled_out(self) -> str | None:
        return self.mode.ruled_out if isinstance(self.mode, InUniverse) else None

    @property
    def is_cell(self) -> bool:
        """A cell of the robustness map or the multiverse (not the paper's point, not a control)."""
        return isinstance(self.mode, (AtSetting, InUniverse))

    @property
    def is_prediction(self) -> bool:
        return self.prediction or self.paper_value == NOT_IN_PAPER

    # --- the test
    @property
    def test_name(self) -> str:
        return test_name(self.test)

    @property
    def variant(self) -> str:
        """The test's parameters without the scale (and a cell's setting or universe and claim): "d64", "alibi"."""
        cell = self.claim if self.is_cell else None
        return variant_of(self.test, self.scale.get("name"), self.setting, self.universe, cell)

    # --- checks and quantities
    @property
    def failed_checks(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.passed)

    @property
    def checks_passed(self) -> tuple[int, int]:
        """(passed, total)."""
        return sum(1 for c in self.checks if c.passed), len(self.checks)

    def check(self, name: str) -> Check | None:
        """The check called ``name`` (the last one, where a name repeats)."""
        return next((c for c in reversed(self.checks) if c.name == name), None)

    @property
    def deciding(self) -> Check | None:
        """The one check that says most about the verdict (its name is decided with the verdict)."""
        return self.check(self.deciding_name) if self.deciding_name is not None else None

    @property
    def close_checks(self) -> tuple[Check, ...]:
        """The close deciding checks, in recorded order."""
        names = set(self.close_names)
        return tuple(c for c in self.checks if c.name in names)

    @property
    def close(self) -> bool:
        """A deciding check's interval contains its threshold: more seeds could flip the verdict."""
        return bool(self.close_names)

    @property
    def threshold_basis(self) -> str | None:
        """Where its deciding checks' thresholds come from (the failed checks where some failed, else every check):
        "paper" where every one is the paper's, "catalogue prediction" where every one is a prediction's, else
        "suite reading"; None without checks."""
        deciding = list(self.failed_checks) or list(self.checks)
        if not deciding:
            return None
        bases = {c.basis for c in deciding}
        return next(b for b in THRESHOLD_BASES if bases == {b}) if len(bases) == 1 else "suite reading"

    @property
    def failure_kind(self) -> str | None:
        """What its failure is, one of FAILURE_KINDS: its declaration's kind, else by its failed checks' labels
        ("paper-statement" where one is the paper's, else "suite-reading"); None where no check failed."""
        if not self.failed_checks:
            return None
        if self.declared is not None and self.declared.kind is not None:
            return self.declared.kind
        return "paper-statement" if any(c.basis == "paper" for c in self.failed_checks) else "suite-reading"

    @property
    def measured_by_name(self) -> dict[str, Measure]:
        return {m.name: m for m in self.measured}

    @property
    def headlines(self) -> tuple[Measure, ...]:
        """The quantities marked headline, else every measured quantity."""
        return tuple(m for m in self.measured if m.headline) or tuple(self.measured)

    @property
    def measured_in_report_order(self) -> tuple[Measure, ...]:
        """Headline quantities first, then the rest, each in recorded order."""
        return tuple(m for m in self.measured if m.headline) + tuple(m for m in self.measured if not m.headline)

    # --- the verdict as shown
    @property
    def label(self) -> str:
        """The verdict as shown: "reproduced (close)" / "not reproduced (close)" for a close call; "unknown"
        without a verdict."""
        return verdict_label(self.verdict, self.close)

    @property
    def labelled_close(self) -> bool:
        """Shown as a close call ("(close)" in its label: a verdict that rests on its checks)."""
        return self.close and self.verdict is not None and self.verdict.rests_on_checks

    @property
    def discriminates(self) -> bool:
        """A negative control whose checks failed on its counterfactual, as they must."""
        return self.verdict is Verdict.DISCRIMINATES

    @property
    def reproduces(self) -> bool:
        """Its verdict counts as reproducing the claim (a close call included)."""
        return self.verdict is not None and self.verdict.reproduces

    # --- serialisation
    def to_dict(self) -> dict[str, Any]:
        """The record as a claims.json holds it: plain lists and dicts, every check with its derived facts."""
        return {
            "claim": self.claim,
            "where": self.where,
            "statement": self.statement,
            "paper_value": self.paper_value,
            "assertion": self.assertion,
            "title": self.title,
            "prediction": self.prediction,
            "test": self.test,
            "quote": list(self.quote),
            "kind": self.kind,
            "mode": mode_to_dict(self.mode),
            "scale": dict(self.scale),
            "checks": [c.to_dict() for c in self.checks],
            "measured": {m.name: m.to_dict() for m in self.measured},
            "figures": dict(self.figures),
            "choices": list(self.choices),
            "notes": list(self.notes),
            "declared": self.declared.to_dict() if self.declared is not None else None,
            "looks": self.looks,
            "inconclusive_reason": self.inconclusive_reason,
            "runtime_s": self.runtime_s,
            "models_trained": self.models_trained,
            "verdict": self.verdict.value if self.verdict is not None else None,
            "verdict_reason": self.verdict_reason,
            "close": self.close,
            "close_checks": list(self.close_names),
            "deciding": self.deciding_name,
            "threshold_basis": self.threshold_basis,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ClaimRecord":
        """The record a claims.json holds, of this version or an older one (its flat fields: ``setting``,
        ``reading``, ``counterfactual``, ``expected_failures``, ``sequential``, ``headlines``, ...). Whether its
        verdict's derived facts (close checks, the deciding check) are recorded: ``decided``."""
        scale = dict(data.get("scale") or {})
        looks = data.get("looks") or data.get("sequential")  # "sequential": files written before "looks"
        level = float((looks or {}).get("level", 0.95)) if looks else None
        seeds = scale.get("seeds") if isinstance(scale.get("seeds"), int) and scale.get("seeds") > 0 else None
        declared = data.get("declared", data.get("expected_failures"))
        headlines = set(data.get("headlines") or ())
        quote = tuple(data.get("quote") or ())  # an older record carries none: no label of it reads the paper's
        checks = [by_rule(Check.from_dict(c, seeds, level), quote) for c in data.get("checks") or []]
        return cls(
            claim=data["claim"],
            where=data.get("where") or "",
            statement=data.get("statement") or "",
            paper_value=data.get("paper_value") or "",
            assertion=data.get("assertion") or "",
            title=data.get("title") or "",
            prediction=bool(data.get("prediction")),
            test=data.get("test") or "",
            quote=quote,
            mode=mode_from_dict(data.get("mode") or {}, data),
            scale=scale,
            checks=checks,
            measured=[
                Measure.from_dict(name, summary, name in headlines)
                for name, summary in (data.get("measured") or {}).items()
            ],
            figures=dict(data.get("figures") or {}),
            choices=list(data.get("choices") or ()),
            notes=list(data.get("notes") or ()),
            declared=Declared.from_dict(declared) if declared else None,
            looks=looks,
            inconclusive_reason=data.get("inconclusive_reason"),
            runtime_s=data.get("runtime_s"),
            models_trained=data.get("models_trained"),
            verdict=parse(data.get("verdict")),
            verdict_reason=data.get("verdict_reason"),
            close_names=list(data.get("close_checks") or ()),
            deciding_name=data.get("deciding"),
        )

    @property
    def decided(self) -> bool:
        """Whether its verdict's derived facts are recorded (a record of an older version lacks its deciding
        check; the report decides them again from its checks, by the same rule)."""
        return self.deciding_name is not None or not self.checks
