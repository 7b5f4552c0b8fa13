"""``lengthgen multiverse``: the multiverse (issue 20), readings x claims, a verdict in each cell.

``pytest claims -m multiverse -n auto`` runs it (each cell a claim's own checks under another reading of a
choice the paper leaves open, or under every alternative at once) and stores its cells in
``reports/claims.json``; this command prints the grid from there (claims as rows; the suite's own
reading, the claims table's verdict, as the first column, then one column per reading; then every cell
whose verdict differs from the paper's point, with its failed checks' numbers) and writes it as JSON (``--json``,
default ``multiverse.json`` beside the report). No training. ``--list`` prints the registry
(``lengthgen.experiments.multiverse``): the choices, their readings, who reads them so, the claims each
touches, the cells left out, and the choices left at one reading.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lengthgen.cli.common import add_claims_option, beside, emit, read_claims

NAME = "multiverse"
HELP = "print the multiverse (readings x claims) from reports/claims.json and write it as JSON"
RUN_GRID = "pytest claims -m multiverse -n auto"  # the run that stores the grid's cells


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_claims_option(parser, "--report", "the claims.json holding the multiverse's cells")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH",
                        help="where the grid is written (default: multiverse.json beside --report)")
    parser.add_argument("--list", action="store_true",
                        help="print the registry: choices, readings, who reads them so, claims touched")


def registry_text() -> str:
    from lengthgen.experiments.multiverse import ALL_ALTERNATIVES, CHOICES, LEFT_AT_ONE_READING, READINGS, left_out

    lines = ["choices the paper leaves open (the suite's reading is the default; every number is measured under it)"]
    for choice in CHOICES:
        lines.append(f"{choice.name}: suite: {choice.suite} (open: {choice.why_open})")
        for r in (r for r in READINGS if r.choice == choice.name):
            lines.append(f"  {r.name}: {r.what}")
            lines.append(f"    who: {r.who}")
            lines.append(f"    claims: {', '.join(r.claims)}")
    lines.append(f"{ALL_ALTERNATIVES.name}: every alternative reading at once; claims: {', '.join(ALL_ALTERNATIVES.claims)}")
    for universe, claim, why in left_out():
        lines.append(f"left out: {claim} under {universe}: {why}")
    lines.append("left at one reading:")
    lines += [f"  {name}: {why}" for name, why in LEFT_AT_ONE_READING]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.list:
        print(registry_text())
        return 0
    from lengthgen.report.multiverse import build_grid, grid_lines
    from lengthgen.report.run_view import RunView

    view = RunView.from_json(read_claims(args.report, missing=f"run `{RUN_GRID}` first, or pass --report"))
    if not view.multiverse:
        raise ValueError(f"{str(args.report)!r} holds no multiverse (run `{RUN_GRID}`)")
    args.json = beside(args.report, args.json, "multiverse.json")
    emit(args, "\n".join(grid_lines(view.multiverse, records=view.records)),
         build_grid(view.multiverse, view.records))
    return 0
