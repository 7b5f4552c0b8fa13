"""The one-layer head's fast path: ``forward.py`` (``table_forward``) and, per encoding, how its logits
and readout come from per-row tables (``base.py`` is NoPE's and the interface; ``paths.py`` the registry)."""

from lengthgen.models.one_layer.fast.forward import (
    TableOutput,
    project,
    readout_by_head,
    table_forward,
    vocab_projections,
)
from lengthgen.models.one_layer.fast.paths import FAST_PATHS, fast_path

__all__ = ["FAST_PATHS", "TableOutput", "fast_path", "project", "readout_by_head", "table_forward", "vocab_projections"]
