"""``lengthgen <subcommand> --until-decided[=MAX]``: the claims a subcommand serves, the pytest command it
runs (without running it), and its usage errors; the subcommands' help and plain runs are unchanged."""

from __future__ import annotations

import pytest

from lengthgen.cli import build_parser, main
from lengthgen.cli.until_decided import ROOT, claim_files, claim_ids, command


@pytest.mark.parametrize(
    "help_text,ids",
    [
        ("C6/C7: target weight a*(L), dilution fit", ["C6", "C7"]),
        ("the C1 grid: accuracy per length", ["C1"]),
        ("C4/C5/C20: carrier fractions", ["C4", "C5", "C20"]),
        ("P1-P3: far selection", ["P1", "P2", "P3"]),
        ("train one configuration over seeds; per seed and length: accuracy", []),
    ],
)
def test_claim_ids_come_from_the_help(help_text, ids):
    assert claim_ids(help_text) == ids


def test_the_command_runs_the_claim_tests_through_the_stopping_rule(tmp_path):
    args = build_parser().parse_args(["dilution", "--until-decided=12", f"--cache-dir={tmp_path}", "--workers", "1"])
    assert getattr(args.handler, "until_decided", False)  # the subcommand's own run is replaced
    line = command(args, "C6/C7: dilution", "lengthgen dilution")
    assert line[1:] == [
        "-m",
        "pytest",
        "claims/test_c06_dilution.py",
        "claims/test_c07_margin_bound.py",
        "--lengthgen-until-decided=12",
        "--lengthgen-threads=1",
        "--lengthgen-device=cpu",
        f"--lengthgen-cache-dir={tmp_path.resolve()}",
    ]
    from lengthgen.sequential import DEFAULT_MAX

    assert build_parser().parse_args(["dilution", "--until-decided"]).until_decided == DEFAULT_MAX
    plain = build_parser().parse_args(["dilution"])
    assert plain.until_decided is None and not getattr(plain.handler, "until_decided", False)
    assert claim_files(["C9"]) == [ROOT / "claims" / "test_c09_ape_weight_decay.py"]
    assert all(f.name.startswith("test_p2_") for f in claim_files(["P2"]))  # predictions: test_p2_..., no zero


def test_bad_max_and_a_command_without_claims_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["dilution", "--until-decided=1"])
    assert exit_.value.code == 2 and "MAX must be an integer in 2..10000" in capsys.readouterr().err
    assert main(["train", "--encoding", "rope", "--offset", "2", "--until-decided=8"]) == 2
    assert "lengthgen train serves no catalogue claim" in capsys.readouterr().err
