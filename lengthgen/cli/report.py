"""``lengthgen report``: regenerate the one-page report from ``claims.json`` (no training, no cache).

The records of a ``pytest claims`` run hold every number and figure spec, so the page is redrawn from
them alone: after a change to the page or the figure drawing, or to print the summary again.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "report"
HELP = "regenerate reports/index.html from reports/claims.json (no retraining) and print the summary"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=Path, default=Path("reports/claims.json"), metavar="PATH",
                        help="the records of a run (default reports/claims.json)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="where index.html is written (default: the folder of --json)")
    parser.add_argument("--quiet", action="store_true", help="do not print the summary table")


def run(args: argparse.Namespace) -> int:
    from lengthgen.report import summary_lines, write_page
    from lengthgen.report.data import load

    from lengthgen.store.files import writable_dir

    data = load(args.json)
    out = writable_dir(args.out if args.out is not None else args.json.parent, "--out")
    try:
        files = write_page(data, out, args.json)
    except OSError as error:
        raise ValueError(f"cannot write the report into {str(out)!r}: {error.strerror}") from None
    if not args.quiet:
        for line in summary_lines(data["records"], data.get("environment"), controls=data.get("controls") or []):
            print(line)
    for problem in files.figure_errors:
        print(f"figure not drawn: {problem}")
    print(f"wrote {files.html}")
    return 0
