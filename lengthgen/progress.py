"""Progress bars for long training: shown in an interactive terminal, silent under pytest or when piped."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Callable, Iterator


def progress_enabled() -> bool:
    return sys.stderr.isatty() and "PYTEST_CURRENT_TEST" not in os.environ and not os.environ.get("LENGTHGEN_QUIET")


@contextlib.contextmanager
def progress_bar(
    total: int, description: str, enabled: bool | None = None, unit: str = "step"
) -> Iterator[Callable[[int], None] | None]:
    """A callback ``update(done)`` drawing a tqdm bar, or ``None`` when bars are disabled."""
    if not (progress_enabled() if enabled is None else enabled):
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=description, unit=unit, unit_scale=True, leave=False, file=sys.stderr) as bar:

        def update(done: int) -> None:
            bar.update(done - bar.n)

        yield update
