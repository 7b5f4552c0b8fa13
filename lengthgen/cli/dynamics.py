"""``lengthgen dynamics``: carrier and rank concentration along training, from the recorded trajectory (C16)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_offsets_option, add_run_options, context, emit_result, make_cache
from lengthgen.experiments.dynamics import run_dynamics

NAME = "dynamics"
HELP = "C16: when the carrier fractions and the top singular-value energy of W_Q^T W_K emerge in training"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_offsets_option(parser, (2, 3))
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    result = run_dynamics(context(args), make_cache(args), args.offsets)
    return emit_result(args, result)
