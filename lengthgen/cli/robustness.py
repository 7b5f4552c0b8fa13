"""``lengthgen robustness``: the robustness map (issue 14), claims x settings, a verdict in each cell.

``pytest claims -m robustness -n auto`` runs the map (each cell a claim's own checks at a setting off the
paper's point) and stores its cells in ``reports/claims.json``; this command prints the map from there
(settings as columns, claims as rows, then every cell that did not reproduce with its failed checks'
numbers) and writes it as JSON (``--json``, default ``robustness.json`` beside the report). No training.
``--list`` prints the settings registry (``lengthgen.experiments.robustness``) instead.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lengthgen.cli.common import emit

NAME = "robustness"
HELP = "print the robustness map (claims x settings) from reports/claims.json and write it as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--report", type=Path, default=Path("reports/claims.json"), metavar="PATH",
                        help="the claims.json holding the map's cells (default reports/claims.json)")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH",
                        help="where the map is written (default: robustness.json beside --report)")
    parser.add_argument("--list", action="store_true", help="print the settings and the claims each applies to")


def settings_table() -> str:
    from lengthgen.experiments.robustness import SETTINGS

    width = max(len(s.name) for s in SETTINGS)
    lines = [f"{'setting':<{width}}  {'Lmax':>4} {'1/m':>6}  claims  (what changes)"]
    for s in SETTINGS:
        lines.append(f"{s.name:<{width}}  {s.max_len:>4} {s.chance:>6.3g}  {', '.join(s.claims)}  ({s.what})")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.list:
        print(settings_table())
        return 0
    from lengthgen.report.data import load
    from lengthgen.report.robustness import build_map, map_lines

    if not args.report.exists():
        raise ValueError(f"{str(args.report)!r} does not exist (run `pytest claims -m robustness -n auto` first, "
                         "or pass --report)")
    cells = load(args.report).get("robustness") or []
    if not cells:
        raise ValueError(f"{str(args.report)!r} holds no robustness map (run `pytest claims -m robustness -n auto`)")
    args.json = args.json if args.json is not None else args.report.parent / "robustness.json"
    emit(args, "\n".join(map_lines(cells)), build_map(cells))
    return 0
