"""``lengthgen timed --record FILE --label TEXT -- COMMAND...``: run a command as it is (its output passes
through), and append what it cost to ``FILE`` (JSON): its label, the command line, its wall time, its exit
status, pytest's closing line ("55 passed, 10 xfailed in 412.3s"), the CPU time of the command and every
process it waited for (user + system: over cores x wall time, how busy the cores were) and the machine (the
CPU's model, its cores, whether it offers AVX-512). Exits with the command's status. ``.ci/run`` times each of
its steps with it; the README's cost table is rendered from such a file (``lengthgen docs``), not typed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from lengthgen.cli.common import UsageError, checked_out
from lengthgen.cpu import cpu_model
from lengthgen.report.costs import FORMAT, read
from lengthgen.store.files import atomic_write

NAME = "timed"
HELP = "run a command and append its wall time and pytest's closing line to a costs file (JSON)"
CLOSING = re.compile(r"^=*\s*(\d+ (passed|failed|error|errors|skipped|xfailed|xpassed|deselected)\b.*?)\s*=*$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", type=Path, required=True, metavar="FILE", help="the costs file to append to")
    parser.add_argument("--label", required=True, metavar="TEXT", help="what the step is, e.g. 'pytest claims -n auto'")
    parser.add_argument("--cold", action="store_true", help="the step ran with an empty model cache")
    parser.add_argument(
        "--replace", action="store_true", help="drop the file's steps of the same label before appending this one"
    )
    parser.add_argument(
        "argv", nargs=argparse.REMAINDER, metavar="COMMAND", help="-- then the command and its arguments"
    )


def machine() -> dict:
    """The machine a cost was measured on."""
    flags = ""
    try:
        flags = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        pass
    return {"cpu_model": cpu_model(), "cores": os.cpu_count(), "avx512": " avx512f" in flags}


@dataclass(frozen=True)
class CommandCost:
    """What one command cost."""

    seconds: float  # its wall time
    cpu_seconds: float  # the user + system time of it and every process it waited for
    returncode: int  # its exit status
    closing: str  # pytest's closing line ("55 passed, 10 xfailed in 412.3s"); empty where it printed none
    last_line: str  # the last line it printed (what a caller shows of a failure)


def time_command(command: list[str], echo: bool = True, cwd: Path | None = None) -> CommandCost:
    """Run ``command`` (stdout and stderr merged; passed through to ours when ``echo``) and measure it.
    Raises OSError where it cannot start."""
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    closing = last = ""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, cwd=cwd)
    with child:
        assert child.stdout is not None
        for line in child.stdout:
            if echo:
                sys.stdout.write(line)
                sys.stdout.flush()
            last = line.strip() or last
            found = CLOSING.match(line.strip())
            if found:
                closing = found.group(1)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)  # waited-for descendants too
    return CommandCost(seconds, cpu, child.returncode, closing, last)


def load(path: Path) -> dict:
    """The costs file to append to: :func:`read`'s, or an empty one where none exists."""
    return read(path) if path.exists() else {"format": FORMAT, "machine": machine(), "steps": []}


def run(args: argparse.Namespace) -> int:
    command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not command:
        raise UsageError("timed: no command to run (write it after --)")
    checked_out(args.record, what="--record")  # a file of a run's records is never appended to
    data = load(args.record)  # a malformed file is a usage error before the command runs
    try:
        cost = time_command(command)
    except OSError as error:
        raise UsageError(f"timed: cannot run {command[0]!r} ({error.strerror})") from None
    if args.replace:
        data["steps"] = [step for step in data["steps"] if step.get("label") != args.label]
    data["steps"].append(
        {
            "label": args.label,
            "command": " ".join(command),
            "seconds": round(cost.seconds, 1),
            "cpu_seconds": round(cost.cpu_seconds, 1),
            "exit": cost.returncode,
            "closing": cost.closing,
            "cold": bool(args.cold),
            "date": time.strftime("%Y-%m-%d"),
        }
    )
    args.record.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(args.record, json.dumps(data, indent=1) + "\n")
    return cost.returncode
