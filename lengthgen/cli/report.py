"""``lengthgen report``: regenerate the one-page report from ``claims.json`` (no training, no cache).

The records of a ``pytest claims`` run hold every number and figure spec, so the page is redrawn from
them alone: after a change to the page or the figure drawing, or to print the summary again.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lengthgen.cli.common import add_claims_option, beside, read_claims

NAME = "report"
HELP = "regenerate reports/index.html from reports/claims.json (no retraining) and print the summary"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_claims_option(parser, "--json", "the records of a run")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="where index.html is written (default: the folder of --json)",
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the summary table")


def run(args: argparse.Namespace) -> int:
    from lengthgen.report import RunView, summary_lines, write_page
    from lengthgen.store.files import writable_dir

    view = RunView.from_json(read_claims(args.json))  # parsed once: the page and the summary read the same view
    out = writable_dir(beside(args.json, args.out), "--out")
    try:
        files = write_page(view, out, args.json)
    except OSError as error:
        raise ValueError(f"cannot write the report into {str(out)!r}: {error.strerror}") from None
    if not args.quiet:
        for line in summary_lines(view):
            print(line)
    for problem in files.figure_errors:
        print(f"figure not drawn: {problem}")
    print(f"wrote {files.html}")
    return 0
