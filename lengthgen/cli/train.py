"""``lengthgen train``: train one configuration over seeds and print accuracy and probes per length."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_lengths_option, add_run_options, emit, evaluation, make_cache
from lengthgen.config import ENCODINGS
from lengthgen.experiments.common import eval_dict, paper_spec, train_and_evaluate

NAME = "train"
HELP = "train one configuration over seeds; per seed and length: accuracy, selected offset, peak, a*"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--encoding", required=True, choices=ENCODINGS, help="positional encoding")
    parser.add_argument("--offset", type=int, required=True, metavar="K", help="target offset K (1 <= K < 8)")
    add_lengths_option(parser)
    parser.add_argument("--base", type=float, default=1e4, metavar="B", help="RoPE base (default 1e4)")
    add_run_options(parser, seeds="0-7")


def run(args: argparse.Namespace) -> int:
    positions = max(48, *args.lengths)  # the APE table covers the longest evaluation length
    spec = paper_spec(
        args.steps,
        task={"offset": args.offset},
        model={"encoding": args.encoding, "rope_base": args.base, "positions": positions},
    )
    evaluation_cfg = evaluation(args, args.lengths)
    runs = train_and_evaluate([spec], args.seeds, evaluation_cfg, make_cache(args))[spec]
    lines = [
        f"encoding={args.encoding} K={args.offset} base={args.base:g} steps={args.steps} "
        f"seeds={','.join(map(str, args.seeds))} (training lengths {spec.task.min_len}-{spec.task.max_len})",
        f"{'seed':>4} {'length':>6} {'accuracy':>8} {'offset':>6} {'peak':>6} {'a*':>6}",
    ]
    seeds = []
    for run_ in runs:
        rows = [row.summary() for row in run_.evals]
        seeds.append({"seed": run_.seed, "eval": rows})
        for r in rows:
            lines.append(
                f"{run_.seed:>4} {r['length']:>6} {r['accuracy']:>8.3f} {r['selected_offset']:>6} "
                f"{r['peak_height']:>6.3f} {r['target_weight']:>6.3f}"
            )
    config = {**spec.to_dict(), "eval": eval_dict(evaluation_cfg), "seeds": list(args.seeds)}
    emit(args, "\n".join(lines), {"config": config, "seeds": seeds})
    return 0
