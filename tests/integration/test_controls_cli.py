"""The ape-controls, dynamics and sweeps subcommands: JSON contracts and one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from lengthgen.cli import main


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["ape-controls", "--part", "fixes", "--fixes", "stretch"], "'stretch'"),
        (["ape-controls", "--decays", "-1"], "weight decay -1"),
        (["ape-controls", "--decays", "x"], "'x'"),
        (["ape-controls", "--part", "wd"], "'wd'"),
        (["dynamics", "--steps", "1"], "steps=1"),
        (["sweeps", "--length-ranges", "8-x"], "'8-x'"),
        (["sweeps", "--length-ranges", "8-4", "--part", "carrier"], "max_len=4"),
        (["sweeps", "--widths", "33", "--part", "dilution"], "d=33"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, fragment, capsys):
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main([*argv, "--no-cache", "--seeds", "0"]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err, err


@pytest.mark.slow
def test_ape_controls_json(tmp_path, capsys):
    out = tmp_path / "ape.json"
    assert (
        main(
            [
                "ape-controls",
                "--steps",
                "20",
                "--seeds",
                "0",
                "--offsets",
                "2",
                "--sequences",
                "32",
                "--workers",
                "1",
                "--json",
                str(out),
                "--cache-dir",
                str(tmp_path / "c"),
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    assert {c["weight_decay"] for c in data["weight-decay"]["cells"]} == {0.0, 1e-4, 1e-2}
    rows = data["fixes"]["rows"]
    assert {r["fix"] for r in rows} == {"none", "interpolate", "clamp", "rescale"}
    assert {r["length"] for r in rows} == {20, 24, 32, 40, 48}
    assert "interpolate" in capsys.readouterr().out


@pytest.mark.slow
def test_dynamics_and_sweeps_json(tmp_path):
    cache = ["--cache-dir", str(tmp_path / "c"), "--workers", "1"]
    out = tmp_path / "dyn.json"
    assert main(["dynamics", "--steps", "20", "--seeds", "0", "--offsets", "2", "--json", str(out), *cache]) == 0
    row = json.loads(out.read_text())["rows"][0]
    assert row["step"] == [0, 20] and set(row["stats"]) == {"key_carrier", "query_carrier", "rank_energy"}
    out = tmp_path / "sweeps.json"
    assert (
        main(
            [
                "sweeps",
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
                "--vocabs",
                "20",
                "--length-ranges",
                "8-16",
                "--temperatures",
                "1",
                "--json",
                str(out),
                *cache,
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    points = {(r["factor"], json.dumps(r["value"])) for r in data["carrier"]["rows"]}
    assert points == {("width", "16"), ("width", "64"), ("vocab", "20"), ("lengths", "[8, 16]"), ("temperature", "1.0")}
    assert {r["width"] for r in data["dilution"]["rows"]} == {16, 64}
