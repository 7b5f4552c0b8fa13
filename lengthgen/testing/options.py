"""The plugin's command-line options (the ``lengthgen`` group of ``pytest --help``) and their ``type=``
validators.

Every name starts with ``--lengthgen-`` (:data:`PREFIX`), as pytest plugins name theirs (``--benchmark-*``,
``--cov*``): the entry point adds them to every pytest session in the environment, so a generic name such
as ``--device`` or ``--seeds`` would collide with another project's own ``conftest.py`` option
(``argparse.ArgumentError: conflicting option string``). The ``lengthgen`` CLI's options keep their short
names (``lengthgen train --seeds``): they live in the CLI's own parser.

Every value is checked by argparse as the command line is parsed, so a bad one is pytest's usage error
(exit 4, one ``error:`` line naming the value) before any plugin code runs. What the command line alone
cannot decide stays a start-up check in :mod:`lengthgen.testing.session`: whether a CUDA device is present,
whether a directory can be written (the ``--lengthgen-report-dir`` default needs the rootdir), whether a
``--lengthgen-scheduler`` answers.

A path option written in the space form is a usage error that says to write ``--opt=value``
(:func:`refuse_space_form`, called by the plugin as pytest loads its initial conftests). pytest chooses its
rootdir and ini file from a first parse of the command line, made before it loads plugins from entry points; in
that parse the value of an option it does not know yet is taken for a test path (pytest-dev/pytest#8846, a known
limitation). So ``pytest -m quick --lengthgen-cache-dir /an/existing/dir`` would make that directory the rootdir,
read no ini file, and run a session that is not the suite's; under xdist the workers parse the command line again
after the controller has created the directory. Deciding the rootdir again would mean writing pytest's private
``Config`` attributes after it has already applied ``minversion``, ``pythonpath`` and ``required_plugins`` from the
ini file it chose, so the plugin refuses instead: the options whose values are paths (:data:`PATH_OPTIONS`) take
``--opt=value`` only. The others (seeds, threads, device, a scheduler address, a seed maximum) take both forms:
their values are not paths.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from lengthgen.config import parse_seeds
from lengthgen.engine.cluster import scheduler_arg  # imports nothing of distributed

DEVICE_NAME = re.compile(r"(cpu|cuda)(:[0-9]+)?")  # the names torch.device takes for a cpu or cuda device
PREFIX = "--lengthgen-"  # every option of the group (pytest's namespace for a plugin's options)
AUTO = "auto"  # --lengthgen-workers' default: one process per core in a serial run, 1 in an xdist worker
PATH_OPTIONS = ("--lengthgen-cache-dir", "--lengthgen-report-dir", "--lengthgen-summary-md")  # values are paths


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lengthgen")
    group.addoption(
        "--lengthgen-cache-dir",
        dest="lengthgen_cache_dir",
        default=None,
        help="model cache directory (default: $LENGTHGEN_CACHE_DIR or ~/.cache/lengthgen)",
    )
    group.addoption(
        "--lengthgen-retrain",
        dest="lengthgen_retrain",
        action="store_true",
        help="ignore cached models from earlier runs (models trained in this run are shared)",
    )
    group.addoption(
        "--lengthgen-seeds",
        dest="lengthgen_seeds",
        type=seeds_arg,
        default=None,
        help="seeds for every claim at paper scale, e.g. 0-31 (default: the paper's count)",
    )
    group.addoption(
        "--lengthgen-device",
        dest="lengthgen_device",
        type=device_arg,
        default="cpu",
        help="train and evaluate on cpu (default) or cuda; part of the cache key",
    )
    group.addoption(
        "--lengthgen-threads",
        dest="lengthgen_threads",
        type=threads_arg,
        default=1,
        metavar="N",
        help="torch threads per process (default 1; part of the cache key)",
    )
    group.addoption(
        "--lengthgen-workers",
        dest="lengthgen_workers",
        type=workers_arg,
        default=AUTO,
        metavar="N|auto",
        help="processes that train and evaluate missing models in a serial run (default auto: one per core "
        "without xdist, 1 in each xdist worker, whose workers already are the processes); never changes a number",
    )
    group.addoption(
        "--lengthgen-report-dir",
        dest="lengthgen_report_dir",
        default=None,
        help="where the claims report is written (default: <rootdir>/reports)",
    )
    group.addoption(
        "--lengthgen-scheduler",
        dest="lengthgen_scheduler",
        type=scheduler_arg,
        default=None,
        metavar="tcp://HOST:PORT",
        help="train missing models on this Dask cluster (needs the dask extra: pip install -e '.[dask]')",
    )
    group.addoption(
        "--lengthgen-until-decided",
        dest="lengthgen_until_decided",
        nargs="?",
        const=_default_max(),
        default=None,
        type=until_decided_arg,
        metavar="MAX",
        help="add seeds, 4 at a time, to claims with a close deciding check until none is close or "
        "MAX seeds (default 32) are used; intervals at 1 - 0.05/looks (lengthgen.sequential)",
    )
    group.addoption(
        "--lengthgen-summary-md",
        dest="lengthgen_summary_md",
        type=summary_md_arg,
        default=None,
        metavar="FILE",
        help="also write the verdict table as markdown to FILE (and append it to $GITHUB_STEP_SUMMARY "
        "when that is set)",
    )


def _positive_int(text: str) -> int | None:
    """``text`` as a positive integer, or None when it is not one."""
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value >= 1 else None


def threads_arg(text: str) -> int:
    """``--lengthgen-threads``: torch threads per process, a positive integer."""
    threads = _positive_int(text)
    if threads is None:
        raise argparse.ArgumentTypeError(
            f"--lengthgen-threads={text!r}: must be a positive integer (torch threads per process)"
        )
    return threads


def workers_arg(text: str) -> int | str:
    """``--lengthgen-workers``: ``auto`` (:data:`AUTO`) or a positive integer (processes that train)."""
    if text.strip().lower() == AUTO:
        return AUTO
    workers = _positive_int(text)
    if workers is None:
        raise argparse.ArgumentTypeError(
            f"--lengthgen-workers={text!r}: must be 'auto' or a positive integer (processes that train)"
        )
    return workers


def seeds_arg(text: str) -> tuple[int, ...] | None:
    """``--lengthgen-seeds``: the CLI's seed spec (:func:`lengthgen.config.parse_seeds`, at most
    ``MAX_SEEDS``, as ``lengthgen.cli.common.seeds_arg``); a blank value means the paper's count, as if the
    option were not given."""
    if not text.strip():
        return None
    try:
        return parse_seeds(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def device_arg(text: str) -> str:
    """``--lengthgen-device``: a torch device name of type cpu or cuda (``cuda:1`` too), checked without
    importing torch. Whether a CUDA device is present is decided at start (``lengthgen.device.device_named``)."""
    if DEVICE_NAME.fullmatch(text) is None:
        raise argparse.ArgumentTypeError(f"unknown device {text!r} (use cpu or cuda, or cuda:N for one GPU)")
    return text


def summary_md_arg(text: str) -> Path:
    """``--lengthgen-summary-md``: a file path (not a directory), checked without creating anything; whether it
    can be written is decided at start (:mod:`lengthgen.testing.reporting`)."""
    path = Path(text).expanduser()
    if not text.strip() or path.is_dir():
        raise argparse.ArgumentTypeError(
            f"--lengthgen-summary-md={text!r}: must name a file (the markdown verdict table)"
        )
    return path


def until_decided_arg(text: str) -> int:
    """``--lengthgen-until-decided=MAX``: the CLI's rule (:func:`lengthgen.sequential.parse_max`, an integer
    in 2..10000), its message naming this option."""
    from lengthgen.sequential import parse_max

    try:
        return parse_max(text, option="--lengthgen-until-decided")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _default_max() -> int:
    from lengthgen.sequential import DEFAULT_MAX

    return DEFAULT_MAX


def refuse_space_form(args: list[str]) -> None:
    """Raise pytest's usage error (exit 4, one line) for the first path option in ``args`` written without ``=``."""
    for index, arg in enumerate(args):
        if arg in PATH_OPTIONS:
            value = args[index + 1] if index + 1 < len(args) else "VALUE"
            raise pytest.UsageError(
                f"{arg} {value}: pytest would take {value!r} for a test path when it chooses its "
                f"rootdir (pytest-dev/pytest#8846); write {arg}={value}"
            )
