"""The experiment subcommands generated from one table (``lengthgen/cli/table.py``): every row names a function
that takes the keywords its arguments fill, the options every experiment shares build its context, a command line
imports the experiment module of the subcommand it names alone, and bad input is one line with exit status 2."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lengthgen.cli import build_parser, command_modules, command_name, main
from lengthgen.cli.table import BY_NAME, TABLE, Arg, Experiment, text
from lengthgen.config import PAPER_EVAL_LENGTHS, EvalConfig
from lengthgen.context import Context

ROOT = Path(__file__).resolve().parents[2]
# the subcommands the table generates (the paper's experiments, each one function), in the order --help lists them
NAMES = (
    "train",
    "phenomenon",
    "pinning",
    "kernel",
    "carrier",
    "dilution",
    "linear",
    "bases",
    "weight-decay",
    "ape-fixes",
    "dynamics",
    "carrier-sweep",
    "width-dilution",
    "two-layer",
    "biases",
    "content",
    "far",
    "out-of-sample",
    "interpolation",
    "logit-scaling",
    "nope",
)


def parsed(*argv: str):
    return build_parser([argv[0]]).parse_args(list(argv))


def test_the_table_has_one_row_per_experiment_beside_the_module_subcommands():
    assert tuple(e.name for e in TABLE) == NAMES
    assert not set(NAMES) & {command_name(m) for m in command_modules()}  # a name is a row or a module, not both


@pytest.mark.parametrize("experiment", TABLE, ids=lambda e: e.name)
def test_each_row_names_a_function_that_takes_its_arguments(experiment):
    module, _, name = experiment.function.partition(":")
    parameters = inspect.signature(getattr(importlib.import_module(f"lengthgen.experiments.{module}"), name)).parameters
    keywords = {(arg.keyword or arg.dest).partition(".")[0] for arg in experiment.args}
    assert keywords <= set(parameters), keywords - set(parameters)
    if experiment.seeds is not None:  # an experiment that trains: run_x(ctx, cache, ...)
        assert list(parameters)[:2] == ["ctx", "cache"]


def test_defaults_come_from_the_row_and_the_experiment_module():
    bases = parsed("bases")
    assert bases.bases == (1e3, 1e4, 1e5) and bases.offsets == (2, 3) and bases.seeds == (0, 1, 2, 3, 4)
    assert (bases.steps, bases.lengths, bases.sequences) == (4000, PAPER_EVAL_LENGTHS, 4096)
    two_layer = parsed("two-layer")
    assert (two_layer.steps, two_layer.width, two_layer.offset, two_layer.encodings) == (300, 96, 2, ("rope", "ape"))
    assert (
        parsed("phenomenon").seeds == tuple(range(8))
        and parsed("train", "--encoding", "ape", "--offset", "1").base == 1e4
    )
    assert parsed("ape-fixes").fixes == ("interpolate", "clamp", "rescale")


def test_the_shared_options_build_the_context():
    bases = BY_NAME["bases"]
    args = parsed("bases", "--seeds", "3,5", "--steps", "7", "--lengths", "12,20", "--sequences", "32")
    assert bases.context(args) == Context((3, 5), 7, EvalConfig(lengths=(12, 20), sequences=32))
    far = BY_NAME["far"]  # its lengths are its own: the command line sets the sequences alone
    assert far.context(parsed("far", "--sequences", "64")) == Context(tuple(range(8)), 4000, EvalConfig(sequences=64))
    with pytest.raises(SystemExit):
        parsed("far", "--lengths", "12")
    dynamics = parsed("dynamics")  # it reads no evaluation
    assert BY_NAME["dynamics"].context(dynamics) == Context((0, 1, 2, 3, 4), 4000, EvalConfig())
    assert not hasattr(dynamics, "sequences")


def test_a_dotted_keyword_gathers_into_one_dict():
    sweep = BY_NAME["carrier-sweep"]
    args = parsed("carrier-sweep", "--widths", "16", "--vocabs", "20", "--length-ranges", "8-16", "--temperatures", "1")
    assert sweep.keywords(args) == {
        "offsets": (2, 3),
        "sweep": {"width": (16,), "vocab": (20,), "lengths": ((8, 16),), "temperature": (1.0,)},
    }
    assert BY_NAME["two-layer"].keywords(parsed("two-layer", "--width", "32"))["d"] == 32


def test_an_exact_computation_takes_its_own_arguments_alone(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        parsed("kernel", "--seeds", "0")
    assert exit_info.value.code == 2
    capsys.readouterr()
    out = tmp_path / "kernel.json"
    assert main(["kernel", "--d", "8", "--bases", "1e4", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "d = 8" in printed and f"wrote {out}" in printed
    assert [row["base"] for row in json.loads(out.read_text())["rows"]] == [1e4]


def test_the_help_shows_defaults_as_the_command_line_writes_them():
    assert [text(v) for v in ((1e3, 1e4, 1e5), (0.0, 1e-4, 1e-2), ((4, 12), (8, 16)), (1, 2, 3), 0.5)] == [
        "1e3,1e4,1e5",
        "0,1e-4,0.01",
        "4-12,8-16",
        "1,2,3",
        "0.5",
    ]
    helped = build_parser(["weight-decay"])._subparsers._group_actions[0].choices["weight-decay"].format_help()
    helped = " ".join(helped.split())
    assert "(default 0,1e-4,0.01)" in helped and "(default 0-7)" in helped and "--grid-seeds" in helped


def test_a_row_refuses_an_unknown_kind_of_evaluation():
    with pytest.raises(ValueError, match="'everything'"):
        Experiment("x", "an experiment", "kernel:run_kernel", (Arg("--d", "width", int, 64),), evaluation="everything")


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["bases", "--bases", "1e3,x"], "'1e3,x'"),
        (["kernel", "--d", "3"], "d=3"),
        (["train", "--encoding", "rope"], "--offset"),
        (["far", "--encoding", "alibi"], "'alibi'"),
        (["carrier-sweep", "--length-ranges", "8"], "'8'"),
        (["weight-decay", "--grid-seeds", "x"], "'x'"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, fragment, capsys):
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main([*argv, *([] if argv[0] == "kernel" else ["--no-cache", "--steps", "1"])]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err and "Traceback" not in err, err


def test_a_command_line_imports_its_experiment_alone():
    """The table imports no torch and no experiment; building one experiment's subcommand imports that experiment's
    module where a default is read from it (``bases``: its rotary bases), and no other experiment's."""
    code = (
        "import json, sys\n"
        "import lengthgen.cli.table\n"
        "light = sorted(m for m in sys.modules if m.split('.')[0] == 'torch' or 'lengthgen.experiments' in m)\n"
        "from lengthgen.cli import build_parser, requested\n"
        "build_parser(requested(['bases', '--seeds', '0']))\n"
        "print(json.dumps({'light': light, 'experiments': sorted(m for m in sys.modules "
        "if m.startswith('lengthgen.experiments.'))}))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    found = json.loads(result.stdout)
    assert found["light"] == []
    assert "lengthgen.experiments.bases" in found["experiments"]
    for other in ("content", "sweeps", "two_layer", "predictions", "dynamics", "ape_controls", "configuration"):
        assert f"lengthgen.experiments.{other}" not in found["experiments"]
