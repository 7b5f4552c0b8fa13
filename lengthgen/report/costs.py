"""The costs file ``lengthgen timed`` writes (each timed command's label, wall time, CPU time, pytest's closing
line and the machine) and the documents read: its format and reading it. No torch."""

from __future__ import annotations

import json
from pathlib import Path

FORMAT = 1  # the costs file's format


def read(path: Path) -> dict:
    """The costs file at ``path``; ValueError (one line) for a missing, malformed or older-format one."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as error:
        raise ValueError(f"cannot read the costs file {str(path)!r}: {error.strerror or error}") from None
    except ValueError as error:
        raise ValueError(f"{path}: not a costs file ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("steps"), list):
        raise ValueError(f"{path}: not a costs file of format {FORMAT}")
    return data
