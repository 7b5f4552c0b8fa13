"""TEMPORARY parsing shim for lengthgen.report.diff until lengthgen.report.run_view lands (to be deleted)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from lengthgen.report.data import load


@dataclass(frozen=True)
class CheckView:
    name: str
    value: float | None
    op: str
    threshold: Any
    passed: bool
    ci95: tuple[float | None, float | None] | None
    decision_ci: tuple[float | None, float | None] | None
    expected_to_fail: bool

    @property
    def interval(self):
        return self.decision_ci or self.ci95


@dataclass(frozen=True)
class ClaimView:
    claim: str
    test: str
    verdict: str | None
    close: bool
    checks: tuple[CheckView, ...]
    declared: tuple[str, ...] | None
    setting: str | None
    reading: str | None


@dataclass(frozen=True)
class RunView:
    claims: tuple[ClaimView, ...]
    controls: tuple[ClaimView, ...]
    cells: tuple[ClaimView, ...]

    @classmethod
    def from_json(cls, source: Path | str | Mapping[str, Any]) -> "RunView":
        data = load(Path(source)) if not isinstance(source, Mapping) else source
        return cls(*(tuple(_claim(r) for r in data.get(k) or []) for k in ("records", "controls")),
                   tuple(_claim(r) for k in ("robustness", "multiverse") for r in data.get(k) or []))


def _pair(v):
    return None if v is None else (v[0], v[1])


def _claim(r: Mapping[str, Any]) -> ClaimView:
    checks = tuple(CheckView(c["name"], c.get("value"), c["op"], c["threshold"], bool(c["passed"]),
                             _pair(c.get("ci95")), _pair(c.get("decision_ci")), bool(c.get("expected_to_fail")))
                   for c in r.get("checks") or [])
    ef = r.get("expected_failures")
    return ClaimView(r["claim"], r.get("test", ""), r.get("verdict"), bool(r.get("close")), checks,
                     tuple(ef["patterns"]) if ef else None, r.get("setting"), r.get("reading"))
