"""The suite's pytest plugin loads through the ``pytest11`` entry point: its options take ``--opt value`` as
well as ``--opt=value`` (under xdist, without a test path), except the three path options, whose space form is
a one-line usage error that says to write ``=``; in a session that is not the suite's it adds its options and
does nothing else. The README's set-up,
``pip install -e ".[test]"``, brings every third-party module the suite imports.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import lengthgen.testing.plugin
from lengthgen.sequential import DEFAULT_MAX
from lengthgen.testing.options import PATH_OPTIONS
from tests.helpers import ROOT

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

FIRST_PARTY = {"lengthgen", "tests", "claims"}  # the package and the suite's own folders
SUITE_FOLDERS = ("tests", "claims")  # the README's `pytest -n auto` runs both (pytest.ini's testpaths)
SERIAL_TIMEOUT_S = 180  # one pytest start-up collecting claims/ and running C15 (exact: no training)
XDIST_TIMEOUT_S = 400  # the controller and two workers each importing torch and collecting claims/, shared cores


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def run(args: list[str], cwd: Path, timeout: int = SERIAL_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def output(result: subprocess.CompletedProcess) -> str:
    return result.stdout[-3000:] + result.stderr[-3000:]


# ---- the entry point and the test extra ---------------------------------------------------------------


def test_the_entry_point_is_declared_and_resolves_to_the_plugin():
    assert pyproject()["project"]["entry-points"]["pytest11"] == {"lengthgen": "lengthgen.testing.plugin"}
    (point,) = importlib.metadata.entry_points(group="pytest11", name="lengthgen")  # the installed metadata
    assert point.value == "lengthgen.testing.plugin"
    assert point.load() is lengthgen.testing.plugin
    assert not (ROOT / "conftest.py").exists()  # no second way in: `-p` of the module would register it twice


def test_the_plugin_is_active_in_the_suites_session(pytestconfig):
    assert pytestconfig.getini(lengthgen.testing.plugin.SUITE_INI) is True  # pytest.ini
    for name in lengthgen.testing.plugin.SUITE_MODULES:
        assert pytestconfig.pluginmanager.get_plugin(name) is not None, name


def declared() -> set[str]:
    """The distributions ``pip install -e ".[test]"`` asks for by name."""
    project = pyproject()["project"]
    specs = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    return {canonicalize_name(Requirement(spec).name) for spec in specs}


def imported_modules(folder: Path) -> dict[str, Path]:
    """Every top-level module a ``.py`` file under ``folder`` imports (anywhere in the file), with one
    file that imports it."""
    found: dict[str, Path] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], path)
    return found


def test_the_test_extra_brings_distributed_and_every_module_the_suite_imports():
    names = declared()
    assert "distributed" in names  # tests/integration/test_dask_cluster.py runs a real cluster by default
    providers = importlib.metadata.packages_distributions()  # import name -> distributions that provide it
    missing = []
    for folder in SUITE_FOLDERS:
        for module, path in imported_modules(ROOT / folder).items():
            if module in sys.stdlib_module_names or module in FIRST_PARTY:
                continue
            dists = {canonicalize_name(dist) for dist in providers.get(module, [])}
            if not dists & names:  # not installed at all, or only as something else's dependency
                missing.append(f"{module} ({path.relative_to(ROOT)}; from {sorted(dists) or 'nothing installed'})")
    assert not missing, f"imported by the suite but not in pyproject's dependencies or test extra: {missing}"


def test_ci_installs_exactly_the_test_extra():
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install -q -e ".[test]"' in ci and "[test," not in ci
    assert ci.index("torch==2.13.0") < ci.index('".[test]"')  # the CPU build first


# ---- the space form in this suite ------------------------------------------------------------------------


@pytest.mark.slow
def test_space_form_under_xdist_without_a_path(tmp_path):
    """The options whose values are not paths take the space form under xdist, with no test path (each worker
    parses the controller's command line again); the path options take ``=``."""
    cache, report = tmp_path / "new-cache", tmp_path / "report"
    result = run(
        [
            "-m",
            "quick",
            "-n",
            "2",
            f"--lengthgen-cache-dir={cache}",
            f"--lengthgen-report-dir={report}",
            "--lengthgen-threads",
            "1",
            "--lengthgen-seeds",
            "0-2",
            "--lengthgen-device",
            "cpu",
            "-k",
            "C15",
            "-o",
            "testpaths=claims",
        ],  # testpaths: no test path, claims/ alone
        ROOT,
        XDIST_TIMEOUT_S,
    )
    assert result.returncode == 0, output(result)
    assert "2 passed" in result.stdout and "unrecognized arguments" not in output(result), output(result)
    data = json.loads((report / "claims.json").read_text())
    assert data["environment"]["cache_dir"] == str(cache) and cache.is_dir()
    assert {record["claim"] for record in data["records"]} == {"C15"}


@pytest.mark.slow
@pytest.mark.parametrize("option", PATH_OPTIONS)
def test_a_path_option_in_the_space_form_is_a_one_line_usage_error(tmp_path, option):
    """pytest would take an existing directory after the option for a test path when it chooses its rootdir (it
    became that directory, and pytest.ini was not read): refused at start, exit 4, one line saying to write =."""
    place = tmp_path / "existing"
    place.mkdir()
    if option == "--lengthgen-summary-md":  # a file: its validator refuses a directory first
        place = place / "summary.md"
        place.write_text("")
    result = run(["-p", "no:xdist", "-m", "quick", option, str(place), "-k", "C15"], ROOT)
    assert result.returncode == 4, output(result)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"ERROR: {option} {place}:"), output(result)
    assert f"write {option}={place}" in lines[0], output(result)


@pytest.mark.slow
def test_every_option_with_existing_directories(tmp_path):
    """Every value option, the paths in the = form and the rest in the space form, a bare
    --lengthgen-until-decided before another option: the suite's rootdir and ini file, the C15 tests collected."""
    cache, report = tmp_path / "cache", tmp_path / "report"
    cache.mkdir()
    report.mkdir()
    result = run(
        [
            "-p",
            "no:xdist",
            "--collect-only",
            "-m",
            "quick",
            f"--lengthgen-cache-dir={cache}",
            f"--lengthgen-report-dir={report}",
            "--lengthgen-threads",
            "2",
            "--lengthgen-seeds",
            "0-3",
            "--lengthgen-device",
            "cpu",
            "--lengthgen-until-decided",
            "-k",
            "C15",
            "-o",
            "testpaths=claims",
        ],
        ROOT,
    )
    assert result.returncode == 0, output(result)
    assert f"rootdir: {ROOT}" in result.stdout and "configfile: pytest.ini" in result.stdout, output(result)
    assert "2/" in result.stdout and "tests collected" in result.stdout, output(result)


# ---- a session that is not the suite's -------------------------------------------------------------------

FOREIGN_INI = """
[pytest]
addopts = --strict-markers
markers =
    quick: this project's own meaning of quick
"""

FOREIGN_TESTS = """
import pytest


def test_options_parse(pytestconfig):
    print("cache-dir", pytestconfig.getoption("lengthgen_cache_dir"))
    print("until-decided", pytestconfig.getoption("lengthgen_until_decided"))
    print("inifile", pytestconfig.inipath)


def test_the_plugin_does_nothing_else(request):
    manager = request.config.pluginmanager
    assert manager.get_plugin("lengthgen") is not None  # loaded through the entry point
    for name in {SUITE_MODULES!r}:
        assert manager.get_plugin(name) is None, name
    for fixture in ("claim", "control", "scale"):
        with pytest.raises(pytest.FixtureLookupError):
            request.getfixturevalue(fixture)


@pytest.mark.quick
def test_quick_is_not_deselected():
    pass
"""


@pytest.mark.slow
def test_the_plugin_is_inert_in_a_foreign_session(tmp_path):
    project, cache = tmp_path / "project", tmp_path / "existing"
    project.mkdir()
    cache.mkdir()
    (project / "pytest.ini").write_text(textwrap.dedent(FOREIGN_INI))
    (project / "test_foreign.py").write_text(
        textwrap.dedent(FOREIGN_TESTS).replace("{SUITE_MODULES!r}", repr(lengthgen.testing.plugin.SUITE_MODULES))
    )
    result = run(
        ["-p", "no:xdist", "-s", f"--lengthgen-cache-dir={cache}", "--lengthgen-until-decided", "-p", "no:warnings"],
        project,
    )
    assert result.returncode == 0 and "3 passed" in result.stdout, output(result)
    assert f"cache-dir {cache}" in result.stdout and f"until-decided {DEFAULT_MAX}" in result.stdout, output(result)
    assert f"inifile {project / 'pytest.ini'}" in result.stdout, output(result)  # its own ini
    assert not (project / "reports").exists() and not list(cache.iterdir())  # no report, the cache untouched
    assert "peak resident memory" not in result.stdout and "wall time" not in result.stdout  # no summary lines

    helped = run(["-p", "no:xdist", "--help"], project)
    assert helped.returncode == 0, output(helped)
    assert "lengthgen:" in helped.stdout and "--lengthgen-cache-dir" in helped.stdout, output(helped)
    assert "--lengthgen-until-decided" in helped.stdout, output(helped)
    assert "lengthgen_suite" in helped.stdout  # the ini key that makes a session the suite's
