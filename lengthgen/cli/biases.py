"""``lengthgen biases``: ALiBi and T5 relative bias against RoPE on the fixed-offset task (C19)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_offsets_option, add_run_options, context, emit_result, make_cache, word_list
from lengthgen.experiments.biases import ENCODINGS, run_biases

NAME = "biases"
HELP = "C19: ALiBi / T5 bias / RoPE: accuracy inside and beyond the training range, selected offset per length"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_offsets_option(parser, (1, 2, 3))
    parser.add_argument(
        "--encodings", type=word_list, default=ENCODINGS, metavar="E1,E2,...", help=f"default {','.join(ENCODINGS)}"
    )
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    result = run_biases(context(args), make_cache(args), args.offsets, args.encodings)
    return emit_result(args, result)
