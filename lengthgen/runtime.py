"""Where and how a run computes: one :class:`Runtime`, made by the entry point and passed down.

The command line makes one from its ``--device``, ``--workers`` and ``--scheduler``
(``lengthgen.cli.set_up_compute``); the pytest plugin makes one per session from its ``--lengthgen-*`` options
(``lengthgen.testing.session``) and hands it to the tests as the ``runtime`` fixture and on the model cache
(``Cache.runtime``), which every experiment is passed beside its context. Nothing of it is process-wide: two
runtimes with different devices or worker counts live side by side in one process.

It holds what the run was asked for (the device, the worker count, the Dask scheduler). Its device is an argument of
every training and evaluation it asks for: the store, the process pool and the Dask workers pass ``runtime.device`` to
the engine's functions (``device=``), which default to the CPU. It makes on first use the process pool or the Dask
client its missing models train in (:mod:`lengthgen.engine.parallel`, :mod:`lengthgen.engine.cluster` make them through
:meth:`Runtime.resource`), and it keeps the memo of measured results (:meth:`Runtime.remember`; its keys are
``claims.memo``'s). :meth:`Runtime.close` (or leaving its ``with`` block) shuts them down. None of it changes a number:
a member trains the same on any device up to float rounding (the device is part of every cache key), in any process and
on any cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import torch

from lengthgen.device import CPU, device_named

__all__ = ["Runtime"]


@dataclass
class _Held:
    """What a runtime made on first use: its resources by name, and its memo."""

    resources: dict[str, tuple[Hashable, Any, Callable[[Any], None]]] = field(default_factory=dict)  # name ->
    # (the key it was made for, the resource, the function that closes it)
    memo: dict[Hashable, Any] = field(default_factory=dict)  # a measured result per key (Runtime.remember)


@dataclass(frozen=True)
class Runtime:
    """The device, training processes and cluster of a run, and what it made of them (closed by :meth:`close`)."""

    device: torch.device = CPU  # where models train and evaluate ("cpu", "cuda", "cuda:N" parsed)
    workers: int = 1  # processes that train missing models (the CLI's --workers; pytest's --lengthgen-workers)
    scheduler: str | None = None  # a Dask scheduler's address (tcp://HOST:PORT): passes train there; None: here
    _held: _Held = field(default_factory=_Held, init=False, repr=False, compare=False)  # pool, client, memo

    def __post_init__(self) -> None:
        if isinstance(self.device, str):
            object.__setattr__(self, "device", device_named(self.device))
        if not isinstance(self.device, torch.device):
            raise ValueError(f"device={self.device!r} must be a torch.device or its name")
        if not isinstance(self.workers, int) or isinstance(self.workers, bool) or self.workers < 1:
            raise ValueError(f"workers={self.workers!r} must be at least 1")
        if self.scheduler is not None and not isinstance(self.scheduler, str):
            raise ValueError(f"scheduler={self.scheduler!r} must be an address (tcp://HOST:PORT) or None")

    def resource(self, name: str, key: Hashable, make: Callable[[], Any], close: Callable[[Any], None]) -> Any:
        """The resource held under ``name`` if it was made for ``key``; else the one held is closed and
        ``make()`` is held in its place (``close(resource)`` shuts it down later)."""
        held = self._held.resources.get(name)
        if held is not None and held[0] == key:
            return held[1]
        self.release(name)
        made = make()
        self._held.resources[name] = (key, made, close)
        return made

    def held(self, name: str) -> Any:
        """The resource held under ``name`` now, or None."""
        held = self._held.resources.get(name)
        return None if held is None else held[1]

    def release(self, name: str) -> None:
        """Close the resource held under ``name`` (a no-op without one); the next ask makes a new one."""
        held = self._held.resources.pop(name, None)
        if held is not None:
            held[2](held[1])

    def remember(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()`` once for ``key`` in this runtime's life, then the same object again."""
        if key not in self._held.memo:
            self._held.memo[key] = compute()
        return self._held.memo[key]

    def close(self) -> None:
        """Close every resource (the pool's processes end, the Dask client disconnects) and forget the memo."""
        for name in list(self._held.resources):
            self.release(name)
        self._held.memo.clear()

    def __enter__(self) -> "Runtime":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
