"""``lengthgen fingerprint``: one line that changes with every file, version, thread count or device that
enters a cache key, and with nothing else; ``--json`` gives the parts it hashes."""

from __future__ import annotations

import json
import re
import shutil

import pytest
import torch

from lengthgen.cli import main
from lengthgen.config import ENCODINGS, TASK_KINDS
from lengthgen.store import fingerprint as store_fingerprint


@pytest.fixture(autouse=True)
def torch_threads():
    """``lengthgen.cli.main`` sets torch's thread count from --threads: give the process its own back."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["fingerprint", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_prints_one_line_a_hash(capsys):
    status, out, err = run(capsys)
    assert status == 0 and err == ""
    assert re.fullmatch(r"[0-9a-f]{16}\n", out)
    assert run(capsys) == (0, out, "")  # the same on a second call


def test_json_gives_the_parts_and_the_same_hash(capsys):
    line = run(capsys)[1].strip()
    status, out, _ = run(capsys, "--json")
    data = json.loads(out)
    assert status == 0 and data["fingerprint"] == line
    assert data["torch"] == torch.__version__ and data["threads"] == 1 and data["device"] == "cpu"
    files = data["files"]
    assert set(store_fingerprint.CORE) <= set(files)
    for encoding in ENCODINGS:
        for kind in TASK_KINDS:
            assert set(store_fingerprint.spec_files(encoding, kind)) <= set(files)
    assert {"models/two_layer/transformer.py", "engine/evaluate_variants.py"} <= set(files)
    assert not any(name.startswith(("cli/", "report/", "experiments/")) for name in files)  # presentation: no key
    assert all(re.fullmatch(r"[0-9a-f]{16}", digest) for digest in files.values())


def test_threads_and_device_enter_the_hash(capsys):
    one = run(capsys)[1]
    assert run(capsys, "--threads", "2")[1] != one
    assert json.loads(run(capsys, "--threads=2", "--json")[1])["threads"] == 2


def test_an_edited_numeric_file_changes_the_hash_and_a_presentation_file_does_not(capsys, tmp_path, monkeypatch):
    package = tmp_path / "lengthgen"
    shutil.copytree(store_fingerprint.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(store_fingerprint, "PACKAGE", package)
    before = run(capsys)[1]
    (package / "report" / "text.py").write_text("# presentation only\n")
    assert run(capsys)[1] == before
    with open(package / "encodings" / "alibi.py", "a") as handle:
        handle.write("\n# a comment is an edit too\n")
    assert run(capsys)[1] != before


@pytest.mark.parametrize(
    "args, message",
    [
        (["--threads", "0"], "--threads 0 must be at least 1"),
        (["--device", "tpu"], "unknown device 'tpu'"),
        (["--colour"], "unrecognized arguments: --colour"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, args, message):
    try:
        status = main(["fingerprint", *args])
    except SystemExit as exit:  # argparse's own errors (lengthgen.cli.common.Parser)
        status = exit.code
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert (
        len(err.splitlines()) == 1
        and err.startswith(("lengthgen fingerprint: error:", "lengthgen: error:"))
        and message in err
    )
