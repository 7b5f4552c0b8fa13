"""``lengthgen docs --data DIR``: the documents rendered from the recorded runs in ``DIR`` (the repository keeps
them in ``tests/data``: the reference run, the costs recorded with it, the run with seeds added until decided,
the multiverse's extended cells, the benchmarks, the development measurements; ``--reference PATH`` and its
siblings name one file elsewhere): ``docs/catalogue.md`` whole, and the sections between markers of the README and
the other documents under ``--root`` (default: the current directory; the prose around them stays hand-written).
The words are the templates' (``lengthgen/report/templates/docs/``), the values the one context of the recorded
runs (``lengthgen.report.doc_context``). ``--check`` writes nothing and exits 1 naming the first line that
differs. A recorded run not named, missing, truncated or of an older format, or a document whose markers are
broken, is one line and exit 2, and leaves every document as it was. No torch.

A run of claim tests alone (``--reference`` a run without multiverse cells, such as a quick run of a new claim)
renders ``docs/catalogue.md`` alone, the one document it holds everything of: its catalogue, records and controls.
It must have run the code of the extended cells (``--data``'s, run with the reference's code): a run of other code
is one line naming both fingerprints, and exit 2.
"""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Mapping

from lengthgen.cli.common import UsageError
from lengthgen.analysis import data as run_data
from lengthgen.analysis.data import threshold_sources
from lengthgen.report.doc_context import FILES, Inputs, load
from lengthgen.report.doc_render import WHOLE, render, whole
from lengthgen.analysis.run_view import RunView

NAME = "docs"
HELP = "render the README's and docs/' recorded numbers from the recorded runs (--check: compare only)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data", type=Path, metavar="DIR", help="the folder of the recorded runs, each under its usual name"
    )
    for name, (file, what) in FILES.items():
        parser.add_argument(
            f"--{name.replace('_', '-')}", type=Path, metavar="PATH", help=f"{what} (default: DIR/{file})"
        )
    parser.add_argument(
        "--root", type=Path, default=Path("."), metavar="DIR", help="the repository whose documents it writes"
    )
    parser.add_argument("--check", action="store_true", help="compare only: exit 1 naming the first line that differs")


def inputs(args: argparse.Namespace) -> Inputs:
    """Each recorded input's path: its own option's, else its usual name under ``--data``."""
    if args.data is not None and not args.data.is_dir():
        raise UsageError(f"--data {str(args.data)!r} is not a folder")
    paths = {}
    for name, (file, _) in FILES.items():
        path = getattr(args, name)
        if path is None and args.data is None:
            raise UsageError(f"name the recorded runs' folder (--data DIR) or --{name.replace('_', '-')} PATH")
        paths[name] = path if path is not None else args.data / file
    return Inputs(**paths)


def first_difference(old: str, new: str) -> str:
    """The first line of ``old`` (``-``) or ``new`` (``+``) that the other lacks."""
    changed = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
    return next((line for line in changed if line[:1] in "-+" and line[:3] not in ("---", "+++")), "")


def code_of(data: Mapping[str, Any], part: str) -> str | None:
    """The code fingerprint a run's ``part`` ran (``"multiverse_environment"``, or ``"environment"``: its claim
    tests)."""
    return (data.get(part) or {}).get("code_fingerprint")


def catalogue_alone(paths: Inputs) -> dict[str, str] | None:
    """The documents of a run of claim tests alone (no multiverse cells): docs/catalogue.md, rendered from it; None
    for a reference run (it renders every document). UsageError (one line) where its code is not the extended
    cells'."""
    reference = run_data.read(paths.reference)
    if reference.get("multiverse"):
        return None
    mine = code_of(reference, "environment")
    theirs = code_of(run_data.read(paths.extended), "multiverse_environment")
    if mine is None or mine != theirs:
        raise UsageError(
            f"{paths.reference} ran other code (code fingerprint {mine}) than the extended cells {paths.extended} "
            f"(code fingerprint {theirs}): re-run it with their code"
        )
    doc = SimpleNamespace(run=RunView.from_data(reference), sources=threshold_sources(reference))
    return {name: whole(name, doc) for name in WHOLE}


def run(args: argparse.Namespace) -> int:
    paths = inputs(args)
    documents = catalogue_alone(paths)  # a run of claim tests alone: the catalogue it holds
    if documents is None:
        documents = render(load(paths), args.root)  # every document rendered before any is written
    stale = []
    for name, text in documents.items():
        path = args.root / name
        old = path.read_text() if path.exists() else ""
        if old == text:
            continue
        if args.check:
            stale.append(f"{name} differs from its rendering: {first_difference(old, text)[:160]}")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {name}")
    for line in stale:
        print(line)
    return 1 if stale else 0
