"""``lengthgen multiverse``: the multiverse, readings x claims, a verdict in each cell.

``pytest claims -m multiverse -n auto`` runs it (each cell a claim's own checks under another reading of a
choice the paper leaves open, or under every alternative at once) and stores its cells in
``reports/claims.json``; this command prints the grid from there (claims as rows; the suite's own
reading, the claims table's verdict, as the first column, then one column per reading; then every cell
whose verdict differs from the paper's point, with its failed checks' numbers; ``--run PATH`` reads another run)
and writes it as JSON only to ``--out PATH``. No training, and no torch: the registry is
:mod:`lengthgen.readings`. ``--list`` prints it: the choices, their readings, who reads them so, the spec
fields each changes (the claims it touches follow from them and each claim's declared model families, on the
claims' side), the cells left out, and the choices left at one reading. ``--curve C8`` prints one claim's
specification curve instead (``--out PATH`` draws it too, as an image: :mod:`lengthgen.report.curve`); ``--record
FILE`` updates the multiverse's declarations from the run's cells (:mod:`lengthgen.cli.multiverse_record`); ``--add
RUN`` joins the cells of another run of the same code (the extended cells, run on their own); ``--paper``
prints what the paper's stated numbers say about its readings (:mod:`lengthgen.analysis.stated_numbers`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lengthgen.cli.common import CLAIMS_JSON, UsageError, add_out_option, add_run_option, checked_out, emit
from lengthgen.cli.common import given_runs, read_run, run_path
from lengthgen.multiverse_cells import left_out, universe_counts
from lengthgen.readings import CHOICES, LEFT_AT_ONE_READING, READINGS, Change, Times
from lengthgen.registry import EMPTY, Registry

NAME = "multiverse"
HELP = "print the multiverse (readings x claims) of a run, a claim's curve, the stated numbers (--out: write it)"
RUN_GRID = "pytest claims -m multiverse -n auto"  # the run that stores the grid's cells


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_option(parser, "the run holding the multiverse's cells", add=True)
    add_out_option(parser, "also write the grid as JSON (with --curve: draw the curve as an image, PNG)")
    parser.add_argument(
        "--list",
        action="store_true",
        help="print the registry: choices, readings, who reads them so, the spec fields each changes; and each "
        "claim's universes, from the plan --run recorded",
    )
    parser.add_argument(
        "--curve",
        metavar="CLAIM",
        default=None,
        help="instead: print CLAIM's specification curve (a row of the grid: a claim, or <id>-<variant>) across "
        "its universes",
    )
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="FILE",
        help="instead: update the multiverse's declarations (claims/multiverse_declared.json) from the run's cells",
    )
    parser.add_argument(
        "--paper",
        action="store_true",
        help="instead: the paper's stated numbers against every universe, ranked; per choice, the reading they favour",
    )


def change_text(change: Change) -> str:
    """One change of a reading, e.g. "one-layer model.init = 'gpt2'" ("(APE models only)" where it says so)."""
    value = f"x{change.value.factor}" if isinstance(change.value, Times) else repr(change.value)
    return (
        f"{change.family} {change.part}.{change.field} = {value}"
        + (" (APE models only)" if change.ape_only else "")
        + (" (models trained with weight decay only)" if change.decay_only else "")
    )


def registry_text(registry: Registry = EMPTY) -> str:
    """The registry, and with ``registry`` (a run's recorded plan of cells) the readings not combined and the
    cells left out."""
    plan = registry.plan
    lines = ["choices the paper leaves open (the suite's reading is the default; every number is measured under it)"]
    for c in CHOICES:
        lines.append(f"{c.name}: suite: {c.suite} (open: {c.why_open})")
        for r in (r for r in READINGS if r.choice == c.name):
            lines.append(f"  {r.name}: {r.what}")
            lines.append(f"    who: {r.who}")
            lines.append(f"    changes: {'; '.join(change_text(change) for change in r.changes)}")
    lines.append(
        "combinations: every combination of the readings admissible alone for a claim (one per choice, named by "
        "their names joined by '+'; the claims each reading touches: claims/multiverse.py)"
        + (f": {plan.combinations_why}" if plan.combinations_why else "")
    )
    for reading, why in plan.not_run:
        lines.append(f"not combined: {reading}: {why}")
    for universe, column, why in left_out(plan, registry.catalogue):
        lines.append(f"left out: {column} under {universe}: {why}")
    lines.append("left at one reading:")
    lines += [f"  {name}: {why}" for name, why in LEFT_AT_ONE_READING]
    return "\n".join(lines)


def counts_text(registry: Registry, source: str) -> str:
    """Each claim's universes in the plan ``registry`` holds (recorded by the run at ``source``): alone and
    combined, and how many the default run holds."""
    counts = universe_counts(registry.plan, registry.catalogue)
    lines = [f"universes per claim (the plan of cells {source} recorded; a ruled-out reading alone counts: it runs)"]
    width = max(len(c.column) for c in counts)
    for c in counts:
        lines.append(
            f"  {c.column:<{width}}  {c.universes:>3} universes: {c.alone} readings alone, {c.combinations} "
            f"combination{'' if c.combinations == 1 else 's'}; {c.default} in the default run, {c.extended} extended"
        )
    total = sum(c.universes for c in counts)
    default = sum(c.default for c in counts)
    lines.append(f"  all: {total} cells, {default} in the default run (-m multiverse), {total - default} extended")
    return "\n".join(lines)


def list_text(report: Path) -> str:
    """``--list``: the registry, then each claim's universes from the plan the run at ``report`` recorded (the
    default reports/claims.json missing or without a plan: how to get one; another path that is missing or
    without a plan: ValueError)."""
    from lengthgen.analysis.data import read

    hint = (
        "they come from a claims run's recorded plan (run `pytest claims -n auto`, or pass --run, e.g. "
        "tests/data/claims-reference.json.gz)"
    )
    if report == CLAIMS_JSON and not report.exists():
        return registry_text() + f"\nuniverses per claim: {report} is not there; {hint}"
    registry = Registry.from_data(read(report))
    if not registry.plan.cells:
        if report == CLAIMS_JSON:  # the default report, of an older version: the registry still prints
            return registry_text() + f"\nuniverses per claim: {report} records no plan (an older version's run); {hint}"
        raise ValueError(f"{str(report)!r} records no multiverse plan (a run of an older version): run the claims")
    return registry_text(registry) + "\n" + counts_text(registry, str(report))


def print_curve(view, claim: str, out: Path | None) -> int:
    """``--curve CLAIM`` (``--out PATH``): the claim's specification curve (lengthgen.report.curve)."""
    from lengthgen.analysis.curve import curve
    from lengthgen.report.curve import curve_lines, curve_png

    shown = curve(view, claim)
    print("\n".join(curve_lines(shown)))
    if out is not None:
        try:
            print(f"wrote {curve_png(shown, out)}")
        except OSError as error:
            raise UsageError(f"cannot write --out {str(out)!r}: {error.strerror}") from None
    return 0


def run(args: argparse.Namespace) -> int:
    if args.out is not None and (args.list or args.paper or args.record is not None):
        raise UsageError("--out writes the grid or, with --curve, the curve; --list, --paper and --record do not")
    if args.list:
        print(list_text(run_path(args)))
        return 0
    from lengthgen.report.multiverse import build_grid, grid_lines
    from lengthgen.analysis.run_view import RunView

    given = given_runs(args)
    record = checked_out(args.record, given, "--record")
    args.out = checked_out(args.out, given)
    data = read_run(args, missing=f"run `{RUN_GRID}` first, or pass --run")
    if record is not None:
        from lengthgen.cli.multiverse_record import record_run

        print(record_run(data, record))
        return 0
    if args.paper:
        from lengthgen.report.stated_numbers import paper_lines

        print("\n".join(paper_lines(data)))
        return 0
    view = RunView.from_json(data)
    if not view.multiverse:
        raise ValueError(f"{str(run_path(args))!r} holds no multiverse (run `{RUN_GRID}`)")
    if args.curve is not None:
        return print_curve(view, args.curve, args.out)
    emit(
        args,
        "\n".join(grid_lines(view.multiverse, records=view.records, registry=view.registry)),
        build_grid(view.multiverse, view.records, view.registry),
    )
    return 0
