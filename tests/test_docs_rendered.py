"""The documents rendered from the reference run (``lengthgen docs``): the page in the repository is its
rendering, a bad reference run is one line and exit 2 and changes nothing, and no document names a path
outside the repository."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lengthgen.cli import docs, main

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"\.\./shared|/work/shared")  # the catalogue's home outside the repository


def test_the_catalogue_page_is_its_rendering():
    """Changing a rendered line of docs/catalogue.md by hand fails here, naming the line."""
    out = subprocess.run(
        [sys.executable, "-m", "lengthgen", "docs", "--check"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, f"run `lengthgen docs` and commit the result: {out.stdout}{out.stderr}"


def test_a_hand_edit_is_named(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "catalogue.md"
    page.write_text((ROOT / "docs" / "catalogue.md").read_text().replace("| C3 |", "| C3x |"))
    assert main(["docs", "--root", str(tmp_path), "--check"]) == 1
    assert "C3x" in capsys.readouterr().out
    assert main(["docs", "--root", str(tmp_path)]) == 0 and page.read_text() == (ROOT / "docs/catalogue.md").read_text()


@pytest.mark.parametrize("kind", ["missing", "truncated", "older-format"])
def test_a_bad_reference_is_one_line_and_changes_nothing(kind, tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "catalogue.md"
    page.write_text("as it was\n")
    reference = tmp_path / "claims.json.gz"
    if kind == "truncated":
        reference.write_bytes(docs.REFERENCE.read_bytes()[:5000])
    elif kind == "older-format":
        reference.write_bytes(gzip.compress(json.dumps({"format": 0, "records": "no"}).encode()))
    assert main(["docs", "--root", str(tmp_path), "--reference", str(reference)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and page.read_text() == "as it was\n"


def test_no_document_or_docstring_names_a_path_outside_the_repository():
    found = []
    for path in [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *(ROOT / "docs").glob("*.md")]:
        found += [f"{path.name}:{i}" for i, line in enumerate(path.read_text().splitlines(), 1) if OUTSIDE.search(line)]
    for folder in ("lengthgen", "claims", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == Path(__file__).name:
                continue
            text = path.read_text()
            found += [
                f"{path.relative_to(ROOT)}:{i}" for i, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)
            ]
    assert not found, f"paths outside the repository: {found}"


def test_the_rendering_needs_no_torch():
    code = "import sys; from lengthgen.cli import docs; docs.rendered(docs.REFERENCE); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


def test_every_document_uses_the_verdict_words_of_the_report():
    """A verdict a document quotes is one the report shows (run_view.VERDICT_STYLES, the controls' words);
    a retired use (an unexpected pass or an undeclared failure called "failed") fails here."""
    from lengthgen.records import CONTROL_VERDICTS
    from lengthgen.report.run_view import VERDICT_STYLES

    words = {s.verdict for s in VERDICT_STYLES} | set(CONTROL_VERDICTS) | {"changed", "close", "held"}
    retired = re.compile(
        r'(?:unexpected pass|undeclared (?:failure|finding)|another failing check) (?:is|reads|as) "failed"'
    )
    found = []
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        text = path.read_text()
        found += [f"{path.name}: {m.group(0)}" for m in retired.finditer(text)]
        found += [
            f"{path.name}: {m.group(0)}"
            for m in re.finditer(r'the verdict (?:is|was) "([a-z ()]+)"', text)
            if m.group(1) not in words
        ]
    assert not found, f"retired or unknown verdict words: {found}"
