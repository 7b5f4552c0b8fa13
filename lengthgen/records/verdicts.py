"""A record's verdict as one type, :class:`Verdict`, and everything the suite says of each verdict: how the report
shows it (:class:`Look`: its colour class, colour, short word, severity rank, page order, meaning, marker), whether
it rests on checks (shown " (close)" for a close call), whether it counts as reproducing the claim, and a negative
control's ranking. Every table of verdicts elsewhere derives from this module; no other module spells a verdict.

A ``Verdict`` is a ``str``: it equals its word, hashes as it, and serialises as it (``json.dumps``, ``str``,
f-strings, Jinja2), so a record's JSON and every rendered document read the same words. ``Verdict(word)`` parses
a record's word; an unknown word is a ValueError naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable

CLOSE_SUFFIX = " (close)"  # after a verdict that rests on checks, for a close call: "reproduced (close)"
UNKNOWN = "unknown"  # the label of a record without a verdict


@dataclass(frozen=True)
class Look:
    """How the report shows a verdict."""

    css: str  # the page's colour class ("v-reproduced", ...; static/page.css colours it)
    colour: str  # the verdict's colour (the overview's forest plot; page.css uses the same)
    short: str  # one word for the text robustness map ("ok", "FAILED", ...)
    rank: int | None  # severity, for ordering and for "better / worse" (higher is worse); None: apart, unranked
    page_order: int  # the page's verdict sort, what to look at first (0 first)
    meaning: str  # the verdict in one line (legends, the markdown summary)
    marker: str  # its marker in the overview (matplotlib's code): a shape per verdict, so that colour is never the
    # only signal


class Verdict(str, Enum):
    """A record's verdict (``lengthgen.records.verdict.decide``, ``broken``), in the order the report lists verdict
    counts. Each member carries its :class:`Look` (None: a negative control's own verdict, which the report's
    tables of claim tests do not list; it shows as :data:`UNKNOWN_LOOK`)."""

    REPRODUCED = (
        "reproduced",
        Look(
            css="v-reproduced",
            colour="#1a7f37",
            short="ok",
            rank=0,
            page_order=7,
            meaning="every check passed at the catalogue's point",
            marker="o",
        ),
    )
    NOT_REPRODUCED = (
        "not reproduced",
        Look(
            css="v-not-reproduced",
            colour="#9a4d00",
            short="not-repr",
            rank=1,
            page_order=4,
            meaning="a declared non-reproduction: failed through exactly the checks the test names",
            marker="s",
        ),
    )
    INCONCLUSIVE = (
        "inconclusive",
        Look(
            css="v-inconclusive",
            colour="#0550ae",
            short="inconcl",
            rank=2,
            page_order=5,
            meaning="too few seeds (or the test itself) left it undecided",
            marker="d",
        ),
    )
    UNEXPECTEDLY_REPRODUCED = (
        "unexpectedly reproduced",
        Look(
            css="v-unexpectedly-reproduced",
            colour="#8250df",
            short="NEW-ok",
            rank=3,
            page_order=3,
            meaning="a declared non-reproduction passed every check",
            marker="^",
        ),
    )
    NOT_REPRODUCED_UNDECLARED = (
        "not reproduced (undeclared)",
        Look(
            css="v-not-reproduced-undeclared",
            colour="#8250df",
            short="NEW-not-repr",
            rank=4,
            page_order=2,
            meaning="checks failed that the test does not declare: a finding, not a crash",
            marker="v",
        ),
    )
    RULED_OUT = (
        "ruled out",
        Look(
            css="v-ruled-out",
            colour="#57606a",
            short="ruled-out",
            rank=None,
            page_order=8,
            meaning=(
                "a multiverse reading the paper's own results rule out: a precondition failed, the checks did not run"
            ),
            marker="P",
        ),
    )
    FAILED = (
        "failed",
        Look(
            css="v-failed",
            colour="#cf222e",
            short="FAILED",
            rank=5,
            page_order=1,
            meaning="an assertion outside the claim's checks",
            marker="X",
        ),
    )
    ERROR = (
        "error",
        Look(
            css="v-error",
            colour="#cf222e",
            short="ERROR",
            rank=6,
            page_order=0,
            meaning="the test raised or its setup failed: the test broke",
            marker="X",
        ),
    )
    SKIPPED = (
        "skipped",
        Look(
            css="v-skipped",
            colour="#59636e",
            short="skipped",
            rank=None,
            page_order=6,
            meaning="the test did not run at this scale",
            marker=".",
        ),
    )
    DISCRIMINATES = "discriminates", None

    def __new__(cls, word: str, look: Look | None) -> "Verdict":
        member = str.__new__(cls, word)
        member._value_ = word
        member._look = look
        return member

    @classmethod
    def _missing_(cls, value: object) -> "Verdict":
        raise ValueError(f"unknown verdict {value!r} (known: {', '.join(v.value for v in cls)})")

    # the word itself wherever a verdict is printed (str() and format() of a str Enum would name the member)
    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:
        return repr(self.value)

    @property
    def shown(self) -> bool:
        """Listed by the report's tables of claim tests (counts, legends): every verdict but a control's own."""
        return self._look is not None

    @property
    def look(self) -> Look:
        return self._look if self._look is not None else UNKNOWN_LOOK

    @property
    def rank(self) -> int | None:
        """Severity (higher is worse); None for a verdict apart (ruled out, skipped, a control's)."""
        return self.look.rank

    @property
    def colour(self) -> str:
        return self.look.colour

    @property
    def css(self) -> str:
        return self.look.css

    @property
    def marker(self) -> str:
        return self.look.marker

    @property
    def rests_on_checks(self) -> bool:
        """Decided by the claim's checks, so shown " (close)" when a deciding check is close."""
        return self in _ON_CHECKS

    @property
    def reproduces(self) -> bool:
        """Counts as reproducing the claim (a close call included)."""
        return self in _REPRODUCING

    @property
    def plain(self) -> bool:
        """Shown without emphasis in the documents' tables: reproduced, nothing to look at."""
        return self is Verdict.REPRODUCED

    @property
    def control_rank(self) -> int | None:
        """A negative control's verdicts, best first; None for a verdict outside that ranking (skipped)."""
        return _CONTROL_RANK.get(self)

    def label(self, close: bool) -> str:
        """The verdict as shown: "reproduced (close)" for a close call of a verdict that rests on checks."""
        return self.value + CLOSE_SUFFIX if close and self.rests_on_checks else self.value


UNKNOWN_LOOK = Look(  # a record without a verdict (and a control's own verdict): after every shown verdict
    css="v-unknown",
    colour="#59636e",
    short="?",
    rank=None,
    page_order=sum(1 for v in Verdict if v.shown),
    meaning="no verdict recorded",
    marker="o",
)
_ON_CHECKS = frozenset(
    {Verdict.REPRODUCED, Verdict.NOT_REPRODUCED, Verdict.NOT_REPRODUCED_UNDECLARED, Verdict.UNEXPECTEDLY_REPRODUCED}
)
_REPRODUCING = frozenset({Verdict.REPRODUCED, Verdict.UNEXPECTEDLY_REPRODUCED})
_CONTROL_RANK = {Verdict.DISCRIMINATES: 0, Verdict.FAILED: 1, Verdict.ERROR: 2}
SHOWN = tuple(v for v in Verdict if v.shown)  # the claim tests' verdicts, in the order the report lists them
VERDICTS = tuple(v for v in Verdict if v is not Verdict.DISCRIMINATES)  # a claim test's or a cell's
CONTROL_VERDICTS = (Verdict.DISCRIMINATES, Verdict.FAILED, Verdict.ERROR, Verdict.SKIPPED)  # a negative control's
BROKEN = (Verdict.ERROR, Verdict.SKIPPED, Verdict.FAILED)  # a test that ended before its recorder decided
DECIDED_ALONE = (Verdict.ERROR, Verdict.SKIPPED)  # a verdict that decides by itself: never close, no deciding value


def parse(word: str | Verdict | None) -> Verdict | None:
    """A record's verdict from its word (None: no verdict); an unknown word is a ValueError naming it."""
    return None if word is None else Verdict(word)


def look(verdict: str | Verdict | None) -> Look:
    """How the report shows ``verdict`` (:data:`UNKNOWN_LOOK` for none)."""
    return UNKNOWN_LOOK if verdict is None else Verdict(verdict).look


def label(verdict: str | Verdict | None, close: bool) -> str:
    """A verdict as shown: "reproduced (close)" for a close call of a verdict that rests on checks; "unknown"
    without a verdict."""
    return UNKNOWN if verdict is None else Verdict(verdict).label(close)


def label_verdict(shown: str) -> tuple[Verdict | None, bool]:
    """``(verdict, close)`` of a shown label: :func:`label` read back ("reproduced (close)" ->
    (REPRODUCED, True); "unknown" -> (None, False))."""
    word = shown.removesuffix(CLOSE_SUFFIX)
    return (None if word == UNKNOWN else Verdict(word)), word != shown


def label_order(labels: Iterable[str]) -> list[str]:
    """Shown labels in :data:`SHOWN` order (a close label right after its verdict), others last in the order
    given."""
    labels = list(dict.fromkeys(labels))
    known = [v.value + suffix for v in SHOWN for suffix in ("", CLOSE_SUFFIX)]
    return [v for v in known if v in labels] + [v for v in labels if v not in known]
