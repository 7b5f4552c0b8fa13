"""The ``lengthgen`` command: one subcommand per experiment (and ``train`` for one configuration), and the
subcommands that render a ``claims.json`` (:data:`RENDERS`).

Each module of this package (but the helpers, :data:`HELPERS`) is a subcommand: it defines ``NAME`` (the
subcommand: the module's name with dashes, e.g. ``ape-controls`` in ``ape_controls.py``), ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``, and calls the same experiment function as the claim tests.
Bad input exits with status 2 and one line naming the bad value.

The subcommands are found from the package's files (:func:`command_modules`), and a command line imports the
module of the subcommand it names alone (:func:`requested`): an experiment's module imports torch, and a
subcommand that renders a ``claims.json`` imports none, nor sets torch up. ``lengthgen --help``, or a word
that names no subcommand, builds them all.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path
from typing import Sequence

import lengthgen
from lengthgen.cli.common import EXIT_USAGE, Parser, UsageError
from lengthgen.engine import cluster  # imports nothing of distributed (nor torch) until asked to connect

HELPERS = ("common", "until_decided", "multiverse_record")  # modules of this package that define no subcommand
FIRST = ("train", "phenomenon", "pinning", "kernel")  # listed first by ``lengthgen --help``; the rest by name
RENDERS = ("report", "diff", "robustness", "multiverse", "docs", "timed")  # subcommands that read a claims.json (or,
# timed, run another command) and compute nothing: no torch threads, device or workers are set up for them
# (tests/integration/test_import_layers.py: no torch)


def command_modules() -> list[str]:
    """Every module of this package that defines a subcommand (all but the helpers in ``HELPERS``)."""
    found = [m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name not in HELPERS]
    return [name for name in FIRST if name in found] + sorted(n for n in found if n not in FIRST)


def command_name(module: str) -> str:
    """The subcommand a module of this package defines (its ``NAME``): the module's name with dashes."""
    return module.replace("_", "-")


def requested(argv: Sequence[str]) -> list[str] | None:
    """The module of the subcommand that ``argv`` names (its first word that is not an option), alone; None
    (every module) when that word names no subcommand or there is none (``--help``, ``--version``)."""
    by_name = {command_name(m): m for m in command_modules()}
    word = next((w for w in argv if not w.startswith("-")), None)
    return [by_name[word]] if word in by_name else None


def build_parser(modules: Sequence[str] | None = None) -> Parser:
    """The command's parser with the subcommands of ``modules`` (default: every one, :func:`command_modules`);
    each module is imported as its subcommand is added."""
    parser = Parser(prog="lengthgen", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"lengthgen {lengthgen.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for name in command_modules() if modules is None else modules:
        module = importlib.import_module(f"lengthgen.cli.{name}")
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(handler=module.run)
    return parser


def set_up_compute(args) -> None:
    """torch's threads, the device and the worker processes of a subcommand that computes (its ``--threads``,
    ``--device``, ``--workers``; 1, cpu and 1 for one without them), and its Dask cluster (``--scheduler``)."""
    import torch  # heavy, and only for a subcommand that computes: one that renders (RENDERS) imports no torch

    from lengthgen.device import set_device  # imports torch
    from lengthgen.engine.parallel import set_workers  # imports torch

    threads = getattr(args, "threads", 1)
    if threads < 1:
        raise ValueError(f"--threads {threads} must be at least 1")
    torch.set_num_threads(threads)
    set_device(getattr(args, "device", "cpu"))
    set_workers(getattr(args, "workers", 1))
    if getattr(args, "scheduler", None):  # unreachable, or no distributed installed: a usage error
        cluster.connect(args.scheduler)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(requested(argv))
    args = parser.parse_args(argv)
    prog = f"lengthgen {args.command}"
    try:
        if args.command not in RENDERS:
            set_up_compute(args)
        try:
            return args.handler(args)
        finally:
            cluster.close()
    except (ValueError, UsageError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        sys.stderr.write(f"{prog}: error: {message}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into a command that stopped reading (e.g. head)
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
