"""``lengthgen train``: train one configuration over seeds and print accuracy and probes per length."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_lengths_option, add_run_options, context, emit, make_cache
from lengthgen.config import ENCODINGS
from lengthgen.experiments.common import eval_dict, paper_spec, train_and_evaluate
from lengthgen.experiments.results import Column, text_table

NAME = "train"
HELP = "train one configuration over seeds; per seed and length: accuracy, selected offset, peak, a*"


COLUMNS = (  # one line per (seed, LengthEval)
    Column("seed", lambda line: line[0], ">4"),
    Column("length", lambda line: line[1].length, ">6"),
    Column("accuracy", lambda line: line[1].accuracy, ">8.3f"),
    Column("offset", lambda line: line[1].selected_offset(), ">6"),
    Column("peak", lambda line: line[1].peak_height(), ">6.3f"),
    Column("a*", lambda line: line[1].target_weight[0], ">6.3f"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--encoding", required=True, choices=ENCODINGS, help="positional encoding")
    parser.add_argument("--offset", type=int, required=True, metavar="K", help="target offset K (1 <= K < 8)")
    add_lengths_option(parser)
    parser.add_argument("--base", type=float, default=1e4, metavar="B", help="RoPE base (default 1e4)")
    add_run_options(parser, seeds="0-7")


def run(args: argparse.Namespace) -> int:
    positions = max(48, *args.lengths)  # the APE table covers the longest evaluation length
    ctx = context(args, args.lengths)
    spec = paper_spec(
        ctx,
        task={"offset": args.offset},
        model={"encoding": args.encoding, "rope_base": args.base, "positions": positions},
    )
    evaluation_cfg = ctx.evaluation
    runs = train_and_evaluate(ctx, make_cache(args), [spec])[spec]
    title = (
        f"encoding={args.encoding} K={args.offset} base={args.base:g} steps={args.steps} "
        f"seeds={','.join(map(str, args.seeds))} (training lengths {spec.task.min_len}-{spec.task.max_len})"
    )
    table = text_table(title, COLUMNS, [(run_.seed, row) for run_ in runs for row in run_.evals])
    config = {**spec.to_dict(), "eval": eval_dict(evaluation_cfg), "seeds": list(args.seeds)}
    seeds = [{"seed": run_.seed, "eval": [row.summary() for row in run_.evals]} for run_ in runs]
    emit(args, table, {"config": config, "seeds": seeds})
    return 0
