"""Shared pieces of the experiments: the paper's base configuration, built under a context's universe, and
cache-backed train+evaluate of a context's seeds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence, TypeVar

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig, ModelConfig, RunSpec, TaskConfig, TrainConfig
from lengthgen.context import Context
from lengthgen.engine.evaluate import LengthEval
from lengthgen.experiments.multiverse import apply_universe
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


def paper_spec(ctx: Context, **parts: dict[str, Any]) -> RunSpec:
    """The paper's one-layer setup (d=64, m=20, [8,16], Adam 1e-3, batch 256) with ``ctx.steps`` steps and any
    field of its parts replaced, e.g. ``paper_spec(ctx, model={"encoding": "ape"})``; then the readings of
    ``ctx.universe`` (``lengthgen.experiments.multiverse``; the suite's own universe changes nothing: the same
    spec)."""
    return apply_universe(
        ctx.universe, RunSpec(TaskConfig(), ModelConfig(), TrainConfig(steps=ctx.steps)).replace(**parts)
    )


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


def train_and_evaluate(ctx: Context, cache: Cache | None, specs: Sequence[RunSpec]) -> dict[RunSpec, list[Run]]:
    """Every spec x seed of ``ctx`` trained (through the cache) and evaluated at ``ctx.evaluation``; one list of
    runs per spec, by seed."""
    cache = cache if cache is not None else Cache()
    for spec in specs:
        spec.check_eval(ctx.evaluation)
    members = [Member(spec, seed) for spec in specs for seed in ctx.seeds]
    models = trained(members, cache, ctx.progress)
    evals = evaluated(models, ctx.evaluation, cache)
    runs: dict[RunSpec, list[Run]] = {spec: [] for spec in specs}
    for member, model, rows in zip(members, models, evals):
        runs[member.spec].append(Run(model, rows))
    return runs


Key = TypeVar("Key")


def train_grid(ctx: Context, cache: Cache | None, specs: Mapping[Key, RunSpec]) -> dict[Key, list[Run]]:
    """``train_and_evaluate`` of keyed specs (e.g. (encoding, K) -> spec): the runs by seed under the same keys."""
    runs = train_and_evaluate(ctx, cache, list(specs.values()))
    return {key: runs[spec] for key, spec in specs.items()}
