"""The paper's protocol, pinned by name.

``PAPER_PROTOCOL`` below is the paper's setup as the claims catalogue states it (``claims.md``,
"Shared protocol (paper, 'setup')", "Seeds where the paper is silent", the claims table and the
"Open choices" table for the two-layer recipe), each entry with the words it comes from. The values are
written here (docs/catalogue.md renders the claims' rows from lengthgen/catalogue.py), and a change to the
catalogue is a change to this table.

Each entry has one test (test id: the entry's name). It reads what the paper-scale runs actually use:
the scale object (``lengthgen.scale.PAPER``), the spec every one-layer experiment starts from
(``paper_spec(PAPER.context(0))``), the config defaults, the two-layer spec and recipe C12 and C13 train, the
optimizer the shared engine builds (its class, lr, betas, eps, weight decay), the batch and loss that
reach a training step, the claims' seed counts (their ``PAPER_SEEDS``), and the ``lengthgen train``
defaults. Every location must hold the paper's value; a failure names the entry, the paper's value,
the value the code uses and where. Nothing trains: the optimizer is built on a two-parameter stand-in
for one step, and the training losses are evaluated once on the first batch, without a step.

Where the suite's value differs from the paper's because the suite reads the paper differently (a
recipe the paper does not give), ``SUITE_READINGS`` pins the suite's value with its reason; such an
entry fails if the code moves off the suite's value, and also if the reading would no longer differ
from the paper (then it is no reading and belongs in ``PAPER_PROTOCOL`` alone).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import math
from typing import Any, Callable

import pytest
import torch
from torch import nn

from lengthgen.config import EvalConfig, ModelConfig, TaskConfig, TrainConfig
from lengthgen.scale import PAPER

FLOAT_REL_TOL = 1e-12  # floats compare as the same number written in the code (1e-3 is 0.001), not "close"
LOSS_REL_TOL = 1e-5  # float32: the engine and the reference cross-entropy may sum in a different order


@dataclasses.dataclass(frozen=True)
class AtLeast:
    """A seed count the paper leaves open: the catalogue's floor, seeds 0..n-1 with n >= ``count``."""

    count: int

    def __repr__(self) -> str:
        return f"seeds 0..n-1 with n >= {self.count}"


def seeds(count: int) -> tuple[int, ...]:
    """The paper's seeds for a count it states: "Seeds are fixed to 0, ..., n-1"."""
    return tuple(range(count))


# ---------------------------------------------------------------------------------------------------
# The paper's protocol, as the catalogue states it. Quotes: "paper" is paper-body.txt, "catalogue" is
# the claims catalogue (the paper's text and the catalogue the suite was written from).
# ---------------------------------------------------------------------------------------------------
PAPER_PROTOCOL: dict[str, Any] = {
    # paper: "fixed-offset retrieval ... The query is the last position, and the target is the token a
    # fixed offset K earlier: y = s_{L-1-K}"; catalogue: "query = last position n = L-1; target y = s[L-1-K]"
    "task": "fixed-offset retrieval, y = s[L-1-K]",
    # paper: "vocabulary size m=20"; catalogue: "Vocabulary {1..m}, m = 20"
    "vocab": 20,
    # paper: "One layer, one head, d=64"; catalogue: "Model: one layer, one head, d = 64"
    "d": 64,
    # paper: "One layer, one head"; catalogue: "one layer, one head"
    "heads": 1,
    # paper: "no MLP or layer normalization ... linear readout U"; catalogue: "no MLP, no LayerNorm ...
    # prediction U o": the parameters are the embedding, W_Q, W_K, W_V and U, nothing else
    "architecture": ("embed.weight", "W_Q.weight", "W_K.weight", "W_V.weight", "unembed.weight"),
    # paper: "softmax attention"; catalogue: "softmax attention, ... o = sum_t softmax(l)_t v_t"
    "attention": "softmax",
    # paper: "l_t = q^T k_t / sqrt(d)"; catalogue: "logit l_t = q.k_t / sqrt(d)" (no temperature: tau = 1)
    "temperature": 1.0,
    # paper: "RoPE uses base 10^4"; catalogue: "RoPE: 2x2 rotations Rot(t*theta_i), base 10^4"
    "rope_base": 1e4,
    # paper: "lengths uniform in [Lmin, Lmax] = [8, 16]"; catalogue: "Training lengths uniform in
    # [Lmin, Lmax] = [8, 16]"
    "train_lengths": (8, 16),
    # paper: "We train on fixed-offset retrieval with K in {1,2,3}"; catalogue C1: "K in {1,2,3}"
    "offsets": (1, 2, 3),
    # paper: "Adam with learning rate 10^-3"; catalogue: "Training: Adam, lr 1e-3"
    "optimizer": "Adam",
    # paper and catalogue name Adam and state no betas or eps: Adam's own defaults (Kingma & Ba 2015,
    # as torch.optim.Adam): betas (0.9, 0.999), eps 1e-8
    "adam_betas": (0.9, 0.999),
    "adam_eps": 1e-8,
    # paper: weight decay appears only in the APE control (Fig. 4, lambda in {0, 1e-4, 1e-2}); the
    # setup states none; catalogue: "Training: Adam, lr 1e-3, batch 256, 4000 steps" (no decay)
    "weight_decay": 0.0,
    # paper: "Adam with learning rate 10^-3"; catalogue: "lr 1e-3"
    "lr": 1e-3,
    # paper: "batch size 256"; catalogue: "batch 256"
    "batch": 256,
    # paper: "4000 steps"; catalogue: "4000 steps"
    "steps": 4000,
    # paper: "cross-entropy loss"; catalogue: "cross-entropy"
    "loss": "cross-entropy",
    # paper: "Evaluation lengths are {12,16,20,24,32,40,48}"; catalogue: "Evaluation lengths
    # {12, 16, 20, 24, 32, 40, 48}"
    "eval_lengths": (12, 16, 20, 24, 32, 40, 48),
    # paper: "accuracy computed over 4096 sequences"; catalogue: "accuracy over 4096 sequences"
    "eval_sequences": 4096,
    # paper: "attention probes averaged over 4096 sequences"; catalogue: "attention probes averaged over
    # 4096 sequences"
    "probe_sequences": 4096,
    # paper: "Seeds are fixed to 0,...,n-1"; catalogue: "Seeds 0..n-1" (here for n = 8)
    "seed_numbering": seeds(8),
    # --- the suite's readings of the open choices (catalogue, "Open choices and their readings") ---
    # catalogue: "mixed training lengths | a length per sequence, right-aligned padded batches"
    "reading.length_mix": "per-sequence",
    # catalogue: "initialisation | PyTorch defaults: embeddings N(0, 1), projections U(+-1/sqrt(d))"
    "reading.init": "torch",
    # catalogue: "APE rows never trained (positions >= Lmax) | their initial draw"
    "reading.ape_unseen": "init",
    # catalogue: "APE's value path | v_t = W_V z_t (token + position)"
    "reading.ape_value": "embedded",
    # --- Fig. 4's settings ---
    # paper: "the failure survives weight decay lambda in {0, 10^-4, 10^-2}"; catalogue C9: "lambda in
    # {0, 1e-4, 1e-2}"
    "C9.weight_decays": (0.0, 1e-4, 1e-2),
    # paper: "base in {10^3, 10^4, 10^5}"; catalogue C14: "base 1e3 / 1e4 / 1e5"
    "C14.rope_bases": (1e3, 1e4, 1e5),
    # paper: "across widths d in {32,64,128}"; catalogue C17: "d in {32,64,128}"
    "C17.widths": (32, 64, 128),
    # paper: "vocabulary sizes {10,20,40}"; catalogue C17: "m in {10,20,40}"
    "C17.vocabs": (10, 20, 40),
    # --- seeds per claim (paper: "8 seeds for the phenomenon (Fig. 1, Table 1) and 5 seeds for the
    # validation study (Table 2, Figs. 2-3)"; catalogue, "Seeds where the paper is silent") ---
    # catalogue C1: "8 seeds"; "Seeds": "The paper fixes 8 seeds for the phenomenon (C1, C3, C8)"
    "seeds.C1": seeds(8),
    "seeds.C3": seeds(8),
    "seeds.C8": seeds(8),
    # catalogue C2: "property test on random (untrained) weights"; C15: "exact computation": no seeds
    "seeds.C2": (),
    "seeds.C15": (),
    # catalogue C4: "K in {2,3}, 5 seeds" (the paper's validation study)
    "seeds.C4": seeds(5),
    # paper: "5 seeds for the validation study (Table 2, Figs. 2-3)": the carrier profile (Lemma 2) and
    # the dilution law (Corollary 2) are that study's (the suite's reading, claims/mechanism.py)
    "seeds.C5": seeds(5),
    "seeds.C6": seeds(5),
    # catalogue C20: "for K = 1, 5 seeds"
    "seeds.C20": seeds(5),
    # catalogue "Seeds": "reuse the C1 grid's 8 seeds wherever a claim's models are the grid's (C9 at
    # lambda = 0, C10)"
    "seeds.C9.lambda0": seeds(8),
    "seeds.C10": seeds(8),
    # catalogue "Seeds": "For the Fig. 4 controls (C9, C10, C16-C18) and the transfer claims it gives no
    # count: use at least 5 there" (C7, C14: Fig. 4; C11, C12, C13, C19, C21, C22: the transfer claims)
    "seeds.C7": AtLeast(5),
    "seeds.C9": AtLeast(5),
    "seeds.C11": AtLeast(5),
    "seeds.C12": AtLeast(5),
    "seeds.C13": AtLeast(5),
    "seeds.C14": AtLeast(5),
    "seeds.C16": AtLeast(5),
    "seeds.C17": AtLeast(5),
    "seeds.C18": AtLeast(5),
    "seeds.C19": AtLeast(5),
    "seeds.C21": AtLeast(5),
    "seeds.C22": AtLeast(5),
    # catalogue P1: "C1 grid RoPE models, K in {1,2,3}, 8 seeds"; P3, P4, P6: "C1 grid ... models"
    # ("seeds as the claim it extends": C1's 8)
    "seeds.P1": seeds(8),
    "seeds.P3": seeds(8),
    "seeds.P4": seeds(8),
    "seeds.P6": seeds(8),
    # catalogue P2: "K in {2,3}, 5 seeds"; P5: "NoPE head trained as C1, K in {1,2,3}, 5 seeds"
    "seeds.P2": seeds(5),
    "seeds.P5": seeds(5),
    # --- the two-layer model of C12, C13 (paper Sec. 5.2; catalogue C12, C13 and "Open choices") ---
    # paper: "In a two-layer, four-head transformer with MLP and LayerNorm trained on a full-sequence shift
    # task"; catalogue C12: "in a 2-layer, 4-head transformer (MLP, LayerNorm) on a full-sequence shift task"
    "two_layer.layers": 2,
    "two_layer.heads": 4,
    "two_layer.mlp": True,
    "two_layer.layernorm": True,
    "two_layer.task": "full-sequence shift, every t >= K predicts s[t-K]",
    # catalogue C12: "RoPE accuracy on positions beyond 16" (Lmax = 16), the shared [8, 16]
    "two_layer.train_lengths": (8, 16),
    # catalogue, shared protocol: "m = 20" (the paper gives no other vocabulary for this model)
    "two_layer.vocab": 20,
    # catalogue, shared protocol: "RoPE: ... base 10^4"
    "two_layer.rope_base": 1e4,
    # catalogue, "Open choices": "two-layer recipe (C12, C13) | 300 steps" (the suite's reading: the paper
    # gives no recipe for this model), "a reading changes its one choice and nothing else (steps, learning
    # rate, batch, lengths and seeds stay the paper's)"
    "two_layer.steps": 300,
    # catalogue: "Training: Adam, lr 1e-3" (the shared protocol's, carried over: "learning rate ... stay
    # the paper's")
    "two_layer.optimizer": "Adam",
    "two_layer.lr": 1e-3,
    "two_layer.loss": "cross-entropy",
    # catalogue, shared protocol: "batch 256" (the paper's setup paragraph; see SUITE_READINGS)
    "two_layer.batch": 256,
    # catalogue, shared protocol: "d = 64" (the paper gives no width for this model; see SUITE_READINGS)
    "two_layer.d": 64,
    # catalogue, "Open choices": "initialisation | PyTorch defaults" (see SUITE_READINGS)
    "two_layer.init": "torch",
    # catalogue C13: "selected offset is -K at every eval length": the shared evaluation
    "two_layer.eval_lengths": (12, 16, 20, 24, 32, 40, 48),
    "two_layer.eval_sequences": 4096,
}

# Where the suite's value differs from the paper's on purpose: entry -> (the suite's value, the reason).
SUITE_READINGS: dict[str, tuple[Any, str]] = {
    "two_layer.batch": (
        32,
        "the paper gives no training recipe for the two-layer model (its setup paragraph is the one-layer "
        "head's); the suite's: 32 full sequences, each supervising its positions t >= K (docs/protocol.md, "
        "'Two-layer transformer'; engine/train_two_layer.py PAPER_TRAIN). The catalogue fixes only the "
        "recipe's 300 steps",
    ),
    "two_layer.d": (
        (64, 96),
        "the paper gives no width for the two-layer model; d = 64 (the shared d) was tried first and failed "
        "C13 in development, d = 96 was chosen after; both run as variants with their own verdicts "
        "(docs/protocol.md, 'Sizes, chosen after seeing a result'; experiments/two_layer.py WIDTHS)",
    ),
    "two_layer.init": (
        "gpt2",
        "the two-layer transformer is written as nanoGPT and starts from nanoGPT's N(0, 0.02^2) "
        "initialisation, with PyTorch's defaults as its other reading (docs/protocol.md, 'Initialisation'; "
        "models/two_layer/transformer.py TransformerConfig.init)",
    ),
}


# ---------------------------------------------------------------------------------------------------
# What the paper-scale runs use. Each reader returns {where: value}; every location must hold the value.
# ---------------------------------------------------------------------------------------------------
CONFIG_DEFAULTS = {"task": TaskConfig, "model": ModelConfig, "train": TrainConfig}  # RunSpec's parts


def _paper_spec(**parts: Any):
    """The spec every one-layer experiment starts from at paper scale (``experiments/common.paper_spec``)."""
    from lengthgen.experiments.common import paper_spec

    return paper_spec(PAPER.context(0), **parts)  # no seeds: the spec alone


def _one_layer(part: str, *fields: str, **parts: Any) -> dict[str, Any]:
    """``part.field`` (a tuple for several fields) of the paper-scale spec and of the config default."""

    def read(cfg: Any) -> Any:
        values = tuple(getattr(cfg, name) for name in fields)
        return values if len(values) > 1 else values[0]

    label = "/".join(fields)
    spec = "paper_spec(PAPER.context(0)" + "".join(f", {k}={v!r}" for k, v in parts.items()) + ")"
    return {
        f"{spec}.{part}.{label}": read(getattr(_paper_spec(**parts), part)),
        f"{CONFIG_DEFAULTS[part].__name__}().{label}": read(CONFIG_DEFAULTS[part]()),
    }


def _one_layer_head():
    """The paper-scale head, built as the engine builds it (seed 0)."""
    from lengthgen.engine.train import build_model

    return build_model(_paper_spec(), 0)


@functools.cache
def _cli_train_defaults() -> argparse.Namespace:
    """``lengthgen train``'s defaults (the CLI's one-layer trainer)."""
    from lengthgen.cli.table import BY_NAME

    parser = argparse.ArgumentParser()
    BY_NAME["train"].add_arguments(parser)
    return parser.parse_args(["--encoding", "rope", "--offset", "2"])


def _constant(module: str, name: str, key: str | None = None) -> dict[str, Any]:
    """A module constant the paper-scale claims run over (``key``: one entry of a dict constant)."""
    import importlib

    value = getattr(importlib.import_module(module), name)
    where = f"{module.removeprefix('lengthgen.')}.{name}" + ("" if key is None else f"[{key!r}]")
    return {where: value if key is None else value[key]}


def _grid_offsets() -> dict[str, Any]:
    """The offsets of the C1 grid (``claims/grid.py`` runs ``run_phenomenon`` with its default offsets)."""
    import inspect

    from lengthgen.experiments.phenomenon import run_phenomenon

    return {
        "run_phenomenon's default offsets (the C1 grid)": tuple(
            inspect.signature(run_phenomenon).parameters["offsets"].default
        )
    }


def _default_steps() -> dict[str, Any]:
    """The training steps wherever a paper-scale one-layer run takes them from."""
    from lengthgen.context import Context

    return {
        "PAPER.steps": PAPER.steps,
        **_one_layer("train", "steps"),
        "Context default steps": Context(()).steps,
        "lengthgen train --steps default": _cli_train_defaults().steps,
    }


def _two_layer_run_scale():
    """The scale C12 and C13 run at when the claims run at paper scale (their own steps)."""
    from claims.two_layer import run_scale

    return run_scale(PAPER)


@functools.cache
def _two_layer_specs() -> dict[tuple[str, int], Any]:
    """The specs C12 and C13 train at paper scale: (encoding, width) -> TwoLayerSpec."""
    from lengthgen.experiments.two_layer import WIDTHS, two_layer_spec

    ctx = _two_layer_run_scale().context(0)  # no seeds: the specs alone
    return {
        (encoding, width): two_layer_spec(ctx, encoding, d=width) for encoding in ("rope", "ape") for width in WIDTHS
    }


def _two_layer_spec():
    """The suite's two-layer RoPE spec at its chosen width, as C12 and C13 train it at paper scale."""
    from lengthgen.experiments.two_layer import WIDTH

    return _two_layer_specs()[("rope", WIDTH)]


def _two_layer(read: Callable[[Any], Any]) -> dict[str, Any]:
    """``read(spec)`` of every spec C12 and C13 train at paper scale."""
    return {
        f"two_layer_spec({encoding!r}, d={width}) at paper scale": read(spec)
        for (encoding, width), spec in _two_layer_specs().items()
    }


@functools.cache
def _two_layer_structure() -> dict[str, Any]:
    """The built two-layer transformer (``build_transformer``, seed 0): its blocks and their sub-layers."""
    from lengthgen.engine.train_two_layer import build_transformer
    from lengthgen.models.two_layer.transformer import MLP

    blocks = list(build_transformer(_two_layer_spec(), 0).blocks)
    heads = {block.attn.cfg.heads for block in blocks}
    return {
        "layers": len(blocks),
        "heads": next(iter(heads)) if len(heads) == 1 else tuple(sorted(heads)),
        "mlp": bool(blocks) and all(isinstance(getattr(block, "mlp", None), MLP) for block in blocks),
        "layernorm": bool(blocks)
        and all(isinstance(getattr(block, name, None), nn.LayerNorm) for block in blocks for name in ("ln_1", "ln_2")),
    }


@functools.cache
def _optimizer_built_for(family: str) -> Any:
    """The optimizer the shared engine (``engine/ensemble.train_ensemble``) builds for the paper-scale
    train config of ``family`` ("one_layer" or "two_layer"), built the way the engine builds it: the real
    ``train_ensemble`` with that config, on a two-parameter stand-in module for one step."""
    from lengthgen.engine import ensemble

    cfg = _paper_spec().train if family == "one_layer" else _two_layer_spec().train
    built: list[Any] = []

    class Recording(ensemble.FusedAdam):
        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            built.append(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ensemble, "FusedAdam", Recording)
        ensemble.train_ensemble(
            [nn.Linear(2, 1, bias=False)],
            dataclasses.replace(cfg, steps=1),
            lambda params, step: params["weight"].pow(2).sum((1, 2)),
        )
    assert len(built) == 1, f"the engine built {len(built)} optimizers for one pass"
    return built[0]


def _optimizer(field: str, *families: str) -> dict[str, Any]:
    """``field`` of the optimizer the engine builds for each family's paper-scale spec ("name": Adam?)."""
    from lengthgen.engine.ensemble import FusedAdam

    def read(optimizer: Any) -> Any:
        if field == "name":
            # FusedAdam is torch.optim.Adam's fused kernel without the Optimizer machinery (bit for bit:
            # tests/unit/test_fast_path.py); anything else is named by its class
            return "Adam" if isinstance(optimizer, FusedAdam) else type(optimizer).__name__
        value = getattr(optimizer, field)
        return tuple(value) if isinstance(value, (list, tuple)) else value

    return {
        f"the engine's optimizer ({family} paper spec) {field}": read(_optimizer_built_for(family))
        for family in families
    }


@functools.cache
def _first_training_step(family: str) -> dict[str, Any]:
    """What the first training step of a paper-scale member of ``family`` computes: the shape of the batch
    the model is fed, the loss the engine would minimise, and the cross-entropy of the same logits and
    targets. The engine's pass is replaced by one evaluation of the family's losses on the stacked
    initial parameters (no step)."""
    import torch.nn.functional as F

    from lengthgen.engine import ensemble
    from lengthgen.engine import train as one_layer
    from lengthgen.engine import train_two_layer as two_layer
    from lengthgen.tasks.shift import IGNORE

    module = one_layer if family == "one_layer" else two_layer
    spec = _paper_spec() if family == "one_layer" else _two_layer_spec()
    seen: dict[str, Any] = {}

    def one_pass(modules, cfg, losses=None, losses_and_grads=None, **_: Any):
        params = ensemble.stack(modules)
        with torch.no_grad():
            if losses_and_grads is not None:  # the engine's hand-derived step (the one-layer head)
                loss, _ = losses_and_grads({name: value.detach() for name, value in params.items()}, 0)
            else:
                loss = losses(params, 0)
            seen["loss"] = float(loss[0])
        return []

    draw = module._Streams.step

    def recording_draw(self, index: int):
        drawn = draw(self, index)
        seen["targets"] = drawn.targets if family == "one_layer" else drawn[1]  # (S, B) | (S, B, P)
        return drawn

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "train_ensemble", one_pass)
        patch.setattr(module._Streams, "step", recording_draw)
        if family == "one_layer":
            forward, step = one_layer.table_forward, one_layer.loss_and_grads

            def recording_step(params, cfg, tokens, lengths, targets):  # the logits of the same parameters
                out = forward(params, cfg, tokens, lengths)
                seen["tokens"], seen["logits"] = tuple(tokens.shape), out.logits  # (S, B, P), (S, B, m)
                return step(params, cfg, tokens, lengths, targets)

            patch.setattr(one_layer, "loss_and_grads", recording_step)
            one_layer.train_members([ensemble.Member(spec, 0)])
        else:
            make_forward = two_layer.ensemble_forward

            def recording_ensemble_forward(template):
                forward = make_forward(template)

                def recording(params, tokens):
                    logits = forward(params, tokens)
                    seen["tokens"], seen["logits"] = tuple(tokens.shape), logits  # (S, B, P), (S, B, P, m)
                    return logits

                return recording

            patch.setattr(two_layer, "ensemble_forward", recording_ensemble_forward)
            two_layer.train_transformers([ensemble.Member(spec, 0)])
    logits, targets = seen["logits"][0], seen["targets"][0]  # the one member's
    seen["cross_entropy"] = float(
        F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=IGNORE)
    )
    return seen


def _training_batch(family: str) -> dict[str, Any]:
    return {f"the batch of a {family} training step": _first_training_step(family)["tokens"][1]}


def _training_loss(family: str) -> dict[str, Any]:
    """ "cross-entropy" if the training loss is the mean cross-entropy of the step's logits and targets."""
    step = _first_training_step(family)
    if math.isclose(step["loss"], step["cross_entropy"], rel_tol=LOSS_REL_TOL):
        name = "cross-entropy"
    else:
        name = (
            f"a loss of {step['loss']:.6g} where the cross-entropy of the same logits and targets is "
            f"{step['cross_entropy']:.6g}"
        )
    return {f"the {family} training loss": name}


def _offset_task_rule() -> dict[str, Any]:
    """The rule the one-layer task's labels follow, read from a drawn batch."""
    from lengthgen.tasks import make_task

    def rule(task_cfg: TaskConfig) -> str:
        length, K = 20, task_cfg.offset
        batch = make_task(task_cfg).sample_batch(torch.Generator().manual_seed(0), 64, length)
        if task_cfg.kind == "offset" and torch.equal(batch.targets, batch.tokens[:, length - 1 - K]):
            return PAPER_PROTOCOL["task"]
        return f"kind {task_cfg.kind!r} whose targets are not s[L-1-K]"

    return {"paper_spec(PAPER.steps).task": rule(_paper_spec().task), "TaskConfig()": rule(TaskConfig())}


def _shift_task_rule(spec: Any) -> str:
    """The rule the two-layer task's targets follow, read from drawn sequences."""
    from lengthgen.tasks.shift import IGNORE, ShiftConfig, ShiftTask

    if not isinstance(spec.task, ShiftConfig):
        return f"{type(spec.task).__name__}, not the shift task"
    task, K, length = ShiftTask(spec.task), spec.task.offset, spec.task.max_len
    tokens = task.draw_eval(torch.Generator().manual_seed(0), 16, length)
    targets = task.targets(tokens, torch.full((16,), length))
    if torch.equal(targets[:, K:], tokens[:, : length - K]) and bool((targets[:, :K] == IGNORE).all()):
        return PAPER_PROTOCOL["two_layer.task"]
    return "a task whose targets are not s[t-K] at every t >= K"


def _claim_seeds(entry: str) -> dict[str, Any]:
    """The seeds a claim trains at paper scale (``PAPER.seed_list`` of its registry entry's ``paper_seeds``); the
    entry ``seeds.C9.lambda0`` reads C9's ``GRID_SEEDS`` (its lambda = 0 models are the C1 grid's)."""
    from claims.registry import CLAIMS
    from claims.test_c09_ape_weight_decay import GRID_SEEDS

    claim_id, _, variant = entry.removeprefix("seeds.").partition(".")
    if variant == "lambda0":
        count, where = GRID_SEEDS, f"claims.test_c09_ape_weight_decay.GRID_SEEDS ({claim_id})"
    else:
        count, where = CLAIMS[claim_id].paper_seeds, f"claims.registry.CLAIMS[{claim_id!r}].paper_seeds"
    return {f"PAPER.seed_list({where})": PAPER.seed_list(count) if count else ()}


SPEC_READERS: dict[str, Callable[[], dict[str, Any]]] = {
    "task": _offset_task_rule,
    "vocab": lambda: {
        **_one_layer("task", "vocab"),
        "the built head's readout rows": _one_layer_head().unembed.weight.shape[0],
    },
    "d": lambda: {
        **_one_layer("model", "d"),
        "the built head's embedding width": _one_layer_head().embed.weight.shape[1],
    },
    "heads": lambda: _one_layer("model", "heads"),
    "architecture": lambda: {
        "the built head's parameters": tuple(name for name, _ in _one_layer_head().named_parameters())
    },
    "attention": lambda: _one_layer("model", "attention"),
    "temperature": lambda: _one_layer("model", "temperature"),
    "rope_base": lambda: {
        **_one_layer("model", "rope_base"),
        "lengthgen train --base default": _cli_train_defaults().base,
    },
    "train_lengths": lambda: _one_layer("task", "min_len", "max_len"),
    "offsets": _grid_offsets,
    "optimizer": lambda: _optimizer("name", "one_layer"),
    "adam_betas": lambda: _optimizer("betas", "one_layer", "two_layer"),
    "adam_eps": lambda: _optimizer("eps", "one_layer", "two_layer"),
    "weight_decay": lambda: {**_one_layer("train", "weight_decay"), **_optimizer("weight_decay", "one_layer")},
    "lr": lambda: {**_one_layer("train", "lr"), **_optimizer("lr", "one_layer")},
    "batch": lambda: {**_one_layer("train", "batch"), **_training_batch("one_layer")},
    "steps": _default_steps,
    "loss": lambda: _training_loss("one_layer"),
    "eval_lengths": lambda: {
        "PAPER.lengths": tuple(PAPER.lengths),
        "PAPER.evaluation().lengths": PAPER.evaluation().lengths,
        "EvalConfig().lengths": EvalConfig().lengths,
        "lengthgen train --lengths default": tuple(_cli_train_defaults().lengths),
    },
    "eval_sequences": lambda: {
        "PAPER.sequences": PAPER.sequences,
        "PAPER.evaluation().sequences": PAPER.evaluation().sequences,
        "EvalConfig().sequences": EvalConfig().sequences,
        "lengthgen train --sequences default": _cli_train_defaults().sequences,
    },
    # accuracy and the attention probes are computed in one pass over the evaluation's sequences
    # (engine/evaluate.py): the probes' count is the evaluation's
    "probe_sequences": lambda: {
        "PAPER.evaluation().sequences (accuracy and probes, one pass)": PAPER.evaluation().sequences
    },
    "seed_numbering": lambda: {"PAPER.seed_list(8)": PAPER.seed_list(8)},
    "reading.length_mix": lambda: _one_layer("train", "length_mix"),
    "reading.init": lambda: _one_layer("model", "init"),
    "reading.ape_unseen": lambda: _one_layer("model", "ape_unseen", model={"encoding": "ape"}),
    "reading.ape_value": lambda: _one_layer("model", "ape_value", model={"encoding": "ape"}),
    "C9.weight_decays": lambda: _constant("lengthgen.experiments.ape_controls", "WEIGHT_DECAYS"),
    "C14.rope_bases": lambda: _constant("lengthgen.experiments.bases", "PAPER_BASES"),
    "C17.widths": lambda: _constant("lengthgen.experiments.sweeps", "SWEEP", "width"),
    "C17.vocabs": lambda: _constant("lengthgen.experiments.sweeps", "SWEEP", "vocab"),
    **{entry: functools.partial(_claim_seeds, entry) for entry in PAPER_PROTOCOL if entry.startswith("seeds.")},
    "two_layer.layers": lambda: {
        **_two_layer(lambda s: s.model.layers),
        "the built transformer's blocks": _two_layer_structure()["layers"],
    },
    "two_layer.heads": lambda: {
        **_two_layer(lambda s: s.model.heads),
        "the built transformer's heads": _two_layer_structure()["heads"],
    },
    "two_layer.mlp": lambda: {"the built transformer: an MLP in every block": _two_layer_structure()["mlp"]},
    "two_layer.layernorm": lambda: {
        "the built transformer: LayerNorm before each sub-layer": _two_layer_structure()["layernorm"]
    },
    "two_layer.task": lambda: _two_layer(_shift_task_rule),
    "two_layer.train_lengths": lambda: _two_layer(lambda s: (s.task.min_len, s.task.max_len)),
    "two_layer.vocab": lambda: {
        **_two_layer(lambda s: s.task.vocab),
        **{f"{where}, model": vocab for where, vocab in _two_layer(lambda s: s.model.vocab).items()},
    },
    "two_layer.rope_base": lambda: _two_layer(lambda s: s.model.rope_base),
    "two_layer.steps": lambda: {
        **_two_layer(lambda s: s.train.steps),
        "claims.two_layer.run_scale(PAPER).steps": _two_layer_run_scale().steps,
    },
    "two_layer.optimizer": lambda: _optimizer("name", "two_layer"),
    "two_layer.lr": lambda: {**_two_layer(lambda s: s.train.lr), **_optimizer("lr", "two_layer")},
    "two_layer.loss": lambda: _training_loss("two_layer"),
    "two_layer.batch": lambda: {**_two_layer(lambda s: s.train.batch), **_training_batch("two_layer")},
    "two_layer.d": lambda: {
        "the widths of the specs C12 and C13 train (experiments.two_layer.WIDTHS)": tuple(
            sorted({width for _, width in _two_layer_specs()})
        )
    },
    "two_layer.init": lambda: _two_layer(lambda s: s.model.init),
    "two_layer.eval_lengths": lambda: {
        "claims.two_layer.run_scale(PAPER).evaluation().lengths": _two_layer_run_scale().evaluation().lengths
    },
    "two_layer.eval_sequences": lambda: {
        "claims.two_layer.run_scale(PAPER).evaluation().sequences": _two_layer_run_scale().evaluation().sequences
    },
}


# ---------------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------------
def same(paper: Any, ours: Any) -> bool:
    """Equal as the paper writes them: floats to ``FLOAT_REL_TOL``, sequences entry by entry."""
    if isinstance(paper, AtLeast):
        return isinstance(ours, tuple) and len(ours) >= paper.count and ours == seeds(len(ours))
    if isinstance(paper, bool) or isinstance(ours, bool):
        return paper is ours
    if isinstance(paper, (int, float)) and isinstance(ours, (int, float)):
        return math.isclose(paper, ours, rel_tol=FLOAT_REL_TOL, abs_tol=0.0)
    if isinstance(paper, tuple) and isinstance(ours, tuple):
        return len(paper) == len(ours) and all(same(p, o) for p, o in zip(paper, ours))
    return type(paper) is type(ours) and paper == ours


def test_every_entry_is_read():
    """Each pinned entry has a reader, each reader an entry, and each reading overrides a paper entry."""
    assert set(SPEC_READERS) == set(PAPER_PROTOCOL), (
        f"entries without a reader: {sorted(set(PAPER_PROTOCOL) - set(SPEC_READERS))}; "
        f"readers without an entry: {sorted(set(SPEC_READERS) - set(PAPER_PROTOCOL))}"
    )
    assert set(SUITE_READINGS) <= set(PAPER_PROTOCOL), sorted(set(SUITE_READINGS) - set(PAPER_PROTOCOL))


def differing(expected: Any, used: dict[str, Any]) -> str:
    """The values of ``used`` that are not ``expected``, each with the locations holding it ("" if none)."""
    wrong: dict[str, list[str]] = {}
    for where, ours in used.items():
        if not same(expected, ours):
            wrong.setdefault(repr(ours), []).append(where)
    return "; ".join(f"{ours} ({', '.join(places)})" for ours, places in wrong.items())


@pytest.mark.parametrize("name", list(PAPER_PROTOCOL))
def test_paper_scale_uses_the_papers_protocol(name: str):
    paper = PAPER_PROTOCOL[name]
    used = SPEC_READERS[name]()
    assert used, f"paper protocol {name}: no location read"
    if name in SUITE_READINGS:
        suite, reason = SUITE_READINGS[name]
        assert not same(paper, suite), (
            f"paper protocol {name}: the suite's reading {suite!r} is the paper's value {paper!r}: "
            f"drop it from SUITE_READINGS"
        )
        ours = differing(suite, used)
        assert not ours, (
            f"paper protocol {name}: the paper states {paper!r}, the suite reads it as {suite!r} "
            f"({reason}), the paper-scale spec uses {ours}"
        )
        return
    ours = differing(paper, used)
    assert not ours, f"paper protocol {name}: the paper states {paper!r}, the paper-scale spec uses {ours}"
