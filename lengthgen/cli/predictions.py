"""``lengthgen predictions``: the predictions beyond the paper (P1-P6) on the C1 grid's heads and NoPE heads."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import add_run_options, context, emit, make_cache, word_list
from lengthgen.config import parse_seeds
from lengthgen.experiments import predictions as P

NAME = "predictions"
HELP = "P1-P6: far selection, out-of-sample dilution, APE far out, interpolation, NoPE, logit scaling"
PARTS = ("P1", "P2", "P3", "P4", "P5", "P6")
DEFAULT_SEEDS = {"P1": "0-7", "P2": "0-4", "P3": "0-7", "P4": "0-7", "P5": "0-4", "P6": "0-7"}  # as the claim tests


def parts_arg(text: str) -> tuple[str, ...]:
    parts = tuple(p.upper() for p in word_list(text))
    unknown = [p for p in parts if p not in PARTS]
    if unknown or not parts:
        raise argparse.ArgumentTypeError(
            f"unknown prediction {unknown[0] if unknown else text!r} (known: {', '.join(PARTS)})"
        )
    return parts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--only", type=parts_arg, default=PARTS, metavar="P1,P2,...", help="which predictions to run (default all)"
    )
    add_run_options(parser, seeds="0-7")
    parser.set_defaults(seeds=None)
    parser.epilog = (
        "Without --seeds each prediction uses its claim test's seeds (P2, P5: 0-4; the others: the C1 "
        "grid's 0-7). The C1 grid's models come from the cache; only P5 trains new (NoPE) models."
    )


def run(args: argparse.Namespace) -> int:
    if args.steps < 1 or args.sequences < 1:
        raise ValueError(f"--steps {args.steps} and --sequences {args.sequences} must be at least 1")
    cache = make_cache(args)
    tables, data = [], {}
    for part in args.only:
        ctx = context(args, seeds=args.seeds if args.seeds is not None else parse_seeds(DEFAULT_SEEDS[part]))
        if part == "P1":
            result = P.run_far(ctx, cache, "rope")
        elif part == "P2":
            result = P.run_out_of_sample(ctx, cache)
        elif part == "P3":
            result = P.run_far(ctx, cache, "ape")
        elif part == "P4":
            result = P.run_interpolation(ctx, cache)
        elif part == "P5":
            result = P.run_nope(ctx, cache)
        else:
            result = P.run_scaling(ctx, cache)
        tables.append(f"{part}\n{result.table()}")
        data[part] = result.to_json()
    emit(args, "\n\n".join(tables), data)
    return 0
