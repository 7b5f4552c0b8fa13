"""``lengthgen timed``: a command's cost appended to a costs file (what docs/costs.md's tables are rendered from),
its exit status passed through; bad input one line and exit 2. And docs/costs.md's cost lines rendered from such a
file (the ``costs`` and ``ci-costs`` sections of lengthgen/report/templates/docs/costs.md.j2)."""

from __future__ import annotations

import json
import sys

from lengthgen.cli import main
from lengthgen.cli.timed import time_command
from tests.helpers import ci_section, costs_section

PYTEST_LINE = "print('===== 3 passed, 1 xfailed in 2.00s =====')"


def test_a_step_is_appended_with_its_time_closing_line_and_status(tmp_path, capsys):
    record = tmp_path / "costs.json"
    code = f"import sys; {PYTEST_LINE}; sys.exit(3)"
    assert (
        main(["timed", "--record", str(record), "--label", "step one", "--cold", "--", sys.executable, "-c", code]) == 3
    )
    assert "3 passed, 1 xfailed" in capsys.readouterr().out  # the output passes through
    assert main(["timed", "--record", str(record), "--label", "step two", "--", sys.executable, "-c", "pass"]) == 0
    data = json.loads(record.read_text())
    assert data["format"] == 1 and set(data["machine"]) == {"cpu_model", "cores", "avx512"}
    one, two = data["steps"]
    assert (one["label"], one["exit"], one["closing"], one["cold"]) == (
        "step one",
        3,
        "3 passed, 1 xfailed in 2.00s",
        True,
    )
    assert (two["label"], two["exit"], two["closing"], two["cold"]) == ("step two", 0, "", False)
    assert one["seconds"] >= 0
    busy = "import time; end = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    assert main(["timed", "--record", str(record), "--label", "busy", "--", sys.executable, "-c", busy]) == 0
    assert json.loads(record.read_text())["steps"][-1]["cpu_seconds"] >= 0.3  # the child's CPU time is counted


def test_replace_drops_the_steps_of_the_same_label_only(tmp_path, capsys):
    record = tmp_path / "costs.json"
    for label, extra in (("tests", []), ("claims", []), ("tests", ["--replace"])):
        assert (
            main(["timed", "--record", str(record), "--label", label, *extra, "--", sys.executable, "-c", "pass"]) == 0
        )
    assert [step["label"] for step in json.loads(record.read_text())["steps"]] == ["claims", "tests"]


def test_time_command_unechoed_keeps_the_closing_and_last_line(tmp_path, capsys):
    """``time_command`` as scripts/record-startup calls it: nothing passes through, the cost and the lines come back."""
    code = f"import sys; {PYTEST_LINE}; print('last words', file=sys.stderr); sys.exit(2)"
    cost = time_command([sys.executable, "-c", code], echo=False, cwd=tmp_path)
    assert capsys.readouterr().out == ""
    assert (cost.returncode, cost.closing, cost.last_line) == (2, "3 passed, 1 xfailed in 2.00s", "last words")
    assert cost.seconds > 0 and cost.cpu_seconds >= 0


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    record = tmp_path / "costs.json"
    assert main(["timed", "--record", str(record), "--label", "x"]) == 2
    assert main(["timed", "--record", str(record), "--label", "x", "--", "no-such-command-here"]) == 2
    record.write_text("{")
    assert main(["timed", "--record", str(record), "--label", "x", "--", sys.executable, "-c", "pass"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("lengthgen timed: error: ") for line in err)
    assert record.read_text() == "{"  # a malformed file is left as it was


def test_the_cost_table_and_the_slower_cpu_line():
    costs = {
        "format": 1,
        "machine": {"cpu_model": "AMD EPYC", "cores": 2, "avx512": True},
        "steps": [
            {
                "label": "pytest claims -n auto",
                "seconds": 400.0,
                "cold": True,
                "closing": "55 passed",
                "date": "2026-12-03",
            },
            {
                "label": "pytest claims -n auto",
                "seconds": 30.0,
                "cold": False,
                "closing": "55 passed",
                "date": "2026-12-03",
            },
        ],
    }
    other = {
        "machine": {"cpu_model": "AMD EPYC", "cores": 2, "avx512": False},
        "steps": [{"label": "pytest claims -n auto", "seconds": 1000.0, "cold": True, "date": "2026-12-02"}],
    }
    text = costs_section(costs, {"torch": "2.13.0+cpu"}, other)
    assert "| `pytest claims -n auto` | empty | 6 min 40 s | 55 passed |" in text
    assert "| `pytest claims -n auto` | the runs above | 30.0 s | 55 passed |" in text
    assert "Measured on an AMD EPYC with AVX-512, 2 cores, torch 2.13.0+cpu, on 2026-12-03." in text
    assert text.rstrip().endswith("took 16 min 40 s: 2.5x this machine's.")
    assert "On an" not in costs_section(costs, {})
    # a slower CPU timed with another backward is compared with the same backward's time on the faster CPU
    against = {"seconds": 500.0, "cpu_model": "AMD EPYC", "avx512": True, "date": "2026-12-01"}
    other["steps"][0] |= {"backward": "autograd", "against": against}
    line = costs_section(costs, {}, other)
    assert "with the autograd backward took 16 min 40 s, 2.0x its 8 min 20 s on AMD EPYC with AVX-512" in line
    other["steps"][0]["against"] = dict(against, avx512=False)  # the faster CPU named from its own flags
    assert "8 min 20 s on AMD EPYC with AVX2 and no AVX-512 (2026-12-01)" in costs_section(costs, {}, other)


def test_the_ci_section_shows_each_step_how_busy_the_cores_were_and_the_sum():
    ci = {
        "machine": {"cpu_model": "AMD EPYC", "cores": 2, "avx512": False},
        "steps": [
            {"label": "pytest -n auto", "seconds": 600.0, "cpu_seconds": 1080.0, "closing": "9 passed", "date": "d"},
            {"label": "pytest -m quick -n auto", "seconds": 60.0, "closing": "", "date": "d"},
        ],
    }
    text = ci_section(ci)
    assert "| `pytest -n auto` | 10 min 00 s | 90 % | 9 passed |" in text  # 1080 s of CPU over 2 x 600 s
    assert "| `pytest -m quick -n auto` | 60.0 s | - |" in text  # no CPU time recorded
    assert "add up to 11 min 00 s" in text and "AMD EPYC with AVX2 and no AVX-512, 2 cores" in text
