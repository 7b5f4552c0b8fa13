"""Imports flow one way: the package's layering, as pyproject.toml's import-linter contracts
state it (ARCHITECTURE.md's map), holds; an upward import breaks it; and rendering a claims.json imports no
torch (``lengthgen report``, ``lengthgen diff``, ``lengthgen robustness``, ``lengthgen multiverse``)."""

from __future__ import annotations

import gzip
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lengthgen import cli
from lengthgen.cli import command_modules, command_name, command_names, requested
from tests.helpers import ROOT

RECORDED = ROOT / "tests" / "data" / "claims-paper-1e63f06.json.gz"  # a paper-scale run's claims.json
LINT = (
    "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
    "--no-cache",
    "--no-logo",
)  # `lint-imports`, through the interpreter running the tests
TIMEOUT_S = 300


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` in ``cwd`` (its pyproject.toml's contracts, over the ``lengthgen`` found there first)."""
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [sys.executable, "-c", *LINT], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
    )


def test_the_layering_holds():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


UPWARD = [  # (file of the package, an import it must not make, the contract it breaks, what lint-imports names)
    (
        "models/one_layer/head.py",
        "from lengthgen.experiments import common",
        "The package's layers",
        "lengthgen.models.one_layer.head -> lengthgen.experiments.common",
    ),
    (
        "report/grid.py",
        "from lengthgen.report import multiverse",
        "Inside the report",
        "lengthgen.report.grid -> lengthgen.report.multiverse",
    ),
    (
        "analysis/data.py",
        "from lengthgen.analysis import run_view",
        "Inside the analysis",
        "lengthgen.analysis.data -> lengthgen.analysis.run_view",
    ),
    (
        "analysis/outcome.py",
        "from lengthgen.report import text",
        "renders nothing",
        "lengthgen.analysis.outcome -> lengthgen.report.text",
    ),
    ("analysis/curve.py", "import matplotlib", "renders nothing", "lengthgen.analysis.curve -> matplotlib"),
    (
        "testing/session.py",
        "from lengthgen.testing import drawing",
        "Inside the pytest plugin",
        "lengthgen.testing.session -> lengthgen.testing.drawing",
    ),
    (
        "engine/grouping.py",
        "from lengthgen.store import one_layer",
        "The package's layers",
        "lengthgen.engine.grouping -> lengthgen.store.one_layer",
    ),
    ("report/text.py", "import torch", "read a claims.json", "lengthgen.report.text -> torch"),
    (
        "records/record.py",
        "import claims.support",
        "never imports the claim tests",
        "lengthgen.records.record -> claims",
    ),
]


@pytest.mark.parametrize("where, line, contract, named", UPWARD, ids=[u[0] for u in UPWARD])
def test_an_upward_import_breaks_it(tmp_path, where, line, contract, named):
    """In a copy of the package with one import added (the tree itself is left as it is)."""
    shutil.copytree(ROOT / "lengthgen", tmp_path / "lengthgen", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "lengthgen" / where
    target.write_text(target.read_text() + f"\n{line}  # an upward import\n")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken and named in " ".join(broken.split()), result.stdout


# ----------------------------------------------------------------------------------------------- no torch


def test_no_report_or_analysis_module_imports_torch():
    code = (
        "import importlib, json, pkgutil, sys, lengthgen.report as r, lengthgen.analysis as a\n"
        "for p in (r, a):\n"
        "    for m in pkgutil.iter_modules(p.__path__):\n        importlib.import_module(f'{p.__name__}.{m.name}')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'torch')[:3]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S, check=True
    )
    assert json.loads(result.stdout) == []


def with_every_part(path: Path) -> Path:
    """The recorded run as a claims.json at ``path``, with a robustness cell and a multiverse cell (C1's
    record at a setting and under a reading) so that every part of the page and every grid is drawn."""
    with gzip.open(RECORDED, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    c1 = next(r for r in data["records"] if r["claim"] == "C1")
    data.update(
        robustness=[dict(c1, setting="width-32")],
        robustness_environment=data["environment"],
        multiverse=[dict(c1, reading="init=gpt2")],
        multiverse_environment=data["environment"],
    )
    path.write_text(json.dumps(data))
    return path


RENDERS = {  # a command line of each subcommand that renders a claims.json ({claims}: one with every part)
    "report": ["report", "--run", "{claims}", "--out", "page", "--quiet"],
    "diff": ["diff", str(RECORDED), "{claims}"],
    "robustness": ["robustness", "--run", "{claims}"],
    "multiverse": ["multiverse", "--run", "{claims}"],
    "docs": ["docs", "--data", str(ROOT / "tests" / "data"), "--root", str(ROOT), "--check"],  # the recorded runs
    "timed": ["timed", "--record", "costs.json", "--label", "true", "--", sys.executable, "-c", "pass"],
}


@pytest.mark.slow
@pytest.mark.parametrize("command", list(RENDERS))
def test_rendering_a_claims_json_imports_no_torch(tmp_path, command):
    (tmp_path / "run").mkdir()  # the run's own folder: a page goes beside it (cwd), never into it
    claims = with_every_part(tmp_path / "run" / "claims.json")
    argv = [a.format(claims=claims) for a in RENDERS[command]]
    code = (
        "import json, sys\nfrom lengthgen.cli import main\nstatus = main(json.loads(sys.argv[1]))\n"
        "print(json.dumps({'status': status, 'torch': sorted(m for m in sys.modules "
        "if m.split('.')[0] == 'torch')[:3]}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, json.dumps(argv)], cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT_S
    )
    assert result.returncode == 0, result.stdout + result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome == {"status": 0, "torch": []}, result.stdout + result.stderr


def test_a_command_line_imports_its_subcommand_alone():
    """The lazy path rests on each module's NAME being its file's name with dashes."""
    for module in command_modules():
        assert importlib.import_module(f"lengthgen.cli.{module}").NAME == command_name(module), module
    assert requested(["report", "--run", "x.json"]) == ["report"]
    assert requested(["weight-decay", "--seeds", "0-1"]) == ["weight-decay"]  # a row of the experiments' table
    assert requested(["--help"]) is None and requested([]) is None and requested(["no-such-command"]) is None
    assert set(RENDERS) == set(cli.RENDERS) <= {command_name(m) for m in command_modules()} <= set(command_names())
