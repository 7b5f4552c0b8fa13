"""``lengthgen content``: the content-conditioned task with H in {1, 2, 4} heads (C21, C22)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_run_options, context, emit_result, int_list, make_cache
from lengthgen.experiments.content import HEADS, OFFSETS, run_content

NAME = "content"
HELP = "C21/C22: content-conditioned task (query token picks K1 or K2), RoPE with H heads: accuracy, W energy, peak"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--heads",
        type=int_list,
        default=HEADS,
        metavar="H1,H2,...",
        help=f"head counts, each dividing d = 64 (default {','.join(map(str, HEADS))})",
    )
    parser.add_argument(
        "--offsets",
        type=int_list,
        default=OFFSETS,
        metavar="K1,K2",
        help="the two offsets: query token < m/2 asks K1, else K2 (default 2,3)",
    )
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    if len(args.offsets) != 2:
        raise ValueError(f"--offsets {','.join(map(str, args.offsets))} must name exactly two offsets K1,K2")
    result = run_content(context(args), make_cache(args), args.heads, args.offsets)
    return emit_result(args, result)
