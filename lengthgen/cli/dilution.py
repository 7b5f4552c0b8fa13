"""``lengthgen dilution``: a*(L), the fit of 1/a* on L-1 and the margin bound (C6, C7)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_run_options, emit, evaluation, int_list, make_cache
from lengthgen.config import PAPER_EVAL_LENGTHS
from lengthgen.experiments.dilution import run_dilution

NAME = "dilution"
HELP = "C6/C7: target weight a*(L), dilution fit of 1/a* on L-1, worst-case margin bound beside a*(L)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--offsets", type=int_list, default=(2, 3), metavar="K1,K2,...", help="default 2,3")
    parser.add_argument(
        "--lengths",
        type=int_list,
        default=PAPER_EVAL_LENGTHS,
        metavar="L1,L2,...",
        help="evaluation lengths, at most 48 (default 12,16,20,24,32,40,48)",
    )
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    result = run_dilution(args.seeds, args.steps, args.offsets, evaluation(args, args.lengths), make_cache(args))
    emit(args, result.table(), result.to_dict())
    return 0
