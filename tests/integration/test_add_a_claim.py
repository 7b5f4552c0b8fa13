"""A claim is one file: a copy of the repository with a new claim module (a claim on an existing experiment) and a
new prediction module (the C1 grid's RoPE heads at a K no other claim trains), beside every other claim and with no
other file edited, collects both, runs them at quick scale, records them, shows them on the page, renders them into
the catalogue page (``lengthgen docs`` from the new run), keeps the unit tests that read the registry passing, and
runs their multiverse cells, which say how to record them until ``lengthgen multiverse --record`` has."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import ROOT

TIMEOUT_S = 600  # collecting every claim, then training a few small heads cold at quick scale on shared cores
MULTIVERSE_TIMEOUT_S = 3600  # the new claims' cells at paper scale: the grid's heads under each reading, cold
NEW_ID = "C99"  # an id no claim of the registry holds
NEW_PREDICTION = "P99"  # nor this one
TITLE = "the T5 head selects -K at every length"
PREDICTION_TITLE = "a RoPE head at K = 4 selects -K far out"
NEW_K = 4  # a target offset no other claim trains

NEW_CLAIM = f'''"""{NEW_ID}: the T5-bias head selects the target offset -K at every evaluation length (one file).

Negative control: the same experiment's APE heads, which pin to an absolute position beyond the training range.
"""

from __future__ import annotations

import dataclasses

import pytest

from lengthgen.experiments.biases import run_biases

from claims.memo import memo
from claims.run import run_claim
from claims.spec import ClaimSpec
from claims.support import refute

PAPER_SEEDS = 5  # the paper's validation study
OFFSET = 2  # one K keeps the example small


def run_scale(scale):
    """At quick scale, three seeds (as the other relative-bias claim)."""
    return dataclasses.replace(scale, max_seeds=3) if scale.name == "quick" else scale


def measure(scale, cache, encoding: str = "t5"):
    scale = run_scale(scale)
    return memo(
        cache.runtime,
        ("one-file", encoding),
        scale,
        lambda: run_biases(scale.context(PAPER_SEEDS), cache, (OFFSET,), (encoding,)),
    )


def check(claim, result, encoding: str = "t5") -> None:
    for length in result.lengths:
        claim.check(
            f"K={{OFFSET}} L={{length}}: selected offset of every seed",
            [float(x) for x in result.selected_offsets(encoding, OFFSET, length)],
            "==",
            float(-OFFSET),
            reduce="all",
            paper="-K",
            source="suite-reading",
            source_note='"not RoPE-specific" read as the target selected at every length, every seed',
        )


CLAIM = ClaimSpec(
    id="{NEW_ID}",
    title="{TITLE}",
    where="Sec. 5.1",
    statement="a T5 relative bias selects the target offset at every length, as RoPE does",
    quote=("Our ALiBi/T5/rotary comparison (Section 5.1) shows the account is not RoPE-specific.",),
    paper_value="relative schemes length-invariant",
    assertion="K = 2: the selected offset is -K in every seed x length cell",
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    run_scale=run_scale,
    families=("one-layer",),
    schedule=1000,
)


@pytest.mark.claim("{NEW_ID}")
def test_t5_selects_the_target_everywhere(scale, model_cache, until_decided, claim):
    run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.verify()


@pytest.mark.control("{NEW_ID}")
def test_t5_selects_the_target_everywhere_control(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "APE heads of the same experiment in place of T5's: they pin beyond the training range",
        check,
        measure(scale, model_cache, encoding="ape"),
        encoding="ape",
    )
'''

NEW_PREDICTION_MODULE = f'''"""{NEW_PREDICTION}: the C1 grid's RoPE head trained at K = {NEW_K} selects the
target offset -K at L = 64, beyond the training range (as P1 at K = 2, 3).

Negative control: the grid's APE heads at the same K, evaluated with the longer table: an APE head peaks at an
absolute position inside the training range.
"""

from __future__ import annotations

import dataclasses

import pytest

from lengthgen.experiments.predictions import run_far

from claims.memo import memo
from claims.run import run_claim
from claims.spec import ClaimSpec
from claims.support import refute

PAPER_SEEDS = 8  # the C1 grid's seeds
OFFSET = {NEW_K}  # a K no other claim trains
LENGTH = 64  # beyond the training range


def run_scale(scale):
    """At quick scale, three seeds."""
    return dataclasses.replace(scale, max_seeds=3) if scale.name == "quick" else scale


def measure(scale, cache, encoding: str = "rope"):
    scale = run_scale(scale)
    return memo(
        cache.runtime,
        ("new-k", encoding),
        scale,
        lambda: run_far(scale.context(PAPER_SEEDS), cache, encoding, (OFFSET,), (LENGTH,)),
    )


def check(claim, result) -> None:
    claim.check(
        f"K={{OFFSET}} L={{LENGTH}}: selected offset of every seed",
        [float(x) for x in result.selected_offsets(OFFSET, LENGTH)],
        "==",
        float(-OFFSET),
        reduce="all",
        paper="-K (predicted)",
        source="catalogue-prediction",
        source_note="selected offset -K",
    )


CLAIM = ClaimSpec(
    id="{NEW_PREDICTION}",
    title="{PREDICTION_TITLE}",
    where="Lemma 1",
    statement="the RoPE head selects -K at a K the paper does not train",
    assertion="K = {NEW_K}: the selected offset is -K in every seed at L = 64",
    paper_seeds=PAPER_SEEDS,
    measure=measure,
    checks=(check,),
    run_scale=run_scale,
    families=("one-layer",),
    schedule=1000,
)


@pytest.mark.claim("{NEW_PREDICTION}")
def test_rope_selects_the_target_at_a_new_k(scale, model_cache, until_decided, claim):
    run_claim(CLAIM, claim, scale, model_cache, plan=until_decided)
    claim.verify()


@pytest.mark.control("{NEW_PREDICTION}")
def test_rope_selects_the_target_at_a_new_k_control(scale, model_cache, control):
    refute(
        control,
        scale.describe(PAPER_SEEDS),
        "APE heads at the same K in place of RoPE's: they peak at an absolute position in range",
        check,
        measure(scale, model_cache, encoding="ape"),
    )
'''


def repository_files() -> list[str]:
    """The files a clone holds: tracked, and untracked ones git does not ignore."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in listed.stdout.splitlines() if (ROOT / line).is_file()]


def copy_with_new_claims(copy: Path) -> list[str]:
    """The repository copied to ``copy`` with the two new modules beside every other claim; the files copied."""
    files = repository_files()
    for name in files:
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((ROOT / name).read_bytes())
    (copy / "claims" / "test_c99_one_file.py").write_text(NEW_CLAIM)
    (copy / "claims" / "test_p99_new_k.py").write_text(NEW_PREDICTION_MODULE)
    return files


def digest(folder: Path, files: list[str]) -> dict[str, str]:
    return {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in files}


# The unit tests that read the claims' registry (its ids, counts, catalogue and plan of cells): the ones a new claim
# could break. The rest of the unit tier trains and evaluates its own tiny models and reads no claim; this subset
# keeps the test to minutes.
REGISTRY_READERS = (
    "tests/unit/test_claim_ids.py",
    "tests/unit/test_claim_spec.py",
    "tests/unit/test_curve.py",
    "tests/unit/test_multiverse_registry.py",
    "tests/unit/test_multiverse_report.py",
    "tests/unit/test_predictions_report.py",
    "tests/unit/test_protocol_pinned.py",
    "tests/unit/test_report_markdown.py",
    "tests/unit/test_report_summary.py",
    "tests/unit/test_robustness_report.py",
    "tests/unit/test_robustness_settings.py",
    "tests/unit/test_run_view.py",
    "tests/unit/test_sequential.py",
    "tests/unit/test_specification_page.py",
    "tests/unit/test_stated_numbers.py",
    "tests/unit/test_answer.py",
    "tests/integration/test_report_writer.py",
    "tests/integration/test_report_xdist.py",
    "tests/integration/test_multiverse_declared.py",
    "tests/integration/test_run_cli.py",
)
PYTEST = (sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist")


def run_in(copy: Path, *arguments: str, timeout: int = TIMEOUT_S) -> subprocess.CompletedProcess:
    """A command in the copy (``python -m ...``), its output captured."""
    return subprocess.run(arguments, cwd=copy, capture_output=True, text=True, timeout=timeout, check=False)


def tail(run: subprocess.CompletedProcess) -> str:
    return run.stdout[-4000:] + run.stderr[-2000:]


def test_every_unit_test_that_reads_the_registry_names_a_file_that_exists():
    """The subset the slow test runs is real files (a renamed test file fails here, not silently there)."""
    assert all((ROOT / name).is_file() for name in REGISTRY_READERS), [
        n for n in REGISTRY_READERS if not (ROOT / n).is_file()
    ]


@pytest.mark.slow
def test_a_new_claim_and_prediction_are_one_file_each(tmp_path):
    copy = tmp_path / "repo"
    files = copy_with_new_claims(copy)
    before = digest(copy, files)
    reports, cache = tmp_path / "reports", tmp_path / "cache"
    run = run_in(
        copy,
        *PYTEST,
        "claims",
        "-m",
        "quick",
        "-k",
        f"{NEW_ID} or {NEW_PREDICTION}",
        f"--lengthgen-report-dir={reports}",
        f"--lengthgen-cache-dir={cache}",
        "--lengthgen-workers=1",
    )
    assert run.returncode == 0 and "4 passed" in run.stdout, tail(run)  # each test and its negative control
    assert digest(copy, files) == before, "running the new claims edited another file"

    data = json.loads((reports / "claims.json").read_text())
    for claim_id, title in ((NEW_ID, TITLE), (NEW_PREDICTION, PREDICTION_TITLE)):
        (record,) = [r for r in data["records"] if r["claim"] == claim_id]
        assert record["scale"]["name"] == "quick" and record["verdict"] == "reproduced", record["verdict_reason"]
        assert record["title"] == title
        assert any(c["claim"] == claim_id for c in data["controls"])
    ids = [e["id"] for e in data["catalogue"]]
    assert ids.index(NEW_ID) < ids.index("P1") and ids[-1] == NEW_PREDICTION  # the catalogue's order
    entry = next(e for e in data["catalogue"] if e["id"] == NEW_ID)
    assert entry["title"] == TITLE and entry["where"] == "Sec. 5.1"
    page = (reports / "index.html").read_text()
    assert all(text in page for text in (NEW_ID, TITLE, NEW_PREDICTION, PREDICTION_TITLE))

    # the catalogue page, rendered by `lengthgen docs` from the new run
    docs = run_in(copy, sys.executable, "-m", "lengthgen", "docs", "--data", "tests/data", "--reference", str(reports))
    assert docs.returncode == 0 and docs.stdout.splitlines() == ["wrote docs/catalogue.md"], tail(docs)
    catalogue = (copy / "docs" / "catalogue.md").read_text()
    rows: dict[str, str] = {}
    for line in catalogue.splitlines():  # each id's first row: the catalogue's table (its quotes' table follows)
        if line.startswith("| "):
            rows.setdefault(line.split(" | ")[0], line)
    assert "relative schemes length-invariant" in rows[f"| {NEW_ID}"], catalogue[-2000:]
    assert f"K = {NEW_K}" in rows[f"| {NEW_PREDICTION} (prediction)"], catalogue[-2000:]

    # the unit tests that read the registry, beside the new claims
    units = run_in(copy, *PYTEST, "-q", *REGISTRY_READERS, timeout=2 * TIMEOUT_S)
    assert units.returncode == 0, tail(units)


@pytest.mark.slow
def test_a_new_claims_multiverse_cells_say_how_to_record_them(tmp_path):
    """The new claims' default multiverse cells (``-m multiverse -k <id>``): a cell the declarations do not hold
    that fails says ``RECORD_STEP``; ``lengthgen multiverse --record`` records the run's cells, changing no other
    cell, and the cells then pass. The cells run at paper scale and their preconditions read the C1 grid under
    each reading, which every multiverse run trains: they use the environment's model cache
    (``LENGTHGEN_CACHE_DIR``), so that a machine that ran the multiverse trains only the new claims' models."""
    from claims.multiverse import RECORD_STEP
    from lengthgen.analysis import declared

    copy = tmp_path / "repo"
    copy_with_new_claims(copy)
    reports = tmp_path / "reports"
    cells = (*PYTEST, "claims", "-m", "multiverse", "-k", f"{NEW_ID} or {NEW_PREDICTION}", "-rf")
    first = run_in(copy, *cells, f"--lengthgen-report-dir={reports}", timeout=MULTIVERSE_TIMEOUT_S)
    assert "passed" in first.stdout or "failed" in first.stdout, tail(first)
    failed = [line for line in first.stdout.splitlines() if line.startswith("FAILED")]
    assert first.stdout.count(RECORD_STEP) >= len(failed), tail(first)  # each failure says the step
    assert first.returncode == (1 if failed else 0), tail(first)

    path = copy / "claims" / "multiverse_declared.json"
    before = declared.load(path)
    record = run_in(copy, sys.executable, "-m", "lengthgen", "multiverse", "--run", str(reports), "--record", str(path))
    assert record.returncode == 0, tail(record)
    after = declared.load(path)
    changed = {k for k in after.cells if before.cells.get(k) != after.cells[k]}
    assert changed and {column for _, column in changed} <= {NEW_ID, NEW_PREDICTION}, changed
    assert {k: c for k, c in after.cells.items() if k not in changed} == before.cells

    again = run_in(copy, *cells, f"--lengthgen-report-dir={tmp_path / 'again'}", timeout=MULTIVERSE_TIMEOUT_S)
    assert again.returncode == 0, tail(again)


def test_two_modules_declaring_one_id_stop_the_run_in_one_line(tmp_path):
    """A second module declaring an id the registry holds: pytest's usage error (exit 4), one line naming both
    modules, before any test is collected."""
    copy = tmp_path / "repo"
    copy_with_new_claims(copy)
    (copy / "claims" / "test_c98_one_file_again.py").write_text(NEW_CLAIM)
    run = run_in(copy, *PYTEST, "claims", "--collect-only", "-q")
    errors = [line for line in (run.stdout + run.stderr).splitlines() if line.startswith("ERROR")]
    assert run.returncode == 4 and errors == [
        f"ERROR: two claim modules declare {NEW_ID}: claims.test_c98_one_file_again and claims.test_c99_one_file"
    ], tail(run)
