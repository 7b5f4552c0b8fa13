"""The experiment subcommands, generated from one table: :data:`TABLE`, one :class:`Experiment` per experiment
function of ``lengthgen/experiments/``, each declaring its own arguments once (:class:`Arg`).

Every experiment subcommand runs the same way (:meth:`Experiment.run`): the options every experiment shares build
the experiment's context (``lengthgen.context.Context``: ``--seeds``, ``--steps`` and, where the experiment reads
them, ``--lengths`` and ``--sequences``) and its model cache (``--cache-dir``, ``--no-cache``, ``--retrain``), its
own arguments fill the keywords of its function, ``run_x(ctx, cache, **arguments)``, and the result's ``table()`` is
printed and its ``to_json()`` written to ``--out`` (checked before the experiment runs). An exact computation
(``seeds=None``: nothing trained) takes its own arguments and ``--out`` alone, and its function no context or cache.

This module imports no torch and no experiment: a row names its function by module and name, and a default read
from the experiment's module (:class:`Constant`) is read when its subcommand's parser is built, so a command line
imports the experiment module of the subcommand it names alone.
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass
from typing import Any, Callable

from lengthgen.cli.common import (
    add_out_option,
    add_output_options,
    checked_out,
    emit_result,
    float_list,
    int_list,
    make_cache,
    range_list,
    seeds_arg,
    word_list,
)
from lengthgen.config import ENCODINGS, PAPER_EVAL_LENGTHS, EvalConfig, parse_seeds
from lengthgen.context import Context

EXPERIMENTS = "lengthgen.experiments"  # the package of the experiment modules a row names
EVALUATIONS = ("lengths", "sequences", "")  # what of the evaluation a row's command line sets (Experiment.evaluation)


@dataclass(frozen=True)
class Constant:
    """A default read from a module when the subcommand's parser is built: ``NAME`` of the row's own experiment
    module, or ``module:NAME`` of a module under ``lengthgen.experiments``; ``key`` picks one entry of a dict."""

    name: str  # "PAPER_BASES", or "two_layer:STEPS"
    key: Any = None  # an entry of the constant (a dict), e.g. "paper"; None: the constant itself

    def value(self, module: str) -> Any:
        where, _, name = self.name.rpartition(":")
        found = getattr(importlib.import_module(f"{EXPERIMENTS}.{where or module}"), name)
        return found if self.key is None else found[self.key]


@dataclass(frozen=True)
class Arg:
    """One argument an experiment declares: its option, how its text is read, and the keyword it fills."""

    flag: str  # the option, e.g. "--offsets"
    help: str  # what it sets (the help adds its default)
    parse: Callable[[str], Any] = str  # its text -> its value (argparse.ArgumentTypeError naming the text)
    default: Any = None  # its value when not given (a Constant: read from the experiment's module)
    metavar: str | None = None  # how the help shows its value, e.g. "K1,K2,..."
    keyword: str = ""  # the function's keyword it fills ("": the flag's name with underscores); "a.b": entry b of
    # the dict passed as keyword a
    choices: tuple[str, ...] | None = None  # the values it accepts (None: any its parse accepts)
    required: bool = False  # the option must be given (no default)

    @property
    def dest(self) -> str:
        """Where argparse keeps its value."""
        return self.flag.lstrip("-").replace("-", "_")

    def add_to(self, parser: argparse.ArgumentParser, module: str) -> None:
        default = self.default.value(module) if isinstance(self.default, Constant) else self.default
        shown = "" if self.required or default is None else f" (default {text(default)})"  # a string default is
        # the command line's own text (argparse reads it through ``parse``)
        parser.add_argument(
            self.flag,
            dest=self.dest,
            type=self.parse,
            default=default,
            metavar=self.metavar,
            choices=self.choices,
            required=self.required,
            help=self.help + shown,
        )


@dataclass(frozen=True)
class Experiment:
    """One row of the table: an experiment function and the subcommand that runs it."""

    name: str  # the subcommand, e.g. "pinning"
    help: str  # what it measures, in one line
    function: str  # its function, "module:function" under lengthgen.experiments, e.g. "pinning:run_pinning"
    args: tuple[Arg, ...] = ()  # its own arguments, each filling a keyword of the function
    seeds: str | None = "0-4"  # the default --seeds; None: an exact computation (no context, no cache)
    steps: int | Constant = 4000  # the default --steps
    evaluation: str = "lengths"  # what of the evaluation the command line sets: "lengths" (--lengths and
    # --sequences), "sequences" (--sequences: the lengths are its own), "" (none: it reads no evaluation)
    lengths_help: str = "evaluation lengths"  # what --lengths sets
    epilog: str = ""  # said below the options

    def __post_init__(self) -> None:
        if self.evaluation not in EVALUATIONS:
            raise ValueError(f"{self.name}: evaluation={self.evaluation!r} is not one of {EVALUATIONS}")

    @property
    def module(self) -> str:
        return self.function.partition(":")[0]

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Its own arguments, then what every experiment of its kind shares."""
        for arg in self.args:
            arg.add_to(parser, self.module)
        if self.seeds is None:
            add_out_option(parser)
            return
        parser.add_argument(
            "--seeds",
            type=seeds_arg,
            default=parse_seeds(self.seeds),
            help=f"seeds: a range 0-7 (inclusive) or a list 0,2,5 (default {self.seeds})",
        )
        steps = self.steps.value(self.module) if isinstance(self.steps, Constant) else self.steps
        parser.add_argument("--steps", type=int, default=steps, help=f"training steps per model (default {steps})")
        if self.evaluation == "lengths":
            parser.add_argument(
                "--lengths",
                type=int_list,
                default=PAPER_EVAL_LENGTHS,
                metavar="L1,L2,...",
                help=f"{self.lengths_help} (default {text(PAPER_EVAL_LENGTHS)})",
            )
        if self.evaluation:
            parser.add_argument(
                "--sequences", type=int, default=4096, help="evaluation sequences per length (default 4096)"
            )
        add_output_options(parser)

    def keywords(self, args: argparse.Namespace) -> dict[str, Any]:
        """The function's keyword arguments from the command line (``a.b`` keywords gathered into dict ``a``)."""
        found: dict[str, Any] = {}
        for arg in self.args:
            keyword = arg.keyword or arg.dest
            outer, _, inner = keyword.partition(".")
            if inner:
                found.setdefault(outer, {})[inner] = getattr(args, arg.dest)
            else:
                found[keyword] = getattr(args, arg.dest)
        return found

    def context(self, args: argparse.Namespace) -> Context:
        """The experiment's context from the command line (its evaluation: the paper's where it sets none)."""
        if self.evaluation == "lengths":
            evaluation = EvalConfig(lengths=args.lengths, sequences=args.sequences)
        elif self.evaluation == "sequences":
            evaluation = EvalConfig(sequences=args.sequences)
        else:
            evaluation = EvalConfig()
        return Context(args.seeds, args.steps, evaluation)

    def run(self, args: argparse.Namespace) -> int:
        """Run the experiment, print its table, write its JSON (``--out``); exit status 0."""
        args.out = checked_out(args.out)  # before anything trains
        module, _, name = self.function.partition(":")
        function = getattr(importlib.import_module(f"{EXPERIMENTS}.{module}"), name)
        if self.seeds is None:
            return emit_result(args, function(**self.keywords(args)))
        ctx = self.context(args)
        return emit_result(args, function(ctx, make_cache(args), **self.keywords(args)))


def text(value: Any) -> str:
    """A default as the command line writes it: ``1,2,3``, ``1e3,1e4``, ``0,1e-4,0.01``, ``4-12,8-16``."""
    if isinstance(value, (tuple, list)):
        return ",".join(f"{v[0]}-{v[1]}" if isinstance(v, tuple) else text(v) for v in value)
    if isinstance(value, float):
        plain = f"{value:g}"
        mantissa, _, exponent = f"{value:e}".partition("e")
        short = f"{float(mantissa):g}e{int(exponent)}"
        return short if len(short) < len(plain) else plain
    return str(value)


def offsets(default: tuple[int, ...], what: str = "target offsets K, one model per offset and seed") -> Arg:
    """--offsets K1,K2,...: the target offsets."""
    return Arg("--offsets", what, int_list, default, "K1,K2,...")


def encodings(default: Any, what: str = "positional encodings") -> Arg:
    """--encodings E1,E2,...: the positional encodings."""
    return Arg("--encodings", what, word_list, default, "E1,E2,...")


GRID = "the phenomenon grid"  # the RoPE and APE heads of every K that `phenomenon` trains, which others read

TABLE: tuple[Experiment, ...] = (
    Experiment(
        "train",
        "train one configuration over seeds; per seed and length: accuracy, selected offset, peak, a*",
        "configuration:run_configuration",
        (
            Arg("--encoding", "positional encoding", choices=ENCODINGS, required=True),
            Arg("--offset", "target offset K (1 <= K < 8)", int, metavar="K", required=True),
            Arg("--base", "RoPE base", float, 1e4, "B"),
        ),
        seeds="0-7",
    ),
    Experiment(
        "phenomenon",
        "accuracy per length of the RoPE and APE heads for every K, over seeds (the phenomenon grid)",
        "phenomenon:run_phenomenon",
        (offsets((1, 2, 3)), encodings(("rope", "ape"))),
        seeds="0-7",
    ),
    Experiment(
        "pinning",
        "the APE head's peak absolute position at every length beyond the training range",
        "pinning:run_pinning",
        (offsets((1, 2, 3)),),
        seeds="0-7",
    ),
    Experiment(
        "kernel",
        "g(s) = sum_j cos(s theta_j): unique maximum at 0 and max_{s>=4} g(s)/g(0) per base",
        "kernel:run_kernel",
        (
            Arg("--d", "head width", int, 64, "D"),
            Arg("--bases", "RoPE bases", float_list, (1e3, 1e4, 1e5), "B1,B2,..."),
        ),
        seeds=None,
    ),
    Experiment(
        "carrier",
        "carrier fractions, cos(m_Q, R_-K m_K) and the peak of phi_c of the RoPE heads, trained vs untrained",
        "carrier:run_carrier",
        (offsets((1, 2, 3)),),
        lengths_help="evaluation lengths for the accuracy column",
    ),
    Experiment(
        "dilution",
        "target weight a*(L), dilution fit of 1/a* on L-1, worst-case margin bound beside a*(L)",
        "dilution:run_dilution",
        (offsets((2, 3)),),
        lengths_help="evaluation lengths, at most 48",
    ),
    Experiment(
        "linear",
        "RoPE with unnormalised linear attention vs softmax: accuracy per length and carrier geometry",
        "linear:run_linear",
        (offsets((2, 3)),),
    ),
    Experiment(
        "bases",
        "accuracy and selected offset per length of RoPE heads at several rotary bases",
        "bases:run_bases",
        (offsets((2, 3)), Arg("--bases", "RoPE bases", float_list, Constant("PAPER_BASES"), "B1,B2,...")),
    ),
    Experiment(
        "weight-decay",
        "APE accuracy beyond Lmax under coupled Adam weight decay, and the norms of its table rows",
        "ape_controls:run_weight_decay",
        (
            offsets((1, 2, 3)),
            Arg("--decays", "coupled Adam weight decays lambda", float_list, Constant("WEIGHT_DECAYS"), "L1,L2,..."),
            Arg("--grid-seeds", f"seeds of lambda = 0, the APE heads of {GRID}", seeds_arg, "0-7", "SPEC"),
        ),
        epilog="--seeds are the seeds of every lambda > 0; lambda = 0 trains no new model: it reads the APE heads of "
        f"{GRID} at --grid-seeds.",
    ),
    Experiment(
        "ape-fixes",
        "APE accuracy beyond Lmax with its position table rebuilt by inference-time fixes (no retraining)",
        "ape_controls:run_ape_fixes",
        (offsets((1, 2, 3)), Arg("--fixes", "inference-time fixes", word_list, Constant("FIXES"), "F1,F2,...")),
        seeds="0-7",
        epilog=f"The heads are the APE heads of {GRID}: its cached models where it ran.",
    ),
    Experiment(
        "dynamics",
        "when the carrier fractions and the top singular-value energy of W_Q^T W_K emerge in training",
        "dynamics:run_dynamics",
        (offsets((2, 3)),),
        evaluation="",
    ),
    Experiment(
        "carrier-sweep",
        "carrier fractions across width d, vocabulary m, training length range and temperature, one at a time",
        "sweeps:run_carrier_sweep",
        (
            offsets((2, 3)),
            Arg("--widths", "widths d", int_list, Constant("SWEEP", "width"), "D1,D2,...", "sweep.width"),
            Arg("--vocabs", "vocabulary sizes m", int_list, Constant("SWEEP", "vocab"), "M1,M2,...", "sweep.vocab"),
            Arg(
                "--length-ranges",
                "training length ranges",
                range_list,
                Constant("SWEEP", "lengths"),
                "A-B,C-D",
                "sweep.lengths",
            ),
            Arg(
                "--temperatures",
                "softmax temperatures",
                float_list,
                Constant("SWEEP", "temperature"),
                "T1,T2,...",
                "sweep.temperature",
            ),
        ),
        evaluation="",
    ),
    Experiment(
        "width-dilution",
        "the dilution rate c (slope of 1/a* on L-1) per model width",
        "sweeps:run_width_dilution",
        (offsets((2, 3)), Arg("--widths", "widths d", int_list, Constant("WIDTHS"), "D1,D2,...")),
    ),
    Experiment(
        "two-layer",
        "a 2-layer 4-head transformer on the shift task; accuracy beyond the training range, retrieving head",
        "two_layer:run_two_layer",
        (
            encodings(("rope", "ape"), "rope and/or ape"),
            Arg("--offset", "shift K", int, Constant("OFFSET"), "K"),
            Arg("--width", "model width d", int, Constant("WIDTH"), "D", "d"),
        ),
        steps=Constant("STEPS", "paper"),
    ),
    Experiment(
        "biases",
        "ALiBi / T5 bias / RoPE: accuracy inside and beyond the training range, selected offset per length",
        "biases:run_biases",
        (offsets((1, 2, 3)), encodings(Constant("ENCODINGS"))),
    ),
    Experiment(
        "content",
        "content-conditioned task (query token picks K1 or K2), RoPE with H heads: accuracy, W energy, peak",
        "content:run_content",
        (
            Arg("--heads", "head counts, each dividing d = 64", int_list, Constant("HEADS"), "H1,H2,..."),
            offsets(Constant("OFFSETS"), "the two offsets: query token < m/2 asks K1, else K2"),
        ),
    ),
    Experiment(
        "far",
        f"the heads of {GRID} far beyond the evaluation range (APE with a longer table): selection, peak, accuracy",
        "predictions:run_far",
        (
            Arg("--encoding", f"the heads of {GRID} measured", default="rope", choices=("rope", "ape")),
            offsets((1, 2, 3)),
        ),
        seeds="0-7",
        evaluation="sequences",
    ),
    Experiment(
        "out-of-sample",
        "the dilution law fitted on the evaluation lengths against the measured a* at far lengths",
        "predictions:run_out_of_sample",
        (offsets((2, 3)),),
        lengths_help="the lengths the law is fitted on",
    ),
    Experiment(
        "interpolation",
        "RoPE heads with position interpolation at inference (positions x Lmax/L): a*, selected offset, accuracy",
        "predictions:run_interpolation",
        (offsets((1, 2, 3)),),
        seeds="0-7",
        evaluation="sequences",
    ),
    Experiment(
        "logit-scaling",
        "RoPE heads with log-length logit scaling at inference: a*, selected offset, accuracy",
        "predictions:run_scaling",
        (offsets((1, 2, 3)),),
        seeds="0-7",
        evaluation="sequences",
    ),
    Experiment(
        "nope",
        "heads without a positional encoding (NoPE), trained as the phenomenon grid: accuracy per length",
        "predictions:run_nope",
        (offsets((1, 2, 3)),),
    ),
)
BY_NAME: dict[str, Experiment] = {experiment.name: experiment for experiment in TABLE}
assert len(BY_NAME) == len(TABLE), "subcommand names must be unique"
