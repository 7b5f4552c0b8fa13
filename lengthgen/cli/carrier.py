"""``lengthgen carrier``: carrier geometry of the RoPE heads against their initialisation (C4, C5, C20)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import (
    add_lengths_option,
    add_offsets_option,
    add_run_options,
    context,
    emit_result,
    make_cache,
)
from lengthgen.experiments.carrier import run_carrier

NAME = "carrier"
HELP = "C4/C5/C20: carrier fractions, cos(m_Q, R_-K m_K) and the peak of phi_c, trained vs untrained"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_offsets_option(parser, (1, 2, 3))
    add_lengths_option(parser, "evaluation lengths for the accuracy column")
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    result = run_carrier(context(args, args.lengths), make_cache(args), args.offsets)
    return emit_result(args, result)
