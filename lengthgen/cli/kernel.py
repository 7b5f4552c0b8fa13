"""``lengthgen kernel``: the rotary kernel g(s) and its maximum (C15)."""

from __future__ import annotations

import argparse

from lengthgen.cli.common import emit_result
from lengthgen.experiments.kernel import run_kernel

NAME = "kernel"
HELP = "C15: g(s) = sum_j cos(s theta_j): unique maximum at 0 and max_{s>=4} g(s)/g(0) per base"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--d", type=int, default=64, help="head width (default 64)")
    parser.add_argument(
        "--bases",
        type=lambda t: tuple(float(x) for x in t.split(",")),
        default=(1e3, 1e4, 1e5),
        metavar="B1,B2,...",
        help="RoPE bases (default 1e3,1e4,1e5)",
    )
    parser.add_argument("--json", type=__import__("pathlib").Path, default=None, metavar="PATH")


def run(args: argparse.Namespace) -> int:
    if args.d < 2 or args.d % 2:
        raise ValueError(f"--d {args.d} must be an even width >= 2")
    result = run_kernel(args.d, args.bases)
    return emit_result(args, result)
