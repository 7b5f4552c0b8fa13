"""The weight-decay, ape-fixes, dynamics, carrier-sweep and width-dilution subcommands: JSON contracts and one-line
errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from lengthgen.cli import main


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["ape-fixes", "--fixes", "stretch"], "'stretch'"),
        (["weight-decay", "--decays", "-1"], "weight decay -1"),
        (["weight-decay", "--decays", "x"], "'x'"),
        (["weight-decay", "--grid-seeds", "2-1"], "'2-1'"),
        (["dynamics", "--steps", "1"], "steps=1"),
        (["carrier-sweep", "--length-ranges", "8-x"], "'8-x'"),
        (["carrier-sweep", "--length-ranges", "8-4"], "max_len=4"),
        (["width-dilution", "--widths", "33"], "d=33"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, fragment, capsys):
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main([*argv, "--no-cache", "--seeds", "0"]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err, err


@pytest.mark.slow
def test_weight_decay_and_ape_fixes_json(tmp_path, capsys):
    common = [
        "--steps",
        "20",
        "--offsets",
        "2",
        "--sequences",
        "32",
        "--workers",
        "1",
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    out = tmp_path / "decay.json"
    assert main(["weight-decay", "--seeds", "0", "--grid-seeds", "0,1", "--out", str(out), *common]) == 0
    data = json.loads(out.read_text())
    assert {c["weight_decay"] for c in data["cells"]} == {0.0, 1e-4, 1e-2}
    assert data["config"]["seeds_by_weight_decay"] == {"0": [0, 1], "0.0001": [0], "0.01": [0]}
    out = tmp_path / "fixes.json"
    assert main(["ape-fixes", "--seeds", "0", "--out", str(out), *common]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert {r["fix"] for r in rows} == {"none", "interpolate", "clamp", "rescale"}
    assert {r["length"] for r in rows} == {20, 24, 32, 40, 48}
    assert "interpolate" in capsys.readouterr().out


@pytest.mark.slow
def test_dynamics_and_sweeps_json(tmp_path):
    cache = ["--cache-dir", str(tmp_path / "c"), "--workers", "1"]
    out = tmp_path / "dyn.json"
    assert main(["dynamics", "--steps", "20", "--seeds", "0", "--offsets", "2", "--out", str(out), *cache]) == 0
    row = json.loads(out.read_text())["rows"][0]
    assert row["step"] == [0, 20] and set(row["stats"]) == {"key_carrier", "query_carrier", "rank_energy"}
    out = tmp_path / "sweep.json"
    assert (
        main(
            [
                "carrier-sweep",
                "--steps",
                "10",
                "--seeds",
                "0",
                "--offsets",
                "2",
                "--widths",
                "16,64",
                "--vocabs",
                "20",
                "--length-ranges",
                "8-16",
                "--temperatures",
                "1",
                "--out",
                str(out),
                *cache,
            ]
        )
        == 0
    )
    points = {(r["factor"], json.dumps(r["value"])) for r in json.loads(out.read_text())["rows"]}
    assert points == {("width", "16"), ("width", "64"), ("vocab", "20"), ("lengths", "[8, 16]"), ("temperature", "1.0")}
    out = tmp_path / "widths.json"
    argv = [
        "width-dilution",
        "--steps",
        "10",
        "--seeds",
        "0",
        "--offsets",
        "2",
        "--sequences",
        "32",
        "--widths",
        "16,64",
    ]
    assert main([*argv, "--out", str(out), *cache]) == 0
    assert {r["width"] for r in json.loads(out.read_text())["rows"]} == {16, 64}
