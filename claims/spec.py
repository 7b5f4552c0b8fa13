"""A claim as one object: :class:`ClaimSpec`, what each claim module declares as ``CLAIM`` (listed in
``claims/registry.py``), and what every driver runs through ``claims.run.run_claim``: the paper's point (each
test function), the robustness map, the multiverse and ``--lengthgen-until-decided``.

- :class:`Declared`: one known non-reproduction: the checks (``fnmatch`` patterns) a faithful implementation
  fails, why, the scales it is declared at, and whether it is structural (``carried``: carried to the
  robustness map's fresh seeds; a seed-specific one is not).
- :class:`Variant`: one of a claim's variants at the paper's point, with its own test id and verdict (C12/C13
  per width, C19 per test and scheme, C20 per reading): what it measures, checks and declares differently.
- :class:`ClaimSpec`: the claim's id, seed count, measure, checks, declared non-reproductions, the scale its
  experiment runs at, its variants, the model families its test reads (which readings of the multiverse touch
  it), and its measure at a robustness setting that changes the spec or K.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from lengthgen.catalogue import claim as catalogue_claim
from lengthgen.readings import FAMILIES
from lengthgen.scale import Scale

Measure = Callable[[Scale, Any], Any]  # (scale, cache) -> the claim's result at the scale's seeds (memoised)
Check = Callable[[Any, Any], None]  # (claim recorder, result) -> records checks (a pure function of the result)
SCALE_NAMES = ("paper", "quick")  # the scales a declaration can name


def same_scale(scale: Scale) -> Scale:
    """The default ``run_scale``: the claim's experiment runs at the test's scale."""
    return scale


@dataclass(frozen=True)
class Declared:
    """A known non-reproduction: the checks that fail, and why."""

    checks: tuple[str, ...]  # fnmatch patterns of the checks expected to fail (only checks that really fail)
    why: str  # the finding without numbers (the verdict's reason adds this run's measured values)
    scales: tuple[str, ...] = ("paper",)  # the scales it is declared at
    carried: bool = False  # structural (not one seed's): carried to the robustness map's fresh seeds unchanged

    def __post_init__(self) -> None:
        if isinstance(self.checks, str) or not self.checks or not all(isinstance(c, str) and c for c in self.checks):
            raise ValueError(f"declared checks {self.checks!r} must be a non-empty tuple of patterns")
        if not isinstance(self.why, str) or not self.why.strip():
            raise ValueError(f"declared why {self.why!r} must say why")
        if not self.scales or not set(self.scales) <= set(SCALE_NAMES):
            raise ValueError(f"declared scales {self.scales!r} must be among {SCALE_NAMES}")
        if not isinstance(self.carried, bool):
            raise ValueError(f"carried={self.carried!r} must be a bool")


@dataclass(frozen=True)
class Variant:
    """A variant of the claim at the paper's point (its own test id and verdict); None inherits the claim's."""

    name: str  # e.g. "d64", "invariance-alibi", "first-reading"
    measure: Measure | None = None  # what it measures (None: the claim's measure)
    checks: tuple[Check, ...] | None = None  # the checks it records (None: the claim's)
    declared: tuple[Declared, ...] | None = None  # its known non-reproductions (None: the claim's; (): none)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"variant name {self.name!r} must be a non-empty name")


@dataclass(frozen=True)
class ClaimSpec:
    """One claim (or prediction), as every driver runs it."""

    id: str  # the catalogue's id, "C1".."C22" or "P1".."P6"
    paper_seeds: int  # seeds at the paper's point (0: an exact computation, no seeds)
    measure: Measure  # (scale, cache) -> result, seeds from scale.seed_list(paper_seeds) (explicit seeds honoured)
    checks: tuple[Check, ...]  # every check function of the claim's cell (map, multiverse), each (claim, result)
    declared: tuple[Declared, ...] = ()  # known non-reproductions of these checks, per scale (at most one per scale)
    run_scale: Callable[[Scale], Scale] = same_scale  # the scale the experiment runs at (idempotent), e.g. C12's steps
    variants: tuple[Variant, ...] = ()  # the variants at the paper's point (their own test ids and verdicts)
    families: tuple[str, ...] = ()  # the model families its test reads ("one-layer", "two-layer"); (): none trained
    reads_ape: bool = False  # its checks read APE models of those families (APE-only readings touch it)
    reads_decay: bool = False  # its checks read models trained with weight decay (decay-only readings touch it)
    reads_content: bool = False  # it reads the content-task heads (C21, C22): their precondition applies
    at_setting: Callable[[Any, Scale, Any], Any] | None = None  # (setting, scale, cache) -> result at a robustness
    # setting that changes the spec or K (None: the map runs the claim at fresh seeds only)
    scale_block: Callable[[Scale], dict] | None = None  # the record's scale block of an exact computation (None:
    # scale.describe(paper_seeds))

    def __post_init__(self) -> None:
        catalogue_claim(self.id)  # ValueError naming an id the catalogue does not hold
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
        names = [v.name for v in self.variants]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: variant names {names!r} repeat")
        for entries in [self.declared] + [v.declared for v in self.variants if v.declared is not None]:
            for scale in SCALE_NAMES:
                if sum(scale in d.scales for d in entries) > 1:
                    raise ValueError(f"{self.id}: two declarations at scale {scale!r}")

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
                )
        raise ValueError(f"{self.id}: unknown variant {name!r} (known: {', '.join(v.name for v in self.variants)})")

    def declaration(self, scale: str) -> Declared | None:
        """The claim's own declared non-reproduction at the scale called ``scale``, or None."""
        return next((d for d in self.declared if scale in d.scales), None)

    @property
    def carried(self) -> Declared | None:
        """The declaration at the paper's point carried to fresh seeds (structural), or None."""
        own = self.declaration("paper")
        return own if own is not None and own.carried else None

    def describe(self, scale: Scale) -> dict:
        """The record's scale block at ``scale``, the experiment's own scale (the caller has applied ``run_scale``:
        ``claims/run.py``)."""
        return self.scale_block(scale) if self.scale_block is not None else scale.describe(self.paper_seeds)
