"""What the ``lengthgen`` command reads and writes: a command that reads a recorded run leaves its folder
byte-identical, and no command writes over a file of records or into the folder of a run it was given (one
line, exit status 2, checked before any work). The page's answer, from the reference run with the extended
cells added (``--add``), is the README's."""

from __future__ import annotations

import hashlib
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lengthgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
REFERENCE, EXTENDED, SEEDS_ADDED = "claims-reference.json.gz", "claims-extended.json.gz", "claims-until-decided.json.gz"
CLAIMS = ROOT / "claims"


def folder_hash(folder: Path) -> str:
    """A hash of every file's and folder's relative path under ``folder``, and each file's bytes."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        if path.is_file():
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    """A copy of tests/data, the current directory (a write beside the command's inputs lands in it)."""
    copy = tmp_path / "data"
    shutil.copytree(DATA, copy)
    monkeypatch.chdir(copy)
    return copy


READERS = {  # each command that reads a recorded run ({ref}, {ext}: the copies) and the exit statuses it may end with
    "report --summary": (["report", "--run", "{ref}", "--add", "{ext}", "--summary"], {0}),
    "report without --out": (["report", "--run", "{ref}"], {2}),  # refused: the run's folder is never written
    "report --out into the run's folder": (["report", "--run", "{ref}", "--out", "{data}/page"], {2}),
    "robustness": (["robustness", "--run", "{ref}"], {0}),
    "robustness --list": (["robustness", "--list", "--run", "{ref}"], {0}),
    "multiverse": (["multiverse", "--run", "{ref}", "--add", "{ext}"], {0}),
    "multiverse --curve": (["multiverse", "--run", "{ref}", "--add", "{ext}", "--curve", "C1"], {0}),
    "multiverse --paper": (["multiverse", "--run", "{ref}", "--add", "{ext}", "--paper"], {0}),
    "multiverse --list": (["multiverse", "--list", "--run", "{ref}"], {0}),
    "diff": (["diff", "{ref}", "{ref}"], {0}),
    "diff --json": (["diff", "{ref}", "{ref}", "--json"], {0}),
    "fingerprint": (["fingerprint", "--json"], {0}),
    "docs --check": (["docs", "--data", "{data}", "--root", str(ROOT), "--check"], {0, 1}),  # 1: a stale document
}


@pytest.mark.parametrize("command", list(READERS))
def test_a_reading_command_leaves_its_inputs_byte_identical(data, command, capsys):
    argv, statuses = READERS[command]
    before = folder_hash(data)
    status = main([a.format(ref=data / REFERENCE, ext=data / EXTENDED, data=data) for a in argv])
    captured = capsys.readouterr()
    assert status in statuses, captured.err
    assert folder_hash(data) == before, f"{command} changed {sorted(p.name for p in data.rglob('*'))}"
    if status == 2:
        assert captured.err.count("\n") == 1, captured.err


WRITERS = {  # each command that writes, with {out} its output
    "report": ["report", "--run", "{ref}", "--out", "{out}"],
    "robustness": ["robustness", "--run", "{ref}", "--out", "{out}"],
    "multiverse": ["multiverse", "--run", "{ref}", "--out", "{out}"],
    "multiverse --curve": ["multiverse", "--run", "{ref}", "--curve", "C1", "--out", "{out}"],
    "multiverse --record": ["multiverse", "--run", "{ref}", "--record", "{out}"],
    "diff": ["diff", "{ref}", "{ref}", "--out", "{out}"],
    "an experiment": ["kernel", "--d", "8", "--bases", "1e4", "--out", "{out}"],
    "run": ["run", "C15", "--scale", "quick", "--no-cache", "--claims-dir", str(CLAIMS), "--out", "{out}"],
    "timed": ["timed", "--record", "{out}", "--label", "x", "--", sys.executable, "-c", "pass"],
}


@pytest.mark.parametrize("records", ["gzipped, as recorded", "plain JSON of another name"])
@pytest.mark.parametrize("command", list(WRITERS))
def test_a_writing_command_refuses_a_file_of_records_as_its_output(tmp_path, command, records, capsys):
    reference = tmp_path / "run" / REFERENCE
    reference.parent.mkdir()
    shutil.copy(DATA / REFERENCE, reference)
    out = tmp_path / "elsewhere" / ("copy.json.gz" if records.startswith("gzipped") else "results.json")
    out.parent.mkdir()
    if records.startswith("gzipped"):
        shutil.copy(DATA / REFERENCE, out)
    else:
        out.write_text('{"records": [], "results": {}}')
    before = out.read_bytes()
    assert main([a.format(ref=reference, out=out) for a in WRITERS[command]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a run's records" in err, err
    assert out.read_bytes() == before


def test_the_reference_is_not_overwritten_by_a_map(data, capsys):
    """The map written over the run it reads: refused, and the run unchanged."""
    before = folder_hash(data)
    assert main(["robustness", "--run", REFERENCE, "--out", REFERENCE]) == 2
    assert "lies in the folder of the recorded run" in capsys.readouterr().err
    assert main(["robustness", "--out", str(data / REFERENCE)]) == 2  # no --run: still a file of records
    assert "holds a run's records" in capsys.readouterr().err
    assert folder_hash(data) == before


def test_run_refuses_an_unwritable_out_before_anything_trains(monkeypatch, capsys):
    import lengthgen.cli.run as run

    loaded = []
    monkeypatch.setattr(run, "load_claims", lambda folder: loaded.append(folder))
    assert main(["run", "C5", "--out", "/proc/x.json", "--claims-dir", str(CLAIMS)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'/proc/x.json'" in err and "cannot be written" in err, err
    assert loaded == []  # refused before the claims were even loaded


def test_an_experiment_refuses_an_unwritable_out_before_it_trains(tmp_path, monkeypatch, capsys):
    import lengthgen.cli.table as table

    monkeypatch.setattr(table, "make_cache", lambda args: pytest.fail("the cache was made: the run started"))
    argv = ["train", "--encoding", "rope", "--offset", "2", "--seeds", "0", "--steps", "1", "--out", "/proc/x.json"]
    assert main(argv) == 2
    assert "cannot be written" in capsys.readouterr().err


# ---------------------------------------------------------------------------------- one answer from one set of records


class ElementText(HTMLParser):
    """The text of the element with ``id`` (and everything inside it)."""

    def __init__(self, element_id: str):
        super().__init__()
        self.id, self.depth, self.parts = element_id, 0, []

    def handle_starttag(self, tag, attrs):
        if self.depth or dict(attrs).get("id") == self.id:
            self.depth += 1

    def handle_endtag(self, tag):
        self.depth = max(self.depth - 1, 0)

    def handle_data(self, data):
        if self.depth:
            self.parts.append(data)


def plain(text: str) -> str:
    """Markdown or page text as a reader reads it: links as their words, no emphasis, single spaces."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(re.sub(r"[*_`]", "", text).split())


def page_answer(argv: list[str]) -> str:
    """The answer on the page of the run ``lengthgen report`` reads with ``argv`` (its figures left undrawn)."""
    from lengthgen.cli import build_parser
    from lengthgen.cli.report import read_views
    from lengthgen.report.page import page

    view, more_seeds = read_views(build_parser(["report"]).parse_args(["report", *argv]))
    html = page(view, {}, (), more_seeds)
    html = re.sub(r'<a class="term" [^>]*>\?</a>', "", html)  # the glossary's links after its terms are not words
    parser = ElementText("answer")
    parser.feed(html)
    return plain("".join(parser.parts))


def test_the_pages_answer_is_the_readmes():
    """`lengthgen report --run <reference> --add <extended> --seeds-added <until-decided>` answers as the README
    (`lengthgen docs`) does: the same words and counts; without the extended cells the counts differ, and without
    the run with seeds added its seed sentence does (the check can fail)."""
    from lengthgen.report.doc_context import FILES, Inputs, load
    from lengthgen.report.doc_render import sections

    readme = plain(
        sections("README.md", load(Inputs(**{n: DATA / f for n, (f, _) in FILES.items()})), "answer")["answer"]
    )
    seeds = ["--seeds-added", str(DATA / SEEDS_ADDED)]
    joined = page_answer(["--run", str(DATA / REFERENCE), "--add", str(DATA / EXTENDED), *seeds])
    assert joined == readme, f"page: {joined}\nREADME: {readme}"
    assert re.findall(r"\d+", joined) == re.findall(r"\d+", readme)
    alone = page_answer(["--run", str(DATA / REFERENCE), *seeds])
    assert re.findall(r"\d+", alone) != re.findall(r"\d+", readme), alone
    fewer_seeds = page_answer(["--run", str(DATA / REFERENCE), "--add", str(DATA / EXTENDED)])
    assert fewer_seeds != readme, fewer_seeds


# ------------------------------------------------------------------------------------------ help, and a mistyped word


def test_help_lists_every_subcommand_once_under_its_purpose(capsys):
    from lengthgen.cli import GROUPS, command_names

    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    titles = [f"{group}: " for group, _, _ in GROUPS]
    assert [line.split(": ")[0] + ": " for line in out.splitlines() if line.startswith(tuple(titles))] == titles
    listed = re.findall(r"^  ([a-z][a-z-]+)(?:\s|$)", out.split(titles[0], 1)[1], re.M)
    assert sorted(listed) == sorted(command_names()), listed
    blocks = dict(zip([g for g, _, _ in GROUPS], out.split(titles[0], 1)[1].split("\n\n")))
    assert re.search(r"^  report ", blocks["run"], re.M) is None and re.search(r"^  report ", out, re.M)
    for group, _, names in GROUPS:
        assert all(re.search(rf"^  {name} ", blocks[group], re.M) for name in names), (group, blocks[group])


@pytest.mark.parametrize(
    "word, hint", [("reprot", "did you mean 'report'?"), ("multivers", "'multiverse'"), ("xyzzy", "lengthgen --help")]
)
def test_a_mistyped_subcommand_is_one_line_with_the_closest(word, hint, capsys):
    assert main([word, "--run", "x"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and hint in captured.err, captured.err
    assert f"{word!r} is not a lengthgen command" in captured.err
