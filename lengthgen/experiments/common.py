"""Shared pieces of the experiments: the paper's base configuration and cache-backed train+evaluate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence, TypeVar

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, ModelConfig, RunSpec, TaskConfig, TrainConfig
from lengthgen.engine.evaluate import LengthEval
from lengthgen.store.one_layer import evaluated, trained
from lengthgen.engine.train import Member, TrainedModel


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean (of per-seed values), summed in order as the tables and claims print it."""
    return sum(values) / len(values)


def column_means(rows: Sequence[Sequence[float]]) -> list[float]:
    """Per column, the mean over rows: e.g. per evaluation length, the mean over seeds."""
    return [mean(column) for column in zip(*rows)]


def eval_dict(evaluation: EvalConfig) -> dict[str, Any]:
    """The evaluation settings as every experiment's JSON reports them."""
    return {"lengths": list(evaluation.lengths), "sequences": evaluation.sequences}


def paper_spec(steps: int = 4000, **parts: dict[str, Any]) -> RunSpec:
    """The paper's one-layer setup (d=64, m=20, [8,16], Adam 1e-3, batch 256) with ``steps`` steps,
    and any field of its parts replaced, e.g. ``paper_spec(model={"encoding": "ape"})``; then the active
    multiverse universe's readings (``lengthgen.experiments.multiverse``; none by default: the same spec)."""
    from lengthgen.experiments.multiverse import apply_active

    return apply_active(RunSpec(TaskConfig(), ModelConfig(), TrainConfig(steps=steps)).replace(**parts))


@dataclass
class Run:
    """A trained model with its evaluation."""

    model: TrainedModel  # the trained model
    evals: list[LengthEval]  # its evaluation, one row per length

    @property
    def seed(self) -> int:
        return self.model.seed

    def at(self, length: int) -> LengthEval:
        for row in self.evals:
            if row.length == length:
                return row
        raise KeyError(f"length {length} was not evaluated")


def train_and_evaluate(
    specs: Sequence[RunSpec],
    seeds: Sequence[int],
    evaluation: EvalConfig,
    cache: Cache | None = None,
    progress: bool | None = None,
) -> dict[RunSpec, list[Run]]:
    """Every spec x seed trained (through the cache) and evaluated; one list of runs per spec, by seed."""
    cache = cache if cache is not None else Cache()
    for spec in specs:
        spec.check_eval(evaluation)
    members = [Member(spec, seed) for spec in specs for seed in seeds]
    models = trained(members, cache, progress)
    evals = evaluated(models, evaluation, cache)
    runs: dict[RunSpec, list[Run]] = {spec: [] for spec in specs}
    for member, model, rows in zip(members, models, evals):
        runs[member.spec].append(Run(model, rows))
    return runs


Key = TypeVar("Key")


def train_grid(
    specs: Mapping[Key, RunSpec],
    seeds: Sequence[int],
    evaluation: EvalConfig,
    cache: Cache | None = None,
    progress: bool | None = None,
) -> dict[Key, list[Run]]:
    """``train_and_evaluate`` of keyed specs (e.g. (encoding, K) -> spec): the runs by seed under the same keys."""
    runs = train_and_evaluate(list(specs.values()), seeds, evaluation, cache, progress)
    return {key: runs[spec] for key, spec in specs.items()}
