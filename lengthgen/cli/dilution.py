"""``lengthgen dilution``: a*(L), the fit of 1/a* on L-1 and the margin bound (C6, C7)."""

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
from lengthgen.experiments.dilution import run_dilution

NAME = "dilution"
HELP = "C6/C7: target weight a*(L), dilution fit of 1/a* on L-1, worst-case margin bound beside a*(L)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_offsets_option(parser, (2, 3))
    add_lengths_option(parser, "evaluation lengths, at most 48")
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    result = run_dilution(context(args, args.lengths), make_cache(args), args.offsets)
    return emit_result(args, result)
