"""``lengthgen fingerprint``: one line, a hash of everything that decides the cached models' numbers: every
file that enters a cache key (``store/fingerprint.py``'s ``CORE``, the ``spec_files`` of every encoding and
task, the two-layer transformer's files, the inference variants' file), lengthgen's and torch's versions,
the thread count and the device. Two machines that print the same line train the same models, so the line
is a cache key for a CI's model cache (``actions/cache``); ``--json`` prints the parts.

The hash does not replace the model cache's own keys (one per model, ``lengthgen.store``): entries of
unchanged encodings stay valid under a new fingerprint, so a CI may restore the newest cache by prefix.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from typing import Any

NAME = "fingerprint"
HELP = "print a hash of what decides the numbers (code files, torch, threads, device): a CI cache key"
SHOWN_HEX = 16  # hex digits printed: 64 bits, as the cache's own code fingerprint


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads per process of the run it keys (default 1, as pytest's --lengthgen-threads)",
    )
    parser.add_argument("--device", default="cpu", help="the device of the run it keys: cpu (default) or cuda")
    parser.add_argument("--json", action="store_true", help="print the parts (each file's hash, versions, ...) as JSON")


def numeric_files() -> tuple[str, ...]:
    """Every file (relative to the package) whose code enters some cache key, sorted."""
    from lengthgen.config import ENCODINGS, TASK_KINDS
    from lengthgen.engine.evaluate_variants import VARIANT_FILES
    from lengthgen.store.fingerprint import CORE, spec_files
    from lengthgen.store.two_layer import EVAL_FILES, MODEL_FILES

    files = set(CORE) | set(MODEL_FILES) | set(EVAL_FILES) | set(VARIANT_FILES)
    for encoding in ENCODINGS:
        for kind in TASK_KINDS:
            files.update(spec_files(encoding, kind))
    return tuple(sorted(files))


def parts(device: Any) -> dict[str, Any]:
    """What the hash covers: each numeric file's sha256 (its first ``SHOWN_HEX`` digits; ``missing`` for
    a file that is not there) and the environment of the cache keys on ``device`` (``store.fingerprint.environment``,
    less its core code hash, which the files cover)."""
    from lengthgen.store.fingerprint import PACKAGE, environment

    files = {}
    for name in numeric_files():
        path = PACKAGE / name
        files[name] = hashlib.sha256(path.read_bytes()).hexdigest()[:SHOWN_HEX] if path.exists() else "missing"
    env = {key: value for key, value in environment(device=device).items() if key != "code"}
    return {"files": files, **env}


def fingerprint(described: dict[str, Any]) -> str:
    """The hash of ``parts()``: sha256 of their canonical JSON, ``SHOWN_HEX`` digits."""
    canonical = json.dumps(described, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:SHOWN_HEX]


def run(args: argparse.Namespace) -> int:  # lengthgen.cli.main has set --threads and made the runtime (--device)
    described = parts(args.runtime.device)
    if args.json:
        print(json.dumps({"fingerprint": fingerprint(described), **described}, indent=1))
    else:
        print(fingerprint(described))
    return 0
