"""The start-up measurement's reading: a tweak pays only where its interval lies above 0."""

from __future__ import annotations

import json

import pytest

from lengthgen.analysis.startup import Startup, difference

ENV = {"recorded": "2026-01-01", "cpu_model": "a CPU", "cores": 2, "torch": "2.13.0", "cpu_capability": "AVX2"}


def _runs(command: str, off: str | None, walls: list[float]) -> list[dict]:
    return [{"command": command, "off": off, "repeat": i, "wall_s": w, "cpu_s": 2 * w} for i, w in enumerate(walls)]


def _write(tmp_path, data) -> Startup:
    path = tmp_path / "startup.json"
    path.write_text(json.dumps(data))
    return Startup.read(path)


def test_a_planted_saving_pays_and_a_planted_nothing_is_within_noise(tmp_path):
    on = [6.0, 6.1, 5.9, 6.0]
    runs = _runs("c", None, on) + _runs("c", "slow", [7.0, 7.1, 6.9, 7.0]) + _runs("c", "idle", [6.1, 5.9, 6.0, 6.0])
    startup = _write(tmp_path, {"environment": ENV, "switches": {"slow": "a", "idle": "b"}, "runs": runs})
    by_tweak = {s.tweak: s for s in startup.kept.savings}
    assert by_tweak["slow"].pays and by_tweak["slow"].wall.mean == pytest.approx(1.0)
    assert not by_tweak["idle"].pays, by_tweak["idle"]
    assert by_tweak["idle"].wall.low < 0 < by_tweak["idle"].wall.high
    assert startup.dropped is None


def test_a_difference_needs_two_runs_a_side():
    with pytest.raises(ValueError, match="2 values a side"):
        difference([1.0], [1.0, 2.0])


@pytest.mark.parametrize(
    "data, said",
    [
        ({"environment": ENV, "switches": {"x": "a"}}, "lacks environment, switches or runs"),
        ({"environment": ENV, "switches": {"x": "a"}, "runs": _runs("c", None, [1.0, 2.0])}, "no run switched off"),
        ([1, 2], "not a start-up measurement"),
        ({"environment": ENV, "switches": {"x": "a"}, "runs": [{"command": "c"}]}, "missing or malformed"),
    ],
    ids=["lacking", "unswitched", "foreign", "malformed-run"],
)
def test_a_bad_measurement_is_one_line(data, said, tmp_path):
    with pytest.raises(ValueError, match=said) as error:
        _write(tmp_path, data)
    assert "\n" not in str(error.value)
