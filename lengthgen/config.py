"""Frozen configuration dataclasses: what to train, how, and how to evaluate it.

A trained model is identified by a :class:`RunSpec` plus an integer seed. Every field is validated in
``__post_init__``; an invalid value raises ``ValueError`` naming the value. The defaults are the paper's
protocol (the catalogue, ``docs/catalogue.md`` and ``docs/protocol.md``: "Shared protocol").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Sequence

TASK_KINDS = ("offset", "content")  # fixed-offset retrieval; content-conditioned offset (see tasks/)
ENCODINGS = ("rope", "ape", "nope", "alibi", "t5")  # positional encodings (see encodings/)
ATTENTIONS = ("softmax", "linear")  # attention normalisation
# readings of choices the paper leaves open (issue 20's multiverse); the first of each is the suite's
INITS = ("torch", "gpt2")  # initialisation: PyTorch's layer defaults | every weight N(0, 0.02^2)
# the one-layer head also takes JAX/Flax's defaults (LeCun-normal projections, embeddings N(0, 1/d))
ONE_LAYER_INITS = (*INITS, "flax")
APE_UNSEEN = ("init", "zero")  # APE rows at positions >= Lmax: keep their initial draw | zeros
APE_VALUES = ("embedded", "token")  # APE's value path: v_t = W_V (x_t + p_t) | v_t = W_V x_t
LENGTH_MIXES = ("per-sequence", "per-batch")  # training lengths: one per sequence | one per step
DECAYS = ("coupled", "decoupled")  # weight decay: Adam's L2 added to the gradient | AdamW's, applied to the weight


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def require_integers(cfg: Any, names: tuple[str, ...], minimum: int | None = None) -> None:
    """Raise ``ValueError`` naming the field and value unless each field ``names`` of ``cfg`` is an integer
    (and, with ``minimum``, at least that): the validation every config dataclass starts with."""
    for name in names:
        value = getattr(cfg, name)
        _require(_is_int(value), f"{name}={value!r} must be an integer")
        if minimum is not None:
            _require(value >= minimum, f"{name}={value} must be at least {minimum}")


def check_readings(cfg: Any, inits: tuple[str, ...] = INITS) -> None:
    """Validate the open-choice readings ``init``, ``ape_unseen``, ``ape_value`` of a model config (the
    one-layer ``ModelConfig`` or the two-layer ``TransformerConfig``, which has no ``ape_value``). The APE
    readings must keep their defaults for another encoding, so that one model never has two configs (and
    two cache keys). ``inits``: the initialisations the model family knows."""
    ape_value = getattr(cfg, "ape_value", APE_VALUES[0])
    _require(cfg.init in inits, f"unknown init {cfg.init!r} (known: {', '.join(inits)})")
    _require(cfg.ape_unseen in APE_UNSEEN, f"unknown ape_unseen {cfg.ape_unseen!r} (known: {', '.join(APE_UNSEEN)})")
    _require(ape_value in APE_VALUES, f"unknown ape_value {ape_value!r} (known: {', '.join(APE_VALUES)})")
    if cfg.encoding != "ape":
        _require(
            cfg.ape_unseen == APE_UNSEEN[0],
            f"ape_unseen={cfg.ape_unseen!r} is only valid for encoding 'ape', not {cfg.encoding!r}",
        )
        _require(
            ape_value == APE_VALUES[0],
            f"ape_value={ape_value!r} is only valid for encoding 'ape', not {cfg.encoding!r}",
        )


@dataclass(frozen=True)
class TaskConfig:
    """The retrieval task a model is trained on."""

    kind: str = "offset"  # "offset": target is s[L-1-K]; "content": the query token picks K or alt_offset
    offset: int = 2  # K, the target's distance before the query (1 <= K < min_len)
    alt_offset: int = 0  # content task only: the second offset K2 (0 for the fixed-offset task)
    min_len: int = 8  # Lmin, shortest training length (inclusive)
    max_len: int = 16  # Lmax, longest training length (inclusive)
    vocab: int = 20  # m, tokens are drawn i.i.d. uniform from {0..m-1} (the paper's {1..m})

    def __post_init__(self) -> None:
        _require(self.kind in TASK_KINDS, f"unknown task kind {self.kind!r} (known: {', '.join(TASK_KINDS)})")
        require_integers(self, ("offset", "alt_offset", "min_len", "max_len", "vocab"))
        _require(self.vocab >= 2, f"vocab={self.vocab} must be at least 2")
        _require(self.min_len >= 2, f"min_len={self.min_len} must be at least 2")
        _require(self.max_len >= self.min_len, f"max_len={self.max_len} is below min_len={self.min_len}")
        _require(
            1 <= self.offset < self.min_len,
            f"offset K={self.offset} must satisfy 1 <= K < min_len={self.min_len}",
        )
        if self.kind == "content":
            _require(
                1 <= self.alt_offset < self.min_len and self.alt_offset != self.offset,
                f"alt_offset={self.alt_offset} must differ from offset={self.offset} and lie in [1, {self.min_len})",
            )
        else:
            _require(self.alt_offset == 0, f"alt_offset={self.alt_offset} is only valid for the content task")

    @property
    def offsets(self) -> tuple[int, ...]:
        """Every target offset the task can ask for."""
        return (self.offset,) if self.kind == "offset" else (self.offset, self.alt_offset)


@dataclass(frozen=True)
class ModelConfig:
    """The one-layer attention head of the paper (no MLP, no LayerNorm, query from the last position)."""

    encoding: str = "rope"  # positional encoding: rope | ape | nope | alibi | t5
    d: int = 64  # model width: embeddings and the concatenated query/key/value projections
    heads: int = 1  # number of heads, each of width d // heads
    attention: str = "softmax"  # "softmax", or "linear" (no normalisation: o = sum_t l_t v_t)
    temperature: float = 1.0  # softmax temperature tau: logits are q.k / (sqrt(d_head) * tau)
    rope_base: float = 1e4  # RoPE base b: frequencies theta_i = b^(-2i/d_head)
    positions: int = 48  # APE table rows (the longest evaluation length); rows past Lmax: see ape_unseen
    # "torch": embeddings and APE table N(0, 1), projections and readout U(+-1/sqrt(d)), T5 bias N(0, 1/d)
    # (PyTorch's layer defaults; T5's bias init); "gpt2": every weight N(0, 0.02^2) (GPT-2, nanoGPT);
    # "flax": JAX/Flax's defaults: projections and readout LeCun-normal (N(0, 1/fan_in), truncated at two
    # standard deviations as Flax does), embeddings and APE table N(0, 1/d) (nn.Embed's), T5 bias as "torch"
    init: str = "torch"
    # APE only: table rows at positions >= Lmax (never trained): "init" keeps their initial draw;
    # "zero" sets them to 0 after the draw (no gradient reaches them: they stay 0, under weight decay too)
    ape_unseen: str = "init"
    # APE only: "embedded": v_t = W_V (x_t + p_t) (the position enters the values too); "token":
    # v_t = W_V x_t (the position enters queries and keys only)
    ape_value: str = "embedded"

    def __post_init__(self) -> None:
        _require(
            self.encoding in ENCODINGS,
            f"unknown encoding {self.encoding!r} (known: {', '.join(ENCODINGS)})",
        )
        check_readings(self, ONE_LAYER_INITS)
        _require(
            self.attention in ATTENTIONS,
            f"unknown attention {self.attention!r} (known: {', '.join(ATTENTIONS)})",
        )
        require_integers(self, ("d", "heads", "positions"))
        _require(self.d >= 2, f"width d={self.d} must be at least 2")
        _require(self.heads >= 1, f"heads={self.heads} must be at least 1")
        _require(self.d % self.heads == 0, f"width d={self.d} is not divisible by heads={self.heads}")
        if self.encoding == "rope":
            _require(
                self.head_dim % 2 == 0,
                f"RoPE needs an even head width, got d={self.d} with heads={self.heads} (head width {self.head_dim})",
            )
        _require(self.temperature > 0, f"temperature={self.temperature} must be positive")
        _require(self.rope_base > 1, f"rope_base={self.rope_base} must be greater than 1")
        _require(self.positions >= 2, f"positions={self.positions} must be at least 2")

    @property
    def head_dim(self) -> int:
        return self.d // self.heads


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation. The paper: Adam, lr 1e-3, batch 256, 4000 steps, cross-entropy."""

    steps: int = 4000  # optimizer steps
    batch: int = 256  # sequences per step; their lengths: see length_mix
    lr: float = 1e-3  # Adam learning rate
    weight_decay: float = 0.0  # the weight decay lambda; how it acts: see decay
    # "coupled": Adam's L2, lambda * w added to the gradient before the moments (torch.optim.Adam weight_decay);
    # "decoupled": AdamW's, w *= 1 - lr * lambda before the Adam step (torch.optim.AdamW weight_decay)
    decay: str = "coupled"
    record_every: int = 50  # steps between trajectory records (loss, carrier, rank concentration)
    # how mixed training lengths are batched: "per-sequence": each sequence draws its length uniform in
    # [Lmin, Lmax] (padded batches); "per-batch": one length per step, uniform in [Lmin, Lmax], shared by
    # every sequence of the step (a plain training script's batches; see tasks/uniform.py)
    length_mix: str = "per-sequence"

    def __post_init__(self) -> None:
        _require(
            self.length_mix in LENGTH_MIXES,
            f"unknown length_mix {self.length_mix!r} (known: {', '.join(LENGTH_MIXES)})",
        )
        require_integers(self, ("steps", "batch", "record_every"))
        _require(self.steps >= 1, f"steps={self.steps} must be at least 1")
        _require(self.batch >= 1, f"batch={self.batch} must be at least 1")
        _require(self.lr > 0, f"lr={self.lr} must be positive")
        _require(self.weight_decay >= 0, f"weight_decay={self.weight_decay} must be non-negative")
        _require(self.decay in DECAYS, f"unknown decay {self.decay!r} (known: {', '.join(DECAYS)})")
        _require(
            self.decay == DECAYS[0] or self.weight_decay > 0,
            f"decay={self.decay!r} needs a weight_decay > 0 (without decay both are Adam: one model, one config)",
        )
        _require(self.record_every >= 1, f"record_every={self.record_every} must be at least 1")


PAPER_EVAL_LENGTHS = (12, 16, 20, 24, 32, 40, 48)


@dataclass(frozen=True)
class EvalConfig:
    """Evaluation at fixed lengths; all models see the same evaluation sequences."""

    lengths: tuple[int, ...] = PAPER_EVAL_LENGTHS  # evaluation lengths L (each > K)
    sequences: int = 4096  # sequences per length, for accuracy and the attention probes
    seed: int = 0  # seed of the evaluation data (shared by every model)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lengths", tuple(self.lengths))
        _require(len(self.lengths) >= 1, "at least one evaluation length is needed")
        for length in self.lengths:
            _require(_is_int(length) and length >= 2, f"evaluation length {length!r} must be an integer >= 2")
        _require(len(set(self.lengths)) == len(self.lengths), f"evaluation lengths {self.lengths} repeat")
        _require(_is_int(self.sequences) and self.sequences >= 1, f"sequences={self.sequences!r} must be >= 1")


class SpecParts:
    """For a frozen dataclass whose fields are frozen config dataclasses (task, model, train, ...)."""

    def replace(self, **parts: Any):
        """A copy with fields of the parts replaced, e.g. ``spec.replace(task={"offset": 3})``."""
        updated = {}
        for name, changes in parts.items():
            current = getattr(self, name)
            updated[name] = dataclasses.replace(current, **changes) if isinstance(changes, dict) else changes
        return dataclasses.replace(self, **updated)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class RunSpec(SpecParts):
    """Everything that determines a trained model except its seed."""

    task: TaskConfig = field(default_factory=TaskConfig)  # what is learned
    model: ModelConfig = field(default_factory=ModelConfig)  # the architecture
    train: TrainConfig = field(default_factory=TrainConfig)  # the optimisation

    def __post_init__(self) -> None:
        if self.model.encoding == "ape":
            _require(
                self.model.positions >= self.task.max_len,
                f"APE table of {self.model.positions} positions is shorter than max_len={self.task.max_len}",
            )

    def check_eval(self, evaluation: EvalConfig) -> None:
        """Raise ``ValueError`` if ``evaluation`` asks for a length this model cannot be evaluated at."""
        largest = max(self.task.offsets)
        for length in evaluation.lengths:
            _require(length > largest, f"evaluation length {length} must exceed the offset K={largest}")
            if self.model.encoding == "ape":
                _require(
                    length <= self.model.positions,
                    f"evaluation length {length} exceeds the APE table ({self.model.positions} positions)",
                )


MAX_SEEDS = 10_000  # more seeds than any claim can use: a larger spec is a typo (0-99999999), refused at once


def parse_seeds(spec: str | Sequence[int]) -> tuple[int, ...]:
    """Seeds from ``"0-7"`` (inclusive range), ``"0,2,5"`` (list), ``"3"``, or a sequence of ints."""
    if not isinstance(spec, str):
        seeds = tuple(spec)
        _require(len(seeds) > 0 and all(_is_int(s) and s >= 0 for s in seeds), f"bad seed list {seeds!r}")
        _require(len(set(seeds)) == len(seeds), f"seed list {seeds!r} repeats a seed")
        _require(len(seeds) <= MAX_SEEDS, f"seed list of {len(seeds)} seeds; at most {MAX_SEEDS}")
        return seeds
    text = spec.strip()
    try:
        if "-" in text and "," not in text:
            low_text, high_text = text.split("-")
            low, high = int(low_text), int(high_text)
            _require(low >= 0, f"seed spec {spec!r}: seeds must be non-negative")
            _require(high >= low, f"seed spec {spec!r} is a reversed range")
            _require(
                high - low + 1 <= MAX_SEEDS, f"seed spec {spec!r} names {high - low + 1} seeds; at most {MAX_SEEDS}"
            )
            return tuple(range(low, high + 1))
        seeds = tuple(int(part) for part in text.split(","))
    except ValueError as error:
        if "seed spec" in str(error):
            raise
        raise ValueError(f"seed spec {spec!r} is neither a range like 0-7 nor a list like 0,2,5") from None
    return parse_seeds(seeds)
