"""``lengthgen report``: the page regenerated from claims.json alone; bad input exits 2 with one line."""

from __future__ import annotations

import json

from lengthgen.cli import main
from lengthgen.report import write_report
from tests.report_samples import ENVIRONMENT, all_records


def test_regenerates_the_page_from_claims_json(tmp_path, capsys):
    files = write_report(all_records(), ENVIRONMENT, tmp_path / "run")
    files.html.unlink()
    assert main(["report", "--run", str(files.json), "--out", str(tmp_path / "again")]) == 0
    out = capsys.readouterr().out
    page = (tmp_path / "again" / "index.html").read_text()
    assert "C15" in page and "data:image/png;base64," in page
    assert "figure not drawn: C15 figure 'malformed'" in out and "run: mixed scale" in out
    assert main(["report", "--run", str(files.json), "--summary"]) == 0  # the summary alone: nothing written
    assert not files.html.exists() and "run: mixed scale" in capsys.readouterr().out


def test_redraws_its_own_report_folder_in_place(tmp_path, capsys, monkeypatch):
    """With no --run: reports/index.html from reports/claims.json (the suite's own folder, not a given run's)."""
    files = write_report(all_records(), ENVIRONMENT, tmp_path / "reports")
    files.html.unlink()
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--quiet"]) == 0
    assert files.html.exists() and "run: mixed" not in capsys.readouterr().out
    files.html.unlink()
    assert main(["report", "--run", "reports/claims.json", "--quiet"]) == 0  # named, still its own folder
    assert files.html.exists()


def test_bad_input_is_one_line_and_status_2(tmp_path, capsys):
    missing = tmp_path / "nope.json"
    assert main(["report", "--run", str(missing), "--summary"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.json" in err and "does not exist" in err
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main(["report", "--run", str(broken), "--summary"]) == 2
    assert "not a readable claims.json" in capsys.readouterr().err
    other = tmp_path / "other.json"
    for record in ({"claim": "C1", "checks": [{"name": "no value"}]}, {"verdict": "no claim"}):
        other.write_text(json.dumps({"records": [record]}))
        assert main(["report", "--run", str(other), "--summary"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "record 0 is malformed" in err


def test_parses_claims_json_once_for_the_page_and_the_summary(tmp_path, capsys, monkeypatch):
    from lengthgen.analysis.run_view import RunView

    files = write_report(all_records(), ENVIRONMENT, tmp_path / "run")
    calls = []
    parse = RunView.from_json.__func__

    def counted(cls, source):
        calls.append(source)
        return parse(cls, source)

    monkeypatch.setattr(RunView, "from_json", classmethod(counted))
    assert main(["report", "--run", str(files.json), "--out", str(tmp_path / "page")]) == 0
    assert len(calls) == 1 and "run: mixed scale" in capsys.readouterr().out
