"""``lengthgen docs`` from a run of claim tests alone (a run without multiverse cells, such as a quick run of a new
claim): it renders docs/catalogue.md from that run where the run's code is the extended cells', and says which
fingerprints differ, in one line, where it is not."""

from __future__ import annotations

import gzip
import json

from lengthgen.cli import main
from tests.helpers import DATA, ROOT

MULTIVERSE_PARTS = ("multiverse", "multiverse_environment", "robustness", "robustness_environment")


def claims_alone(tmp_path, fingerprint: str | None = None):
    """The reference run without its map and multiverse (a run of claim tests alone), with ``fingerprint`` as its
    code's where given."""
    data = json.loads(gzip.open(DATA / "claims-reference.json.gz", "rt").read())
    data = {k: v for k, v in data.items() if k not in MULTIVERSE_PARTS}
    if fingerprint is not None:
        data["environment"] = {**data["environment"], "code_fingerprint": fingerprint}
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(data))
    return path


def test_a_run_of_claims_alone_renders_the_catalogue(tmp_path, capsys):
    run = claims_alone(tmp_path)
    root = tmp_path / "root"
    assert main(["docs", "--data", str(DATA), "--reference", str(run), "--root", str(root)]) == 0, capsys.readouterr()
    assert capsys.readouterr().out.splitlines() == ["wrote docs/catalogue.md"]
    assert (root / "docs" / "catalogue.md").read_text() == (ROOT / "docs" / "catalogue.md").read_text()
    assert [p.name for p in root.rglob("*") if p.is_file()] == ["catalogue.md"]


def test_a_run_of_other_code_is_one_line_naming_both_fingerprints(tmp_path, capsys):
    run = claims_alone(tmp_path, fingerprint="0123456789abcdef")
    extended = json.loads(gzip.open(DATA / "claims-extended.json.gz", "rt").read())
    theirs = extended["multiverse_environment"]["code_fingerprint"]
    assert main(["docs", "--data", str(DATA), "--reference", str(run), "--root", str(tmp_path / "root")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "0123456789abcdef" in err and theirs in err, err
    assert not (tmp_path / "root").exists()
