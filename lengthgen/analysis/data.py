"""``claims.json``: the run's records and environment as strict JSON (non-finite numbers become null), and
reading it back with a one-line ValueError for a missing or malformed file. The bottom of the report: it
imports no other report module (the typed view, ``run_view``, parses what this reads).

- the file's order: by claim number (C1..C22, then the predictions P1..P6), then test (:func:`sort_key`);
- its parts (:func:`assemble`): the claim tests at the paper's point (``"records"``), the negative controls
  (``"controls"``), the robustness map's cells (``"robustness"``: records with a ``setting``,
  :func:`split_settings`) and the multiverse's cells (``"multiverse"``: records with a ``reading``);
- :func:`carry_over`: a run that produced one part keeps the others from the ``claims.json`` it replaces, where
  that one ran the same code;
- :func:`dump`, :func:`load` (a ``claims.json``), :func:`read` (a report directory, a ``claims.json`` or a
  ``claims.json.gz``);
- :func:`threshold_sources`: per claim, where its checks at the paper's point take their thresholds from.
"""

from __future__ import annotations

import gzip
import json
import math
import zlib
from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import claim_number as claim_number  # the report and the analysis read it here
from lengthgen.catalogue import claim_order
from lengthgen.records import ClaimRecord
from lengthgen.records.record import setting_of, universe_of
from lengthgen.registry import Registry
from lengthgen.store.files import atomic_write

FORMAT = 1  # version of the claims.json layout


def sort_key(record: Mapping[str, Any]) -> tuple:
    """A record's place in the file: its claim's (``lengthgen.catalogue.claim_order``), then its test's name."""
    return (*claim_order(record["claim"]), record.get("test", ""))


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by None (JSON has no such numbers)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def split(records: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """``(claim records, control records)`` of a run (a record without ``kind`` is a claim's)."""
    claims = [r for r in records if r.get("kind", "claim") != "control"]
    return claims, [r for r in records if r.get("kind", "claim") == "control"]


def split_settings(records: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """``(records at the paper's point, robustness cells)`` (a cell is a record with a ``setting``)."""
    return [r for r in records if not setting_of(r)], [r for r in records if setting_of(r)]


def assemble(
    records: Sequence[Mapping[str, Any]], environment: Mapping[str, Any], registry: Registry | None = None
) -> dict[str, Any]:
    """``{"format", "environment", "records", "controls"}``, each sorted by claim number, then test; and
    ``"robustness"`` (the robustness map's cells, records with a ``setting``) with its environment when the
    run has any (``lengthgen.report.robustness``); likewise ``"multiverse"`` (records with a ``reading``); and the
    claims' ``registry`` where the run knows it (every claims run does): ``"catalogue"``, every claim's entry, and
    ``"multiverse_plan"``, the plan of every multiverse cell (run or not), so a reader without the claims can show
    each claim's words and count its universes (``lengthgen multiverse --list``, docs/robustness.md)."""
    claims, controls = split(records)
    claims, cells = split_settings(claims)
    claims, readings = [r for r in claims if not universe_of(r)], [r for r in claims if universe_of(r)]
    data = {
        "format": FORMAT,
        "environment": finite(dict(environment)),
        "records": [finite(dict(r)) for r in sorted(claims, key=sort_key)],
        "controls": [finite(dict(r)) for r in sorted(controls, key=sort_key)],
    }
    if cells:
        data["robustness"] = [finite(dict(r)) for r in sorted(cells, key=lambda r: (setting_of(r), *sort_key(r)))]
        data["robustness_environment"] = data["environment"]
    if readings:  # the multiverse's cells (records with a ``reading``: claims/test_multiverse.py)
        data["multiverse"] = [finite(dict(r)) for r in sorted(readings, key=lambda r: (universe_of(r), *sort_key(r)))]
        data["multiverse_environment"] = data["environment"]
    if registry is not None and len(registry.catalogue):
        data.update(registry.to_dict())
    return data


def code_of(environment: Mapping[str, Any] | None) -> str | None:
    """The fingerprint of the code a run ran: every file of the package and the claims (``suite_fingerprint``),
    else the numeric code alone (an older run's ``code_fingerprint``)."""
    environment = environment or {}
    return environment.get("suite_fingerprint") or environment.get("code_fingerprint")


def carry_over(data: dict[str, Any], previous_path: Path) -> tuple[dict[str, Any], str | None]:
    """``(data, refused)``: ``data`` with the parts this run did not produce taken from the ``claims.json`` at
    ``previous_path`` (if one is there and readable), so a robustness-only (multiverse-only) run keeps the claims
    and the other grid, and a claims run keeps both grids (``pytest claims -n auto``, then ``pytest claims -m
    robustness -n auto``, as CI runs them, end up on one page; each grid says which run drew it). A page never
    mixes runs of different code: where the previous run's code fingerprint (:func:`code_of`) differs from this
    run's, nothing is carried and ``refused`` says so in one line."""
    try:
        previous = json.loads(Path(previous_path).read_text())
    except (OSError, ValueError):
        return data, None
    if not isinstance(previous, dict):
        return data, None
    parts = ("records", "controls", "robustness", "multiverse")
    if not any(previous.get(p) for p in parts):
        return data, None
    mine = code_of(data.get("environment"))
    theirs = code_of(previous.get("environment"))
    if mine is None or mine != theirs:
        return data, (
            f"not carried over: {previous_path} ran other code (fingerprint {theirs}, this run's {mine}); the page "
            "shows this run's records alone"
        )
    data = dict(data)
    if not data.get("records") and not data.get("controls") and (data.get("robustness") or data.get("multiverse")):
        for key in ("records", "controls", "environment"):
            if key in previous:
                data[key] = previous[key]
    for part in ("robustness", "multiverse"):  # the map's cells, the multiverse's cells
        if not data.get(part) and previous.get(part):
            data[part] = previous[part]
            data[f"{part}_environment"] = previous.get(f"{part}_environment") or {}
    for key in ("catalogue", "multiverse_plan"):  # the registry: the same code's
        if key not in data and key in previous:
            data[key] = previous[key]
    return data, None


def with_cells_of(data: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with the multiverse cells of ``other`` that it lacks (the extended cells, run on their own, beside
    the reference run's default cells); ValueError (one line) unless ``other`` ran the same numeric code (its
    multiverse's ``code_fingerprint``, part of every cache key, equals ``data``'s). The plan of cells
    (``multiverse_plan``) comes from ``other`` where ``data`` records none."""
    mine = (data.get("multiverse_environment") or {}).get("code_fingerprint")
    theirs = (other.get("multiverse_environment") or {}).get("code_fingerprint")
    if not other.get("multiverse"):
        raise ValueError("the run to add holds no multiverse cells")
    if mine is None or mine != theirs:
        raise ValueError(
            f"the run to add computed with other code (code fingerprint {theirs}, the reference's {mine}): re-run it"
        )
    have = {(universe_of(c), c.get("claim"), c.get("test")) for c in data.get("multiverse") or []}
    added = [c for c in other["multiverse"] if (universe_of(c), c.get("claim"), c.get("test")) not in have]
    merged = dict(data)
    merged["multiverse"] = list(data.get("multiverse") or []) + added
    merged["multiverse_extended_environment"] = other.get("multiverse_environment")
    for key in ("catalogue", "multiverse_plan"):  # the registry: the same numeric code's
        if key not in merged and key in other:
            merged[key] = other[key]
    return merged


def dump(data: Mapping[str, Any], path: Path) -> None:
    atomic_write(path, json.dumps(data, indent=1, allow_nan=False) + "\n")


def read_json(path: Path, what: str, missing: str) -> Any:
    """The JSON at ``path``; ValueError (one line, naming the file) when it is not there (``missing``: what to
    do) or is not readable JSON (``what`` it should have been)."""
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} does not exist ({missing})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{str(path)!r} is not a readable {what}: {error}") from None


def load(path: Path) -> dict[str, Any]:
    """The data of a ``claims.json``; ValueError naming the file if it is missing or not a report."""
    data = read_json(path, "claims.json", "run `pytest claims` first, or pass --run")
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        raise ValueError(f"{str(path)!r} is not a claims.json (no list of records)")
    for i, record in enumerate(data["records"]):
        try:
            ClaimRecord.from_dict(record)
        except (TypeError, AttributeError, KeyError, ValueError) as error:
            raise ValueError(f"{str(path)!r}: record {i} is malformed ({error!r})") from None
    data.setdefault("environment", {})
    data.setdefault("controls", [])
    data.setdefault("robustness", [])
    data.setdefault("multiverse", [])
    return data


def read(source: Path | str) -> dict[str, Any]:
    """The data of a report directory (its ``claims.json``), a ``claims.json`` or a ``claims.json.gz``;
    ValueError naming the file when it is missing or not a report (:func:`load`)."""
    path = Path(source)
    if path.is_dir():
        path = path / "claims.json"
    if path.suffix != ".gz":
        return load(path)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, EOFError, json.JSONDecodeError) as error:
        raise ValueError(f"{str(path)!r} is not a readable claims.json.gz: {error}") from None
    return checked(data, path)


GZIP_MAGIC = b"\x1f\x8b"  # the first bytes of a gzip stream


def holds_records(path: Path) -> bool:
    """Whether the file at ``path`` holds a run's records, by its content (whatever its name): JSON, gzipped or
    not, whose top level has ``"records"`` (a claims.json, a ``lengthgen run --out`` file): a file no command
    writes over. A file that cannot be read or parsed holds none."""
    try:
        raw = Path(path).read_bytes()
        if raw[:2] == GZIP_MAGIC:
            raw = gzip.decompress(raw)
        data = json.loads(raw)
    except (OSError, EOFError, zlib.error, ValueError):  # unreadable, a broken gzip stream, not JSON or UTF-8
        return False
    return isinstance(data, dict) and "records" in data


def checked(data: Any, where: Any) -> dict[str, Any]:
    """``data`` if it is a claims.json's (a dict with a list of records); ValueError naming ``where`` if not."""
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        raise ValueError(f"{str(where)!r} is not a claims.json (no list of records)")
    return data


def threshold_sources(data: Mapping[str, Any]) -> dict[str, list[tuple[str | None, int]]]:
    """Per claim, how many of its checks at the paper's point take their threshold from each source
    (``records.THRESHOLD_SOURCES``; None where a check states none), by the source's name."""
    found: dict[str, Counter] = {}
    for r in data.get("records", []):
        if r.get("kind", "claim") != "claim" or universe_of(r) or setting_of(r):
            continue
        if (r.get("scale") or {}).get("name") != "paper":
            continue
        read = ClaimRecord.from_dict(r)  # its labels as the rule reads them (records.basis)
        found.setdefault(r["claim"], Counter()).update(c.threshold_source for c in read.checks)
    return {claim: sorted(counts.items(), key=lambda kv: str(kv[0])) for claim, counts in found.items()}
