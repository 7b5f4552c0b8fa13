"""``lengthgen two-layer``: the table and JSON of the experiment C12/C13 use, one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from lengthgen.cli import main

TINY = ["--seeds", "0,1", "--steps", "3", "--width", "32", "--sequences", "32", "--lengths", "12,20"]


def test_two_layer_table_and_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["two-layer", *TINY, "--out", str(out), "--cache-dir", str(tmp_path / "c")]) == 0
    printed = capsys.readouterr().out
    assert "selected offset" in printed and f"wrote {out}" in printed
    data = json.loads(out.read_text())
    assert data["config"]["spec"]["model"]["d"] == 32 and data["config"]["eval"]["lengths"] == [12, 20]
    assert [(m["encoding"], m["seed"]) for m in data["models"]] == [("rope", 0), ("rope", 1), ("ape", 0), ("ape", 1)]
    for model in data["models"]:
        assert set(model["retrieving_head"]) == {"layer", "head"}
        assert [row["length"] for row in model["eval"]] == [12, 20]
        assert model["eval"][0]["beyond_range_accuracy"] is None  # L = 12 has no untrained position
        assert 0 <= model["eval"][1]["beyond_range_accuracy"] <= 1
        for row in model["eval"]:
            assert -(row["length"] - 1) <= row["selected_offset"] <= 0
        assert set(model["carrier"]) == {"key", "query", "baseline_key", "baseline_query"}
    assert main(["two-layer", *TINY, "--cache-dir", str(tmp_path / "c")]) == 0  # second run: from the cache
    assert capsys.readouterr().out.splitlines()[2:] == printed.splitlines()[2:-1]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--encodings", "rope,alibi"], "'alibi'"),
        (["--offset", "0"], "K=0"),
        (["--width", "30"], "d=30"),
        (["--lengths", "2,12"], "length 2"),
        (["--lengths", "12,60", "--encodings", "ape"], "exceeds the APE table"),
        (["--steps", "0"], "steps=0"),
        (["--seeds", "3-1"], "'3-1'"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, fragment, capsys):
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(["two-layer", "--no-cache", "--steps", "1", *args]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err, err
