"""The ``lengthgen`` command: one subcommand per experiment (and ``train`` for one configuration).

Each module of this package (but ``common``) is a subcommand: it defines ``NAME`` (the subcommand, e.g.
``ape-controls`` in ``ape_controls.py``), ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``,
and calls the same experiment function as the claim tests. Bad input exits with status 2 and one line
naming the bad value.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path
from typing import Sequence

from lengthgen.cli.common import EXIT_USAGE, Parser, UsageError

HELPERS = ("common", "until_decided")  # modules of this package that define no subcommand
FIRST = ("train", "phenomenon", "pinning", "kernel")  # listed first by ``lengthgen --help``; the rest by name


def command_modules() -> list[str]:
    """Every module of this package that defines a subcommand (all but the helpers in ``HELPERS``)."""
    found = [m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name not in HELPERS]
    return [name for name in FIRST if name in found] + sorted(n for n in found if n not in FIRST)


def build_parser() -> Parser:
    import lengthgen

    parser = Parser(prog="lengthgen", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"lengthgen {lengthgen.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for name in command_modules():
        module = importlib.import_module(f"lengthgen.cli.{name}")
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(handler=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    prog = f"lengthgen {args.command}"
    try:
        import torch

        threads = getattr(args, "threads", 1)
        if threads < 1:
            raise ValueError(f"--threads {threads} must be at least 1")
        torch.set_num_threads(threads)
        from lengthgen.device import set_device
        from lengthgen.engine.parallel import set_workers

        set_device(getattr(args, "device", "cpu"))
        set_workers(getattr(args, "workers", 1))
        from lengthgen.engine import cluster

        if getattr(args, "scheduler", None):  # unreachable, or no distributed installed: a usage error
            cluster.connect(args.scheduler)
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
