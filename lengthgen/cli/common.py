"""What every subcommand shares: one-line errors with exit status 2, cache and output options."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from lengthgen.engine.cluster import scheduler_arg
from lengthgen.config import parse_seeds

EXIT_USAGE = 2  # bad input: a one-line message naming the bad value, no traceback
UNTIL_DECIDED_MAX = 32  # a bare --until-decided (lengthgen.sequential.DEFAULT_MAX; a test checks they agree)
CLAIMS_JSON = Path("reports/claims.json")  # where `pytest claims` writes its records (report, robustness read it)


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


def add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the results as JSON")
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
    return Cache(args.cache_dir, enabled=not args.no_cache, fresh_after=time.time() if args.retrain else None)


def emit(args: argparse.Namespace, table: str, data: dict[str, Any]) -> None:
    """Print the table; write ``data`` as JSON if ``--json`` was given."""
    print(table)
    if args.json is not None:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(data, indent=1))
        except OSError as error:
            raise UsageError(f"cannot write --json {str(args.json)!r}: {error.strerror}") from None
        print(f"wrote {args.json}")


def emit_result(args: argparse.Namespace, result: Any) -> int:
    """Print an experiment result's ``table()``; write its ``to_json()`` if ``--json`` was given. Exit status 0."""
    emit(args, result.table(), result.to_json())
    return 0


def add_claims_option(parser: argparse.ArgumentParser, flag: str, what: str) -> None:
    """``flag PATH``: the claims.json a subcommand reads (``what`` it holds; default reports/claims.json)."""
    parser.add_argument(flag, type=Path, default=CLAIMS_JSON, metavar="PATH", help=f"{what} (default {CLAIMS_JSON})")


def read_claims(path: Path, missing: str | None = None) -> dict[str, Any]:
    """The data of the claims.json (or claims.json.gz, or report directory) at ``path``
    (``lengthgen.report.data.read``: ValueError naming the file if it is missing or not a report).
    ``missing``: what the error for a path that does not exist tells the user to do, in place of the default
    "run `pytest claims` first, or pass --json"."""
    from lengthgen.report.data import read

    if missing is not None and not path.exists():
        raise ValueError(f"{str(path)!r} does not exist ({missing})")
    return read(path)


def beside(claims: Path, given: Path | None, name: str = "") -> Path:
    """Where a subcommand writes what it makes of a claims.json: ``given`` (its option), else ``name`` in the
    folder of ``claims`` (an empty ``name``: that folder)."""
    return given if given is not None else claims.parent / name
