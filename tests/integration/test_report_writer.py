"""The report's writer on recorded results: claims.json round-trips, the page parses as HTML, holds
every claim that ran with its verdict, numbers and figures, and needs nothing from the network."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

from lengthgen.records import ClaimRecord
from lengthgen.report import ReportFiles, write_report
from lengthgen.analysis.data import load
from tests.helpers import registry
from tests.report_samples import ENVIRONMENT, all_records, multiverse_records


class PageParser(HTMLParser):
    """Collects the claims table's rows, the claim sections, images and outside references."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[dict[str, str]] = []
        self.sections: list[dict[str, str]] = []
        self.images: list[str] = []
        self.external: list[str] = []
        self.stack: list[str] = []
        self.text: list[str] = []
        self.in_tbody = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag not in ("img", "meta", "br", "input", "link"):
            self.stack.append(tag)
        if tag == "table" and attrs.get("id") == "claims":
            self.in_claims = True
        if tag == "tbody" and getattr(self, "in_claims", False):
            self.in_tbody = True
        if tag == "tr" and self.in_tbody:
            self.rows.append(attrs)
        if tag == "section":
            self.sections.append(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        for name in ("src", "href"):
            value = attrs.get(name) or ""
            if value.startswith(("http:", "https:", "//")) or tag in ("link", "iframe"):
                self.external.append(value)

    def handle_endtag(self, tag):
        if tag == "tbody":
            self.in_tbody = False
        if tag == "table":
            self.in_claims = False
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[ReportFiles, list[dict]]:
    records = all_records()
    out = tmp_path_factory.mktemp("report")
    return write_report(records, ENVIRONMENT, out, registry()), records


def parse(path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


def test_writes_both_files_and_reports_the_broken_figure(written):
    files, _ = written
    html_path, json_path = files
    assert html_path.name == "index.html" and json_path.name == "claims.json"
    assert html_path.exists() and json_path.exists()
    assert files.figure_errors == ["C15 figure 'malformed': series 'no data' has neither y nor per_seed"]


def test_claims_json_is_strict_json_with_every_record(written):
    files, records = written
    text = files.json.read_text()
    data = json.loads(text, parse_constant=lambda name: pytest.fail(f"non-standard JSON constant {name}"))
    assert [r["claim"] for r in data["records"]] == ["C1", "C4", "C6", "C8", "C9", "C10", "C15", "C18"]
    assert data["environment"]["torch"] == ENVIRONMENT["torch"]
    assert data["catalogue"] == registry().catalogue.to_dict()  # the claims' registry, recorded with the run
    assert data["multiverse_plan"] == registry().plan.to_dict()
    by_claim = {r["claim"]: r for r in data["records"]}
    assert by_claim["C6"]["measured"]["slope c"]["values"] == [0.1, None]  # NaN written as null
    for original in records:
        loaded = ClaimRecord.from_dict(by_claim[original["claim"]])
        assert loaded.verdict == original["verdict"]
        assert [c.value for c in loaded.checks] == [c["value"] for c in original["checks"]]
    assert load(files.json)["records"] == data["records"]


def test_verdicts_of_the_recorded_results(written):
    _, records = written
    verdicts = {r["claim"]: (r["verdict"], r["verdict_reason"]) for r in records}
    assert verdicts["C1"] == ("reproduced", None)
    assert verdicts["C4"][0] == "failed" and "1 of 2 checks failed" in verdicts["C4"][1]
    assert verdicts["C8"] == (
        "not reproduced",
        "C8: 1 of 1 checks fail as expected (a flat profile): APE K=3 L=48: peak absolute position of every seed: "
        "measured 44 < 16.0 (1 of 8 seeds fail) (per seed 10, 12, 8, 12, 44, 12, 10, 12); the other 0 checks hold",
    )
    assert verdicts["C6"][0] == "inconclusive" and "2 of the paper's 8" in verdicts["C6"][1]
    assert verdicts["C9"] == ("skipped", "no quick variant: the claim needs 4000 steps")
    assert verdicts["C15"] == ("reproduced", None)
    assert verdicts["C10"] == ("reproduced", None)  # a close call keeps its verdict; the label says "(close)"


def test_page_parses_and_lists_every_claim_that_ran(written):
    files, records = written
    page = parse(files.html)
    assert page.stack == [], f"unclosed tags: {page.stack}"
    assert [row["data-claim"] for row in page.rows] == ["C1", "C4", "C6", "C8", "C9", "C10", "C15", "C18"]
    classes = {row["data-claim"]: row["class"] for row in page.rows}
    assert "v-reproduced" in classes["C1"] and "v-failed" in classes["C4"]
    assert "v-not-reproduced" in classes["C8"] and "v-inconclusive" in classes["C6"] and "v-skipped" in classes["C9"]
    assert {s["id"] for s in page.sections} == {
        "C1-paper",
        "C4-paper",
        "C6-paper",
        "C8-paper",
        "C9-quick",
        "C10-paper",
        "C15-quick",
        "C18-paper",
    }
    text = " ".join(page.text)
    for record in records:
        assert record["statement"] in text and record["paper_value"] in text
    assert f"mixed scale, partial: 8 of {len(registry().catalogue.claims)} catalogue claims" in text
    assert "a note <with> markup & ampersands" in text  # escaped in the source, intact as text
    assert "peak absolute position of every seed: measured 44 < 16" in text  # the declared finding's value
    assert "0.412 in [0.65, 0.95]" in text  # the failed check, measured beside the threshold
    assert "figure malformed could not be drawn" in text
    assert "2.13.0+cpu" in text and "models trained" in text and "0123456789abcdef" in text


def test_page_is_self_contained(written):
    files, records = written
    page = parse(files.html)
    drawable = sum(len(r["figures"]) for r in records) - 1 + 1  # all but the malformed spec, and the overview
    assert len(page.images) == drawable
    assert all(src.startswith("data:image/png;base64,") for src in page.images)
    assert page.external == []
    source = files.html.read_text()
    assert "<script src" not in source and "@import" not in source and "url(" not in source


def test_an_empty_run_scale_and_a_rewrite(tmp_path):
    """A second write replaces the first (a partial run leaves a partial report, not a merge)."""
    write_report(all_records(), ENVIRONMENT, tmp_path, registry())
    files = write_report(all_records()[:1], ENVIRONMENT, tmp_path, registry())
    page = parse(files.html)
    assert [row["data-claim"] for row in page.rows] == ["C15"]
    assert f"quick scale, partial: 1 of {len(registry().catalogue.claims)} catalogue claims" in " ".join(page.text)
    assert not list(tmp_path.glob(".*tmp")) and files.notes == []


def test_a_run_of_other_code_carries_nothing_over_and_says_so(tmp_path):
    """A multiverse-only run keeps the claims of the claims.json it replaces where that run ran the same code;
    after a run of other code the page shows its own records alone, and the terminal's note says why."""
    write_report(all_records(), ENVIRONMENT, tmp_path, registry())
    same = write_report(multiverse_records(), ENVIRONMENT, tmp_path, registry())
    assert same.notes == [] and len(load(same.json)["records"]) == len(all_records())
    other = dict(ENVIRONMENT, suite_fingerprint="0000000000000000")
    files = write_report(multiverse_records(), other, tmp_path, registry())
    assert not load(files.json).get("records") and len(load(files.json)["multiverse"]) == len(multiverse_records())
    (note,) = files.notes
    assert note.startswith(f"not carried over: {files.json} ran other code (fingerprint fedcba9876543210, ")


def test_close_calls_and_the_until_decided_path_reach_claims_json_and_the_page(written):
    files, _ = written
    by_claim = {r["claim"]: r for r in json.loads(files.json.read_text())["records"]}
    assert by_claim["C10"]["close"] is True and by_claim["C10"]["close_checks"] == ["clamp K=1 L=20: APE accuracy"]
    (clamp,) = [c for c in by_claim["C10"]["checks"] if c["name"] == "clamp K=1 L=20: APE accuracy"]
    assert clamp["close"] and ClaimRecord.from_dict(by_claim["C10"]).check(clamp["name"]).seeds_to_decide == 4
    assert by_claim["C1"]["close"] is False and by_claim["C1"]["close_checks"] == []
    path = by_claim["C18"]["looks"]
    assert [look["seeds"] for look in path["path"]] == [3, 7, 11] and path["stopped"] == "decided"
    assert path["looks_planned"] == 4 and path["level"] == pytest.approx(1 - 0.05 / 4)
    assert by_claim["C18"]["scale"]["seeds"] == 11 and by_claim["C18"]["close"] is False
    assert by_claim["C18"]["checks"][0]["interval"] == "bootstrap"
    page = parse(files.html)
    text = " ".join(page.text)
    assert "1 reproduced (close)" in text and "Close calls (1)" in text and "Seeds until decided" in text
    assert "mean 0.1473 [0.1435, 0.1511] (95% t-interval within [0, 1]) <= 0.15; about 4 seeds would decide it" in text
    rows = {row["data-claim"]: row for row in page.rows}
    assert rows["C10"]["data-close"] == "true" and rows["C1"]["data-close"] == "false"


# A process that writes a report from recorded results, as the xdist controller and ``lengthgen report`` do:
# it prints whether it imported scipy.stats (about half a second).
WRITE_IN_A_FRESH_PROCESS = """
import json, sys
from pathlib import Path
from lengthgen.report import write_report
records, environment = json.loads(Path(sys.argv[1]).read_text())
write_report(records, environment, Path(sys.argv[2]))
print(json.dumps({"scipy.stats": "scipy.stats" in sys.modules}))
"""


def test_writing_a_report_needs_no_scipy_stats(tmp_path):
    """The margins and the seeds a close call needs take their quantiles from scipy.special: a process that
    only writes a report (the controller, at the run's end) never imports scipy.stats."""
    import subprocess
    import sys

    records = all_records()
    assert any(r.get("close") for r in records)  # the path that asks for quantiles is taken
    source = tmp_path / "records.json"
    source.write_text(json.dumps([records, ENVIRONMENT]))
    done = subprocess.run(
        [sys.executable, "-c", WRITE_IN_A_FRESH_PROCESS, str(source), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {"scipy.stats": False}
    text = " ".join(parse(tmp_path / "out" / "index.html").text)
    assert "about 4 seeds would decide it" in text  # the close call's seeds, from the quantiles
