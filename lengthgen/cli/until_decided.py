"""``lengthgen <subcommand> --until-decided[=MAX]``: run the claim tests of the claims that subcommand
serves through the same stopping rule as ``pytest claims --lengthgen-until-decided=MAX``
(``claims.run.run_claim``, looping with ``lengthgen.sequential.until_decided``).

A subcommand's claims are the ids its ``HELP`` names before the first colon (``C6/C7: ...`` for
``dilution``, ``the C1 grid: ...`` for ``phenomenon``, ``P1-P6: ...`` a range). The command runs
``python -m pytest claims/test_c06_*.py claims/test_c07_*.py --lengthgen-until-decided=MAX`` in the source
checkout that holds the package (the claim tests live beside it, in ``claims/``), at the paper's scale, with
the subcommand's ``--cache-dir``, ``--retrain``, ``--threads`` and ``--device`` passed on as the plugin's
``--lengthgen-cache-dir``, ``--lengthgen-retrain``, ``--lengthgen-threads`` and ``--lengthgen-device``, and
its ``--workers`` as xdist workers (when more than one and pytest-xdist is installed). Its other options
(``--seeds``, ``--steps``, ``--json``, ...) do not apply: each claim starts from its own seeds, as in the
suite. The report (``reports/``) and the verdict table are pytest's; the exit status is pytest's.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[2]  # the source checkout that holds the package and claims/


def claim_ids(help_text: str) -> list[str]:
    """The claim ids a subcommand's help names before its first colon (ranges such as P1-P6 expanded)."""
    head = help_text.split(":", 1)[0] if ":" in help_text else ""
    ids: list[str] = []
    for prefix, first, last in re.findall(r"\b([CP])(\d+)(?:-[CP](\d+))?\b", head):
        for number in range(int(first), int(last or first) + 1):
            ids.append(f"{prefix}{number}")
    return ids


def claim_files(ids: Sequence[str], root: Path = ROOT) -> list[Path]:
    """The claim test modules of ``ids`` (``claims/test_c06_*.py`` for C6, ``test_p2_*.py`` for P2); ValueError
    naming a missing one."""
    files = []
    for claim in ids:
        letter, number = claim[0].lower(), int(claim[1:])
        found = sorted(
            {
                *(root / "claims").glob(f"test_{letter}{number:02d}_*.py"),  # test_c06_..., test_p2_...
                *(root / "claims").glob(f"test_{letter}{number}_*.py"),
            }
        )
        if not found:
            raise ValueError(f"no claim test for {claim} under {root / 'claims'}")
        files += [f for f in found if f not in files]
    return files


def command(args: argparse.Namespace, help_text: str, prog: str, root: Path = ROOT) -> list[str]:
    """The pytest command line that ``--until-decided`` runs for a subcommand."""
    ids = claim_ids(help_text)
    if not ids:
        raise ValueError(f"{prog} serves no catalogue claim, so --until-decided does not apply to it")
    if not (root / "claims" / "conftest.py").exists():
        raise ValueError(f"--until-decided runs the claim tests, which are not beside the package ({root / 'claims'})")
    line = [
        sys.executable,
        "-m",
        "pytest",
        *(str(f.relative_to(root)) for f in claim_files(ids, root)),
        f"--lengthgen-until-decided={args.until_decided}",
        f"--lengthgen-threads={getattr(args, 'threads', 1)}",
        f"--lengthgen-device={getattr(args, 'device', 'cpu')}",
    ]
    if getattr(args, "cache_dir", None) is not None:
        line.append(f"--lengthgen-cache-dir={Path(args.cache_dir).resolve()}")
    if getattr(args, "retrain", False):
        line.append("--lengthgen-retrain")
    workers = getattr(args, "workers", 1) or 1
    if workers > 1 and importlib.util.find_spec("xdist") is not None:
        line += ["-n", str(min(workers, len(ids) * 2))]
    return line


def run(args: argparse.Namespace, help_text: str, prog: str) -> int:
    """Run the subcommand's claims until decided; pytest's exit status."""
    line = command(args, help_text, prog)
    print(f"{prog} --until-decided={args.until_decided}: {' '.join(line[2:])}", flush=True)
    return subprocess.run(line, cwd=ROOT, check=False).returncode
