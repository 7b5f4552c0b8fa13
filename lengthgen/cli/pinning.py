"""``lengthgen pinning``: where the APE head's attention peaks beyond the training range (C8)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_offsets_option, add_run_options, context, emit_result, make_cache
from lengthgen.experiments.pinning import run_pinning

NAME = "pinning"
HELP = "C8: the APE head's peak absolute position at every length beyond the training range"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_offsets_option(parser, (1, 2, 3))
    add_run_options(parser, seeds="0-7")


def run(args: argparse.Namespace) -> int:
    result = run_pinning(context(args), make_cache(args), args.offsets)
    return emit_result(args, result)
