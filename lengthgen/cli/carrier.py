"""``lengthgen carrier``: carrier geometry of the RoPE heads against their initialisation (C4, C5, C20)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_run_options, emit, evaluation, int_list, make_cache
from lengthgen.config import PAPER_EVAL_LENGTHS
from lengthgen.experiments.carrier import run_carrier

NAME = "carrier"
HELP = "C4/C5/C20: carrier fractions, cos(m_Q, R_-K m_K) and the peak of phi_c, trained vs untrained"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--offsets", type=int_list, default=(1, 2, 3), metavar="K1,K2,...", help="default 1,2,3")
    parser.add_argument(
        "--lengths",
        type=int_list,
        default=PAPER_EVAL_LENGTHS,
        metavar="L1,L2,...",
        help="evaluation lengths for the accuracy column (default 12,16,20,24,32,40,48)",
    )
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    result = run_carrier(args.seeds, args.steps, args.offsets, evaluation(args, args.lengths), make_cache(args))
    emit(args, result.table(), result.to_dict())
    return 0
