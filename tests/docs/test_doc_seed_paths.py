"""docs/statistics.md's seed paths (``report/doc_claims.seeds_added``, worded by the ``seeds-added`` section of
``report/templates/docs/statistics.md.j2``) from records with a ``looks`` block: a claim that took more seeds
shows its counts, where it stopped and the followed check at each look; one decided at its first look is named in
the closing line."""

from __future__ import annotations

import copy
from types import SimpleNamespace

from lengthgen.analysis.data import read
from lengthgen.report.doc_claims import seeds_added
from lengthgen.report.doc_render import sections
from lengthgen.analysis.run_view import RunView
from tests.helpers import DATA

REFERENCE = DATA / "claims-reference.json.gz"
CHECK = {"name": "K=1 L=48: accuracy", "op": ">=", "threshold": 0.85}


def _look(seeds: int, value: float, close: bool) -> dict:
    shown = {**CHECK, "value": value, "interval": [value - 0.04, value + 0.04]}
    return {"seeds": seeds, "close": close, "close_checks": [shown] if close else [], "deciding": shown}


def _data(*paths: list[dict]) -> dict:
    data = copy.deepcopy(read(REFERENCE))
    claims = [r for r in data["records"] if r.get("kind") == "claim" and "[paper]" in r["test"]][: len(paths)]
    for record, path in zip(claims, paths):
        record["looks"] = {
            "rule": "Bonferroni",
            "max_seeds": 24,
            "looks_planned": 5,
            "level": 0.99,
            "stopped": "decided" if not path[-1]["close"] else "at the maximum",
            "path": path,
        }
    return data


def _rendered(data: dict) -> str:
    doc = SimpleNamespace(seeds_added=seeds_added(RunView.from_data(data)))
    return sections("docs/statistics.md", doc, only="seeds-added")["seeds-added"]


def test_a_claim_that_took_seeds_shows_its_path_and_a_first_look_claim_is_named():
    still = [_look(8, 0.86, True), _look(12, 0.87, True), _look(24, 0.8705, True)]
    decided = [_look(5, 0.90, True), _look(9, 0.93, False)]
    first = [_look(5, 0.99, False)]
    text = _rendered(_data(still, decided, first))
    lines = text.splitlines()
    assert "`pytest claims -n auto --lengthgen-until-decided=24`" in lines[0]
    assert any("8 → 24 seeds, still close" in line and "0.86 (8), 0.87 (12), 0.871 (24)" in line for line in lines)
    assert any("5 → 9 seeds, decided at 9 seeds" in line for line in lines)
    assert (
        lines[-1].startswith("- **Decided at the first look:** ")
        and lines[-1] != "- **Decided at the first look:** none."
    )
    assert "(99 % level)" in text and ">= 0.85" in text


def test_a_path_without_a_named_check_shows_its_counts_alone():
    unnamed = {"seeds": 5, "close": True, "close_checks": [], "deciding": None}
    text = _rendered(_data([unnamed, dict(unnamed, seeds=9, close=False)]))
    line = next(line for line in text.splitlines() if "5 → 9 seeds" in line)
    assert line.endswith(f"decided at 9 seeds: **{line.split('**')[3]}**.") and "Its path" not in line
