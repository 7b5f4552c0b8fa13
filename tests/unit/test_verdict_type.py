"""A verdict is one type (lengthgen.records.verdicts.Verdict): the package spells the verdict words in few files,
every verdict carries its display, rank and reproduces flag, and a record's verdict reads and writes as its word."""

from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path

import pytest

import lengthgen
from lengthgen.records import ClaimRecord, Verdict
from lengthgen.records.verdicts import (
    CLOSE_SUFFIX,
    CONTROL_VERDICTS,
    SHOWN,
    UNKNOWN_LOOK,
    VERDICTS,
    label,
    label_order,
    label_verdict,
    look,
)
from tests.helpers import DATA

PACKAGE = Path(lengthgen.__file__).parent
MOST_FILES = 3  # the verdicts' module, and at most two files whose own words merely coincide with a verdict's


def spelled(path: Path) -> list[tuple[int, str]]:
    """(line, word) of each string constant of ``path`` that is a verdict's word."""
    words = {v.value for v in Verdict}
    tree = ast.parse(path.read_text(), str(path))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in words
    ]


def test_few_files_of_the_package_spell_a_verdict():
    found = {p.relative_to(PACKAGE).as_posix(): hits for p in sorted(PACKAGE.rglob("*.py")) if (hits := spelled(p))}
    print("files of lengthgen/ that spell a verdict word:")
    for name, hits in found.items():
        print(f"  {name}: {hits}")
    assert "records/verdicts.py" in found
    assert len(found) <= MOST_FILES, found


def test_every_verdict_carries_its_display_rank_and_reproduces():
    for v in Verdict:
        shown = v.look
        assert shown.css.startswith("v-") and shown.colour.startswith("#") and shown.marker and shown.meaning
        assert isinstance(v.reproduces, bool) and isinstance(v.rests_on_checks, bool)
        assert v.label(False) == v.value and type(v.label(True)) is str
    assert [v for v in Verdict if v.reproduces] == [Verdict.REPRODUCED, Verdict.UNEXPECTEDLY_REPRODUCED]
    ranked = sorted((v for v in Verdict if v.rank is not None), key=lambda v: v.rank)
    assert [v.value for v in ranked] == [  # best first: a move right is "worse" (lengthgen diff)
        "reproduced",
        "not reproduced",
        "inconclusive",
        "unexpectedly reproduced",
        "not reproduced (undeclared)",
        "failed",
        "error",
    ]
    assert len({v.rank for v in ranked}) == len(ranked)
    assert {v for v in Verdict if v.rank is None} == {Verdict.RULED_OUT, Verdict.SKIPPED, Verdict.DISCRIMINATES}
    controls = sorted((v for v in Verdict if v.control_rank is not None), key=lambda v: v.control_rank)
    assert controls == [Verdict.DISCRIMINATES, Verdict.FAILED, Verdict.ERROR]
    assert len({v.css for v in SHOWN}) == len({v.look.page_order for v in SHOWN}) == len(SHOWN)
    assert UNKNOWN_LOOK.page_order == len(SHOWN) and Verdict.DISCRIMINATES.look is UNKNOWN_LOOK
    assert look(None) is UNKNOWN_LOOK and look("skipped") is Verdict.SKIPPED.look
    assert set(VERDICTS) | set(CONTROL_VERDICTS) == set(Verdict) and Verdict.DISCRIMINATES not in VERDICTS


def test_a_verdict_is_its_word_wherever_it_is_printed():
    v = Verdict.NOT_REPRODUCED_UNDECLARED
    word = "not reproduced (undeclared)"
    assert v == word and hash(v) == hash(word) and {word: 1}[v] == 1
    assert str(v) == f"{v}" == "%s" % v == word and repr(v) == repr(word)
    assert f"{v:<30}|" == f"{word:<30}|"
    assert json.dumps({"verdict": v}) == json.dumps({"verdict": word})
    assert Verdict(word) is v and Verdict(v) is v


def test_an_unknown_word_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="unknown verdict 'from the future'"):
        Verdict("from the future")
    with pytest.raises(ValueError, match="'passed'"):
        ClaimRecord("C1", verdict="passed")


def test_labels_read_back():
    assert label(Verdict.REPRODUCED, True) == "reproduced" + CLOSE_SUFFIX
    assert label(Verdict.INCONCLUSIVE, True) == "inconclusive" and label(None, True) == "unknown"
    assert label_verdict("not reproduced (close)") == (Verdict.NOT_REPRODUCED, True)
    assert label_verdict("unknown") == (None, False)
    assert label_order(["failed", "unknown", "reproduced (close)", "reproduced"]) == [
        "reproduced",
        "reproduced (close)",
        "failed",
        "unknown",
    ]


def test_a_records_json_round_trips_through_the_verdict():
    with gzip.open(DATA / "claims-reference.json.gz", "rt") as f:
        data = json.load(f)
    records = [r for part in ("records", "controls", "robustness", "multiverse") for r in data.get(part) or []]
    assert records and {r["verdict"] for r in records} >= {"reproduced", "not reproduced", "discriminates"}
    for raw in records:
        record = ClaimRecord.from_dict(raw)
        assert isinstance(record.verdict, Verdict) and record.verdict == raw["verdict"]
        again = record.to_dict()
        assert type(again["verdict"]) is str
        assert json.dumps(again["verdict"]) == json.dumps(raw["verdict"])
        assert ClaimRecord.from_dict(json.loads(json.dumps(again))) == record
    record = ClaimRecord("C1", verdict="ruled out")
    record.verdict = "skipped"  # a word set on a record is parsed where it is set
    assert record.verdict is Verdict.SKIPPED
