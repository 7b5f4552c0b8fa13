"""The plugin keeps a process's state of the run in one object (``lengthgen.testing.session.LengthgenSession``)
under one key of ``config.stash``; the only other keys it defines are a test item's (``item.stash``)."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import lengthgen.testing
from lengthgen.testing import session

ROOT = Path(__file__).resolve().parents[2]
TESTING = Path(lengthgen.testing.__file__).parent
ITEM_KEYS = {("verdicts", "RECORDER"), ("verdicts", "DURATION"), ("verdicts", "TRAINED_BEFORE")}  # item.stash
TIMEOUT_S = 180  # one pytest start-up on shared cores


def stash_keys(folder: Path) -> set[tuple[str, str]]:
    """(module, name) of every ``pytest.StashKey[...]()`` assigned at a module's top level under ``folder``."""
    found = set()
    for path in sorted(folder.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, ast.Call) and "StashKey" in ast.unparse(value.func):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found |= {(path.stem, ast.unparse(target)) for target in targets}
    return found


def test_the_plugin_defines_one_config_level_stash_key_and_the_items_keys():
    assert stash_keys(TESTING) == {("session", "SESSION")} | ITEM_KEYS
    assert stash_keys(ROOT / "claims") == set()  # the claims keep theirs on the session object


def test_every_field_of_the_session_object_says_what_it_holds():
    source = (TESTING / "session.py").read_text().splitlines()
    for cls in (session.LengthgenSession, session.SessionMemo):
        for field in dataclasses.fields(cls):
            line = next(text for text in source if text.strip().startswith(f"{field.name}:"))
            assert "#" in line, line
    assert dataclasses.fields(session.LengthgenSession) and session.LengthgenSession.__dataclass_params__.frozen


# A plugin that writes, at the end of a suite session, which of the plugin's stash keys its config.stash holds.
STASH_PROBE = """
import importlib, json, os, pkgutil

import pytest

import lengthgen.testing


def pytest_sessionfinish(session):
    names = {}
    for module in pkgutil.iter_modules(lengthgen.testing.__path__):
        loaded = importlib.import_module(f"lengthgen.testing.{module.name}")
        for name, value in vars(loaded).items():
            if isinstance(value, pytest.StashKey):
                names[id(value)] = f"{module.name}.{name}"
    held = sorted(names[id(key)] for key in session.config.stash._storage if id(key) in names)
    with open(os.environ["STASH_PROBE_OUT"], "w") as handle:
        json.dump(held, handle)
"""


@pytest.mark.slow
def test_a_suite_sessions_config_stash_holds_one_lengthgen_key(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\nlengthgen_suite = true\n")
    (tmp_path / "conftest.py").write_text(textwrap.dedent(STASH_PROBE))
    (tmp_path / "test_plain.py").write_text(
        "def test_one(model_cache, runtime):\n    assert model_cache.runtime is runtime\n"
    )
    out = tmp_path / "held.json"
    env = {**os.environ, "STASH_PROBE_OUT": str(out), "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--lengthgen-cache-dir={tmp_path / 'cache'}",
            f"--lengthgen-report-dir={tmp_path / 'report'}",
            "--lengthgen-workers=1",
        ],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert json.loads(out.read_text()) == ["session.SESSION"]


def test_a_session_that_is_not_the_suites_has_no_session_object():
    from types import SimpleNamespace

    with pytest.raises(LookupError, match="lengthgen_suite = true"):
        session.session_of(SimpleNamespace(stash=pytest.Stash()))
