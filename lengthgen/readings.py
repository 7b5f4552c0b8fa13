"""The multiverse's registry (catalogue, "Open choices and their readings"), as plain data: every
choice the paper leaves open that could move a number a claim checks, the suite's reading (the default: every
number of the suite is measured under it) and the other readings, each with who reads the paper that way.

A :class:`Reading` changes its one choice and nothing else: it replaces fields of one family's specs (the
one-layer ``RunSpec`` or the two-layer ``TwoLayerSpec``; APE-only fields on APE specs only). A
:class:`Universe` is a set of readings applied together: each alternative alone, or a combination of alternatives
(one reading per choice, named by their names joined by "+": :func:`factorial`).

This module imports no torch: rendering a ``claims.json`` (``lengthgen multiverse``, the report) reads it.
Applying a reading to a spec, and checking each change against the config classes, is the engine's part
(:mod:`lengthgen.experiments.multiverse`). Which claims a reading touches follows from what it changes
(:meth:`Universe.reaches`) and each claim's declared model families (``claims/spec.py``'s ``ClaimSpec``),
on the claims' side (``claims/multiverse.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lengthgen.config import _require

FAMILIES = ("one-layer", "two-layer")  # the model families a change can address
PARTS = ("task", "model", "train")  # the parts of a spec a change can address


@dataclass(frozen=True)
class Times:
    """A change that multiplies the current value (the two-layer recipe's "3x longer" at any scale)."""

    factor: int  # the multiplier

    def __call__(self, current: Any) -> Any:
        return current * self.factor


@dataclass(frozen=True)
class Change:
    """One field a reading replaces, in one family's specs (checked against the config classes, and applied,
    by :mod:`lengthgen.experiments.multiverse`)."""

    family: str  # "one-layer" (RunSpec) or "two-layer" (TwoLayerSpec)
    part: str  # "task", "model" or "train"
    field: str  # the config field, e.g. "init"
    value: Any  # its value under the reading, or a Times(factor) of the current value
    ape_only: bool = False  # applied to APE specs only (other encodings must keep the default)
    decay_only: bool = False  # applied to specs trained with weight decay only (without it the field is moot)

    def __post_init__(self) -> None:
        _require(self.family in FAMILIES, f"unknown family {self.family!r} (known: {', '.join(FAMILIES)})")
        _require(self.part in PARTS, f"unknown part {self.part!r} of a {self.family} spec")
        _require(isinstance(self.field, str) and bool(self.field), f"field {self.field!r} must be a non-empty name")
        _require(isinstance(self.ape_only, bool), f"ape_only={self.ape_only!r} must be a bool")
        _require(isinstance(self.decay_only, bool), f"decay_only={self.decay_only!r} must be a bool")


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
    changes: tuple[Change, ...]  # the spec fields it replaces
    label: str = ""  # a few words a reader knows its model family by ("PyTorch's default initialisation for the
    # two-layer transformer"): how the summaries name it
    instead: str = ""  # the suite's reading it replaces, in as few words ("nanoGPT's N(0, 0.02)")

    def __post_init__(self) -> None:
        _require(
            self.name.startswith(f"{self.choice}=") and self.name == self.name.strip(),
            f"reading name {self.name!r} must start with its choice {self.choice!r} and '='",
        )
        _require(bool(self.who.strip()) and bool(self.changes), f"reading {self.name!r} is incomplete")
        _require(bool(self.label.strip()) and bool(self.instead.strip()), f"reading {self.name!r} needs its label")


CHOICES: tuple[Choice, ...] = (
    Choice(
        "lengths",
        "a length per sequence, uniform in [Lmin, Lmax], in right-aligned padded batches",
        "the paper trains on lengths in [8, 16] and does not say how mixed lengths are batched",
    ),
    Choice(
        "init",
        "PyTorch's defaults for the one-layer head (embeddings N(0, 1), projections U(+-1/sqrt(d))); "
        "nanoGPT's N(0, 0.02) for the two-layer transformer",
        "the paper gives no initialisation; the implicit-bias account is about which solution training selects, "
        "and the scale it starts from could change that",
    ),
    Choice(
        "ape-rows",
        "the APE rows never trained (positions >= Lmax) keep their initial draw",
        "the paper says the untrained rows are what APE reads beyond the range, not what they hold",
    ),
    Choice(
        "ape-value",
        "v_t = W_V (x_t + p_t): the position enters the values too",
        "the paper adds a learned position embedding without saying whether the values see it",
    ),
    Choice(
        "weight-decay",
        "Adam's coupled L2 (torch.optim.Adam weight_decay: lambda * w added to the gradient)",
        "the paper says 'weight decay' (its APE control) without naming the optimiser's form; AdamW's decoupled "
        "decay is what "
        "'Adam with weight decay' means in most transformer code",
    ),
    Choice(
        "two-layer-steps",
        "300 steps (Adam lr 1e-3, batch 32)",
        "the paper gives no training recipe for its two-layer transformer",
    ),
)

_APE_ROWS_WHO = "implementations that zero-initialise or mask the position table beyond the training length"
READINGS: tuple[Reading, ...] = (
    Reading(
        "lengths",
        "lengths=per-batch",
        "one length per batch, drawn per step, no padding",
        "a plain training script (and most length-generalisation code) draws one length per batch and never pads",
        (
            Change("one-layer", "train", "length_mix", "per-batch"),
            Change("two-layer", "train", "length_mix", "per-batch"),
        ),
        label="one training length per batch",
        instead="a length per sequence",
    ),
    Reading(
        "init",
        "init=gpt2",
        "every weight of the one-layer head N(0, 0.02) (GPT-2, nanoGPT)",
        "anyone who builds the head from GPT-2/nanoGPT code, where every weight is drawn N(0, 0.02)",
        (Change("one-layer", "model", "init", "gpt2"),),
        label="GPT-2's N(0, 0.02) for the one-layer head",
        instead="PyTorch's one-layer defaults",
    ),
    Reading(
        "init",
        "init=torch",
        "the two-layer transformer with PyTorch's layer defaults instead of nanoGPT's",
        "anyone who builds the transformer from torch.nn layers and keeps their default initialisation",
        (Change("two-layer", "model", "init", "torch"),),
        label="PyTorch's two-layer initialisation",
        instead="nanoGPT's N(0, 0.02)",
    ),
    Reading(
        "init",
        "init=flax",
        "the one-layer head with JAX/Flax's defaults: projections LeCun-normal N(0, 1/fan_in) (truncated at two "
        "standard deviations), embeddings and APE table N(0, 1/d)",
        "anyone who builds the head in JAX/Flax (nn.Dense, nn.Embed) and keeps its default initialisers, a scale "
        "between PyTorch's and GPT-2's",
        (Change("one-layer", "model", "init", "flax"),),
        label="Flax's one-layer initialisation",
        instead="PyTorch's one-layer defaults",
    ),
    Reading(
        "ape-rows",
        "ape-rows=zero",
        "APE rows at positions >= Lmax are zeros (one- and two-layer APE models)",
        _APE_ROWS_WHO,
        (
            Change("one-layer", "model", "ape_unseen", "zero", ape_only=True),
            Change("two-layer", "model", "ape_unseen", "zero", ape_only=True),
        ),
        label="zeroed APE rows beyond the training range",
        instead="their initial draw",
    ),
    Reading(
        "ape-value",
        "ape-value=token",
        "v_t = W_V x_t: the position enters queries and keys only (one-layer APE)",
        "several APE implementations that add the position to queries and keys only (as relative schemes do)",
        (Change("one-layer", "model", "ape_value", "token", ape_only=True),),
        label="APE values from the token alone",
        instead="token plus position",
    ),
    Reading(
        "weight-decay",
        "weight-decay=decoupled",
        "the APE control's weight decay as AdamW's (w *= 1 - lr * lambda before the Adam step), same lambdas",
        "anyone who trains with torch.optim.AdamW or optax.adamw, the usual 'Adam with weight decay'",
        (Change("one-layer", "train", "decay", "decoupled", decay_only=True),),
        label="AdamW's decoupled weight decay",
        instead="Adam's coupled L2",
    ),
    Reading(
        "two-layer-steps",
        "two-layer-steps=900",
        "the two-layer transformers trained 3x longer (900 steps at paper scale), at both widths (d = 96 and d = 64)",
        "a reader who suspects 300 steps undertrains the transformer, as a longer standard recipe would",
        (Change("two-layer", "train", "steps", Times(3)),),
        label="a 3x longer two-layer recipe",
        instead="300 steps",
    ),
)
BY_NAME = {r.name: r for r in READINGS}
assert len(BY_NAME) == len(READINGS), "reading names must be unique"
assert {r.choice for r in READINGS} == {c.name for c in CHOICES}, "every choice needs a reading, every reading a choice"

# Choices of the README's "Protocol, and every choice the paper leaves open" left at one reading, and why.
LEFT_AT_ONE_READING: tuple[tuple[str, str], ...] = (
    (
        "seeds and data streams",
        "another draw of the same distributions: the robustness map's fresh-seeds setting "
        "and --lengthgen-seeds/--lengthgen-until-decided already ask it",
    ),
    (
        "selected offset, peak, a*, carrier fraction, phi_c, margins, the dilution fit, dynamics' 'emerges'/'plateaus'",
        "definitions of what is measured on the same models, not of the models: each check names where its "
        "threshold comes from (a number the paper states, or the suite's reading)",
    ),
    ("APE table size (48 rows; 128 for the predictions)", "rows beyond the longest evaluation length are never read"),
    (
        "linear attention (o = sum_t l_t v_t, unnormalised)",
        "the literal reading of 'linear attention'; a "
        "normalised or feature-map variant is another architecture, not another reading of this one",
    ),
    (
        "APE fixes (interpolate with aligned ends, clamp, rescale)",
        "inference-time maps of the trained rows that the paper names; they change no trained model",
    ),
    (
        "ALiBi slopes (2^-h; the literal 2^-8h/H gives 1/256 for one head)",
        "the literal slope behaved like no "
        "positional encoding in development (README), so it cannot rescue the ALiBi heads' cells; not a config field",
    ),
    ("T5 buckets (32, max distance 128)", "T5's published bucketing"),
    (
        "the two-layer model (pre-LayerNorm, MLP 4d, GELU, 4 heads) and its batch and lr",
        "one standard "
        "transformer; its recipe's open part is its length (two-layer-steps) and its initialisation (init=torch); "
        "batch and lr stay the paper's by the multiverse's rule",
    ),
    ("the sweep points, rotary bases, content rule, far lengths", "the catalogue fixes them"),
)


@dataclass(frozen=True)
class Universe:
    """Readings applied together: the default (none), one alternative, or a combination of alternatives
    (one per choice)."""

    name: str  # "paper" (the suite's readings), a reading's name, or readings joined by "+"
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

    def reaches(self, families: tuple[str, ...], reads_ape: bool, reads_decay: bool = False) -> bool:
        """Whether this universe changes the models of a claim that reads ``families`` (its APE models too
        when ``reads_ape``, models trained with weight decay when ``reads_decay``): some change addresses one of
        them, and is not APE-only or the claim reads APE, and not decay-only or the claim reads decay."""
        return any(
            c.family in families and (reads_ape or not c.ape_only) and (reads_decay or not c.decay_only)
            for r in self.readings
            for c in r.changes
        )

    def describe(self) -> str:
        if self.is_default:
            return "the suite's reading of every open choice"
        return "; ".join(f"{r.name}: {r.what}" for r in self.readings)


PAPER = Universe("paper", ())
SEPARATOR = "+"  # joins the readings of a combination: "lengths=per-batch+ape-rows=zero"
UNIVERSES: tuple[Universe, ...] = tuple(Universe(r.name, (r,)) for r in READINGS)  # each reading alone
UNIVERSE_BY_NAME = {u.name: u for u in UNIVERSES}


def combine(readings: "tuple[Reading, ...] | list[Reading]") -> Universe:
    """The universe of ``readings`` applied together, named by their names in the registry's order joined by
    :data:`SEPARATOR`; ValueError for two readings of one choice."""
    order = {r.name: i for i, r in enumerate(READINGS)}
    chosen = sorted(dict.fromkeys(readings), key=lambda r: order[r.name])
    choices = [r.choice for r in chosen]
    _require(len(set(choices)) == len(choices), f"a universe takes one reading per choice: {[r.name for r in chosen]}")
    _require(bool(chosen), "a universe needs a reading")
    return Universe(SEPARATOR.join(r.name for r in chosen), tuple(chosen))


def factorial(readings: "tuple[Reading, ...] | list[Reading]") -> list[Universe]:
    """Every combination of two or more of ``readings``, at most one per choice (the factorial beyond each
    reading alone), smallest first, then in the registry's order."""
    from itertools import combinations

    found = []
    for size in range(2, len(readings) + 1):
        for group in combinations(readings, size):
            if len({r.choice for r in group}) == size:
                found.append(combine(group))
    return found


@dataclass(frozen=True)
class CellPlan:
    """The multiverse's cells as the claims plan them (``claims/multiverse.py`` computes it from the claims' specs;
    the plugin records it in ``claims.json`` as ``"multiverse_plan"``, and the report reads it from there: which
    claims a universe touches is the claims' knowledge, and the package never imports ``claims/``)."""

    touched: tuple[tuple[str, tuple[str, ...]], ...]  # (universe name, the claims whose models it changes), each
    cells: tuple[tuple[str, str], ...]  # (universe name, column) of every cell, universes in the registry's order
    not_run: tuple[tuple[str, str], ...] = ()  # (reading, why) of readings whose combinations are not run: ruled
    # out alone for some claim they touch
    left_out: tuple[tuple[str, str, str], ...] = ()  # (reading, column, why) of every cell of one reading left out
    # of the default run for its cost (every combination is left out too: ``combinations_why``)
    combinations_why: str = ""  # why every combination of two or more readings is left out of the default run

    def __post_init__(self) -> None:
        for name, _ in self.touched + self.cells:
            universe(name)  # ValueError naming an unknown one

    def claims_of(self, universe: str) -> tuple[str, ...]:
        """The claims ``universe`` touches (by number; () for one the plan does not name)."""
        return dict(self.touched).get(universe, ())

    def extended(self, universe: str, column: str) -> bool:
        """Whether the cell is left out of the default run (``-m multiverse_extended`` runs it): a combination,
        or a cell of one reading the claims leave out for its cost."""
        return SEPARATOR in universe or any(u == universe and c == column for u, c, _ in self.left_out)

    def default_cells(self) -> list[tuple[str, str]]:
        """The cells of the default run (``-m multiverse``)."""
        return [(u, c) for u, c in self.cells if not self.extended(u, c)]

    def extended_cells(self) -> list[tuple[str, str]]:
        """The cells left out of the default run for their cost (``-m multiverse_extended``)."""
        return [(u, c) for u, c in self.cells if self.extended(u, c)]

    def to_dict(self) -> dict[str, Any]:
        """The plan as a claims.json records it (``multiverse_plan``): plain lists, in the plan's order."""
        return {
            "touched": [[name, list(claims)] for name, claims in self.touched],
            "cells": [list(cell) for cell in self.cells],
            "not_run": [list(pair) for pair in self.not_run],
            "left_out": [list(cell) for cell in self.left_out],
            "combinations_why": self.combinations_why,
        }

    @classmethod
    def from_dict(cls, data: Any) -> "CellPlan":
        """The plan a claims.json recorded (:meth:`to_dict`); ValueError (one line) for a malformed one or a
        universe this version's registry does not know."""
        try:
            return cls(
                tuple((str(name), tuple(str(c) for c in claims)) for name, claims in data["touched"]),
                tuple((str(name), str(column)) for name, column in data["cells"]),
                tuple((str(name), str(why)) for name, why in data.get("not_run", [])),
                tuple((str(u), str(c), str(why)) for u, c, why in data.get("left_out", [])),
                str(data.get("combinations_why", "")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"a malformed multiverse plan ({error})") from None


EMPTY = CellPlan((), ())  # the plan of a run that recorded none (no claims' registry behind it)


def universe(name: str) -> Universe:
    """The universe called ``name``: "paper", a reading's name, or readings joined by "+"
    ("lengths=per-batch+ape-rows=zero"); ValueError naming an unknown one."""
    if name == PAPER.name:
        return PAPER
    parts = name.split(SEPARATOR) if isinstance(name, str) else [name]
    unknown = [p for p in parts if p not in BY_NAME]
    if unknown:
        raise ValueError(f"unknown reading {unknown[0]!r} (known: {', '.join(BY_NAME)})")
    found = combine([BY_NAME[p] for p in parts])
    if found.name != name:
        raise ValueError(f"universe {name!r}: write its readings in the registry's order, {found.name!r}")
    return found


def choice(name: str) -> Choice:
    """The choice called ``name``; ValueError naming it."""
    for c in CHOICES:
        if c.name == name:
            return c
    raise ValueError(f"unknown choice {name!r} (known: {', '.join(c.name for c in CHOICES)})")
