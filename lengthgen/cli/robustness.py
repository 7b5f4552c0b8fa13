"""``lengthgen robustness``: the robustness map, claims x settings, a verdict in each cell.

``pytest claims -m robustness -n auto`` runs the map (each cell a claim's own checks at a setting off the
paper's point) and stores its cells in ``reports/claims.json``; this command prints the map from there (or from
``--run PATH``: settings as columns, claims as rows, then every cell that did not reproduce with its failed checks'
numbers) and writes it as JSON only to ``--out PATH``. No training. ``--list`` prints the settings registry
(``lengthgen.experiments.robustness``) instead.
"""

from __future__ import annotations

import argparse

from lengthgen.cli.common import UsageError, add_out_option, add_run_option, checked_out, emit, given_runs, read_claims
from lengthgen.cli.common import run_path

NAME = "robustness"
HELP = "print the robustness map (claims x settings) of a run (--out: also write it as JSON)"
RUN_MAP = "pytest claims -m robustness -n auto"  # the run that stores the map's cells


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_option(parser, "the run holding the map's cells")
    add_out_option(parser, "also write the map as JSON")
    parser.add_argument(
        "--list", action="store_true", help="print the settings and the claims each applies to (from --run)"
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
        if args.out is not None:
            raise UsageError("--list prints only: drop --out")
        recorded = read_claims(run_path(args), missing="") if run_path(args).exists() else None
        print(settings_table((Registry.from_data(recorded) if recorded else EMPTY).catalogue))
        return 0
    from lengthgen.report.robustness import build_map, map_lines
    from lengthgen.analysis.run_view import RunView

    args.out = checked_out(args.out, given_runs(args))
    data = read_claims(run_path(args), missing=f"run `{RUN_MAP}` first, or pass --run")
    cells = data.get("robustness") or []
    if not cells:
        raise ValueError(f"{str(run_path(args))!r} holds no robustness map (run `{RUN_MAP}`)")
    catalogue = Registry.from_data(data).catalogue
    records = RunView.from_json(data).records
    emit(args, "\n".join(map_lines(cells, catalogue=catalogue, records=records)), build_map(cells, catalogue))
    return 0
