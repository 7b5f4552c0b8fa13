"""A check's coordinates (``Check.at``): stated where it is made, written to JSON only when it has some, read back
as the same mapping; a record written before checks carried them is read by the coordinates its names print."""

from __future__ import annotations

import json

import pytest

from lengthgen.records import ClaimRecord, ClaimRecorder
from lengthgen.records.check import Check, coordinates_of

AT = {"encoding": "rope", "K": 2, "L": 40, "lambda": 0.01}


def made(name: str = "RoPE K=2 L=40: accuracy", at=None) -> Check:
    recorder = ClaimRecorder("C1")
    recorder.set_scale(name="paper", seeds=3)
    return recorder.check(name, [0.9, 0.95, 1.0], ">=", 0.85, at=at)


def test_at_round_trips_through_json():
    check = made(at=AT)
    data = json.loads(json.dumps(check.to_dict()))
    assert data["at"] == AT
    back = Check.from_dict(data)
    assert back.at == AT and back == check
    assert isinstance(back.at["K"], int) and isinstance(back.at["lambda"], float)


def test_a_check_without_coordinates_is_written_as_before():
    plain = made("fraction of seed x length cells selecting -K")
    assert plain.at == {} and "at" not in plain.to_dict()
    assert Check.from_dict(json.loads(json.dumps(plain.to_dict()))).at == {}


def test_a_record_round_trips_its_checks_coordinates():
    recorder = ClaimRecorder("C1")
    recorder.set_scale(name="paper", seeds=3)
    recorder.set_universe("init=torch")
    recorder.precondition("one-layer fit: RoPE K=2 L=12: in-range accuracy", [1.0] * 3, ">=", 0.95, at={"K": 2})
    recorder.check("renamed", [1.0] * 3, ">=", 0.95, at=AT)
    back = ClaimRecord.from_dict(json.loads(json.dumps(recorder.record.to_dict())))
    assert back.checks[0].at == AT and back.preconditions[0].at == {"K": 2}


def test_an_older_record_is_read_by_the_coordinates_its_names_print():
    old = made(at=AT).to_dict()
    del old["at"]  # written before checks carried coordinates
    assert Check.from_dict(old).at == {"encoding": "rope", "K": 2, "L": 40}
    assert coordinates_of("APE K=3 L=40: selected offset minus its value at L=16") == {
        "encoding": "ape",
        "K": 3,
        "L": 40,
    }
    assert coordinates_of("RoPE minus APE accuracy beyond the training range") == {}  # two encodings: a comparison


@pytest.mark.parametrize("at", [{"": 1}, {"K": None}, {"K": [1, 2]}, {"K": True}, ["K"]])
def test_invalid_coordinates_are_refused(at):
    with pytest.raises(ValueError, match="coordinate|mapping"):
        made(at=at)
