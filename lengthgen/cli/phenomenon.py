"""``lengthgen phenomenon``: the C1 grid (RoPE and APE, K in {1,2,3}, 8 seeds)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_offsets_option, add_run_options, context, emit_result, make_cache, word_list
from lengthgen.experiments.phenomenon import run_phenomenon

NAME = "phenomenon"
HELP = "the C1 grid: accuracy per length for RoPE and APE, K in {1,2,3}, over seeds"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_offsets_option(parser, (1, 2, 3))
    parser.add_argument(
        "--encodings", type=word_list, default=("rope", "ape"), metavar="E1,E2", help="default rope,ape"
    )
    add_run_options(parser, seeds="0-7")


def run(args: argparse.Namespace) -> int:
    result = run_phenomenon(context(args), make_cache(args), args.offsets, args.encodings)
    return emit_result(args, result)
