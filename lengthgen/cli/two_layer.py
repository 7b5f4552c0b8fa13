"""``lengthgen two-layer``: the two-layer, four-head transformer on the shift task, RoPE against APE (C12, C13)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_lengths_option, add_run_options, context, emit_result, make_cache, word_list
from lengthgen.experiments.two_layer import OFFSET, PAPER_SEEDS, STEPS, WIDTH, run_two_layer

NAME = "two-layer"
HELP = "C12/C13: a 2-layer 4-head transformer on the shift task; accuracy beyond the training range, retrieving head"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--encodings",
        type=word_list,
        default=("rope", "ape"),
        metavar="E1,E2",
        help="rope and/or ape (default rope,ape)",
    )
    parser.add_argument("--offset", type=int, default=OFFSET, metavar="K", help=f"shift K (default {OFFSET})")
    parser.add_argument("--width", type=int, default=WIDTH, metavar="D", help=f"model width d (default {WIDTH})")
    add_lengths_option(parser)
    add_run_options(parser, seeds=f"0-{PAPER_SEEDS - 1}", steps=STEPS["paper"])


def run(args: argparse.Namespace) -> int:
    result = run_two_layer(context(args, args.lengths), make_cache(args), args.encodings, args.offset, d=args.width)
    return emit_result(args, result)
