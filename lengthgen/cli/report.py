"""``lengthgen report``: regenerate the one-page report from a run's records (no training, no cache).

The records of a ``pytest claims`` run hold every number and figure spec, so the page is redrawn from
them alone: after a change to the page or the figure drawing, or to print the summary again.

With no ``--run`` it redraws the suite's own page, ``reports/index.html``, from ``reports/claims.json``. A run
named with ``--run`` (and every ``--add``) is only read: its page goes to ``--out DIR``, never into its folder, and
``--summary`` prints the summary alone, writing nothing. ``--add`` joins another run's multiverse cells (the
extended cells) as ``lengthgen docs`` joins them for the README, so the page's answer counts the same universes;
``--seeds-added`` reads the same claims with seeds added until decided (claims-until-decided.json.gz), so the
answer names the claims whose verdict moves with more seeds, as the README's does.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from lengthgen.cli.common import CLAIMS_JSON, UsageError, add_run_option, checked_out, given_runs, read_claims, read_run
from lengthgen.cli.common import records_file, run_folder, run_path

if TYPE_CHECKING:
    from lengthgen.analysis.run_view import RunView

NAME = "report"
HELP = "redraw the HTML page of a run (default reports/ from reports/claims.json; no retraining); print the summary"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_option(parser, "the records of a run", add=True)
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"where index.html is written (default: {CLAIMS_JSON.parent}/ for the default run; a run named by --run "
        "needs one)",
    )
    parser.add_argument(
        "--seeds-added",
        type=Path,
        default=None,
        metavar="PATH",
        help="the same claims with seeds added until decided (e.g. tests/data/claims-until-decided.json.gz): the "
        "answer names the claims that hold at the paper's seeds only, as the README's does",
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the summary table")
    parser.add_argument("--summary", action="store_true", help="print the summary table alone: write nothing")


def out_dir(args: argparse.Namespace) -> Path | None:
    """Where the page goes, checked before anything is read or drawn (None: ``--summary``, no page)."""
    given = given_runs(args) + ([args.seeds_added] if args.seeds_added is not None else [])
    if args.summary:
        if args.out is not None:
            raise UsageError("--summary writes nothing: drop --out (or --summary, to write the page)")
        return None
    if args.out is None and args.run is not None and args.run in given:
        raise UsageError(
            f"--run {str(args.run)!r} is a recorded run whose folder is never written: pass --out DIR for its page "
            "(or --summary to print the summary alone)"
        )
    out = checked_out(args.out if args.out is not None else run_folder(run_path(args)), given, "--out", folder=True)
    beside = out / CLAIMS_JSON.name  # a page beside another run's records would disagree with them
    if beside.exists() and beside.resolve() != records_file(run_path(args)).resolve():
        raise UsageError(f"--out {str(out)!r} holds another run's records ({beside}): its page is not written over")
    return out


def read_views(args: argparse.Namespace) -> tuple[RunView, RunView | None]:
    """The view of the run (``--run`` with every ``--add`` joined), parsed once so that the page and the summary
    read the same view, and the view of ``--seeds-added`` where one is given."""
    from lengthgen.analysis.run_view import RunView

    view = RunView.from_json(read_run(args))
    more_seeds = RunView.from_json(read_claims(args.seeds_added)) if args.seeds_added is not None else None
    return view, more_seeds


def run(args: argparse.Namespace) -> int:
    from lengthgen.report import summary_lines, write_page

    if not run_path(args).exists():  # said before the page's folder is made
        raise ValueError(f"{str(run_path(args))!r} does not exist (run `pytest claims` first, or pass --run)")
    out = out_dir(args)
    view, more_seeds = read_views(args)
    files = None
    if out is not None:
        try:
            files = write_page(view, out, records_file(run_path(args)), more_seeds)
        except OSError as error:
            raise ValueError(f"cannot write the report into {str(out)!r}: {error.strerror}") from None
    if not args.quiet:
        for line in summary_lines(view):
            print(line)
    if files is not None:
        for problem in files.figure_errors:
            print(f"figure not drawn: {problem}")
        print(f"wrote {files.html}")
    return 0
