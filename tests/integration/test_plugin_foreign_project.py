"""The plugin's options cannot collide with another project's: the ``pytest11`` entry point adds them to
every pytest session in the environment, so each is named ``--lengthgen-*`` (as ``--benchmark-*`` and
``--cov*`` are). A foreign project whose ``conftest.py`` adds short names such as ``--device``,
``--seeds``, ``--threads``, ``--cache-dir``, ``--report-dir``, ... runs its tests as if lengthgen were not
installed; unprefixed options would stop it at start with argparse's "conflicting option string". The
suite's model-cache fixture is ``model_cache``, so pytest's own ``cache`` fixture keeps its meaning in the
suite's session too.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap

import pytest

TIMEOUT_S = 180  # one pytest start-up on shared cores (the plugin's options import no torch)

# every short name the plugin's options had before the prefix, as another project might add them
SHORT_NAMES = (
    "--device",
    "--seeds",
    "--threads",
    "--cache-dir",
    "--report-dir",
    "--retrain",
    "--scheduler",
    "--until-decided",
    "--summary-md",
)

FOREIGN_CONFTEST = """
def pytest_addoption(parser):
    parser.addoption("--device", default="cpu", help="this project's own device")
    parser.addoption("--seeds", type=int, default=1, help="this project's own seed count")
    parser.addoption("--threads", type=int, default=1)
    parser.addoption("--cache-dir", default=None)
    parser.addoption("--report-dir", default=None)
    parser.addoption("--retrain", action="store_true")
    parser.addoption("--scheduler", default=None)
    parser.addoption("--until-decided", default=None)
    parser.addoption("--summary-md", default=None)
"""

FOREIGN_TEST = """
def test_its_own_options_arrive(pytestconfig):
    assert pytestconfig.getoption("--device") == "cuda:7"  # the project's value, never validated by lengthgen
    assert pytestconfig.getoption("--seeds") == 3
    assert pytestconfig.getoption("--threads") == 5
    assert pytestconfig.getoption("--cache-dir") == "its-cache"
    assert pytestconfig.getoption("--report-dir") == "its-reports"
    assert pytestconfig.getoption("--retrain") is True
    assert pytestconfig.getoption("--until-decided") == "never"
    assert pytestconfig.getoption("lengthgen_seeds") == (0, 1, 2)  # the plugin's own option, beside them
    assert pytestconfig.getoption("lengthgen_device") == "cpu"
"""


def test_lengthgen_is_installed_with_its_entry_point():
    """The foreign project below sees the plugin only through the installed entry point."""
    (point,) = importlib.metadata.entry_points(group="pytest11", name="lengthgen")
    assert point.value == "lengthgen.testing.plugin"


@pytest.mark.slow
def test_a_foreign_project_with_the_short_option_names_runs(tmp_path):
    project = tmp_path / "foreign"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n")  # its own rootdir; lengthgen_suite unset: plugin inert
    (project / "conftest.py").write_text(textwrap.dedent(FOREIGN_CONFTEST))
    (project / "test_foreign.py").write_text(textwrap.dedent(FOREIGN_TEST))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--device",
            "cuda:7",
            "--seeds=3",
            "--threads",
            "5",
            "--cache-dir",
            "its-cache",
            "--report-dir=its-reports",
            "--retrain",
            "--until-decided",
            "never",
            "--lengthgen-seeds=0-2",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    out = result.stdout[-3000:] + result.stderr[-3000:]
    assert "conflicting option string" not in out, out
    assert result.returncode == 0 and "1 passed" in result.stdout, out
    assert f"rootdir: {project}" in result.stdout, out
    assert not (project / "reports").exists() and not (project / "its-cache").exists()  # the plugin did nothing

    helped = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--help"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert helped.returncode == 0, helped.stdout[-2000:] + helped.stderr[-2000:]
    assert "this project's own device" in helped.stdout and "--lengthgen-device" in helped.stdout


def test_the_plugin_adds_none_of_the_short_names(pytestconfig):
    names = {name for option in pytestconfig._parser.getgroup("lengthgen").options for name in option.names()}
    assert names and not names & set(SHORT_NAMES), sorted(names)


def test_pytests_cache_fixture_is_not_shadowed(request):
    """In the suite's session the plugin's model cache is ``model_cache``; ``cache`` is pytest's own
    (absent under ``-p no:cacheprovider``), never a :class:`lengthgen.store.cache.Cache`."""
    from lengthgen.store.cache import Cache

    assert isinstance(request.getfixturevalue("model_cache"), Cache)
    if request.config.pluginmanager.has_plugin("cacheprovider"):
        from _pytest.cacheprovider import Cache as PytestCache

        assert isinstance(request.getfixturevalue("cache"), PytestCache)
    else:
        with pytest.raises(pytest.FixtureLookupError):
            request.getfixturevalue("cache")
