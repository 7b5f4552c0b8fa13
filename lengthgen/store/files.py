"""Atomic file writes and the fingerprint of package files, shared by the model cache and the report (no
torch import, so the report's ``lengthgen report`` path stays light)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path

import lengthgen

PACKAGE = Path(lengthgen.__file__).parent


ENV_VAR = "LENGTHGEN_CACHE_DIR"  # the model cache's directory, when set


def default_cache_dir() -> Path:
    """``$LENGTHGEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/lengthgen``, else ``~/.cache/lengthgen`` (here, not in
    ``store/cache.py``, so that the pytest plugin checks the directory without importing torch)."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "lengthgen"


class CacheWarning(UserWarning):
    """A cache entry was damaged and will be recomputed. It lives here, beside the files, so that pytest's
    ``filterwarnings = error::lengthgen.store.files.CacheWarning`` resolves it without importing torch: the
    xdist controller would otherwise import torch before it starts any worker."""


@lru_cache(maxsize=None)
def files_fingerprint(files: tuple[str, ...]) -> str:
    """Hash of the named files (paths relative to the package; a missing file hashes as missing): the code
    part of every cache key (``store.fingerprint.code_fingerprint``) and of the report's kept drawings."""
    digest = hashlib.sha256()
    for name in files:
        path = PACKAGE / name
        digest.update(name.encode())
        digest.update(path.read_bytes() if path.exists() else b"<missing>")
    return digest.hexdigest()[:16]


def writable_dir(path: str | Path, what: str) -> Path:
    """``path`` as a directory that exists and can be written (created if missing), or ``ValueError``
    naming it: a directory that cannot be used is a usage error, found before any work starts."""
    folder = Path(path).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".write-check.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        raise ValueError(f"{what} {str(folder)!r} cannot be written: {error.strerror or error}") from None
    return folder


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write ``data`` (a str as UTF-8) to ``path`` through a temporary file in the same directory and a
    rename: readers see the old file or the new one, never a part, and a failed write leaves nothing.
    The file gets the mode the umask gives a new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # the mode a plain open() would give (mkstemp's is 0600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
