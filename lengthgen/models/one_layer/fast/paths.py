"""The fast path of each encoding, by name (the names of ``config.ENCODINGS``)."""

from __future__ import annotations

from lengthgen.models.one_layer.fast.alibi import ALiBiFast
from lengthgen.models.one_layer.fast.ape import APEFast
from lengthgen.models.one_layer.fast.base import FastPath
from lengthgen.models.one_layer.fast.rope import RoPEFast
from lengthgen.models.one_layer.fast.t5 import T5Fast

FAST_PATHS: dict[str, type[FastPath]] = {
    "nope": FastPath,
    "rope": RoPEFast,
    "ape": APEFast,
    "alibi": ALiBiFast,
    "t5": T5Fast,
}


def fast_path(name: str) -> type[FastPath]:
    if name not in FAST_PATHS:
        raise ValueError(f"encoding {name!r} has no fast path (known: {', '.join(FAST_PATHS)})")
    return FAST_PATHS[name]
