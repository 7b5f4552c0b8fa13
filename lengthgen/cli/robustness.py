"""``lengthgen robustness``: the robustness map, claims x settings, a verdict in each cell.

``pytest claims -m robustness -n auto`` runs the map (each cell a claim's own checks at a setting off the
paper's point) and stores its cells in ``reports/claims.json``; this command prints the map from there
(settings as columns, claims as rows, then every cell that did not reproduce with its failed checks'
numbers) and writes it as JSON (``--json``, default ``robustness.json`` beside the report). No training.
``--list`` prints the settings registry (``lengthgen.experiments.robustness``) instead.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lengthgen.cli.common import add_claims_option, beside, emit, read_claims

NAME = "robustness"
HELP = "print the robustness map (claims x settings) from reports/claims.json and write it as JSON"
RUN_MAP = "pytest claims -m robustness -n auto"  # the run that stores the map's cells


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_claims_option(parser, "--report", "the claims.json holding the map's cells")
    parser.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="PATH",
        help="where the map is written (default: robustness.json beside --report)",
    )
    parser.add_argument(
        "--list", action="store_true", help="print the settings and the claims each applies to (from --report)"
    )


def settings_table(catalogue) -> str:
    """The settings (``lengthgen.experiments.robustness``) and the claims of ``catalogue`` that run at each."""
    from lengthgen.experiments.robustness import SETTINGS

    width = max(len(s.name) for s in SETTINGS)
    lines = [f"{'setting':<{width}}  {'Lmax':>4} {'1/m':>6}  claims  (what changes)"]
    for s in SETTINGS:
        claims = ", ".join(e.id for e in catalogue if s.name in e.settings) or "(claims from a recorded run)"
        lines.append(f"{s.name:<{width}}  {s.max_len:>4} {s.chance:>6.3g}  {claims}  ({s.what})")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from lengthgen.registry import EMPTY, Registry

    if args.list:
        recorded = read_claims(args.report, missing="") if args.report.exists() else None
        print(settings_table((Registry.from_data(recorded) if recorded else EMPTY).catalogue))
        return 0
    from lengthgen.report.robustness import build_map, map_lines
    from lengthgen.report.run_view import RunView

    data = read_claims(args.report, missing=f"run `{RUN_MAP}` first, or pass --report")
    cells = data.get("robustness") or []
    if not cells:
        raise ValueError(f"{str(args.report)!r} holds no robustness map (run `{RUN_MAP}`)")
    catalogue = Registry.from_data(data).catalogue
    args.json = beside(args.report, args.json, "robustness.json")
    records = RunView.from_json(data).records
    emit(args, "\n".join(map_lines(cells, catalogue=catalogue, records=records)), build_map(cells, catalogue))
    return 0
