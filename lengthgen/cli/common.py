"""What every subcommand shares: one-line errors with exit status 2, cache and output options, and the rules of
the paths a subcommand reads and writes.

One meaning per option name, across the subcommands: ``--run PATH`` is the recorded run a subcommand reads (a
claims.json, a claims.json.gz or a report directory), ``--add PATH`` another run whose cells it joins, and ``--out
PATH`` the one file or folder it writes; a subcommand that prints writes nothing without ``--out``. An output path
is checked before any work (:func:`checked_out`): its folder can be written, it is no file that holds a run's
records, and it lies outside the folder of every recorded run the command line names.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from lengthgen.engine.cluster import scheduler_arg
from lengthgen.config import parse_seeds

EXIT_USAGE = 2  # bad input: a one-line message naming the bad value, no traceback
UNTIL_DECIDED_MAX = 32  # a bare --until-decided (lengthgen.sequential.DEFAULT_MAX; a test checks they agree)
CLAIMS_JSON = Path("reports/claims.json")  # where `pytest claims` writes its records: the --run of a subcommand that
# is given none (its folder is the suite's own report folder, which `lengthgen report` redraws in place)


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (``<prog>: error: <message>``) and exit with 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def until_decided_arg(text: str) -> int:
    """``--until-decided=MAX`` (``lengthgen run``): :func:`lengthgen.sequential.parse_max`, as argparse's error."""
    from lengthgen.sequential import parse_max

    try:
        return parse_max(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def int_list(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers") from None
    return values


def float_list(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of numbers") from None


def range_list(text: str) -> tuple[tuple[int, int], ...]:
    """``4-12,8-16`` -> ((4, 12), (8, 16))."""
    try:
        ranges = tuple(tuple(int(x) for x in part.split("-")) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of length ranges like 4-12,8-16") from None
    if any(len(r) != 2 for r in ranges):
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of length ranges like 4-12,8-16")
    return ranges


def word_list(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def seeds_arg(text: str) -> tuple[int, ...]:
    try:
        return parse_seeds(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_out_option(parser: argparse.ArgumentParser, what: str = "also write the results as JSON") -> None:
    """``--out PATH``: the one file (or folder) a subcommand writes, ``what`` it holds; nothing is written without."""
    parser.add_argument("--out", type=Path, default=None, metavar="PATH", help=f"{what} (default: write nothing)")


def add_output_options(parser: argparse.ArgumentParser) -> None:
    add_out_option(parser)
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="model cache (default: $LENGTHGEN_CACHE_DIR or ~/.cache/lengthgen)",
    )
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    parser.add_argument("--retrain", action="store_true", help="retrain even when the cache holds the model")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1; part of the cache key)")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda; part of the cache key")
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="processes training in parallel (default: the CPU count; results do not depend on it)",
    )
    parser.add_argument(
        "--scheduler",
        type=scheduler_arg,
        default=None,
        metavar="tcp://HOST:PORT",
        help="train missing models on this Dask cluster (needs the dask extra); results do not depend on it",
    )


def make_cache(args: argparse.Namespace):
    import time

    from lengthgen.store.cache import Cache, default_cache_dir
    from lengthgen.store.files import writable_dir

    if not args.no_cache:  # an unusable cache directory is a usage error before any training
        writable_dir(args.cache_dir if args.cache_dir is not None else default_cache_dir(), "--cache-dir")
    fresh_after = time.time() if args.retrain else None
    return Cache(args.cache_dir, enabled=not args.no_cache, fresh_after=fresh_after, runtime=args.runtime)


def emit(args: argparse.Namespace, table: str, data: Any, note: Any = None) -> None:
    """Print the table; write ``data`` as JSON to ``--out`` where one was given (checked before the work,
    :func:`checked_out`), saying so on ``note`` (default stdout; stderr where stdout is to stay JSON)."""
    from lengthgen.store.files import atomic_write

    print(table)
    if args.out is not None:
        try:
            atomic_write(args.out, json.dumps(data, indent=1, default=str) + "\n")
        except OSError as error:
            raise UsageError(f"cannot write --out {str(args.out)!r}: {error.strerror}") from None
        print(f"wrote {args.out}", file=note or sys.stdout)


def emit_result(args: argparse.Namespace, result: Any) -> int:
    """Print an experiment result's ``table()``; write its ``to_json()`` to ``--out``. Exit status 0."""
    emit(args, result.table(), result.to_json())
    return 0


def add_run_option(parser: argparse.ArgumentParser, what: str, add: bool = False) -> None:
    """``--run PATH``: the recorded run a subcommand reads (``what`` it holds; default reports/claims.json); with
    ``add``, ``--add PATH`` (repeatable): runs of the same code whose multiverse cells are joined to it."""
    parser.add_argument(
        "--run",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"{what}: a claims.json, a claims.json.gz or a report directory (default {CLAIMS_JSON})",
    )
    if add:
        parser.add_argument(
            "--add",
            type=Path,
            action="append",
            default=[],
            metavar="PATH",
            help="also the multiverse cells of this run (a claims.json[.gz] of the same code, e.g. the extended "
            "cells, tests/data/claims-extended.json.gz); repeatable",
        )


def run_path(args: argparse.Namespace) -> Path:
    """The run a subcommand reads: its ``--run``, else reports/claims.json."""
    return args.run if args.run is not None else CLAIMS_JSON


def records_file(run: Path) -> Path:
    """The claims.json of a run's path: a report directory's, or the file itself."""
    return run / CLAIMS_JSON.name if run.is_dir() else run


def run_folder(run: Path) -> Path:
    """The folder of a run's path: the report directory itself, or the folder of its file."""
    return run if run.is_dir() else run.parent


def given_runs(args: argparse.Namespace) -> list[Path]:
    """The recorded runs the command line names (``--run`` other than the suite's own reports/claims.json,
    every ``--add``): their folders are never written into."""
    runs = list(getattr(args, "add", None) or [])
    run = getattr(args, "run", None)
    if run is not None and records_file(run).resolve() != CLAIMS_JSON.resolve():
        runs.insert(0, run)
    return runs


def read_run(args: argparse.Namespace, missing: str | None = None) -> dict[str, Any]:
    """The data of the run at ``--run`` with the multiverse cells of every ``--add`` joined
    (``lengthgen.analysis.data.with_cells_of``, as ``lengthgen docs`` joins the extended cells); ValueError (one line)
    for a missing or malformed file, or an added run of other code."""
    from lengthgen.analysis.data import read, with_cells_of

    data = read_claims(run_path(args), missing)
    for added in getattr(args, "add", None) or []:
        data = with_cells_of(data, read(added))
    return data


def read_claims(path: Path, missing: str | None = None) -> dict[str, Any]:
    """The data of the claims.json (or claims.json.gz, or report directory) at ``path``
    (``lengthgen.analysis.data.read``: ValueError naming the file if it is missing or not a report).
    ``missing``: what the error for a path that does not exist tells the user to do, in place of the default."""
    from lengthgen.analysis.data import read

    if missing is not None and not path.exists():
        raise ValueError(f"{str(path)!r} does not exist ({missing})")
    return read(path)


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (both resolved: links and ``..`` followed)."""
    target, home = path.resolve(), folder.resolve()
    return target == home or home in target.parents


def checked_out(
    path: Path | None, given: Sequence[Path] = (), what: str = "--out", folder: bool = False
) -> Path | None:
    """``path`` (an output option ``what``; None: nothing to write) checked before any work: it lies outside the
    folder of every recorded run in ``given`` (a run's folder: the report directory, or the folder of its file),
    it is no file that holds a run's records (``lengthgen.analysis.data.holds_records``), and its folder (with
    ``folder``: itself) exists or can be made and can be written. UsageError (one line) where it is not."""
    from lengthgen.analysis.data import holds_records
    from lengthgen.store.files import writable_dir

    if path is None:
        return None
    path = path.expanduser()
    for run in given:
        if inside(path, run_folder(run)):
            raise UsageError(
                f"{what} {str(path)!r} lies in the folder of the recorded run {str(run)!r}, which no command writes "
                "into: give a path elsewhere"
            )
    if path.is_file() and holds_records(path):
        raise UsageError(f"{what} {str(path)!r} holds a run's records, which no command writes over: give another path")
    if folder:
        if path.exists() and not path.is_dir():
            raise UsageError(f"{what} {str(path)!r} is a file, not a folder")
        return writable_dir(path, what)
    if path.is_dir():
        raise UsageError(f"{what} {str(path)!r} is a folder, not a file")
    writable_dir(path.parent, f"{what} {str(path)!r}: its folder")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{what} {str(path)!r} cannot be written (no permission)")
    return path
