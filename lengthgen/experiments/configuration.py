"""One configuration of the one-layer head over seeds: the paper's setup with the encoding, K and the rotary base
chosen, trained and evaluated at the context (``lengthgen train``). Per seed and length: accuracy, the selected
offset, the peak attention and the target weight a*.

The APE table covers the longest evaluation length (at least the paper's 48 rows), so that any length can be
evaluated; at the paper's lengths the spec is the phenomenon grid's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lengthgen.config import RunSpec
from lengthgen.context import Context
from lengthgen.experiments.common import Run, eval_dict, paper_spec, train_and_evaluate
from lengthgen.experiments.results import Column, text_table
from lengthgen.store.cache import Cache

PAPER_POSITIONS = 48  # the APE table's rows at the paper's evaluation lengths (ModelConfig's default)

COLUMNS = (  # one line per (seed, LengthEval)
    Column("seed", lambda line: line[0], ">4"),
    Column("length", lambda line: line[1].length, ">6"),
    Column("accuracy", lambda line: line[1].accuracy, ">8.3f"),
    Column("offset", lambda line: line[1].selected_offset(), ">6"),
    Column("peak", lambda line: line[1].peak_height(), ">6.3f"),
    Column("a*", lambda line: line[1].target_weight[0], ">6.3f"),
)


@dataclass
class ConfigurationResult:
    ctx: Context  # the seeds, steps and evaluation it ran at
    spec: RunSpec  # the configuration trained
    runs: list[Run]  # one per seed, in seed order

    def table(self) -> str:
        model, task = self.spec.model, self.spec.task
        title = (
            f"encoding={model.encoding} K={task.offset} base={model.rope_base:g} steps={self.spec.train.steps} "
            f"seeds={','.join(map(str, self.ctx.seeds))} (training lengths {task.min_len}-{task.max_len})"
        )
        return text_table(title, COLUMNS, [(run.seed, row) for run in self.runs for row in run.evals])

    def to_json(self) -> dict[str, Any]:
        config = {**self.spec.to_dict(), "eval": eval_dict(self.ctx.evaluation), "seeds": list(self.ctx.seeds)}
        seeds = [{"seed": run.seed, "eval": [row.summary() for row in run.evals]} for run in self.runs]
        return {"config": config, "seeds": seeds}


def run_configuration(
    ctx: Context, cache: Cache | None, encoding: str, offset: int, base: float = 1e4
) -> ConfigurationResult:
    """The paper's one-layer head with ``encoding``, target offset ``offset`` and rotary base ``base``, at every
    seed of ``ctx``, evaluated at its lengths."""
    positions = max(PAPER_POSITIONS, *ctx.evaluation.lengths)  # the APE table covers the longest evaluation length
    model = {"encoding": encoding, "rope_base": base, "positions": positions}
    spec = paper_spec(ctx, task={"offset": offset}, model=model)
    runs = train_and_evaluate(ctx, cache, [spec])[spec]
    return ConfigurationResult(ctx, spec, runs)
