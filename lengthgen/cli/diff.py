"""``lengthgen diff OLD NEW``: what changed between two runs (no training, no cache).

OLD and NEW are each a ``claims.json``, a gzipped one (``.json.gz``), or a report directory holding a
``claims.json``. Prints per claim test the verdict change (better, worse, same), each check that drifted
beyond its noise (``lengthgen.analysis.diff.DRIFT_RULE``) or changed pass/fail, records and checks added or
removed, declared non-reproductions whose failing checks changed, controls whose verdict changed, and
robustness / multiverse cells the same way; ``--json`` prints it as JSON instead, ``--out PATH`` also writes it
as JSON (outside the folders of OLD and NEW, which are only read). Exit status: 1 when ``--fail-on`` finds
something (default: a verdict got worse, or a claim, control, cell or check was removed), 2 for bad input, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lengthgen.cli.common import add_out_option, checked_out, emit

if TYPE_CHECKING:
    from lengthgen.analysis.run_view import RunView

NAME = "diff"
HELP = "compare two runs' claims.json (or report directories): verdict changes, checks drifted beyond their noise"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", type=Path, metavar="OLD", help="the earlier run: claims.json, .json.gz or report dir")
    parser.add_argument("new", type=Path, metavar="NEW", help="the later run: claims.json, .json.gz or report dir")
    parser.add_argument(
        "--md", action="store_true", help="print GitHub-flavoured markdown (a pull-request comment, a job summary)"
    )
    parser.add_argument("--json", action="store_true", help="print the diff as JSON, instead of the text")
    add_out_option(parser, "also write the diff as JSON")
    parser.add_argument(
        "--fail-on",
        default="worse-verdict",  # checked against lengthgen.analysis.diff.FAIL_ON when the command runs (building the
        # parser imports no diff and no run view)
        help="exit 1 when: a verdict got worse or a claim/check/control was removed (worse-verdict, "
        "the default); also a check drifted or changed pass/fail (drift); never",
    )


def load_run(path: Path) -> RunView:
    """The run at ``path`` (``run_view.RunView.from_json``: a claims.json, a .json.gz or a report directory);
    ValueError naming the file if it is missing, not a report, or holds a record that is not one."""
    from lengthgen.analysis.run_view import RunView

    if not path.exists():  # said here: analysis.data.load's message suggests options this command lacks
        raise ValueError(f"{str(path)!r} does not exist (give a claims.json, a .json.gz or a report directory)")
    try:
        return RunView.from_json(path)
    except (KeyError, TypeError, AttributeError, IndexError) as error:
        raise ValueError(
            f"{str(path)!r} is not a claims.json: a malformed record ({type(error).__name__}: {error})"
        ) from None


def run(args: argparse.Namespace) -> int:
    from lengthgen.report import diff_render
    from lengthgen.analysis.diff import FAIL_ON, diff_runs

    if args.fail_on not in FAIL_ON:
        raise ValueError(f"--fail-on {args.fail_on!r} is not one of {', '.join(FAIL_ON)}")
    if args.md and args.json:
        raise ValueError("--md and --json both choose what is printed; give --out PATH to write the JSON to a file")
    args.out = checked_out(args.out, [args.old, args.new])
    diff = diff_runs(load_run(args.old), load_run(args.new), str(args.old), str(args.new))
    data = diff_render.to_json(diff, args.fail_on)
    if args.json:
        shown = json.dumps(data, indent=1)
    else:
        shown = diff_render.markdown(diff, args.fail_on) if args.md else diff_render.text(diff, args.fail_on)
    emit(args, shown, data, note=sys.stderr if args.json else None)
    return data["exit"]
