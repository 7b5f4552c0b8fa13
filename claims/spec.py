"""A claim as one object: :class:`ClaimSpec`, what each claim module declares as ``CLAIM`` (found by
``claims/registry.py``), and what every driver runs through ``claims.run.run_claim``: the paper's point (each
test function), the robustness map, the multiverse and ``--lengthgen-until-decided``.

Everything about a claim stands in its spec, in its own module: the catalogue's words (title, where, statement,
the paper's value, the assertion), the numbers the paper states with the measurement each is compared with, its
measure and checks, its declared non-reproductions (at the paper's point and per robustness setting; per
multiverse reading they are recorded data, ``claims/multiverse_declared.json``), the robustness settings it runs
at and its measure there, the model families it reads (so the multiverse's readings that touch it), the cells of
the multiverse left out of the default run for their cost, and where xdist schedules it.

- ``Declared`` (``lengthgen.records``, the one type the record carries too): one known non-reproduction: the
  checks (``fnmatch`` patterns) a faithful implementation fails, why, the scales it is declared at, the robustness
  setting it is a finding of (``at``; None: the paper's point), and whether it is structural (``carried``: carried
  to the robustness map's fresh seeds).
- :class:`Variant`: one of a claim's variants at the paper's point, with its own test id and verdict (per
  width, per scheme, per reading of the claim's words): what it measures, checks and declares differently;
  ``column``: a column of its own in the multiverse's grid (a width the cells run apart).
- :class:`LeftOut`: a multiverse reading whose cell of this claim is left out of the default run for its cost.
- :class:`ClaimSpec`: all of the above.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from lengthgen.catalogue import NOT_IN_PAPER, SETTING_NAMES, Entry, Stated
from lengthgen.records import Declared
from lengthgen.records.record import SCALE_NAMES
from lengthgen.readings import BY_NAME as READING_NAMES
from lengthgen.readings import FAMILIES
from lengthgen.scale import Scale

Measure = Callable[[Scale, Any], Any]  # (scale, cache) -> the claim's result at the scale's seeds (memoised)
Check = Callable[[Any, Any], None]  # (claim recorder, result) -> records checks (a pure function of the result)
__all__ = ["ClaimSpec", "Declared", "LeftOut", "Variant"]  # Declared: the records' one type, used by every claim
FAMILY_SETTINGS = ("fresh-seeds",)  # the settings that apply to every claim whose test trains models


def same_scale(scale: Scale) -> Scale:
    """The default ``run_scale``: the claim's experiment runs at the test's scale."""
    return scale


@dataclass(frozen=True)
class Variant:
    """A variant of the claim at the paper's point (its own test id and verdict); None inherits the claim's."""

    name: str  # e.g. "d64", "invariance-alibi", "first-reading"
    measure: Measure | None = None  # what it measures (None: the claim's measure)
    checks: tuple[Check, ...] | None = None  # the checks it records (None: the claim's)
    declared: tuple[Declared, ...] | None = None  # its known non-reproductions (None: the claim's; (): none)
    column: bool = False  # a column of its own in the multiverse's grid ("<id>-<name>"), run by the cells apart

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"variant name {self.name!r} must be a non-empty name")


@dataclass(frozen=True)
class LeftOut:
    """A reading whose multiverse cells of this claim the default run leaves out for their cost (``-m
    multiverse_extended`` runs them)."""

    reading: str  # the reading's name, e.g. "init=flax"
    why: str  # why, in words (its cost)

    def __post_init__(self) -> None:
        if self.reading not in READING_NAMES:
            raise ValueError(f"left out under {self.reading!r}: not a reading (known: {', '.join(READING_NAMES)})")
        if not self.why.strip():
            raise ValueError(f"left out under {self.reading!r}: say why")


@dataclass(frozen=True)
class ClaimSpec:
    """One claim (or prediction), as every driver runs it and every page shows it."""

    # the catalogue's words
    id: str  # the catalogue's id ("C8"; a prediction "P3")
    title: str  # the claim in a few words (the README's verdict table)
    where: str  # where it stands in the paper (a prediction: the result it follows from)
    statement: str  # what the paper claims (a prediction: what the account predicts)
    assertion: str  # the check the suite makes at paper scale, in words
    paper_value: str = NOT_IN_PAPER  # what the paper reports (a prediction keeps the default)
    quote: tuple[str, ...] = ()  # the paper's sentence(s) it tests, word for word: what a check labelled the
    # paper's reads its token from (lengthgen/records/basis.py); a prediction quotes none
    stated: tuple[Stated, ...] = ()  # the numbers the paper states for it, each with the measurement it is read from
    # what runs
    paper_seeds: int = 0  # seeds at the paper's point (0: an exact computation, no seeds)
    measure: Measure | None = None  # (scale, cache) -> result, seeds from scale.seed_list(paper_seeds)
    checks: tuple[Check, ...] = ()  # every check function of the claim's cell (map, multiverse), each (claim, result)
    declared: tuple[Declared, ...] = ()  # known non-reproductions, per scale (and per robustness setting: ``at``)
    run_scale: Callable[[Scale], Scale] = same_scale  # the scale the experiment runs at (idempotent), e.g. C12's steps
    variants: tuple[Variant, ...] = ()  # the variants at the paper's point (their own test ids and verdicts)
    scale_block: Callable[[Scale], dict] | None = None  # the record's scale block of an exact computation (None:
    # scale.describe(paper_seeds))
    # the models it reads: which readings of the multiverse touch it
    families: tuple[str, ...] = ()  # the model families its test reads ("one-layer", "two-layer"); (): none trained
    reads_ape: bool = False  # its checks read APE models of those families (APE-only readings touch it)
    reads_decay: bool = False  # its checks read models trained with weight decay (decay-only readings touch it)
    reads_content: bool = False  # it reads the content-task heads: their precondition applies
    cell_variant: str = ""  # the variant whose checks its multiverse cells run ("": the spec's checks, all of them)
    left_out: tuple[LeftOut, ...] = ()  # readings whose cells the default multiverse run leaves out for their cost
    # the robustness map
    settings: tuple[str, ...] = ()  # the catalogue's robustness settings it runs at (the map's row)
    at_setting: Callable[[Any, Scale, Any], Any] | None = None  # (setting, scale, cache) -> result at a setting
    # that changes the spec or K (None: the map runs the claim at fresh seeds only)
    # scheduling
    schedule: int = 100  # when xdist hands its tests out, lower first: the trainers whose models other claims read
    # first, the readers of models trained by then last (ties keep the registry's order)

    def __post_init__(self) -> None:
        prediction = self.paper_value == NOT_IN_PAPER
        self.entry  # ValueError naming an empty word
        if not isinstance(self.paper_seeds, int) or isinstance(self.paper_seeds, bool) or self.paper_seeds < 0:
            raise ValueError(f"{self.id}: paper_seeds={self.paper_seeds!r} must be a whole number >= 0")
        if not callable(self.measure) or not self.checks or not all(callable(c) for c in self.checks):
            raise ValueError(f"{self.id}: a claim needs a measure and at least one check, got {self.checks!r}")
        if not set(self.families) <= set(FAMILIES):
            raise ValueError(f"{self.id}: families {self.families!r} must be among {FAMILIES}")
        if self.reads_ape and not self.families:
            raise ValueError(f"{self.id}: reads_ape={self.reads_ape!r} without a model family")
        if self.reads_decay and not self.families:
            raise ValueError(f"{self.id}: reads_decay={self.reads_decay!r} without a model family")
        unknown = [s for s in self.settings if s not in SETTING_NAMES]
        if unknown:
            raise ValueError(f"{self.id}: settings {unknown} are not robustness settings ({', '.join(SETTING_NAMES)})")
        if prediction and self.settings:
            raise ValueError(f"{self.id}: the robustness map runs the paper's claims, not predictions")
        if not self.families and self.settings:
            raise ValueError(f"{self.id}: a claim that trains nothing has no robustness setting")
        names = [v.name for v in self.variants]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: variant names {names!r} repeat")
        if self.cell_variant and self.cell_variant not in names:
            raise ValueError(f"{self.id}: cell_variant {self.cell_variant!r} is not a variant ({', '.join(names)})")
        for entries in [self.declared] + [v.declared for v in self.variants if v.declared is not None]:
            for scale in SCALE_NAMES:
                for at in {d.at for d in entries}:
                    if sum(scale in d.scales and d.at == at for d in entries) > 1:
                        raise ValueError(f"{self.id}: two declarations at scale {scale!r}, setting {at!r}")
        stray = [d.at for d in self.declared if d.at is not None and d.at not in self.settings]
        if stray:
            raise ValueError(f"{self.id}: declared at settings {stray} it does not run at")

    @property
    def prediction(self) -> bool:
        """A prediction beyond the paper (it states no paper value)."""
        return self.paper_value == NOT_IN_PAPER

    @property
    def columns(self) -> tuple[str, ...]:
        """Its columns of the multiverse's grid: its id, then "<id>-<variant>" per variant run apart."""
        return (self.id,) + tuple(f"{self.id}-{v.name}" for v in self.variants if v.column)

    @property
    def entry(self) -> Entry:
        """The claim as the catalogue records it (plain data, for the record, the report and the documents)."""
        return Entry(
            self.id,
            self.title,
            self.where,
            self.statement,
            self.paper_value,
            self.assertion,
            prediction=self.paper_value == NOT_IN_PAPER,
            stated=self.stated,
            settings=self.settings,
            columns=self.columns,
            cell_variant=self.cell_variant,
            quote=self.quote,
        )

    def variant(self, name: str) -> "ClaimSpec":
        """The claim as its variant ``name`` runs it (no variants of its own); ValueError naming an unknown one."""
        for v in self.variants:
            if v.name == name:
                return dataclasses.replace(
                    self,
                    measure=v.measure or self.measure,
                    checks=self.checks if v.checks is None else v.checks,
                    declared=self.declared if v.declared is None else v.declared,
                    variants=(),
                    cell_variant="",
                )
        raise ValueError(f"{self.id}: unknown variant {name!r} (known: {', '.join(v.name for v in self.variants)})")

    def column(self, name: str) -> "ClaimSpec":
        """The claim as its multiverse column ``name`` runs it: itself (or its ``cell_variant``), or the
        variant run apart ("<id>-<variant>")."""
        if name == self.id:
            return self.variant(self.cell_variant) if self.cell_variant else self
        variant = name.removeprefix(f"{self.id}-")
        if name not in self.columns:
            raise ValueError(f"{self.id}: unknown column {name!r} (known: {', '.join(self.columns)})")
        return self.variant(variant)

    def declaration(self, scale: str, at: str | None = None) -> Declared | None:
        """The claim's own declared non-reproduction at the scale called ``scale`` (at the robustness setting
        ``at``; None: the paper's point), or None."""
        return next((d for d in self.declared if scale in d.scales and d.at == at), None)

    @property
    def carried(self) -> Declared | None:
        """The declaration at the paper's point carried to fresh seeds (structural), or None."""
        own = self.declaration("paper")
        return own if own is not None and own.carried else None

    def left_out_under(self, reading: str) -> str | None:
        """Why its cells under ``reading`` are left out of the default multiverse run (None: they run)."""
        return next((x.why for x in self.left_out if x.reading == reading), None)

    def describe(self, scale: Scale) -> dict:
        """The record's scale block at ``scale``, the experiment's own scale (the caller has applied ``run_scale``:
        ``claims/run.py``)."""
        return self.scale_block(scale) if self.scale_block is not None else scale.describe(self.paper_seeds)
