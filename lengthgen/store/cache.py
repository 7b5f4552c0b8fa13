"""An on-disk cache of trained weights and their metrics.

Layout: ``<root>/<kind>/<key[:2]>/<key>.json`` (manifest) and ``<key>.safetensors`` (tensors, optional).
The key is the SHA-256 of a canonical JSON *payload* that the caller builds from everything that
determines the numbers (full config, seed, the library's code fingerprint, torch version, threads).

- Writes are atomic: each file is written to a temporary name in the same directory and renamed; the
  manifest, written last, records the tensor file's size and SHA-256.
- Reads verify: a manifest that does not parse, names another key, or whose tensor file is missing or
  differs in size or hash is reported (a ``CacheWarning``), deleted and treated as absent, so the caller
  recomputes it; wrong numbers are never returned and no run crashes on a damaged entry.
- Loading runs no pickled code: manifests are JSON and tensors are safetensors.
- ``lock(kind, key)`` is a ``filelock.FileLock`` per entry, so processes (xdist workers) that need the
  same entry compute it once: the first holds the lock while computing, the others wait and then load
  (``fetch_or_compute`` below: a process first computes the missing entries nobody else holds).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

import torch
from filelock import FileLock, Timeout
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors

from lengthgen.runtime import Runtime
from lengthgen.store.files import ENV_VAR, CacheWarning, atomic_write, default_cache_dir  # noqa: F401 (ENV_VAR re-exported)

FORMAT = 1  # manifest format version
T = TypeVar("T")
CacheRecord = tuple  # (payload, meta, tensors or None): what ``save`` stores for one entry


def payload_key(payload: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``payload``."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class Cache:
    """See the module docstring. ``enabled=False`` stores nothing; ``fresh_after`` (a UNIX time) treats
    entries created before it as absent (the CLI's ``--retrain``, pytest's ``--lengthgen-retrain``: recompute
    what earlier runs stored, but share what this run computes). ``runtime`` is where what is missing is computed
    (its device, training processes or cluster; a CPU runtime with one worker by default): the cache travels
    beside every experiment's context, and the run's runtime with it."""

    def __init__(
        self,
        root: str | Path | None = None,
        *,
        enabled: bool = True,
        fresh_after: float | None = None,
        runtime: Runtime | None = None,
    ):
        self.root = Path(root).expanduser() if root is not None else default_cache_dir()
        self.enabled = enabled
        self.fresh_after = fresh_after
        self.runtime = runtime if runtime is not None else Runtime()  # where missing entries are computed
        self.stats: Counter[str] = Counter()  # "<kind>:hit" / "<kind>:computed" / "<kind>:damaged"

    def _paths(self, kind: str, key: str) -> tuple[Path, Path]:
        folder = self.root / kind / key[:2]
        return folder / f"{key}.json", folder / f"{key}.safetensors"

    def lock(self, kind: str, key: str) -> contextlib.AbstractContextManager:
        """The entry's lock (a ``FileLock``; a no-op when the cache is disabled)."""
        if not self.enabled:
            return contextlib.nullcontext()
        path = self.root / "locks" / f"{kind}-{key}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        return FileLock(str(path))

    def try_lock(self, kind: str, key: str) -> Callable[[], None] | None:
        """Take the entry's lock if it is free: its ``release`` function, or ``None`` if another holds it."""
        lock = self.lock(kind, key)
        if not isinstance(lock, FileLock):
            return lambda: None
        try:
            lock.acquire(blocking=False)
        except Timeout:
            return None
        return lock.release

    @contextlib.contextmanager
    def locks(self, kind: str, keys: list[str]) -> Iterator[None]:
        """Hold the locks of several entries, acquired in sorted order (so no two holders deadlock)."""
        with contextlib.ExitStack() as stack:
            for key in sorted(set(keys)):
                stack.enter_context(self.lock(kind, key))
            yield

    def load(self, kind: str, key: str) -> tuple[dict[str, Any], dict[str, torch.Tensor]] | None:
        """``(meta, tensors)`` of a valid entry, else ``None`` (damaged entries are deleted)."""
        if not self.enabled:
            return None
        manifest_path, blob_path = self._paths(kind, key)
        if not manifest_path.exists():
            return None
        try:
            manifest = json.loads(manifest_path.read_text())
            if manifest.get("format") != FORMAT or manifest.get("key") != key:
                raise ValueError("manifest names another key or format")
            tensors: dict[str, torch.Tensor] = {}
            blob = manifest.get("blob")
            if blob is not None:
                data = blob_path.read_bytes()
                if len(data) != blob["bytes"] or hashlib.sha256(data).hexdigest() != blob["sha256"]:
                    raise ValueError("tensor file does not match its recorded size and hash")
                tensors = load_tensors(data)
        except Exception as error:  # any failure to read or parse means a damaged entry (e.g. SafetensorError)
            warnings.warn(f"cache entry {kind}/{key[:12]} is damaged ({error}); recomputing", CacheWarning)
            self.stats[f"{kind}:damaged"] += 1
            self.discard(kind, key)
            return None
        if self.fresh_after is not None and manifest.get("created", 0) < self.fresh_after:
            return None
        self.stats[f"{kind}:hit"] += 1
        return manifest["meta"], tensors

    def save(
        self,
        kind: str,
        key: str,
        payload: dict[str, Any],
        meta: dict[str, Any],
        tensors: dict[str, torch.Tensor] | None = None,
    ) -> None:
        self.stats[f"{kind}:computed"] += 1
        if not self.enabled:
            return
        manifest_path, blob_path = self._paths(kind, key)
        blob = None
        if tensors is not None:
            data = save_tensors({name: t.detach().contiguous() for name, t in tensors.items()})
            atomic_write(blob_path, data)
            blob = {"file": blob_path.name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        manifest = {
            "format": FORMAT,
            "key": key,
            "kind": kind,
            "created": time.time(),
            "payload": payload,
            "meta": meta,
            "blob": blob,
        }
        atomic_write(manifest_path, json.dumps(manifest, sort_keys=True).encode())

    def discard(self, kind: str, key: str) -> None:
        for path in self._paths(kind, key):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def fetch_or_compute(
    cache: Cache,
    kind: str,
    keys: Sequence[str],
    decode: Callable[[int, tuple[dict[str, Any], dict[str, torch.Tensor]]], T],
    compute: Callable[[list[int]], Iterable[tuple[int, T, CacheRecord]]],
) -> list[T]:
    """One value per key: loaded from the cache, or computed, saved and returned.

    ``decode(i, (meta, tensors))`` rebuilds item i from its entry. ``compute(indices)`` computes the
    given missing items (one index per distinct key) and yields ``(i, value, (payload, meta, tensors))``
    for each, in any order.

    Each missing entry is computed under its lock, so concurrent processes (xdist workers) compute it
    once. First the free locks are taken without waiting and those entries computed, each lock released
    as soon as its entry is saved; then the entries other processes hold are waited for (locks taken in
    sorted order, holding no other) and loaded, or computed if their holder failed. So a process never
    idles while it has something of its own to compute, and no two processes can deadlock.
    """
    found: dict[str, T] = {}

    def lookup(i: int) -> bool:
        entry = cache.load(kind, keys[i])
        if entry is not None:
            found[keys[i]] = decode(i, entry)
        return entry is not None

    def compute_and_save(todo: list[int], held: dict[int, Callable[[], None]]) -> None:
        for i, value, (payload, meta, tensors) in compute(todo):
            cache.save(kind, keys[i], payload, meta, tensors)
            found[keys[i]] = value
            if i in held:
                held.pop(i)()  # others waiting for this entry may load it now

    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    missing = [i for key, i in first.items() if not lookup(i)]
    held: dict[int, Callable[[], None]] = {}
    try:
        for i in missing:
            release = cache.try_lock(kind, keys[i])
            if release is not None:
                held[i] = release
        mine = [i for i in held if not lookup(i)]  # another process may have saved it just before
        for i in [i for i in held if i not in mine]:
            held.pop(i)()
        if mine:
            compute_and_save(mine, held)
    finally:
        for release in held.values():
            release()
    rest = [i for i in missing if keys[i] not in found]
    if rest:
        with cache.locks(kind, [keys[i] for i in rest]):
            todo = [i for i in rest if not lookup(i)]  # computed by the holder, unless it failed
            if todo:
                compute_and_save(todo, {})
    return [found[key] for key in keys]
