"""Whose threshold a check reads, by rule: the paper's, or the suite's reading of the paper's words.

A claim quotes the paper's sentence(s) it tests (its ``quote``: the paper's own words). A check may be labelled
the paper's (``paper-number`` / ``paper-range``) only where it names the token of that quote it reads
(``quoted``), and the token carries its comparison, its threshold and its reduction over seeds:

- a stated number ("0.98", "100%") covers a threshold within its rounding (half a unit of its last digit: "0.97"
  covers [0.965, 0.975)); every bound of an "in" range must lie within it;
- a stated range ("0.72-0.86") is read by an "in" check whose bounds lie within the rounding of its two ends
  (``paper-range``);
- any other token is an exact condition the quote states in words ("unique integer maximum at s = 0", "falls
  with width"): a check reading it compares with the condition's own threshold (``paper-number``);
- a reduction that every seed must pass (``reduce`` "all", or a min or max over seeds) is the paper's only where
  the token itself says so: "every", "all" or "100%".

Every other check is the suite's reading (``suite-reading``), with the words it reads in its ``threshold_note``;
a prediction's threshold is the catalogue's (``catalogue-prediction``). :func:`label` decides the label a check
may carry and raises ValueError naming the check for a paper label the rule refuses; :func:`refusal` says why
the rule refuses one (None where it accepts). Plain: no torch.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, Sequence

PAPER_SOURCES = ("paper-number", "paper-range")  # the labels that say the threshold is the paper's
SEED_REDUCTIONS = ("all", "min", "max")  # reductions in which one seed decides: the paper's only where it says so
EVERY = re.compile(r"\b(every|all)\b|100\s*%", re.IGNORECASE)  # the words that put every seed or cell in a claim
DASHES = "\u2013\u2014\u2212"  # en dash, em dash, minus: written as "-" before comparing words
NUMBER = r"[-+]?\d+(?:\.\d+)?\s*%?"  # a stated number, a percentage included ("0.98", "100%")
SINGLE = re.compile(rf"^\s*({NUMBER})\s*$")  # a token that is one stated number
RANGE = re.compile(rf"^\s*({NUMBER})\s*-\s*({NUMBER})\s*$")  # a token that is a stated range ("0.72-0.86")


def normal(text: str) -> str:
    """``text`` as the rule compares words: dashes as "-", "x" for the multiplication sign, one space between
    words, lower case."""
    for dash in DASHES:
        text = text.replace(dash, "-")
    return " ".join(text.replace("\u00d7", " x ").split()).lower()


def found(quote: Sequence[str], token: str) -> bool:
    """Whether ``token`` stands in the quote, word for word (:func:`normal`), not inside a longer number or word."""
    words = normal(token)
    if not words:
        return False
    pattern = rf"(?<![\w.]){re.escape(words)}(?![\w]|\.\d)"
    return any(re.search(pattern, normal(sentence)) for sentence in quote)


def rounding(number: str) -> tuple[float, float]:
    """The interval a stated number covers within its rounding: [value - half a unit, value + half a unit) of its
    last digit ("0.97": [0.965, 0.975)); a percentage as a share ("100%": [0.995, 1.005) of 1)."""
    text = number.replace(" ", "")
    percent = text.endswith("%")
    value = Decimal(text.rstrip("%"))
    half = Decimal(1).scaleb(value.as_tuple().exponent) / 2
    low, high = value - half, value + half
    if percent:
        low, high = low / 100, high / 100
    return float(low), float(high)


def covers(number: str, point: float) -> bool:
    """Whether ``point`` lies within the rounding of the stated ``number`` (:func:`rounding`)."""
    low, high = rounding(number)
    return low <= float(point) < high


def refusal(
    quote: Sequence[str], quoted: str | None, op: str, threshold: Any, reduce: str | None
) -> tuple[str, str] | tuple[None, str]:
    """``(label, why)``: the paper's label the rule gives a check that reads ``quoted`` of ``quote`` with this
    comparison, threshold and reduction ("paper-number" or "paper-range"), or ``(None, why it refuses)``."""
    if not quoted or not str(quoted).strip():
        return None, "it names no quoted token"
    if not found(quote, quoted):
        return None, f"{quoted!r} is not in its claim's quote"
    if reduce in SEED_REDUCTIONS and not EVERY.search(normal(quoted)):
        return None, (
            f"its reduction {reduce!r} needs every seed to pass, and {quoted!r} does not say every, all or 100%"
        )
    points = list(threshold) if op == "in" else [threshold]
    single, ranged = SINGLE.match(quoted), RANGE.match(quoted)
    if single:
        if not all(covers(single.group(1), p) for p in points):
            shown = "[" + ", ".join(f"{p:g}" for p in points) + "]" if op == "in" else f"{threshold:g}"
            low, high = rounding(single.group(1))
            return None, f"its threshold {shown} lies outside {quoted!r}'s rounding [{low:g}, {high:g})"
        return "paper-number", f"the paper's {quoted}"
    if ranged:
        if op != "in" or not (covers(ranged.group(1), points[0]) and covers(ranged.group(2), points[1])):
            return None, f"only an 'in' check with bounds within the rounding of {quoted!r} reads that range"
        return "paper-range", f"the paper's range {quoted}"
    return "paper-number", f"the paper's condition {quoted!r}"


def label(
    name: str,
    source: str | None,
    quote: Sequence[str],
    quoted: str | None,
    op: str,
    threshold: Any,
    reduce: str | None,
) -> str | None:
    """The label the check ``name`` carries: ``source`` where the rule accepts it. A paper label (``source`` one of
    :data:`PAPER_SOURCES`) the rule refuses, or that differs from the one the rule gives its token, and a token
    named by a check not labelled the paper's, raise ValueError naming the check."""
    if source not in PAPER_SOURCES:
        if quoted:
            raise ValueError(f"check {name!r}: labelled {source!r} but names the quoted token {quoted!r}")
        return source
    derived, why = refusal(quote, quoted, op, threshold, reduce)
    if derived is None:
        raise ValueError(f"check {name!r}: labelled {source!r}, but {why}: it is the suite's reading")
    if derived != source:
        raise ValueError(f"check {name!r}: labelled {source!r}, but {quoted!r} makes it {derived!r}")
    return derived


def derived(
    source: str | None, quote: Sequence[str], quoted: str | None, op: str, threshold: Any, reduce: str | None
) -> str | None:
    """The label a recorded check reads as, by the rule: its paper label where the rule accepts its token, else
    "suite-reading" (a record that carries its claim's quote is read by the rule, whatever it recorded)."""
    if source not in PAPER_SOURCES:
        return source
    given, _ = refusal(quote, quoted, op, threshold, reduce)
    return given or "suite-reading"
