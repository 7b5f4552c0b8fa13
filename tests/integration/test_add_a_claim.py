"""A claim is one file: a copy of the repository with one new claim module (a claim on an existing experiment)
and no other file edited collects it, runs it at quick scale, records it, shows it on the page and renders it
into the catalogue page, as it does every other claim."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import ROOT

TIMEOUT_S = 600  # collecting every claim, then training five small heads cold at quick scale on shared cores
NEW_ID = "C99"  # an id no claim of the registry holds
TITLE = "the T5 head selects -K at every length"

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


def digest(folder: Path, files: list[str]) -> dict[str, str]:
    return {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in files}


@pytest.mark.slow
def test_a_new_claim_is_one_file(tmp_path):
    copy = tmp_path / "repo"
    files = repository_files()
    for name in files:
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((ROOT / name).read_bytes())
    before = digest(copy, files)
    (copy / "claims" / "test_c99_one_file.py").write_text(NEW_CLAIM)
    reports, cache = tmp_path / "reports", tmp_path / "cache"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "claims",
            "-m",
            "quick",
            "-k",
            NEW_ID,
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            f"--lengthgen-report-dir={reports}",
            f"--lengthgen-cache-dir={cache}",
            "--lengthgen-workers=1",
        ],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    out = run.stdout[-4000:] + run.stderr[-2000:]
    assert run.returncode == 0 and "2 passed" in run.stdout, out  # the claim test and its negative control
    assert digest(copy, files) == before, "running the new claim edited another file"

    data = json.loads((reports / "claims.json").read_text())
    (record,) = [r for r in data["records"] if r["claim"] == NEW_ID]
    assert record["scale"]["name"] == "quick" and record["verdict"] == "reproduced", record["verdict_reason"]
    assert record["title"] == TITLE
    entry = next(e for e in data["catalogue"] if e["id"] == NEW_ID)
    assert entry["title"] == TITLE and entry["where"] == "Sec. 5.1"
    assert any(c["claim"] == NEW_ID for c in data["controls"])
    page = (reports / "index.html").read_text()
    assert NEW_ID in page and TITLE in page

    from tests.helpers import catalogue_page

    rows = [line for line in catalogue_page(data).splitlines() if line.startswith(f"| {NEW_ID} |")]
    assert rows and "relative schemes length-invariant" in rows[0], catalogue_page(data)[-2000:]
