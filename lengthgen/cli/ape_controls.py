"""``lengthgen ape-controls``: the APE head under weight decay (C9) and inference-time fixes (C10)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_offsets_option, add_run_options, context, emit, make_cache, word_list
from lengthgen.config import parse_seeds
from lengthgen.experiments.ape_controls import WEIGHT_DECAYS, run_ape_fixes, run_weight_decay
from lengthgen.probes.ape_fixes import FIXES

NAME = "ape-controls"
HELP = "C9/C10: APE accuracy beyond Lmax under Adam weight decay and under inference-time table fixes"
PARTS = ("weight-decay", "fixes", "all")
DEFAULT_SEEDS = {"weight-decay": "0-4", "fixes": "0-7"}  # as the claim tests at paper scale
GRID_SEEDS = "0-7"  # weight decay 0 is the C1 grid's model: its 8 seeds (claim C9)


def float_list(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of numbers") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--part", choices=PARTS, default="all", help="which control to run (default all)")
    add_offsets_option(parser, (1, 2, 3))
    parser.add_argument(
        "--decays",
        type=float_list,
        default=WEIGHT_DECAYS,
        metavar="L1,L2,...",
        help="coupled Adam weight decays (default 0,1e-4,1e-2)",
    )
    parser.add_argument(
        "--fixes",
        type=word_list,
        default=FIXES,
        metavar="F1,F2,...",
        help=f"inference-time fixes (default {','.join(FIXES)})",
    )
    add_run_options(parser, seeds="0-7")
    parser.set_defaults(seeds=None)
    parser.epilog = (
        "Without --seeds: weight decay uses seeds 0-4 for each lambda > 0 and the C1 grid's 0-7 for "
        "lambda = 0; the fixes the C1 grid's 0-7."
    )


def run(args: argparse.Namespace) -> int:
    cache = make_cache(args)
    parts = ("weight-decay", "fixes") if args.part == "all" else (args.part,)
    for decay in args.decays:
        if decay < 0:
            raise ValueError(f"weight decay {decay} must be non-negative")
    tables, data = [], {}
    for part in parts:
        seeds = args.seeds if args.seeds is not None else parse_seeds(DEFAULT_SEEDS[part])
        if part == "weight-decay":
            grid_seeds = args.seeds if args.seeds is not None else parse_seeds(GRID_SEEDS)
            result = run_weight_decay(
                context(args, seeds=seeds), cache, args.offsets, args.decays, grid_seeds=grid_seeds
            )
        else:
            result = run_ape_fixes(context(args, seeds=seeds), cache, args.offsets, args.fixes)
        tables.append(result.table())
        data[part] = result.to_json()
    emit(args, "\n\n".join(tables), data)
    return 0
