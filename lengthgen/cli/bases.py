"""``lengthgen bases``: the RoPE head at several rotary bases (C14)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_offsets_option, add_run_options, context, emit_result, make_cache
from lengthgen.experiments.bases import PAPER_BASES, run_bases

NAME = "bases"
HELP = "C14: accuracy and selected offset per length for RoPE bases 1e3, 1e4, 1e5"


def base_list(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of numbers") from None
    return values


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_offsets_option(parser, (2, 3))
    parser.add_argument(
        "--bases", type=base_list, default=PAPER_BASES, metavar="B1,B2,...", help="RoPE bases (default 1e3,1e4,1e5)"
    )
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    result = run_bases(context(args), make_cache(args), args.offsets, args.bases)
    return emit_result(args, result)
