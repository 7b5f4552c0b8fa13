"""The ``lengthgen`` command: one subcommand per experiment (and ``train`` for one configuration), generated from
one table (:mod:`lengthgen.cli.table`), and the subcommands of their own modules: those that render a
``claims.json`` (:data:`RENDERS`) and ``fingerprint``.

Each module of this package (but the helpers, :data:`HELPERS`) is a subcommand: it defines ``NAME`` (the
subcommand: the module's name with dashes, e.g. ``fingerprint`` in ``fingerprint.py``), ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``. Each row of the table is an experiment subcommand: the
experiment's function and the arguments it declares. Bad input exits with status 2 and one line naming the bad
value.

A command line imports what the subcommand it names needs alone (:func:`requested`): a module subcommand its own
module (found from the package's files, :func:`command_modules`), an experiment subcommand the table (which
imports no torch) and its own experiment's module (where its parser reads a default from it, and when it runs); a
subcommand that renders a ``claims.json`` imports no torch, nor sets torch up. ``lengthgen --help``, or a word
that names no subcommand, builds them all.

``lengthgen --help`` lists the subcommands by purpose (:data:`GROUPS`: run, inspect, compare, record); a word that
names no subcommand is one line and exit status 2 that suggests the closest (:func:`unknown_command`).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import pkgutil
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Sequence

import lengthgen
from lengthgen.cli.common import EXIT_USAGE, Parser, UsageError

DESCRIPTION = "The lengthgen command: run the paper's experiments and claims, inspect and compare recorded runs."
HELPERS = ("common", "table", "multiverse_record")  # modules of this package that define no subcommand
GROUPS = (  # the help's groups of module subcommands, by purpose: (group, what its subcommands do, their names);
    # every experiment subcommand is in the first (tests/integration/test_cli.py: each subcommand in one group)
    ("run", "train models: one experiment, or named claims as their tests run them", ("run",)),
    (
        "inspect",
        "read a recorded run (--run PATH; write only with --out PATH), or what decides the numbers",
        ("report", "robustness", "multiverse", "fingerprint"),
    ),
    ("compare", "two recorded runs", ("diff",)),
    ("record", "write the project's recorded files (and multiverse --record FILE)", ("docs", "timed")),
)
RENDERS = ("report", "diff", "robustness", "multiverse", "docs", "timed")  # subcommands that read a claims.json (or,
# timed, run another command) and compute nothing: no torch threads, device or workers are set up for them
# (tests/integration/test_import_layers.py: no torch)


def command_modules() -> list[str]:
    """Every module of this package that defines a subcommand (all but the helpers in ``HELPERS``), by name."""
    return sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name not in HELPERS)


def command_name(module: str) -> str:
    """The subcommand a module of this package defines (its ``NAME``): the module's name with dashes."""
    return module.replace("_", "-")


def command_names() -> list[str]:
    """Every subcommand, as ``lengthgen --help`` lists them: the experiments in the table's order, then the
    subcommands of their own modules by name."""
    from lengthgen.cli.table import TABLE

    return [experiment.name for experiment in TABLE] + [command_name(m) for m in command_modules()]


def requested(argv: Sequence[str]) -> list[str] | None:
    """The subcommand that ``argv`` names (its first word that is not an option), alone; None (every subcommand)
    when that word names none or there is none (``--help``, ``--version``)."""
    word = next((w for w in argv if not w.startswith("-")), None)
    if word is None:
        return None
    if word in {command_name(m) for m in command_modules()}:
        return [word]
    from lengthgen.cli.table import BY_NAME  # no torch: the experiment's module is imported as its parser is built

    return [word] if word in BY_NAME else None


def group_of(name: str) -> str:
    """The help's group of a subcommand (:data:`GROUPS`; an experiment subcommand: the first)."""
    return next((group for group, _, names in GROUPS if name in names), GROUPS[0][0])


def grouped_help(helps: dict[str, str], width: int | None = None) -> str:
    """The subcommands and their one-line helps (``helps``) under their groups' titles: in each group the names it
    lists first, then the experiments in the table's order; wrapped to ``width`` (default: the terminal's)."""
    width = width or max(60, min(shutil.get_terminal_size().columns - 2, 120))
    column = min(max(len(name) for name in helps) + 4, 20)
    blocks = []
    for group, what, names in GROUPS:
        lines = [f"{group}: {what}"]
        for name in [n for n in names if n in helps] + [n for n in helps if group_of(n) == group and n not in names]:
            lines += textwrap.wrap(
                helps[name], width, initial_indent=f"  {name:<{column - 2}}", subsequent_indent=" " * column
            )
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def unknown_command(word: str) -> str:
    """The one line for a word that names no subcommand: the closest names, if any are close."""
    close = difflib.get_close_matches(word, command_names(), n=3)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}?" if close else "`lengthgen --help` lists them"
    return f"lengthgen: error: {word!r} is not a lengthgen command; {hint}"


def build_parser(names: Sequence[str] | None = None) -> Parser:
    """The command's parser with the subcommands ``names`` (default: every one, :func:`command_names`, listed by
    group in its help); each subcommand's module (a module subcommand's own, an experiment's) is imported as its
    parser is built."""
    parser = Parser(prog="lengthgen", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"lengthgen {lengthgen.__version__}")
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        parser_class=Parser,
        help="one of the subcommands below (lengthgen COMMAND --help: its options)",
    )
    modules = {command_name(m): m for m in command_modules()}
    helps = {}
    for name in command_names() if names is None else names:
        if name in modules:
            module = importlib.import_module(f"lengthgen.cli.{modules[name]}")
            helps[name] = module.HELP
            command = sub.add_parser(module.NAME, description=module.HELP)
            module.add_arguments(command)
            command.set_defaults(handler=module.run)
        else:
            from lengthgen.cli.table import BY_NAME

            experiment = BY_NAME[name]
            helps[name] = experiment.help
            command = sub.add_parser(name, description=experiment.help, epilog=experiment.epilog or None)
            experiment.add_arguments(command)
            command.set_defaults(handler=experiment.run)
    parser.epilog = grouped_help(helps)  # the subparsers are added without help=: argparse lists them in one
    # flat list otherwise, and the groups say the same by purpose
    return parser


def set_up_compute(args):
    """torch's threads of a subcommand that computes (its ``--threads``; 1 without it), and its
    :class:`~lengthgen.runtime.Runtime`: the device, the worker processes and the Dask cluster (``--device``,
    ``--workers``, ``--scheduler``; cpu, 1 and none for one without them), the cluster connected now."""
    import torch  # heavy, and only for a subcommand that computes: one that renders (RENDERS) imports no torch

    from lengthgen.engine import cluster
    from lengthgen.runtime import Runtime  # imports torch

    threads = getattr(args, "threads", 1)
    if threads < 1:
        raise ValueError(f"--threads {threads} must be at least 1")
    torch.set_num_threads(threads)
    runtime = Runtime(getattr(args, "device", "cpu"), getattr(args, "workers", 1), getattr(args, "scheduler", None))
    try:
        cluster.client(runtime)  # unreachable, or no distributed installed: a usage error
    except ValueError:
        runtime.close()
        raise
    return runtime


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    word = next((w for w in argv if not w.startswith("-")), None)
    names = requested(argv)
    if word is not None and names is None:  # a typo: one line with the closest names, not argparse's list of all
        sys.stderr.write(unknown_command(word) + "\n")
        return EXIT_USAGE
    parser = build_parser(names)
    args = parser.parse_args(argv)
    prog = f"lengthgen {args.command}"
    try:
        if args.command in RENDERS:
            return args.handler(args)
        args.runtime = set_up_compute(args)  # the handler's device, training processes and cluster
        with args.runtime:
            return args.handler(args)
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
