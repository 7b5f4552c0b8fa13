"""An environment problem is a usage error, never a claim verdict: an unusable --lengthgen-cache-dir or
--lengthgen-report-dir stops pytest at start (exit 4, one line), an unusable --cache-dir the CLI with exit 2
and one line; a seed spec of more than 10,000 seeds is refused at once (rather than hang); reports are
written with the umask's mode."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from lengthgen.cli import main
from lengthgen.config import MAX_SEEDS, parse_seeds
from lengthgen.store.files import atomic_write, writable_dir
from tests.helpers import ROOT

UNUSABLE = "/proc/lengthgen-nope"  # /proc refuses new directories, even to root
REFUSAL_S = 5.0  # a refused seed spec must answer at once (before the fix, 0-99999999 built 10^8 seeds)


def test_writable_dir_names_the_directory(tmp_path):
    assert writable_dir(tmp_path / "new" / "dir", "--cache-dir").is_dir()
    with pytest.raises(ValueError, match=r"--cache-dir '/proc/lengthgen-nope' cannot be written"):
        writable_dir(UNUSABLE, "--cache-dir")


def test_seed_specs_are_capped():
    assert len(parse_seeds(f"0-{MAX_SEEDS - 1}")) == MAX_SEEDS
    started = time.perf_counter()
    with pytest.raises(ValueError, match="names 100000000 seeds; at most 10000"):
        parse_seeds("0-99999999")
    assert time.perf_counter() - started < REFUSAL_S
    with pytest.raises(ValueError, match="at most 10000"):
        parse_seeds(list(range(MAX_SEEDS + 1)))


@pytest.mark.parametrize(
    "args, fragment",
    [
        (
            ["train", "--encoding", "rope", "--offset", "2", "--seeds", "0", "--steps", "5", "--cache-dir", UNUSABLE],
            f"--cache-dir {UNUSABLE!r} cannot be written",
        ),
        (["train", "--encoding", "rope", "--offset", "2", "--seeds", "0-99999999", "--steps", "5"], "at most 10000"),
    ],
)
def test_cli_environment_errors_exit_2_with_one_line(args, fragment, capsys):
    with pytest.raises(SystemExit) as exit_info:
        code = main(args)
        raise SystemExit(code)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1, err


def test_report_cli_unwritable_out_is_a_usage_error(tmp_path, capsys):
    from lengthgen.analysis.data import dump

    dump({"format": 1, "environment": {}, "records": [], "controls": []}, tmp_path / "claims.json")
    assert main(["report", "--run", str(tmp_path / "claims.json"), "--out", UNUSABLE, "--quiet"]) == 2
    assert f"--out {UNUSABLE!r} cannot be written" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--lengthgen-cache-dir", "--lengthgen-report-dir"])
def test_pytest_unusable_directory_is_a_usage_error(option):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "claims/test_c15_kernel.py",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            f"{option}={UNUSABLE}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 4, result.stdout[-2000:] + result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [f"ERROR: {option} {UNUSABLE!r} cannot be written: No such file or directory"], result.stderr


def test_written_files_take_the_umask_mode(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "page.html", "<html></html>")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "page.html").stat().st_mode) == 0o644
