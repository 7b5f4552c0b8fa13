"""The documents rendered from the recorded runs (``lengthgen docs --data tests/data``): the catalogue page and the
marked sections of the README and docs/ are their rendering, a hand edit of a rendered number fails naming its
line, a recorded run not named or missing, a bad reference run, costs file or marker is one line and exit 2 and
changes nothing, no document names a path outside the repository, and none tells the project's history."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lengthgen.cli import main
from tests.helpers import DATA, ROOT

OUTSIDE = re.compile(r"\.\./shared|/work/shared")  # the catalogue's home outside the repository


def test_the_catalogue_page_is_its_rendering():
    """Changing a rendered line of docs/catalogue.md by hand fails here, naming the line."""
    out = subprocess.run(
        [sys.executable, "-m", "lengthgen", "docs", "--data", "tests/data", "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, (
        f"run `lengthgen docs --data tests/data` and commit the result: {out.stdout}{out.stderr}"
    )


RENDERED = (  # the documents `lengthgen docs` writes
    "README.md",
    "docs/catalogue.md",
    "docs/verdicts.md",
    "docs/costs.md",
    "docs/findings.md",
    "docs/predictions.md",
    "docs/robustness.md",
    "docs/speed.md",
    "docs/memory.md",
    "docs/statistics.md",
    "docs/protocol.md",
)


def copy_documents(root: Path) -> None:
    (root / "docs").mkdir(exist_ok=True)
    for name in RENDERED:
        (root / name).write_text((ROOT / name).read_text())


def test_a_hand_edit_is_named(tmp_path, capsys):
    copy_documents(tmp_path)
    page = tmp_path / "docs" / "catalogue.md"
    page.write_text((ROOT / "docs" / "catalogue.md").read_text().replace("| C3 |", "| C3x |"))
    assert main(["docs", "--data", str(DATA), "--root", str(tmp_path), "--check"]) == 1
    assert "C3x" in capsys.readouterr().out
    assert (
        main(["docs", "--data", str(DATA), "--root", str(tmp_path)]) == 0
        and page.read_text() == (ROOT / "docs/catalogue.md").read_text()
    )


def _rendered_number(text: str, section: str) -> str:
    """The first number with a decimal point inside ``section``'s markers of ``text`` (else the first count of
    MiB or models)."""
    body = text[text.index(f"begin {section} -->") : text.index(f"end {section} -->")]
    return (re.search(r"\d+\.\d+", body) or re.search(r"\d+(?= MiB| models)", body)).group(0)


@pytest.mark.parametrize(
    "name, section",
    [
        ("README.md", "cost-line"),
        ("docs/verdicts.md", "verdicts"),
        ("docs/costs.md", "costs"),
        ("docs/costs.md", "ci-costs"),
        ("docs/findings.md", "claims"),
        ("docs/findings.md", "non-reproductions"),
        ("docs/predictions.md", "predictions"),
        ("docs/predictions.md", "prediction-failures"),
        ("docs/robustness.md", "robustness-map"),
        ("docs/robustness.md", "map-breaks"),
        ("docs/robustness.md", "stated-numbers"),
        ("docs/speed.md", "claim-costs"),
        ("docs/speed.md", "benchmarks"),
        ("docs/statistics.md", "seeds-added"),
        ("docs/memory.md", "peak-memory"),
        ("docs/robustness.md", "universes"),
        ("docs/protocol.md", "two-layer-widths"),
        ("docs/protocol.md", "quick-steps"),
    ],
)
def test_changing_a_rendered_number_by_hand_fails_naming_the_line(name, section, tmp_path, capsys):
    """Every rendered section (the README's cost line, docs/'s verdict table, costs, tables, non-reproductions,
    map, seed paths) is its rendering: a number typed over is found, and rendering again restores it."""
    copy_documents(tmp_path)
    text = (ROOT / name).read_text()
    number = _rendered_number(text, section)
    start = text.index(f"begin {section} -->")
    at = text.index(number, start)
    changed = text[:at] + number + "1" + text[at + len(number) :]
    (tmp_path / name).write_text(changed)
    assert main(["docs", "--data", str(DATA), "--root", str(tmp_path), "--check"]) == 1
    out = capsys.readouterr().out
    edited = next(line for line in changed.splitlines() if number + "1" in line)  # the line typed over, named
    assert f"{name} differs from its rendering: -{edited[:100]}" in out
    assert main(["docs", "--data", str(DATA), "--root", str(tmp_path)]) == 0 and (tmp_path / name).read_text() == text


@pytest.mark.parametrize(
    "broken",
    [
        "<!-- lengthgen docs: end cost-line -->\n",
        "<!-- lengthgen docs: begin cost-line -->\n",
        "<!-- lengthgen docs: bgin x -->\n",
    ],
    ids=["end-without-begin", "begin-twice", "malformed"],
)
def test_a_broken_marker_is_one_line_and_changes_nothing(broken, tmp_path, capsys):
    copy_documents(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text() + broken)
    before = {name: (tmp_path / name).read_text() for name in RENDERED}
    (tmp_path / "docs" / "catalogue.md").write_text("stale\n")
    before["docs/catalogue.md"] = "stale\n"
    assert main(["docs", "--data", str(DATA), "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "README.md" in err
    assert {name: (tmp_path / name).read_text() for name in RENDERED} == before


BAD_INPUTS = {  # (option, kind) -> the bytes written at its path (None: no file there)
    ("--reference", "missing"): None,
    ("--reference", "truncated"): lambda: (DATA / "claims-reference.json.gz").read_bytes()[:5000],
    ("--reference", "older-format"): lambda: gzip.compress(json.dumps({"format": 0, "records": "no"}).encode()),
    ("--reference", "no-plan"): lambda: _without_plan(),
    ("--costs", "missing"): None,
    ("--costs", "malformed"): lambda: b"{",
    ("--costs", "older-format"): lambda: json.dumps({"format": 0, "steps": []}).encode(),
    ("--ci-costs", "missing"): None,
    ("--ci-costs", "malformed"): lambda: b"{",
    ("--bench", "missing"): None,
    ("--bench", "malformed"): lambda: b"{",
    ("--bench", "foreign"): lambda: json.dumps({"steps": []}).encode(),
    ("--seeds-added", "missing"): None,
    ("--seeds-added", "truncated"): lambda: (DATA / "claims-until-decided.json.gz").read_bytes()[:5000],
    ("--development", "missing"): None,
    ("--development", "malformed"): lambda: b"{",
    ("--development", "foreign"): lambda: json.dumps({"environment": {}}).encode(),
    ("--development", "lacking"): lambda: json.dumps({"runs": {}}).encode(),
    ("--startup", "missing"): None,
    ("--startup", "malformed"): lambda: b"{",
    ("--startup", "foreign"): lambda: json.dumps({"runs": []}).encode(),
    ("--extended-costs", "missing"): None,
    ("--extended-costs", "malformed"): lambda: b"{",
    ("--extended", "missing"): None,
    ("--extended", "other-code"): lambda: _other_code(),
}


def _other_code() -> bytes:
    """The extended cells as a run of other numeric code recorded them (another code fingerprint)."""
    data = json.loads(gzip.decompress((DATA / "claims-extended.json.gz").read_bytes()))
    data["multiverse_environment"]["code_fingerprint"] = "0" * 16
    return gzip.compress(json.dumps(data).encode())


def _without_plan() -> bytes:
    """The reference run as an older version recorded it: no multiverse plan (docs/robustness.md's universes)."""
    data = json.loads(gzip.decompress((DATA / "claims-reference.json.gz").read_bytes()))
    data.pop("multiverse_plan", None)
    return gzip.compress(json.dumps(data).encode())


@pytest.mark.parametrize("option, kind", list(BAD_INPUTS), ids=[f"{o[2:]}-{k}" for o, k in BAD_INPUTS])
def test_a_bad_input_file_is_one_line_and_changes_nothing(option, kind, tmp_path, capsys):
    copy_documents(tmp_path)
    page = tmp_path / "docs" / "catalogue.md"
    page.write_text("as it was\n")
    path = tmp_path / "input"
    content = BAD_INPUTS[option, kind]
    if content is not None:
        path.write_bytes(content())
    assert main(["docs", "--data", str(DATA), "--root", str(tmp_path), option, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and page.read_text() == "as it was\n"


@pytest.mark.parametrize(
    "arguments, said",
    [
        ([], "name the recorded runs' folder (--data DIR)"),  # the package knows no folder of its own
        (["--data", "no-such-folder"], "no-such-folder"),
    ],
    ids=["no-data", "missing-data"],
)
def test_recorded_runs_not_named_or_missing_are_one_line_and_exit_2(arguments, said, tmp_path, capsys):
    copy_documents(tmp_path)
    before = {name: (tmp_path / name).read_text() for name in RENDERED}
    assert main(["docs", "--root", str(tmp_path), *arguments]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("lengthgen docs: error: ") and said in err
    assert {name: (tmp_path / name).read_text() for name in RENDERED} == before


HISTORY = re.compile(
    r"earlier host|this stop|\bstop \d+|last round|this round|previous round|before this round|until this round|"
    r"next round|issue budget|this session|previous session|\b(?:commit|at) [0-9a-f]{7,40}\b",
    re.IGNORECASE,
)


def test_no_document_tells_the_project_s_history():
    """A reader has neither the project's history nor its commits: documents say what holds now (a time names
    its CPU). The pattern fails on "until this round", "the earlier host", "at commit 1e63f06"."""
    assert HISTORY.search("until this round by hypothesis") and HISTORY.search("measured at commit 1e63f06")
    found = []
    for path in [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *(ROOT / "docs").glob("*.md")]:
        found += [
            f"{path.name}:{i}: {m.group(0)}"
            for i, line in enumerate(path.read_text().splitlines(), 1)
            for m in HISTORY.finditer(line)
        ]
    assert not found, f"documents tell the project's history: {found}"


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
    code = (
        "import sys; from pathlib import Path; from lengthgen.report.doc_context import Inputs, load; "
        "from lengthgen.report.doc_render import render; "
        "render(load(Inputs.in_folder(Path('tests/data'))), Path('.')); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


def test_every_document_uses_the_verdict_words_of_the_report():
    """A verdict a document quotes is one the records know (lengthgen.records.Verdict: the claim tests' and the
    controls' words); a retired use (an unexpected pass or an undeclared failure called "failed") fails here."""
    from lengthgen.records import Verdict

    words = {v.value for v in Verdict} | {"changed", "close", "held"}
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
