"""The multiverse (issue 20; catalogue, "Open choices and their readings"): every choice the paper leaves
open that could move a number a claim checks, with the suite's reading (the default: every number of the
suite is measured under it) and the other readings, each with who reads the paper that way.

A :class:`Reading` changes its one choice and nothing else: it replaces fields of the spec (one-layer
``RunSpec`` or two-layer ``TwoLayerSpec``; APE-only fields on APE specs only). A :class:`Universe` is a set
of readings applied together: each alternative reading alone, and ``all-alternatives`` (every alternative
at once). Readings act through ONE mechanism: the active universe (a context variable, :func:`under`),
which :func:`lengthgen.experiments.common.paper_spec` and
:func:`lengthgen.experiments.two_layer.two_layer_spec` apply to every spec they build (and
``run_phenomenon`` to the specs it derives by changing the encoding), so each claim's own
``measure(scale, cache)`` measures under the reading unchanged; ``claims.support.memo`` keys on the
active universe. The default universe (:data:`PAPER`) changes nothing: the spec objects (so every cache
key and number) are those of the suite.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Any, Iterator

from lengthgen.config import ModelConfig, RunSpec, TaskConfig, TrainConfig, _require
from lengthgen.engine.train_two_layer import ShiftConfig, TransformerConfig, TwoLayerSpec

FAMILIES = ("one-layer", "two-layer")  # the model families a change can address
PARTS = {  # the config dataclass of each (family, part) a reading may change
    ("one-layer", "task"): TaskConfig, ("one-layer", "model"): ModelConfig, ("one-layer", "train"): TrainConfig,
    ("two-layer", "task"): ShiftConfig, ("two-layer", "model"): TransformerConfig, ("two-layer", "train"): TrainConfig,
}

# The claims whose tests read trained models, by what they train (their test functions, not their
# negative controls): every one-layer head; the one-layer APE heads (C1's APE cells, C8's pinning, C9's
# weight decays, C10's fixes, P3's far lengths); the two-layer transformers (C12, C13; both widths).
ONE_LAYER = ("C1", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10", "C11", "C14", "C16", "C17", "C18", "C19",
             "C20", "C21", "C22", "P1", "P2", "P3", "P4", "P5", "P6")
ONE_LAYER_APE = ("C1", "C8", "C9", "C10", "P3")
TWO_LAYER = ("C12", "C13")


@dataclass(frozen=True)
class Times:
    """A change that multiplies the current value (the two-layer recipe's "3x longer" at any scale)."""

    factor: int  # the multiplier

    def __call__(self, current: Any) -> Any:
        return current * self.factor


@dataclass(frozen=True)
class Change:
    """One field a reading replaces, in one family's specs."""

    family: str  # "one-layer" (RunSpec) or "two-layer" (TwoLayerSpec)
    part: str  # "task", "model" or "train"
    field: str  # the config field, e.g. "init"
    value: Any  # its value under the reading, or a Times(factor) of the current value
    ape_only: bool = False  # applied to APE specs only (other encodings must keep the default)

    def __post_init__(self) -> None:
        _require(self.family in FAMILIES, f"unknown family {self.family!r} (known: {', '.join(FAMILIES)})")
        cls = PARTS.get((self.family, self.part))
        _require(cls is not None, f"unknown part {self.part!r} of a {self.family} spec")
        _require(self.field in cls.__dataclass_fields__, f"{self.field!r} is not a field of {cls.__name__}")

    def applies(self, spec: Any) -> bool:
        family = "one-layer" if isinstance(spec, RunSpec) else "two-layer" if isinstance(spec, TwoLayerSpec) else None
        _require(family is not None, f"not a spec: {type(spec).__name__}")
        return family == self.family and (not self.ape_only or spec.model.encoding == "ape")

    def apply(self, spec: Any) -> Any:
        if not self.applies(spec):
            return spec
        current = getattr(getattr(spec, self.part), self.field)
        value = self.value(current) if isinstance(self.value, Times) else self.value
        return spec if value == current else spec.replace(**{self.part: {self.field: value}})


@dataclass(frozen=True)
class Choice:
    """A choice the paper leaves open that could move a checked number."""

    name: str  # e.g. "init": the prefix of its readings' names
    suite: str  # the suite's reading (the default), in words
    why_open: str  # why the paper leaves it open (what it says, what it does not)


@dataclass(frozen=True)
class Reading:
    """One alternative reading of a choice: the grid's row and the test id's prefix."""

    choice: str  # the Choice's name
    name: str  # e.g. "init=gpt2"
    what: str  # what it changes, in words
    who: str  # one sentence on who reads the paper this way
    claims: tuple[str, ...]  # the claims whose models it changes (the grid's columns for this row)
    changes: tuple[Change, ...]  # the spec fields it replaces

    def __post_init__(self) -> None:
        _require(self.name.startswith(f"{self.choice}=") and self.name == self.name.strip(),
                 f"reading name {self.name!r} must start with its choice {self.choice!r} and '='")
        _require(bool(self.who.strip()) and bool(self.claims) and bool(self.changes), f"reading {self.name!r} is incomplete")
        for spec in _probe_specs():  # an invalid change (a field, a value the config refuses) raises here
            self.apply(spec)

    def apply(self, spec: Any) -> Any:
        for change in self.changes:
            spec = change.apply(spec)
        return spec


def _probe_specs() -> list[Any]:
    """The default spec of every family and encoding a reading must apply to."""
    specs: list[Any] = [RunSpec().replace(model={"encoding": e}) for e in ("rope", "ape", "nope", "alibi", "t5")]
    specs += [TwoLayerSpec().replace(model={"encoding": e}) for e in ("rope", "ape")]
    return specs


CHOICES: tuple[Choice, ...] = (
    Choice("lengths", "a length per sequence, uniform in [Lmin, Lmax], in right-aligned padded batches",
           "the paper trains on lengths in [8, 16] and does not say how mixed lengths are batched"),
    Choice("init", "PyTorch's defaults for the one-layer head (embeddings N(0, 1), projections U(+-1/sqrt(d))); "
           "nanoGPT's N(0, 0.02) for the two-layer transformer",
           "the paper gives no initialisation; the implicit-bias account is about which solution training selects, "
           "and the scale it starts from could change that"),
    Choice("ape-rows", "the APE rows never trained (positions >= Lmax) keep their initial draw",
           "the paper says the untrained rows are what APE reads beyond the range, not what they hold"),
    Choice("ape-value", "v_t = W_V (x_t + p_t): the position enters the values too",
           "the paper adds a learned position embedding without saying whether the values see it"),
    Choice("two-layer-steps", "300 steps (Adam lr 1e-3, batch 32)",
           "the paper gives no training recipe for its two-layer transformer"),
)

_APE_ROWS_WHO = "implementations that zero-initialise or mask the position table beyond the training length"
READINGS: tuple[Reading, ...] = (
    Reading("lengths", "lengths=per-batch", "one length per batch, drawn per step, no padding",
            "a plain training script (and most length-generalisation code) draws one length per batch and "
            "never pads", ONE_LAYER + TWO_LAYER,
            (Change("one-layer", "train", "length_mix", "per-batch"), Change("two-layer", "train", "length_mix", "per-batch"))),
    Reading("init", "init=gpt2", "every weight of the one-layer head N(0, 0.02) (GPT-2, nanoGPT)",
            "anyone who builds the head from GPT-2/nanoGPT code, where every weight is drawn N(0, 0.02)",
            ONE_LAYER, (Change("one-layer", "model", "init", "gpt2"),)),
    Reading("init", "init=torch", "the two-layer transformer with PyTorch's layer defaults instead of nanoGPT's",
            "anyone who builds the transformer from torch.nn layers and keeps their default initialisation",
            TWO_LAYER, (Change("two-layer", "model", "init", "torch"),)),
    Reading("ape-rows", "ape-rows=zero", "APE rows at positions >= Lmax are zeros (one- and two-layer APE models)",
            _APE_ROWS_WHO, ONE_LAYER_APE + TWO_LAYER,
            (Change("one-layer", "model", "ape_unseen", "zero", ape_only=True),
             Change("two-layer", "model", "ape_unseen", "zero", ape_only=True))),
    Reading("ape-value", "ape-value=token", "v_t = W_V x_t: the position enters queries and keys only (one-layer APE)",
            "several APE implementations that add the position to queries and keys only (as relative schemes do)",
            ONE_LAYER_APE, (Change("one-layer", "model", "ape_value", "token", ape_only=True),)),
    Reading("two-layer-steps", "two-layer-steps=900", "the two-layer transformers trained 3x longer (900 steps at "
            "paper scale), at both widths (d = 96 and d = 64)",
            "a reader who suspects 300 steps undertrains the transformer, as a longer standard recipe would",
            TWO_LAYER, (Change("two-layer", "train", "steps", Times(3)),)),
)
BY_NAME = {r.name: r for r in READINGS}
assert len(BY_NAME) == len(READINGS), "reading names must be unique"
assert {r.choice for r in READINGS} == {c.name for c in CHOICES}, "every choice needs a reading, every reading a choice"

# Choices of the README's "Protocol, and every choice the paper leaves open" left at one reading, and why.
LEFT_AT_ONE_READING: tuple[tuple[str, str], ...] = (
    ("seeds and data streams", "another draw of the same distributions: the robustness map's fresh-seeds setting "
     "and --lengthgen-seeds/--lengthgen-until-decided already ask it"),
    ("selected offset, peak, a*, carrier fraction, phi_c, margins, the dilution fit, dynamics' 'emerges'/'plateaus'",
     "definitions of what is measured on the same models, not of the models: each check names where its "
     "threshold comes from (a number the paper states, or the suite's reading)"),
    ("APE table size (48 rows; 128 for the predictions)", "rows beyond the longest evaluation length are never read"),
    ("linear attention (C11: o = sum_t l_t v_t, unnormalised)", "the literal reading of 'linear attention'; a "
     "normalised or feature-map variant is another architecture, not another reading of this one"),
    ("weight decay (C9: Adam's coupled L2)", "decoupled AdamW could move C9's numbers; it is not a config field "
     "this round: the next axis to add"),
    ("APE fixes (C10: interpolate with aligned ends, clamp, rescale)", "inference-time maps of the trained rows "
     "that the paper names; they change no trained model"),
    ("ALiBi slopes (2^-h; the literal 2^-8h/H gives 1/256 for one head)", "the literal slope behaved like no "
     "positional encoding in development (README), so it cannot rescue C19's ALiBi cells; not a config field"),
    ("T5 buckets (32, max distance 128)", "T5's published bucketing"),
    ("the two-layer model (pre-LayerNorm, MLP 4d, GELU, 4 heads) and its batch and lr", "one standard "
     "transformer; its recipe's open part is its length (two-layer-steps) and its initialisation (init=torch); "
     "batch and lr stay the paper's by the multiverse's rule"),
    ("the sweep points, rotary bases, content rule, far lengths", "the catalogue fixes them"),
)


@dataclass(frozen=True)
class Universe:
    """Readings applied together: the default (none), one alternative, or every alternative at once."""

    name: str  # "paper" (the suite's readings), a reading's name, or "all-alternatives"
    readings: tuple[Reading, ...]  # the alternative readings in force

    def __post_init__(self) -> None:
        seen: dict[tuple[str, str, str], str] = {}
        for reading in self.readings:
            for c in reading.changes:
                key = (c.family, c.part, c.field)
                _require(key not in seen, f"universe {self.name!r}: {reading.name} and {seen.get(key)} change {key}")
                seen[key] = reading.name

    @property
    def is_default(self) -> bool:
        return not self.readings

    @property
    def claims(self) -> tuple[str, ...]:
        """The claims whose models this universe changes, by number (C before P)."""
        return tuple(sorted({c for r in self.readings for c in r.claims}, key=claim_order))

    def apply(self, spec: Any) -> Any:
        """``spec`` under this universe's readings (the same object when none applies)."""
        for reading in self.readings:
            spec = reading.apply(spec)
        return spec

    def describe(self) -> str:
        if self.is_default:
            return "the suite's reading of every open choice"
        return "; ".join(f"{r.name}: {r.what}" for r in self.readings)


def claim_order(claim: str) -> tuple[int, int]:
    """C1..C22 then P1..P6."""
    return (0 if claim.startswith("C") else 1, int(claim[1:]))


PAPER = Universe("paper", ())
ALL_ALTERNATIVES = Universe("all-alternatives", READINGS)
UNIVERSES: tuple[Universe, ...] = tuple(Universe(r.name, (r,)) for r in READINGS) + (ALL_ALTERNATIVES,)
UNIVERSE_BY_NAME = {u.name: u for u in UNIVERSES}

_ACTIVE: contextvars.ContextVar[Universe] = contextvars.ContextVar("lengthgen_universe", default=PAPER)


def active_universe() -> Universe:
    """The universe specs are built in now (:data:`PAPER` unless inside :func:`under`)."""
    return _ACTIVE.get()


def apply_active(spec: Any) -> Any:
    """``spec`` under the active universe: the hook of every place that builds a spec from scratch."""
    universe = _ACTIVE.get()
    return spec if universe.is_default else universe.apply(spec)


def universe(name: str) -> Universe:
    """The universe called ``name`` ("paper", a reading's name, "all-alternatives"); ValueError naming it."""
    if name == PAPER.name:
        return PAPER
    try:
        return UNIVERSE_BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown reading {name!r} (known: {', '.join(UNIVERSE_BY_NAME)})") from None


@contextlib.contextmanager
def under(target: Universe | str) -> Iterator[Universe]:
    """Build specs under ``target`` (a Universe or its name) inside the block."""
    chosen = universe(target) if isinstance(target, str) else target
    token = _ACTIVE.set(chosen)
    try:
        yield chosen
    finally:
        _ACTIVE.reset(token)


def choice(name: str) -> Choice:
    for c in CHOICES:
        if c.name == name:
            return c
    raise ValueError(f"unknown choice {name!r} (known: {', '.join(c.name for c in CHOICES)})")


# Which cells run by default (the cost budget: `pytest claims -m multiverse -n auto` within 15 minutes cold on
# 2 quiet cores, and CI's .ci/run within 40): the cells of every non-reproduction, of every claim read off the
# C1 grid, of C19, and of every two-layer reading, under each reading that touches them. The cells below are
# EXTENDED: they are tests too (marked ``multiverse_extended``: `pytest claims -m multiverse_extended -n auto`
# runs them, `-m "multiverse or multiverse_extended"` the whole multiverse), left out of the default run for
# their cost, each with the reason. The whole multiverse (98 cells) ran once cold on 2026-12-01 (the README's
# docs/robustness.md, "Multiverse", gives every cell's verdict and cost).
SWEEPS = ("C17", "C18")  # 80 models per universe: the expensive ones
OWN_MODELS = ("C9", "C11", "C14", "C21", "C22", "P5")  # claims that reproduce at the paper's point on models of
# their own (weight decays, linear heads, other bases, content heads, NoPE heads): 30 + 10 + 20 + 15 + 15 models
_SINGLE = ("lengths=per-batch", "init=gpt2")  # the one-layer readings that retrain every one-layer claim
LEFT_OUT: dict[tuple[str, str], str] = {
    **{(u, c): "the C17/C18 sweep (80 models per universe, a third of a universe's cost): extended"
       for u in _SINGLE + ("all-alternatives",) for c in SWEEPS},
    **{(u, c): "a reproduction on models of its own under a one-layer reading (its own models are 1-2 minutes "
       "per reading): extended; the C1 grid's claims and the non-reproductions keep every reading"
       for u in _SINGLE for c in OWN_MODELS},
    **{("all-alternatives", c): "the first width (d = 64) at 900 steps under every alternative (3 min of the "
       "budget): extended; two-layer-steps=900 runs d = 64 at 900 steps, the other readings at 300"
       for c in ("C12-d64", "C13-d64")},
}
WIDTH_VARIANTS = {"C12": ("", "-d64"), "C13": ("", "-d64")}  # "" is d = 96 (the suite's), "-d64" the first width


def columns(claim: str) -> tuple[str, ...]:
    """The grid's columns of a claim: itself, or C12/C13 per width ("C12", "C12-d64")."""
    return tuple(claim + v for v in WIDTH_VARIANTS.get(claim, ("",)))


def split_column(column: str) -> tuple[str, int | None]:
    """("C12", 64) for "C12-d64"; ("C12", None) for "C12" (the claim's own width)."""
    claim, _, variant = column.partition("-d")
    return claim, int(variant) if variant else None


def all_cells() -> list[tuple[Universe, str]]:
    """Every (universe, column) cell of the multiverse, universes in the registry's order, claims by number."""
    return [(universe, column) for universe in UNIVERSES for claim in universe.claims for column in columns(claim)]


def extended(universe: str, column: str) -> bool:
    """Whether the cell is left out of the default run (:data:`LEFT_OUT`, by claim or by width column)."""
    return (universe, column) in LEFT_OUT or (universe, split_column(column)[0]) in LEFT_OUT


def cells() -> list[tuple[Universe, str]]:
    """The cells of the default run (`-m multiverse`): every cell but the extended ones."""
    return [(u, column) for u, column in all_cells() if not extended(u.name, column)]


def extended_cells() -> list[tuple[Universe, str]]:
    """The cells left out of the default run for their cost (`-m multiverse_extended`)."""
    return [(u, column) for u, column in all_cells() if extended(u.name, column)]


def left_out() -> list[tuple[str, str, str]]:
    """(universe, column, why) of every extended cell."""
    return [(u.name, column, LEFT_OUT.get((u.name, column)) or LEFT_OUT[u.name, split_column(column)[0]])
            for u, column in extended_cells()]


def sort_key(column: str) -> tuple[Any, ...]:
    claim, width = split_column(column)
    return (*claim_order(claim), width or 0)
