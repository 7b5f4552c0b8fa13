"""``lengthgen linear``: the linear-attention control beside the softmax head (C11)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_offsets_option, add_run_options, context, emit_result, make_cache
from lengthgen.experiments.linear import run_linear

NAME = "linear"
HELP = "C11: RoPE with unnormalised linear attention vs softmax: accuracy per length and carrier geometry"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_offsets_option(parser, (2, 3))
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    result = run_linear(context(args), make_cache(args), args.offsets)
    return emit_result(args, result)
