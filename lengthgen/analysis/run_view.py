"""A run as the report reads it: ``claims.json`` (or the plugin's records and environment) parsed once into the
records' own types (``lengthgen.records.ClaimRecord``, ``Check``, ``Measure``), the same the tests recorded, so every
renderer (the terminal summary, the page, the robustness map, the multiverse, the markdown summary, the diff) reads
the verdicts, close calls and deciding checks the records decided, and nothing re-derives them.

- :class:`RunView`: the run (``RunView.from_json(path_or_dict)``, ``RunView.from_records(records, environment,
  registry)``): its paper claims, predictions, negative controls, robustness and multiverse cells, environment,
  the claims' registry (catalogue and multiverse plan), scale and completeness.
- :func:`verdict_counts`: claim tests per shown label, in the report's order of verdicts
  (``lengthgen.records.verdicts``, where each verdict's display lives).

A record of an older version, whose verdict's derived facts (its close checks, its deciding check) are not
recorded, has them decided here once, by the records' own rule (``lengthgen.records.verdict.settle``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from lengthgen.catalogue import Catalogue
from lengthgen.readings import CellPlan
from lengthgen.records import ClaimRecord
from lengthgen.records.verdict import settle
from lengthgen.records.verdicts import DECIDED_ALONE, Verdict, label_order
from lengthgen.registry import Registry
from lengthgen.analysis.data import assemble, checked, claim_number, read

# ----------------------------------------------------------------------------------------------- the run


def record_of(record: ClaimRecord | Mapping[str, Any]) -> ClaimRecord:
    """A record, parsed from its dict where it is one (:func:`parse`)."""
    return record if isinstance(record, ClaimRecord) else parse(record)


def parse(data: Mapping[str, Any], catalogue: Catalogue | None = None) -> ClaimRecord:
    """A record of a claims.json. A record of an older version takes the words it lacks (its title, whether it
    is a prediction) from the run's ``catalogue``. Every record has its verdict's derived facts (close checks, the
    deciding check) decided again from its checks, by the records' own rule: a file written under an earlier rule
    shows this one's."""
    record = ClaimRecord.from_dict(data)
    entry = catalogue.get(record.claim) if catalogue is not None else None
    if entry is not None:
        for name in ("where", "statement", "paper_value", "assertion", "title"):
            if not getattr(record, name):
                setattr(record, name, getattr(entry, name))
        record.prediction = record.prediction or entry.prediction
    if not record.title:
        record.title = record.statement
    settle(record, broke=record.verdict in DECIDED_ALONE)  # the derived facts by this version's rule
    return record


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


def run_scale(records: Sequence[ClaimRecord]) -> str:
    """quick, paper, or mixed (records at several scales, skipped ones aside); "none" without records."""
    names = {r.scale.get("name") for r in records if r.verdict is not Verdict.SKIPPED} - {None}
    if not names:
        names = {r.scale.get("name") for r in records} - {None}
    if not names:
        return "none"
    return names.pop() if len(names) == 1 else "mixed"


def completeness(records: Sequence[ClaimRecord], catalogue: Catalogue) -> Completeness:
    ran = {r.claim for r in records}
    predicted = sorted({r.claim for r in records if r.is_prediction}, key=claim_number)
    ids = [e.id for e in catalogue.claims] if len(catalogue) else sorted(ran - set(predicted), key=claim_number)
    return Completeness(
        tuple(c for c in ids if c in ran),
        tuple(c for c in ids if c not in ran),
        tuple(predicted),
        run_scale(records),
        len(catalogue.claims),
        len(catalogue.predictions),
    )


def verdict_counts(records: Iterable[ClaimRecord]) -> dict[str, int]:
    """Claim tests per shown label (close calls counted apart), in the report's order of verdicts
    (``verdicts.label_order``)."""
    counts = Counter(r.label for r in records)
    return {label: counts[label] for label in label_order(counts)}


PARTS = ("claims", "predictions", "records", "robustness", "multiverse", "cells")  # RunView's groups of claim tests


@dataclass(frozen=True)
class RunView:
    claims: tuple[ClaimRecord, ...]  # the paper's claims at the paper's point, in claims.json's order (by claim
    # number, then test)
    predictions: tuple[ClaimRecord, ...]  # the predictions beyond the paper, in the same order
    controls: tuple[ClaimRecord, ...]  # every negative control, in the same order
    robustness: tuple[ClaimRecord, ...]  # the robustness map's cells (at a setting), by setting then claim
    multiverse: tuple[ClaimRecord, ...]  # the multiverse's cells (under a reading), by reading then claim
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
    def records(self) -> tuple[ClaimRecord, ...]:
        """Every claim test at the paper's point: the claims, then the predictions (claims.json's "records")."""
        return self.claims + self.predictions

    @property
    def cells(self) -> tuple[ClaimRecord, ...]:
        """The robustness cells, then the multiverse cells."""
        return self.robustness + self.multiverse

    @property
    def scale(self) -> str:
        """The run's scale: quick, paper, mixed or none."""
        return self.completeness.scale

    def controls_of(self, record: ClaimRecord) -> tuple[ClaimRecord, ...]:
        """The negative controls of a claim test: the same claim, at the same scale."""
        name = record.scale.get("name")
        return tuple(c for c in self.controls if c.claim == record.claim and c.scale.get("name") == name)

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
        ``claims.json`` would hold them (``analysis.data.assemble``: non-finite numbers to None, sorted, parts
        split)."""
        return cls.from_data(assemble(records, environment, registry))

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "RunView":
        registry = Registry.from_data(data)
        catalogue = registry.catalogue
        controls = tuple(parse(c, catalogue) for c in data.get("controls") or [])  # claims.json's order
        records = [parse(r, catalogue) for r in data.get("records") or []]
        settings = [parse(c, catalogue) for c in data.get("robustness") or []]
        readings = [r for r in records + settings if r.universe]
        records = [r for r in records if not r.universe and not r.setting]  # a cell never sits in the table
        cells = [r for r in settings if not r.universe]
        multiverse = [parse(c, catalogue) for c in data.get("multiverse") or []] + readings
        return cls(
            claims=tuple(r for r in records if not r.is_prediction),
            predictions=tuple(r for r in records if r.is_prediction),
            controls=controls,
            robustness=tuple(cells),
            multiverse=tuple(multiverse),
            environment=data.get("environment") or {},
            robustness_environment=data.get("robustness_environment") if cells else None,
            multiverse_environment=data.get("multiverse_environment") if multiverse else None,
            completeness=completeness(records, registry.catalogue),
            registry=registry,
            data=data,
        )
