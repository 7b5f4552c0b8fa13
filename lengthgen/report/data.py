"""``claims.json``: the run's records and environment as strict JSON (non-finite numbers become null),
and reading it back with a one-line ValueError for a missing or malformed file."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from lengthgen.store.files import atomic_write
from lengthgen.records import ClaimRecord
from lengthgen.report.text import sort_key

FORMAT = 1  # version of the claims.json layout


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


def assemble(records: Sequence[Mapping[str, Any]], environment: Mapping[str, Any]) -> dict[str, Any]:
    """``{"format", "environment", "records", "controls"}``, each sorted by claim number, then test; and
    ``"robustness"`` (the robustness map's cells, records with a ``setting``) with its environment when the
    run has any (``lengthgen.report.robustness``); likewise ``"multiverse"`` (records with a ``reading``)."""
    from lengthgen.report.robustness import split_settings

    claims, controls = split(records)
    claims, cells = split_settings(claims)
    claims, readings = [r for r in claims if not r.get("reading")], [r for r in claims if r.get("reading")]
    data = {"format": FORMAT, "environment": finite(dict(environment)),
            "records": [finite(dict(r)) for r in sorted(claims, key=sort_key)],
            "controls": [finite(dict(r)) for r in sorted(controls, key=sort_key)]}
    if cells:
        data["robustness"] = [finite(dict(r)) for r in sorted(cells, key=lambda r: (r["setting"], *sort_key(r)))]
        data["robustness_environment"] = data["environment"]
    if readings:  # the multiverse's cells (records with a ``reading``: claims/test_multiverse.py)
        data["multiverse"] = [finite(dict(r)) for r in sorted(readings, key=lambda r: (r["reading"], *sort_key(r)))]
        data["multiverse_environment"] = data["environment"]
    return data


def dump(data: Mapping[str, Any], path: Path) -> None:
    atomic_write(path, json.dumps(data, indent=1, allow_nan=False) + "\n")


def load(path: Path) -> dict[str, Any]:
    """The data of a ``claims.json``; ValueError naming the file if it is missing or not a report."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} does not exist (run `pytest claims` first, or pass --json)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{str(path)!r} is not a readable claims.json: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        raise ValueError(f"{str(path)!r} is not a claims.json (no list of records)")
    for i, record in enumerate(data["records"]):
        try:
            ClaimRecord.from_dict(record)
        except (TypeError, AttributeError) as error:
            raise ValueError(f"{str(path)!r}: record {i} is malformed ({error})") from None
    data.setdefault("environment", {})
    data.setdefault("controls", [])
    data.setdefault("robustness", [])
    data.setdefault("multiverse", [])
    return data
