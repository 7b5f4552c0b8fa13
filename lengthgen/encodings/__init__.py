"""Positional encodings: one file each, registered by name (the names of ``config.ENCODINGS``)."""

from __future__ import annotations

from lengthgen.config import ModelConfig
from lengthgen.encodings.alibi import ALiBi
from lengthgen.encodings.ape import APE
from lengthgen.encodings.base import Encoding
from lengthgen.encodings.rope import RoPE
from lengthgen.encodings.t5 import T5Bias

ENCODING_CLASSES: dict[str, type[Encoding]] = {
    "nope": Encoding,
    "rope": RoPE,
    "ape": APE,
    "alibi": ALiBi,
    "t5": T5Bias,
}


def encoding_class(name: str) -> type[Encoding]:
    if name not in ENCODING_CLASSES:
        raise ValueError(f"encoding {name!r} has no implementation (known: {', '.join(ENCODING_CLASSES)})")
    return ENCODING_CLASSES[name]


def make_encoding(cfg: ModelConfig) -> Encoding:
    return encoding_class(cfg.encoding)(cfg)


__all__ = ["ALiBi", "APE", "ENCODING_CLASSES", "Encoding", "RoPE", "T5Bias", "encoding_class", "make_encoding"]
