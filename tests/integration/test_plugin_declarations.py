"""The plugin declares its own names (lengthgen/testing/declarations.py): the ini key ``lengthgen_suite``, the
claim tests' markers and its hook. So another project's ini needs none of the suite's ``pytest.ini`` under
``--strict-config --strict-markers``, and ``pytest -p no:lengthgen`` runs in the repository (its ``pytest.ini``
sets the key and loads the declarations by name)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from lengthgen.testing.declarations import MARKERS, SUITE_INI
from tests.helpers import ROOT

TIMEOUT_S = 300  # a collection on a busy 2-core machine


def pytest_run(args: list[str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def test_the_markers_name_claims_and_predictions():
    names = {line.split(":")[0].split("(")[0] for line in MARKERS}
    assert names == {"claim", "control", "quick", "paper", "robustness", "multiverse", "multiverse_extended"}, names
    claim = next(line for line in MARKERS if line.startswith("claim("))
    assert "(C<n>)" in claim and "(P<n>)" in claim and "C22" not in claim, claim  # no fixed count of claims


def test_pytest_without_the_plugin_runs_in_the_repository():
    result = pytest_run(["-p", "no:lengthgen", "--collect-only", "-q", "tests/unit/test_selection.py"], ROOT)
    said = result.stdout[-2000:] + result.stderr[-2000:]
    assert result.returncode == 0 and "Unknown config option" not in said, said
    assert "tests collected" in result.stdout, said


def test_another_project_needs_no_copy_of_the_suite_s_ini(tmp_path):
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\naddopts = --strict-markers --strict-config\n{SUITE_INI} = false\n"  # the plugin inert
    )
    (tmp_path / "test_marked.py").write_text(
        textwrap.dedent(
            """
            import pytest


            @pytest.mark.claim("C1")
            @pytest.mark.quick
            def test_claim():
                pass


            @pytest.mark.control("P1")
            @pytest.mark.multiverse_extended
            def test_control():
                pass
            """
        )
    )
    result = pytest_run(["-q"], tmp_path)
    assert result.returncode == 0 and "2 passed" in result.stdout, result.stdout[-2000:] + result.stderr[-2000:]
