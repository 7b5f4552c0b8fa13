"""The CLI contract: the train subcommand's table and JSON, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lengthgen.cli import main


def test_train_json_contract(tmp_path, capsys):
    out = tmp_path / "out" / "r.json"
    code = main(
        [
            "train",
            "--encoding",
            "rope",
            "--offset",
            "2",
            "--seeds",
            "0,2",
            "--steps",
            "20",
            "--lengths",
            "12,20",
            "--sequences",
            "64",
            "--out",
            str(out),
            "--cache-dir",
            str(tmp_path / "c"),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "accuracy" in printed and f"wrote {out}" in printed
    data = json.loads(out.read_text())
    assert data["config"]["task"]["offset"] == 2 and data["config"]["model"]["encoding"] == "rope"
    assert [s["seed"] for s in data["seeds"]] == [0, 2]
    for seed in data["seeds"]:
        assert [row["length"] for row in seed["eval"]] == [12, 20]
        for row in seed["eval"]:
            assert set(row) == {"length", "accuracy", "selected_offset", "peak_height", "target_weight"}
            assert 0 <= row["accuracy"] <= 1 and -(row["length"] - 1) <= row["selected_offset"] <= 0
            assert isinstance(row["selected_offset"], int)


def test_no_cache_leaves_no_files(tmp_path, capsys):
    assert (
        main(
            [
                "train",
                "--encoding",
                "ape",
                "--offset",
                "1",
                "--seeds",
                "0",
                "--steps",
                "5",
                "--lengths",
                "12",
                "--sequences",
                "16",
                "--no-cache",
                "--cache-dir",
                str(tmp_path / "c"),
            ]
        )
        == 0
    )
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--offset", "0"], "K=0"),
        (["--offset", "9"], "K=9"),
        (["--encoding", "sinusoidal"], "'sinusoidal'"),
        (["--seeds", "5-2"], "'5-2'"),
        (["--seeds", "x"], "'x'"),
        (["--steps", "0"], "steps=0"),
        (["--lengths", "2,12"], "length 2"),
        (["--lengths", "12,a"], "'12,a'"),
        (["--threads", "0"], "--threads 0"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, fragment, capsys):
    base = {"--encoding": "rope", "--offset": "2", "--seeds": "0", "--steps": "1"}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = value
    argv = ["train", "--no-cache"] + [item for pair in base.items() for item in pair]
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(argv))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err, err
    assert "Traceback" not in err


def test_module_entry_point_reports_errors_without_traceback():
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "lengthgen",
            "train",
            "--encoding",
            "rope",
            "--offset",
            "0",
            "--seeds",
            "0",
            "--steps",
            "1",
            "--no-cache",
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == ["lengthgen train: error: offset K=0 must satisfy 1 <= K < min_len=8"]


def test_help_lists_every_subcommand():
    run = subprocess.run([sys.executable, "-m", "lengthgen", "--help"], capture_output=True, text=True)
    assert run.returncode == 0
    for name in ("train", "phenomenon", "pinning", "kernel"):
        assert name in run.stdout
