"""The baseline of the whole-command benchmark: a plain per-seed PyTorch loop, one model after another.

Each model is the paper's one-layer RoPE head written with ``nn.Linear`` projections over every
position (the reference forward, ``OneLayerHead``), trained with ``torch.optim.Adam`` on the paper's
protocol (batch 256, lengths uniform in [8, 16], lr 1e-3), then evaluated for accuracy at the paper's
lengths on 4096 sequences each: what ``lengthgen train --encoding rope --offset K --seeds ... --steps N``
does, without tables, ensembles or a cache.

    python tests/benchmarks/plain_loop.py --seeds 8 --steps 1000 --offset 2
"""

from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F

from lengthgen.config import PAPER_EVAL_LENGTHS
from lengthgen.context import Context
from lengthgen.experiments.common import paper_spec
from lengthgen.models import OneLayerHead
from lengthgen.seeding import generator
from lengthgen.tasks import make_task


def train_and_evaluate(seed: int, steps: int, offset: int, sequences: int) -> dict[int, float]:
    spec = paper_spec(Context((), steps), task={"offset": offset}, model={"encoding": "rope"})
    model = OneLayerHead(spec.model, spec.task.vocab, generator(seed, "init"))
    optimizer = torch.optim.Adam(model.parameters(), lr=spec.train.lr)
    task = make_task(spec.task)
    data = generator(seed, "data")
    for _ in range(steps):
        batch = task.sample_training(data, 1, spec.train.batch).index(0)
        loss = F.cross_entropy(model(batch.tokens, batch.lengths).logits, batch.targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    accuracy = {}
    with torch.no_grad():
        for length in PAPER_EVAL_LENGTHS:
            tokens = torch.randint(0, spec.task.vocab, (sequences, length), generator=generator(0, "eval"))
            targets = tokens[:, length - 1 - offset]
            logits = model(tokens, torch.full((sequences,), length)).logits
            accuracy[length] = (logits.argmax(-1) == targets).float().mean().item()
    return accuracy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8, help="seeds 0 .. N-1, one after another")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--offset", type=int, default=2)
    parser.add_argument("--sequences", type=int, default=4096)
    args = parser.parse_args()
    torch.set_num_threads(1)
    for seed in range(args.seeds):
        accuracy = train_and_evaluate(seed, args.steps, args.offset, args.sequences)
        print(seed, " ".join(f"{length}:{acc:.3f}" for length, acc in accuracy.items()), flush=True)


if __name__ == "__main__":
    main()
