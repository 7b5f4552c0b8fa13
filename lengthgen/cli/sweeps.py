"""``lengthgen sweeps``: carrier fraction over width, vocabulary, length range, temperature (C17) and the
dilution rate per width (C18)."""

from __future__ import annotations

import argparse

from lengthgen.cli.ape_controls import float_list
from lengthgen.cli.common import add_offsets_option, add_run_options, context, emit, int_list, make_cache
from lengthgen.experiments.sweeps import SWEEP, run_carrier_sweep, run_width_dilution

NAME = "sweeps"
HELP = "C17/C18: carrier fraction across d, m, length range, temperature; dilution rate c per width"
PARTS = ("carrier", "dilution", "all")


def range_list(text: str) -> tuple[tuple[int, int], ...]:
    """``4-12,8-16`` -> ((4, 12), (8, 16))."""
    try:
        ranges = tuple(tuple(int(x) for x in part.split("-")) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of length ranges like 4-12,8-16") from None
    if any(len(r) != 2 for r in ranges):
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of length ranges like 4-12,8-16")
    return ranges


def _text(values) -> str:
    return ",".join(f"{v[0]}-{v[1]}" if isinstance(v, tuple) else f"{v:g}" for v in values)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--part", choices=PARTS, default="all", help="which sweep to run (default all)")
    add_offsets_option(parser, (2, 3))
    parser.add_argument(
        "--widths",
        type=int_list,
        default=SWEEP["width"],
        metavar="D1,D2,...",
        help=f"widths d (default {_text(SWEEP['width'])}); also C18's widths",
    )
    parser.add_argument(
        "--vocabs",
        type=int_list,
        default=SWEEP["vocab"],
        metavar="M1,M2,...",
        help=f"vocabulary sizes m (default {_text(SWEEP['vocab'])})",
    )
    parser.add_argument(
        "--length-ranges",
        type=range_list,
        default=SWEEP["lengths"],
        metavar="A-B,C-D",
        help=f"training length ranges (default {_text(SWEEP['lengths'])})",
    )
    parser.add_argument(
        "--temperatures",
        type=float_list,
        default=SWEEP["temperature"],
        metavar="T1,T2,...",
        help=f"softmax temperatures (default {_text(SWEEP['temperature'])})",
    )
    add_run_options(parser, seeds="0-4")


def run(args: argparse.Namespace) -> int:
    cache = make_cache(args)
    parts = ("carrier", "dilution") if args.part == "all" else (args.part,)
    tables, data = [], {}
    if "carrier" in parts:
        sweep = {
            "width": args.widths,
            "vocab": args.vocabs,
            "lengths": args.length_ranges,
            "temperature": args.temperatures,
        }
        result = run_carrier_sweep(context(args), cache, args.offsets, sweep)
        tables.append(result.table())
        data["carrier"] = result.to_json()
    if "dilution" in parts:
        result = run_width_dilution(context(args), cache, args.offsets, args.widths)
        tables.append(result.table())
        data["dilution"] = result.to_json()
    emit(args, "\n\n".join(tables), data)
    return 0
