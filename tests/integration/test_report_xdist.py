"""Under xdist the controller alone writes one complete report from every worker's records.

Both tests run pytest in a subprocess with two workers: the real claims C2 and C15 (no training), and
a hand-made claims file whose tests fail, xfail, skip, pass undecided and error, so every verdict
travels through pytest's reports to the controller and into claims.json, the page and the summary.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lengthgen.records import ClaimRecord
import torch

from lengthgen.device import cpu_capability
from lengthgen.store.fingerprint import code_fingerprint
from tests.helpers import ROOT

TIMEOUT_S = 300  # two workers importing torch on shared cores, plus C2's 200 hypothesis examples

pytestmark = pytest.mark.slow


def run_pytest(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-n", "2", "-p", "no:cacheprovider"],
        check=False,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
    )


# A plugin that writes which heavy modules the xdist controller holds when its session starts (it starts the
# workers then): none, so that no worker waits on the controller's imports.
START_PROBE = """
import json, os, sys

HEAVY = ("torch", "scipy.stats", "matplotlib", "claims.registry", "claims.multiverse")

def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):
        with open(os.environ["START_PROBE_OUT"], "w") as handle:
            json.dump([name for name in HEAVY if name in sys.modules], handle)

# ... and which slow imports each process made by its end: none. hypothesis's plugin imports hypothesis in its
# terminal summary unless the suite unregistered it (no test imported hypothesis); torch's meta-device
# ``to_empty`` imports sympy, which ``encodings.base.materialize`` avoids when a worker builds a model; the
# controller, which computes no interval, needs no scipy.stats (``lengthgen.records`` imports it where used;
# the report's quantiles come from scipy.special).
SLOW = ("hypothesis", "sympy")

def pytest_unconfigure(config):
    name = getattr(config, "workerinput", {}).get("workerid", "controller")
    slow = SLOW + (("scipy.stats",) if name == "controller" else ())
    with open(os.path.join(os.environ["END_PROBE_DIR"], name + ".json"), "w") as handle:
        json.dump([module for module in slow if module in sys.modules], handle)
"""


def test_two_workers_make_one_complete_report_of_real_claims(tmp_path):
    from claims.registry import CLAIMS, catalogue, claim

    out = tmp_path / "report"
    (tmp_path / "start_probe.py").write_text(START_PROBE)
    env = dict(os.environ, START_PROBE_OUT=str(tmp_path / "probe.json"), END_PROBE_DIR=str(tmp_path))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tmp_path), env.get("PYTHONPATH")) if p)
    result = run_pytest(
        [
            "claims/test_c02_equivariance.py",
            "claims/test_c15_kernel.py",
            f"--lengthgen-report-dir={out}",
            f"--lengthgen-cache-dir={tmp_path / 'cache'}",
            "-p",
            "start_probe",
        ],
        ROOT,
        env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert json.loads((tmp_path / "probe.json").read_text()) == []  # the controller started without them
    for name in ("controller", "gw0", "gw1"):  # no process made the slow imports
        assert json.loads((tmp_path / f"{name}.json").read_text()) == [], name
    data = json.loads((out / "claims.json").read_text())
    # what the controller does not compute itself came from a worker: the claims' registry (their catalogue and
    # the multiverse plan), torch's facts
    assert data["multiverse_plan"]["cells"] and data["multiverse_plan"]["touched"]
    assert [e["id"] for e in data["catalogue"]] == list(CLAIMS)  # every claim of the registry, in its order
    assert data["environment"]["torch"] == str(torch.__version__)
    assert data["environment"]["cpu_capability"] == cpu_capability()
    assert data["environment"]["code_fingerprint"] == code_fingerprint()
    records = data["records"]
    assert [(r["claim"], r["scale"]["name"], r["verdict"]) for r in records] == [
        ("C2", "paper", "reproduced"),
        ("C15", "paper", "reproduced"),
    ]
    assert all(r["runtime_s"] > 0 and r["checks"] for r in records)
    assert [r["title"] for r in records] == [claim("C2").title, claim("C15").title]  # the workers' entries
    assert data["environment"]["workers"] == 2
    page = (out / "index.html").read_text()
    assert page.count('<tr class="v-row') == 2 and 'id="C2-paper"' in page and 'id="C15-paper"' in page
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["claims.json", "index.html"]
    assert "lengthgen claims" in result.stdout and f"report: {out / 'index.html'}" in result.stdout
    claims = len(catalogue().claims)
    assert f"run: paper scale, partial: 2 of {claims} catalogue claims; 2 reproduced" in result.stdout


CLAIMS = """
import pytest
from lengthgen.records import Declared
from lengthgen.report import figure_specs as figures
from lengthgen.scale import PAPER

@pytest.mark.claim("C4")
def test_fails(claim):
    claim.set_scale(name="paper", seeds=3, paper_seeds=3)
    claim.check("key carrier fraction", [0.1, 0.2, 0.15], "in", (0.65, 0.95), paper="0.80")
    claim.verify()

@pytest.mark.claim("C8")
def test_not_reproduced(claim):
    claim.expect_not_reproduced(PAPER, Declared(("peak position*",), "a flat profile"))
    claim.set_scale(name="paper", seeds=8, paper_seeds=8)
    claim.check("peak position K=3", 44.0, "<", 16.0)
    claim.check("peak position K=2", 4.0, "<", 16.0)
    claim.verify()

@pytest.mark.claim("C10")
def test_another_check_fails(claim):
    claim.expect_not_reproduced(PAPER, Declared(("interpolate*",), "mild compression"))
    claim.check("interpolate L=20", 0.99, "<=", 0.15)
    claim.check("clamp L=20", 0.5, "<=", 0.15)
    claim.verify()

@pytest.mark.claim("C11")
def test_raises_inside_a_known_non_reproduction(claim):
    claim.expect_not_reproduced(PAPER, Declared(("cos*",), "partial alignment"))
    claim.check("cos", 0.32, "<=", 0.3)
    raise TypeError("unsupported operand")

@pytest.mark.claim("C12")
def test_bare_xfail(claim):
    claim.check("value", 0.1, ">=", 0.5)
    pytest.xfail("not declared")

@pytest.mark.control("C13")
def test_control_discriminates(control):
    def checks(recorder, result):
        recorder.check("carrier", result, ">=", 0.8)
    control.run("untrained weights", checks, 0.05)
    control.verify()

@pytest.mark.control("C14")
def test_control_that_cannot_fail(control):
    def checks(recorder, result):
        recorder.check("accuracy", result, ">=", 0.0)
    control.run("APE in place of RoPE", checks, 0.05)
    control.verify()

@pytest.mark.claim("C9")
def test_skipped(claim):
    pytest.skip("no quick variant of this claim")

@pytest.mark.claim("C6")
def test_too_few_seeds(claim):
    claim.set_scale(name="paper", seeds=2, paper_seeds=8)
    claim.check("R^2 of the fit", [0.80, 0.95], ">=", 0.85)
    claim.verify()

@pytest.mark.claim("C15")
def test_reproduced(claim):
    claim.set_scale(name="paper", seeds=0, steps=0)
    claim.check("ratio", 0.75, "in", (0.74, 0.76), paper="0.75")
    claim.figure("ratio", figures.bars("ratio", "r", ["1e4"], [{"label": "g", "values": [0.75]}]))
    claim.verify()

@pytest.mark.claim("C5")
def test_errors(claim):
    raise RuntimeError("boom")

@pytest.mark.claim("C20")
def test_declared_non_reproduction_that_passes(claim):
    claim.expect_not_reproduced(PAPER, Declared(("value",), "expected to miss"))
    claim.check("value", 1.0, ">=", 0.5)
    claim.verify()

def test_not_a_claim():
    pass
"""

INI = """
[pytest]
lengthgen_suite = true
addopts = --strict-markers
xfail_strict = true
markers =
    claim(id): claim
    control(id): control
    quick: quick
    paper: paper
"""


def test_every_verdict_reaches_the_controller(tmp_path):
    (tmp_path / "pytest.ini").write_text(textwrap.dedent(INI))
    (tmp_path / "test_claims.py").write_text(CLAIMS)
    out = tmp_path / "report"
    result = run_pytest([f"--lengthgen-report-dir={out}", f"--lengthgen-cache-dir={tmp_path / 'cache'}"], tmp_path)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    records = {r["claim"]: r for r in json.loads((out / "claims.json").read_text())["records"]}
    verdicts = {claim: r["verdict"] for claim, r in records.items()}
    assert verdicts == {
        "C4": "not reproduced (undeclared)",
        "C5": "error",
        "C6": "inconclusive",
        "C8": "not reproduced",
        "C9": "skipped",
        "C10": "not reproduced (undeclared)",
        "C11": "error",
        "C12": "failed",  # an xfail that is not the recorder's declared finding
        "C15": "reproduced",
        "C20": "unexpectedly reproduced",
    }
    assert records["C4"]["verdict_reason"].startswith(
        "C4 not reproduced at the catalogue's point, not declared: 1 of 1 checks fail: key carrier fraction: "
        "measured 0.15 in [0.65, 0.95]"
    )
    assert records["C5"]["verdict_reason"] == "RuntimeError: boom"
    # the reason is this run's measured value of the failing check; the check that holds is reported as holding
    assert records["C8"]["verdict_reason"] == (
        "C8: 1 of 2 checks fail as expected (a flat profile): peak position K=3: measured 44 < 16.0; "
        "the other 1 checks hold"
    )
    assert [c["expected_to_fail"] for c in records["C8"]["checks"]] == [True, True]
    assert "1 declared checks fail as declared" in records["C10"]["verdict_reason"]
    assert "clamp L=20: measured 0.5 <= 0.15" in records["C10"]["verdict_reason"]
    assert records["C11"]["verdict_reason"] == "TypeError: unsupported operand"
    assert "xfail that is not the claim's declared finding" in records["C12"]["verdict_reason"]
    assert records["C9"]["verdict_reason"] == "no quick variant of this claim"
    assert "too few seeds to decide: 2 of the paper's 8" in records["C6"]["verdict_reason"]
    assert "unexpected pass" in records["C20"]["verdict_reason"]
    assert all(r["runtime_s"] is not None for r in records.values())
    controls = {c["claim"]: c for c in json.loads((out / "claims.json").read_text())["controls"]}
    assert {k: c["verdict"] for k, c in controls.items()} == {"C13": "discriminates", "C14": "failed"}
    assert "does not discriminate" in controls["C14"]["verdict_reason"]
    assert controls["C13"]["mode"]["counterfactual"] == "untrained weights"
    page = (out / "index.html").read_text()
    assert page.count('<tr class="v-row') == 10 and page.count("data:image/png;base64,") == 1 + 1  # and the overview
    summary = result.stdout[result.stdout.index("lengthgen claims") :]
    for claim in records:
        assert f"\n{claim} " in summary
    assert "-> RuntimeError: boom" in summary


SEQUENTIAL = '''
import math
import pytest
from claims.run import run_claim
from claims.spec import ClaimSpec
from lengthgen.scale import PAPER


WORDS = dict(title="a claim", where="here", statement="a statement", assertion="an assertion", paper_value="a value")


def spec(claim_id, seeds, measure, check):
    return ClaimSpec(claim_id, **WORDS, paper_seeds=seeds, measure=measure, checks=(check,))


def stream(centre, spread):
    """A synthetic experiment: one value per seed of the scale (seeds 0..2 unless the loop adds some)."""
    return lambda scale, cache: [centre + spread * math.sin(2.1 * seed) for seed in scale.seed_list(3)]


@pytest.mark.claim("C9")
def test_decided_with_more_seeds(until_decided, claim):
    check = lambda c, r: c.check("cell", r, "<=", 0.15)  # noqa: E731
    run_claim(spec("C9", 3, stream(0.147, 0.002), check), claim, PAPER, None, plan=until_decided)
    claim.verify()


@pytest.mark.claim("C6")
def test_stays_close_up_to_max(until_decided, claim):
    check = lambda c, r: c.check("R^2", r, ">=", 0.85)  # noqa: E731
    run_claim(spec("C6", 3, stream(0.86, 0.05), check), claim, PAPER, None, plan=until_decided)
    claim.verify()


@pytest.mark.claim("C15")
def test_exact_needs_no_seeds(until_decided, claim):
    check = lambda c, r: c.check("ratio", r, "in", (0.74, 0.76), exact=True)  # noqa: E731
    run_claim(spec("C15", 0, lambda scale, cache: 0.7479, check), claim, PAPER, None, plan=until_decided)
    claim.verify()
'''


def test_until_decided_adds_seeds_to_close_claims_only(tmp_path):
    """--lengthgen-until-decided=12 through pytest and two workers: the close claim gets seeds 4 at a time until its
    interval (at 1 - 0.05/4: looks at 3, 7, 11, 12 seeds) excludes the threshold; the one that stays close
    stops at MAX and says so; the exact one is left alone. A bad MAX is a usage error."""
    import os

    (tmp_path / "pytest.ini").write_text(textwrap.dedent(INI))
    (tmp_path / "test_sequential.py").write_text(SEQUENTIAL)
    out = tmp_path / "report"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = [
        sys.executable,
        "-m",
        "pytest",
        f"--lengthgen-report-dir={out}",
        f"--lengthgen-cache-dir={tmp_path / 'cache'}",
        "-p",
        "no:cacheprovider",
    ]
    result = subprocess.run(
        [*args, "-n", "2", "--lengthgen-until-decided=12"],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    records = {r["claim"]: r for r in json.loads((out / "claims.json").read_text())["records"]}
    decided, stays, exact = records["C9"], records["C6"], records["C15"]
    assert [look["seeds"] for look in decided["looks"]["path"]] == [3, 7]
    assert decided["close"] is False and decided["scale"]["seeds"] == 7
    assert decided["looks"]["stopped"] == "decided"
    assert decided["looks"]["level"] == pytest.approx(1 - 0.05 / 4)
    assert [look["seeds"] for look in stays["looks"]["path"]] == [3, 7, 11, 12]
    assert stays["close"] is True and stays["close_checks"] == ["R^2"] and stays["scale"]["seeds"] == 12
    assert stays["looks"]["stopped"] == "at the maximum"
    assert ClaimRecord.from_dict(stays).check("R^2").seeds_to_decide > 12
    assert exact["close"] is False and exact["looks"] is None  # no seeds: nothing to add
    summary = " ".join(result.stdout[result.stdout.index("lengthgen claims") :].split())
    assert "C6 paper reproduced (close)" in summary and "seeds 3 -> 7 -> 11 -> 12, at the maximum" in summary
    bad = subprocess.run(
        [*args, "--lengthgen-until-decided=1"],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
    )
    assert bad.returncode == 4 and "--lengthgen-until-decided='1': MAX must be an integer in 2..10000" in bad.stderr


def test_the_controller_takes_the_registry_and_torch_facts_from_the_first_worker_that_sends_them():
    from types import SimpleNamespace

    from lengthgen.catalogue import Catalogue, Entry
    from lengthgen.readings import CellPlan
    from lengthgen.registry import Registry
    from lengthgen.testing.run import REGISTRY_OUTPUT, TORCH_OUTPUT, RunRecords
    from lengthgen.testing.session import SESSION, LengthgenSession, registry_of

    entry = Entry("C1", "a title", "Fig. 1", "a statement", "a value", "an assertion", settings=("fresh-seeds",))
    plan = CellPlan(touched=(("ape-rows=zero", ("C1",)),), cells=(("ape-rows=zero", "C1"),))
    registry = Registry(Catalogue((entry,)), plan)
    facts = {"code_fingerprint": "f", "torch": "t", "cpu_capability": "c"}
    run = RunRecords()
    config = SimpleNamespace(stash=pytest.Stash())
    config.stash[SESSION] = LengthgenSession(
        started=0.0, fresh_after=None, plan=None, report_dir=Path("reports"), run=run, runtime=None
    )

    def node(output: dict) -> SimpleNamespace:
        return SimpleNamespace(workeroutput=output, workerinput={"workerid": f"gw{run.workers}"})

    run.pytest_testnodedown(node({}), None)  # a worker that sent neither (it crashed): nothing taken
    assert run.registry is None and run.torch_facts is None
    run.pytest_testnodedown(node({REGISTRY_OUTPUT: registry.to_dict(), TORCH_OUTPUT: facts}), None)
    assert run.registry == registry and run.torch_facts == facts
    other = {"code_fingerprint": "g", "torch": "u", "cpu_capability": "d"}
    run.pytest_testnodedown(node({REGISTRY_OUTPUT: Registry().to_dict(), TORCH_OUTPUT: other}), None)
    assert run.registry == registry and run.torch_facts == facts  # the first one's stay
    assert registry_of(config) == registry  # the controller's registry: its workers', no hook asked
    assert run.workers == 3


def test_a_worker_whose_end_did_not_complete_is_named():
    from types import SimpleNamespace

    from lengthgen.testing.run import FINISHED_OUTPUT, STATS_OUTPUT, RunRecords

    run = RunRecords()
    for worker, output in (("gw0", {FINISHED_OUTPUT: True}), ("gw1", {STATS_OUTPUT: {}})):
        run.pytest_testnodedown(SimpleNamespace(workeroutput=output, workerinput={"workerid": worker}), None)
    run.pytest_testnodedown(SimpleNamespace(workerinput={"workerid": "gw2"}), "crashed")  # no workeroutput at all
    assert run.unfinished == ["gw1", "gw2"]
    worker = SimpleNamespace(config=SimpleNamespace(workerinput={}, workeroutput={}))
    run.pytest_sessionfinish(worker)
    assert worker.config.workeroutput == {FINISHED_OUTPUT: True}


# A conftest whose session end raises in the xdist workers, after every test passed: xdist sends the workers'
# output anyway and exits 0 by itself.
FAILING_END = """
def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput"):
        raise RuntimeError("the end of the worker's session")
"""


def test_a_worker_whose_end_raises_fails_the_run(tmp_path):
    (tmp_path / "pytest.ini").write_text(textwrap.dedent(INI))
    (tmp_path / "test_plain.py").write_text("def test_one():\n    pass\n\ndef test_two():\n    pass\n")
    args = [f"--lengthgen-report-dir={tmp_path / 'report'}", f"--lengthgen-cache-dir={tmp_path / 'cache'}"]
    clean = run_pytest(args, tmp_path)
    assert clean.returncode == 0 and "did not finish" not in clean.stdout, clean.stdout[-3000:] + clean.stderr[-3000:]
    (tmp_path / "conftest.py").write_text(FAILING_END)
    result = run_pytest(args, tmp_path)
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]
    assert "2 passed" in result.stdout
    named = result.stdout.replace("gw1, gw0", "gw0, gw1")  # the order the workers went down in
    assert "xdist worker(s) gw0, gw1 did not finish their session's end" in named
