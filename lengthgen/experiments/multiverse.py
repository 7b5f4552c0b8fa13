"""The multiverse's engine part: applying the readings of :mod:`lengthgen.readings` (the plain registry of
choices, readings and universes) to the specs the experiments build.

Readings act through ONE mechanism: the universe of the experiment's context (``lengthgen.context.Context``:
``ctx.universe``), which :func:`lengthgen.experiments.common.paper_spec` and
:func:`lengthgen.experiments.two_layer.two_layer_spec` apply to every spec they build (and ``run_phenomenon`` to
the specs it derives by changing the encoding), so each claim's own ``measure(scale, cache)`` measures under the
reading unchanged (its scale carries the universe, ``Scale.context`` hands it to the experiment), and
``claims.memo`` keys on it with the scale. The suite's universe (``readings.PAPER``) changes nothing: the spec objects
(so every cache key and number) are those of the suite.

Every change of the registry is checked here against the config class it addresses, and every reading is
applied once to the default spec of each family and encoding, at import: an unknown field, or a value the
config refuses, raises ``ValueError`` naming it.
"""

from __future__ import annotations

from typing import Any

from lengthgen.config import ModelConfig, RunSpec, TaskConfig, TrainConfig, _require
from lengthgen.engine.train_two_layer import ShiftConfig, TransformerConfig, TwoLayerSpec
from lengthgen.readings import READINGS, Change, Reading, Times, Universe

CONFIGS = {  # the config dataclass of each (family, part) a reading may change
    ("one-layer", "task"): TaskConfig,
    ("one-layer", "model"): ModelConfig,
    ("one-layer", "train"): TrainConfig,
    ("two-layer", "task"): ShiftConfig,
    ("two-layer", "model"): TransformerConfig,
    ("two-layer", "train"): TrainConfig,
}


def family_of(spec: Any) -> str:
    """ "one-layer" for a ``RunSpec``, "two-layer" for a ``TwoLayerSpec``; ValueError for anything else."""
    family = "one-layer" if isinstance(spec, RunSpec) else "two-layer" if isinstance(spec, TwoLayerSpec) else None
    _require(family is not None, f"not a spec: {type(spec).__name__}")
    return family


def check_change(change: Change) -> Change:
    """``change``, once its field is known to the config class it addresses (ValueError naming it if not)."""
    cls = CONFIGS[change.family, change.part]
    _require(change.field in cls.__dataclass_fields__, f"{change.field!r} is not a field of {cls.__name__}")
    return change


def applies(change: Change, spec: Any) -> bool:
    """Whether ``change`` addresses ``spec`` (its family, an APE spec for an APE-only change, a spec trained
    with weight decay for a decay-only one)."""
    return (
        family_of(spec) == change.family
        and (not change.ape_only or spec.model.encoding == "ape")
        and (not change.decay_only or spec.train.weight_decay > 0)
    )


def apply_change(change: Change, spec: Any) -> Any:
    """``spec`` with ``change`` applied (the same object when it does not apply or changes nothing)."""
    if not applies(change, spec):
        return spec
    current = getattr(getattr(spec, change.part), change.field)
    value = change.value(current) if isinstance(change.value, Times) else change.value
    return spec if value == current else spec.replace(**{change.part: {change.field: value}})


def apply_reading(reading: Reading, spec: Any) -> Any:
    """``spec`` under ``reading``."""
    for change in reading.changes:
        spec = apply_change(change, spec)
    return spec


def apply_universe(target: Universe, spec: Any) -> Any:
    """``spec`` under every reading of ``target`` (the same object when none applies, as under ``readings.PAPER``)."""
    for reading in target.readings:
        spec = apply_reading(reading, spec)
    return spec


def probe_specs() -> list[Any]:
    """The default spec of every family and encoding a reading must apply to."""
    specs: list[Any] = [RunSpec().replace(model={"encoding": e}) for e in ("rope", "ape", "nope", "alibi", "t5")]
    specs.append(RunSpec().replace(model={"encoding": "ape"}, train={"weight_decay": 1e-2}))  # C9's
    specs += [TwoLayerSpec().replace(model={"encoding": e}) for e in ("rope", "ape")]
    return specs


def check_reading(reading: Reading) -> Reading:
    """``reading``, once each change's field is known and the reading applies to every default spec (an invalid
    value, one the config refuses, raises ``ValueError`` here)."""
    for change in reading.changes:
        check_change(change)
    for spec in probe_specs():
        apply_reading(reading, spec)
    return reading


for _reading in READINGS:  # the registry is checked against the configs whenever readings can be applied
    check_reading(_reading)
