"""``lengthgen docs``: the documents rendered from the reference run (``tests/data/claims-reference.json.gz``)
and the package: today ``docs/catalogue.md`` (:mod:`lengthgen.report.catalogue_page`). ``--check`` writes
nothing and exits 1 naming the first line that differs. A missing or malformed reference run is one line and
exit 2, and leaves every document as it was. No torch.
"""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path

NAME = "docs"
HELP = "render docs/catalogue.md from the catalogue and the reference run (--check: compare only)"
ROOT = Path(__file__).resolve().parents[2]  # the repository (an editable install)
REFERENCE = ROOT / "tests" / "data" / "claims-reference.json.gz"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reference", type=Path, default=REFERENCE, metavar="PATH", help="the reference run")
    parser.add_argument("--root", type=Path, default=ROOT, metavar="DIR", help="the repository whose docs/ it writes")
    parser.add_argument("--check", action="store_true", help="compare only: exit 1 naming the first line that differs")


def rendered(reference: Path) -> dict[str, str]:
    """Each rendered document (its path under the repository -> its text)."""
    from lengthgen.report.catalogue_page import render
    from lengthgen.report.data import read

    return {"docs/catalogue.md": render(read(reference))}


def run(args: argparse.Namespace) -> int:
    documents = rendered(args.reference)  # before anything is written: a bad reference changes nothing
    stale = []
    for name, text in documents.items():
        path = args.root / name
        old = path.read_text() if path.exists() else ""
        if old == text:
            continue
        if args.check:
            first = next(
                (
                    line
                    for line in difflib.unified_diff(old.splitlines(), text.splitlines(), lineterm="", n=0)
                    if line.startswith(("-", "+")) and not line.startswith(("---", "+++"))
                ),
                "",
            )
            stale.append(f"{name} differs from its rendering: {first[:160]}")
        else:
            path.write_text(text)
            print(f"wrote {name}")
    for line in stale:
        print(line)
    return 1 if stale else 0
