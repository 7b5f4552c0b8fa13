"""The shape of the paper's claims catalogue, as plain data: what one claim (or prediction) is to the report
(:class:`Entry`), the numbers the paper states (:class:`Stated`), the catalogue as a run records it
(:class:`Catalogue`) and the catalogue's robustness settings in its own words (:data:`ROBUSTNESS`).

The claims themselves are not here: each claim module under ``claims/`` declares its own entry (its
``CLAIM``), the claims' registry discovers them and hands the catalogue to the plugin, which records it in
``claims.json`` (``"catalogue"``); the report, the documents and ``docs/catalogue.md`` read it from there. So
the library knows the shape of a claim and no claim. Imports no torch.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator, Mapping

from lengthgen.config import _require

NOT_IN_PAPER = "not tested by the paper (a prediction of its account)"  # a prediction's "paper value"
PREDICTION_BASE = 1000  # predictions P1.. sort after every paper claim C1..C22
OTHER_NUMBER = 10_000  # an id that is neither a claim's nor a prediction's sorts after both
CLAIM_ID = re.compile(r"([CP])(\d+)")  # a paper claim's id ("C12") or a prediction's ("P3")


def claim_number(claim_id: str) -> int:
    """C7 -> 7, P2 -> 1002 (after the paper's claims), anything else :data:`OTHER_NUMBER` (last)."""
    match = CLAIM_ID.fullmatch(claim_id)
    if not match:
        return OTHER_NUMBER
    return int(match.group(2)) + (PREDICTION_BASE if match.group(1) == "P" else 0)


def claim_order(claim_id: str) -> tuple[int, str]:
    """The one order of claim ids: the paper's claims by number, then the predictions by number, then any other id
    by name. The claims' registry, claims.json and the multiverse's declarations file sort by it."""
    return claim_number(claim_id), claim_id


@dataclass(frozen=True)
class Stated:
    """A number the paper states (catalogue, "Numbers the paper states") and the ONE measurement of the claim's
    record it is compared with, named in advance: a value (``low == high``) or a range, with the digits the paper
    gives it to. Where the paper's sentence names no K, length, width or encoding, ``why`` says which the claim
    takes and why."""

    quantity: str  # in the paper's words
    low: float  # the stated value, or the low end of a stated range
    high: float  # the same value, or the high end
    digits: int  # decimal places the paper gives (half a unit of the last one is its rounding)
    where: str  # where the paper states it
    measures: tuple[str, ...] = ()  # the record's checks or measured quantities it is compared with (exact names)
    across: bool = False  # a range the paper states across settings: each of ``measures`` is one setting and every
    # one must lie in it; otherwise ``measures`` are averaged seed by seed into one measurement
    why: str = ""  # which measurement, and why, where the paper's sentence does not name it
    variant: str = ""  # the claim's column that measures it ("" the claim's own; "d64" its first width)
    all_checks_pass: bool = False  # the number is "every cell passes" (100 % of cells): agrees when every check did
    baseline_width: int | None = None  # an untrained baseline: the width d of the 1/d reading of it (None: none)

    def __post_init__(self) -> None:
        _require(self.low <= self.high, f"stated {self.quantity!r}: low {self.low} > high {self.high}")
        _require(self.digits >= 0, f"digits={self.digits!r} must be >= 0")
        _require(
            bool(self.measures) != self.all_checks_pass, f"stated {self.quantity!r}: one measurement, or all checks"
        )
        _require(not self.across or len(self.measures) > 1, f"stated {self.quantity!r}: across settings needs several")
        _require(
            self.low < self.high or not self.across, f"stated {self.quantity!r}: a value is not stated across settings"
        )

    @property
    def half_unit(self) -> float:
        return 0.5 * 10.0**-self.digits

    @property
    def text(self) -> str:
        value = f"{self.low:.{self.digits}f}"
        return value if self.low == self.high else f"{value}-{self.high:.{self.digits}f}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "measures": list(self.measures)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Stated":
        known = cls.__dataclass_fields__
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class Entry:
    """One claim or prediction of the catalogue, as every record, page and document shows it."""

    id: str  # the catalogue's id ("C8", "P3")
    title: str  # the claim in a few words (the README's verdict table)
    where: str  # where it stands in the paper (a prediction: the result it follows from)
    statement: str  # what the paper claims (a prediction: what the account predicts)
    paper_value: str  # what the paper reports (a prediction: NOT_IN_PAPER)
    assertion: str  # the check the suite makes at paper scale, in words
    prediction: bool = False  # a prediction beyond the paper, not one of its claims
    stated: tuple[Stated, ...] = ()  # the numbers the paper states for it, each with its measurement
    settings: tuple[str, ...] = ()  # the robustness settings it runs at (the robustness map's row)
    columns: tuple[str, ...] = ()  # its columns of the multiverse's grid: the id, or "id-variant" per width
    cell_variant: str = ""  # the variant whose checks its multiverse cells run ("": every test's checks)
    quote: tuple[str, ...] = ()  # the paper's sentence(s) it tests, word for word (a prediction: none); the
    # tokens its checks labelled the paper's read (lengthgen/records/basis.py)

    def __post_init__(self) -> None:
        _require(
            not isinstance(self.quote, str) and all(isinstance(q, str) and q.strip() for q in self.quote),
            f"claim {self.id!r}: quote={self.quote!r} must be a tuple of the paper's sentences",
        )
        for name in ("id", "title", "where", "statement", "paper_value", "assertion"):
            value = getattr(self, name)
            _require(isinstance(value, str) and bool(value.strip()), f"claim {self.id!r}: {name}={value!r} is empty")
        _require(
            self.prediction == (self.paper_value == NOT_IN_PAPER),
            f"claim {self.id!r}: a prediction states no paper value, and a claim of the paper does",
        )

    def column(self, variant: str) -> str:
        """The grid column of a test of this claim with ``variant`` (its id where the variant has none)."""
        named = f"{self.id}-{variant}"
        return named if variant and named in self.columns else self.id

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["stated"] = [s.to_dict() for s in self.stated]
        data["settings"], data["columns"] = list(self.settings), list(self.columns)
        data["quote"] = list(self.quote)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Entry":
        known = cls.__dataclass_fields__
        values = {k: v for k, v in data.items() if k in known}
        values["stated"] = tuple(Stated.from_dict(s) for s in data.get("stated") or ())
        values["settings"] = tuple(data.get("settings") or ())
        values["columns"] = tuple(data.get("columns") or ())
        values["quote"] = tuple(data.get("quote") or ())
        return cls(**values)


@dataclass(frozen=True)
class Catalogue:
    """Every claim and prediction the claims' registry holds, in its order (claims by number, then the
    predictions); what a ``claims.json`` records as ``"catalogue"``."""

    entries: tuple[Entry, ...] = ()  # in the registry's order
    _by_id: dict[str, Entry] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ids = [e.id for e in self.entries]
        _require(len(set(ids)) == len(ids), f"a claim id repeats in the catalogue: {ids}")
        self._by_id.update({e.id: e for e in self.entries})

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, claim_id: object) -> bool:
        return claim_id in self._by_id

    def get(self, claim_id: str) -> Entry | None:
        return self._by_id.get(claim_id)

    def entry(self, claim_id: str) -> Entry:
        """The entry of ``claim_id``; ValueError naming it and the known ids otherwise."""
        found = self._by_id.get(claim_id)
        if found is None:
            raise ValueError(f"unknown claim {claim_id!r} (known: {', '.join(self._by_id) or 'none'})")
        return found

    @property
    def claims(self) -> tuple[Entry, ...]:
        """The paper's own claims."""
        return tuple(e for e in self.entries if not e.prediction)

    @property
    def predictions(self) -> tuple[Entry, ...]:
        """The predictions beyond the paper."""
        return tuple(e for e in self.entries if e.prediction)

    def is_prediction(self, claim_id: str) -> bool:
        found = self._by_id.get(claim_id)
        return found is not None and found.prediction

    def order(self, claim_id: str) -> int:
        """Its place in the registry's order (an id the catalogue lacks goes last)."""
        ids = list(self._by_id)
        return ids.index(claim_id) if claim_id in self._by_id else len(ids)

    def column_order(self, column: str) -> tuple[int, int]:
        """A grid column's place: its claim's, then its columns' order."""
        for i, entry in enumerate(self.entries):
            if column in entry.columns or column == entry.id:
                return i, entry.columns.index(column) if column in entry.columns else 0
        return len(self.entries), 0

    def claim_of(self, column: str) -> str:
        """The claim a grid column belongs to ("C12" for "C12-d64"); the column itself where none holds it."""
        return next((e.id for e in self.entries if column in e.columns), column)

    def to_dict(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.entries]

    @classmethod
    def from_dict(cls, data: Any) -> "Catalogue":
        """The catalogue a claims.json recorded; ValueError (one line) for a malformed one."""
        try:
            return cls(tuple(Entry.from_dict(e) for e in data or ()))
        except (TypeError, AttributeError, KeyError) as error:
            raise ValueError(f"a malformed catalogue ({error})") from None


EMPTY = Catalogue()


@dataclass(frozen=True)
class RobustnessSetting:
    """One of the catalogue's robustness settings, in its words (the claims it applies to are theirs to say:
    each claim's ``settings``)."""

    name: str  # e.g. "width-32": the map's column and the test id's prefix
    what: str  # what changes, in the catalogue's words


ROBUSTNESS: tuple[RobustnessSetting, ...] = (  # the map's columns, in the catalogue's order
    RobustnessSetting("offsets-far", "K in {4, 5, 6} (5 seeds)"),
    RobustnessSetting("width-32", "d = 32, K in {1, 2, 3}"),
    RobustnessSetting("width-128", "d = 128, K in {1, 2, 3}"),
    RobustnessSetting("vocab-10", "m = 10 (chance 1/m)"),
    RobustnessSetting("vocab-40", "m = 40 (chance 1/m)"),
    RobustnessSetting("range-8-24", "training lengths [8, 24], the paper's evaluation lengths (in range: L <= 24)"),
    RobustnessSetting("fresh-seeds", "seeds 100..107 at the paper's point"),
)
SETTING_NAMES = tuple(s.name for s in ROBUSTNESS)
