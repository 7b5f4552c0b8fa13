"""What a project that adopts or cites the suite needs: the MIT licence that pyproject.toml declares, shipped in
the wheel's metadata; a valid citation file that names the paper it checks by title; a changelog with an entry for
the version; and the version written in one place (``lengthgen.__version__``, read by pyproject.toml)."""

from __future__ import annotations

import email
import shutil
import subprocess
import sys

import pytest
import tomllib

import lengthgen
from tests.helpers import ROOT

PAPER = (  # the paper's title as the suite's description, the README and the citation file give it
    "Relative Positions Generalize, Absolute Positions Memorize: "
    "An Implicit-Bias Account of Length Generalization in Attention"
)
HOLDER = "Copyright (c) 2026 the lengthgen authors"


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def citation() -> dict:
    yaml = pytest.importorskip("yaml", reason="pyyaml comes with the test extra: pip install -e '.[test]'")
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


def test_the_licence_is_the_mit_text_pyproject_declares():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and HOLDER in text, text[:200]
    project = pyproject()["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"], project.get("license")


def test_the_version_is_written_in_one_place():
    project = pyproject()
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "lengthgen.__version__"}
    assert "version" not in citation(), "CITATION.cff repeats the version; it has one place"
    assert f"## [{lengthgen.__version__}]" in (ROOT / "CHANGELOG.md").read_text(), "no changelog entry"


def test_the_citation_file_cites_the_suite_and_references_the_paper():
    data = citation()
    assert data["cff-version"] == "1.2.0" and data["type"] == "software" and data["license"] == "MIT"
    titles = [reference["title"] for reference in data.get("references", [])]
    assert PAPER in titles, f"CITATION.cff references {titles}"
    assert PAPER in " ".join((ROOT / "README.md").read_text().split())


def test_the_citation_file_is_valid_cff():
    if shutil.which("check-jsonschema") is None:
        pytest.skip("check-jsonschema is not installed (it comes with the test extra: pip install -e '.[test]')")
    out = subprocess.run(
        ["check-jsonschema", "--builtin-schema", "vendor.citation-file-format", str(ROOT / "CITATION.cff")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_wheel_metadata_carries_the_licence(tmp_path):
    """The metadata setuptools puts in the wheel (its PEP 517 hook, in-process: no download, no build
    isolation): the licence expression, the licence file and its text, and the version from the package."""
    code = f"import sys, setuptools.build_meta as b; print(b.prepare_metadata_for_build_wheel({str(tmp_path)!r}))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    info = tmp_path / out.stdout.strip().splitlines()[-1]
    metadata = email.message_from_string((info / "METADATA").read_text())
    assert metadata["License-Expression"] == "MIT" and metadata["License-File"] == "LICENSE", dict(metadata)
    assert metadata["Version"] == lengthgen.__version__, metadata["Version"]
    assert (info / "licenses" / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
