"""``lengthgen run CLAIM...``: a claim run as its test runs it (its spec through the claims' run_claim, a recorder, a
verdict), the claims directory loaded by path whatever its name, the seeds and the stopping rule handed over, and
one-line usage errors (exit 2) for an unknown claim, a missing claims directory and a bad MAX."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from lengthgen.cli import build_parser, main
from lengthgen.cli.common import UNTIL_DECIDED_MAX
from lengthgen.cli.run import package_of
from tests.helpers import UNKNOWN_CLAIM

from claims.registry import CLAIMS as REGISTERED

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "claims"
LAST = list(REGISTERED)[-1]  # the registry's last id, the end of the known ones an unknown id's error lists

# A claims directory of its own, under another name: each claim a few numbers, no model (X1 holds; X2 fails through
# its declared check; X3 fails undeclared; X4 is close with 3 seeds and decided with 7; X5 has two variants, the
# second of them failing through its own declared check)
REGISTRY = """
import math

from claims.spec import ClaimSpec, Declared, Variant

WORDS = dict(title="a claim", where="here", statement="a statement", assertion="an assertion", paper_value="a value")


def values(centre, spread=0.0):
    return lambda scale, cache: [centre + spread * math.sin(2.1 * seed) for seed in scale.seed_list(3)]


def at_most(claim, result):
    claim.check("cell", result, "<=", 0.15)


HIGH = Declared(("cell",), "the high variant's finding")


def spec(claim_id, measure, **more):
    return ClaimSpec(claim_id, **WORDS, paper_seeds=3, measure=measure, checks=(at_most,), **more)


CLAIMS = {
    "X1": spec("X1", values(0.1)),
    "X2": spec("X2", values(0.2), declared=(Declared(("cell",), "a known finding"),)),
    "X3": spec("X3", values(0.2)),
    "X4": spec("X4", values(0.147, 0.002)),
    "X5": spec("X5", values(0.1), variants=(Variant("low"), Variant("high", values(0.3), declared=(HIGH,)))),
}
"""


@pytest.fixture
def lab(tmp_path):
    """The directory ``lab/labclaims`` (a package named labclaims, its run.py the suite's runner); its modules are
    forgotten afterwards."""
    folder = tmp_path / "lab" / "labclaims"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "registry.py").write_text(textwrap.dedent(REGISTRY))
    (folder / "run.py").write_text("from claims.run import run_claim  # noqa: F401\n")
    path = list(sys.path)
    yield folder
    sys.path[:] = path
    for name in [m for m in sys.modules if m.split(".")[0] == "labclaims"]:
        del sys.modules[name]


def records(path: Path) -> dict[str, dict]:
    """The records of a --out file, by the name printed for each (its id, and its variant)."""
    data = json.loads(path.read_text())
    return {name: record for name, record in zip(data["results"], data["records"])}


def test_an_exact_claim_runs_as_its_test_does(tmp_path, capsys):
    out = tmp_path / "run.json"
    argv = ["run", "c15", "--scale", "quick", "--no-cache", "--claims-dir", str(CLAIMS), "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "== C15 (quick scale, no seeds: exact)" in printed and "g(s) = sum_j cos(s theta_j)" in printed
    assert printed.splitlines()[-3] == "C15: reproduced" and f"wrote {out}" in printed
    (record,) = json.loads(out.read_text())["records"]
    assert record["claim"] == "C15" and record["verdict"] == "reproduced" and record["scale"]["name"] == "quick"
    assert record["checks"] and all(check["passed"] for check in record["checks"])
    assert printed.count("  holds: ") == len(record["checks"]) and "fails" not in printed


@pytest.mark.slow
def test_a_training_claim_at_quick_scale(tmp_path, capsys):
    out = tmp_path / "run.json"
    cache = ["--cache-dir", str(tmp_path / "cache"), "--workers", "1"]
    assert main(["run", "C16", "--scale", "quick", "--claims-dir", str(CLAIMS), "--out", str(out), *cache]) == 0
    printed = capsys.readouterr().out
    assert "training dynamics over 1000 steps" in printed and "\nC16: reproduced\n" in printed
    (record,) = json.loads(out.read_text())["records"]
    assert (record["scale"]["steps"], record["scale"]["seed_list"]) == (1000, [0, 1, 2, 3, 4])
    assert record["verdict"] == "reproduced" and record["looks"] is None


def test_a_claims_directory_of_another_name_is_loaded_by_path(lab, tmp_path, capsys):
    out = tmp_path / "run.json"
    assert main(["run", "X1", "X2", "X5", "--no-cache", "--claims-dir", str(lab), "--out", str(out)]) == 0
    assert sys.modules["labclaims.registry"].__file__ == str(lab / "registry.py")
    printed = capsys.readouterr().out
    assert "\nX1: reproduced\n" in printed and "\nX2: not reproduced: X2: 1 of 1 checks fail as expected" in printed
    assert "  fails (declared): cell: measured 0.2 <= 0.15" in printed
    found = records(out)
    assert list(found) == ["X1", "X2", "X5 low", "X5 high"]  # a claim with variants: one verdict per variant
    assert [found[name]["verdict"] for name in found] == ["reproduced", "not reproduced"] * 2
    assert found["X1"]["scale"]["seed_list"] == [0, 1, 2]


def test_an_undeclared_failure_exits_1(lab, capsys):
    assert main(["run", "X3", "--no-cache", "--claims-dir", str(lab)]) == 1
    assert "\nX3: not reproduced (undeclared): " in capsys.readouterr().out


def test_the_seeds_and_the_stopping_rule_are_handed_to_run_claim(lab, tmp_path, capsys):
    out = [tmp_path / f"run-{i}.json" for i in range(3)]  # one each: no command writes over a file of records
    assert main(["run", "X1", "--seeds", "4,6", "--no-cache", "--claims-dir", str(lab), "--out", str(out[0])]) == 0
    assert records(out[0])["X1"]["scale"]["seed_list"] == [4, 6]
    argv = ["run", "X4", "--until-decided=12", "--no-cache", "--claims-dir", str(lab), "--out", str(out[1])]
    assert main(argv) == 0
    plan = records(out[1])["X4"]["looks"]
    assert [look["seeds"] for look in plan["path"]] == [3, 7] and plan["stopped"] == "decided"
    assert main(["run", "X4", "--no-cache", "--claims-dir", str(lab), "--out", str(out[2])]) == 0
    assert records(out[2])["X4"]["looks"] is None  # without the option: one look
    capsys.readouterr()


def test_a_bare_until_decided_is_the_rules_default():
    from lengthgen.sequential import DEFAULT_MAX

    assert UNTIL_DECIDED_MAX == DEFAULT_MAX == 32
    assert build_parser(["run"]).parse_args(["run", "C1", "--until-decided"]).until_decided == 32
    assert build_parser(["run"]).parse_args(["run", "C1"]).until_decided is None


@pytest.mark.parametrize(
    "argv, fragments",
    [
        (["run", UNKNOWN_CLAIM], [f"unknown claim {UNKNOWN_CLAIM!r}", "(known: C1, C2, C3", f", {LAST})"]),
        (["run", "C1", "--claims-dir", "/nonexistent/claims"], ["no claims directory at /nonexistent/claims"]),
        (["run", "C1", "--until-decided=1"], ["MAX must be an integer in 2..10000"]),
        (["run", "C1", "--scale", "huge"], ["'huge'"]),
        (["run", "C1", "--seeds", "3-1"], ["'3-1'"]),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, fragments, capsys):
    default_dir = [] if "--claims-dir" in argv else ["--claims-dir", str(CLAIMS)]
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main([*argv, *default_dir, "--no-cache"]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and all(f in err for f in fragments) and "Traceback" not in err, err


def test_the_package_is_found_as_pytest_finds_a_conftests(tmp_path):
    nested = tmp_path / "top" / "outer" / "inner"
    nested.mkdir(parents=True)
    for folder in (nested.parent, nested):
        (folder / "__init__.py").write_text("")
    assert package_of(nested) == (tmp_path / "top", "outer.inner")
    assert package_of(CLAIMS) == (ROOT, "claims")
