"""Invalid configuration raises ValueError naming the bad value."""

from __future__ import annotations

import dataclasses

import pytest

from lengthgen.config import EvalConfig, ModelConfig, RunSpec, TaskConfig, TrainConfig, parse_seeds


@pytest.mark.parametrize(
    "build, fragment",
    [
        (lambda: TaskConfig(offset=0), "K=0"),
        (lambda: TaskConfig(offset=8), "K=8"),
        (lambda: TaskConfig(offset=-1), "K=-1"),
        (lambda: TaskConfig(min_len=10, max_len=9), "max_len=9"),
        (lambda: TaskConfig(vocab=1), "vocab=1"),
        (lambda: TaskConfig(kind="copy"), "'copy'"),
        (lambda: TaskConfig(kind="content", offset=2, alt_offset=2), "alt_offset=2"),
        (lambda: TaskConfig(alt_offset=3), "alt_offset=3"),
        (lambda: ModelConfig(encoding="rope", d=63), "d=63"),
        (lambda: ModelConfig(encoding="rope", d=12, heads=4), "head width 3"),
        (lambda: ModelConfig(d=10, heads=3), "heads=3"),
        (lambda: ModelConfig(encoding="sinusoidal"), "'sinusoidal'"),
        (lambda: ModelConfig(attention="sparse"), "'sparse'"),
        (lambda: ModelConfig(temperature=0), "temperature=0"),
        (lambda: ModelConfig(rope_base=1), "rope_base=1"),
        (lambda: TrainConfig(steps=0), "steps=0"),
        (lambda: TrainConfig(batch=0), "batch=0"),
        (lambda: TrainConfig(lr=-1e-3), "lr=-0.001"),
        (lambda: TrainConfig(weight_decay=-1), "weight_decay=-1"),
        (lambda: TrainConfig(steps=2.5), "steps=2.5"),
        (lambda: EvalConfig(lengths=(12, 12)), "(12, 12)"),
        (lambda: EvalConfig(lengths=(1,)), "1"),
        (lambda: EvalConfig(sequences=0), "sequences=0"),
        (lambda: RunSpec(TaskConfig(max_len=60), ModelConfig(encoding="ape"), TrainConfig()), "max_len=60"),
    ],
)
def test_invalid_values_raise_naming_them(build, fragment):
    with pytest.raises(ValueError) as error:
        build()
    assert fragment in str(error.value)


@pytest.mark.parametrize("length, fragment", [(2, "length 2"), (3, "length 3"), (49, "length 49")])
def test_eval_lengths_checked_against_the_model(length, fragment):
    spec = RunSpec(TaskConfig(offset=3), ModelConfig(encoding="ape"), TrainConfig())
    with pytest.raises(ValueError, match=fragment):
        spec.check_eval(EvalConfig(lengths=(length,)))


def test_rope_accepts_long_evaluation():
    RunSpec(TaskConfig(offset=3), ModelConfig(encoding="rope"), TrainConfig()).check_eval(EvalConfig(lengths=(200,)))


@pytest.mark.parametrize("text, seeds", [("0-7", tuple(range(8))), ("0,2,5", (0, 2, 5)), ("3", (3,)), ("4-4", (4,))])
def test_seed_specs(text, seeds):
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("7-0", "reversed"),
        ("a", "neither"),
        ("1-2-3", "neither"),
        ("0,0", "repeats"),
        ("", "neither"),
        ("-1", "neither"),
    ],
)
def test_bad_seed_specs(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_seeds(text)


def test_configs_are_frozen_and_hashable():
    spec = RunSpec()
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.task.offset = 3  # type: ignore[misc]
    assert hash(spec) == hash(RunSpec())
    assert spec.replace(task={"offset": 3}).task.offset == 3
