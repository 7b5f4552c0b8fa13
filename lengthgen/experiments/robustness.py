"""The robustness settings: the claims away from the paper's operating point.

The catalogue ("Robustness settings", ``docs/robustness.md``) fixes each setting and what it changes
(``lengthgen.catalogue.ROBUSTNESS``, the words); :data:`SETTINGS` realises that table, setting by setting, in its
order; each claim names the settings it runs at (``ClaimSpec.settings``). Each claim is run again at each of its
settings with its assertion unchanged; "L <= 16" / "L > 16" read as L <= Lmax / L > Lmax of the setting's
training range, and a threshold tied to chance (APE "near chance" <= 0.15 = 1/m + 0.10) reads as
1/m + 0.10 of the setting's vocabulary (:meth:`Setting.chance`).

A setting changes the spec through encoding-independent fields of ``TaskConfig`` / ``ModelConfig``
(``paper_spec(ctx).replace(...)``), the target offsets K, or the seeds; nothing else. The claims' own
measure and check functions do the rest (``claims/robustness.py``, ``claims/test_robustness.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lengthgen.catalogue import ROBUSTNESS
from lengthgen.config import ModelConfig, RunSpec, TaskConfig, _require
from lengthgen.context import Context

FRESH_SEEDS = tuple(range(100, 108))  # the catalogue's fresh seeds 100..107 (a claim of n seeds takes the first n)
CHANCE_MARGIN = 0.10  # the catalogue: APE "near chance" <= 0.15 reads as 1/m + 0.10 at another m
__all__ = ["BY_NAME", "CHANCE_MARGIN", "FRESH_SEEDS", "SETTINGS", "Setting", "setting"]


@dataclass(frozen=True)
class Setting:
    """One column of the robustness map."""

    name: str  # the catalogue's name, e.g. "width-32": the map's column and the test id's prefix
    what: str  # what changes, in the catalogue's words
    task: tuple[tuple[str, Any], ...] = ()  # TaskConfig fields replaced, e.g. (("vocab", 10),); () keeps the paper's
    model: tuple[tuple[str, Any], ...] = ()  # ModelConfig fields replaced, e.g. (("d", 32),)
    offsets: tuple[int, ...] | None = None  # target offsets K replacing the claim's own; None keeps them
    seed_count: int | None = None  # seeds 0..n-1 when the setting fixes n (offsets-far: 5); None: the claim's count
    seeds: tuple[int, ...] | None = None  # explicit seeds (fresh-seeds: 100..107, the first n for a claim of n)

    def __post_init__(self) -> None:
        _require(bool(self.name) and self.name == self.name.strip(), f"setting name {self.name!r} is empty or padded")
        for key, _ in self.task:
            _require(
                key in TaskConfig.__dataclass_fields__, f"setting {self.name!r}: {key!r} is not a TaskConfig field"
            )
        for key, _ in self.model:
            _require(
                key in ModelConfig.__dataclass_fields__, f"setting {self.name!r}: {key!r} is not a ModelConfig field"
            )
            _require(key != "encoding", f"setting {self.name!r}: a setting may not change the encoding")
        _require(self.seed_count is None or self.seed_count >= 1, f"seed_count={self.seed_count} must be >= 1")
        _require(self.seeds is None or self.seed_count is None, f"setting {self.name!r}: seeds and seed_count both set")
        for offset in self.offsets or (None,):  # an invalid replacement (an odd RoPE width, K >= Lmin) raises here
            self.spec(task={} if offset is None else {"offset": offset})

    @property
    def changes_spec(self) -> bool:
        """Whether the setting trains models of another spec than the claims' own (not only other seeds or K)."""
        return bool(self.task or self.model)

    def spec(self, ctx: Context | None = None, **parts: dict[str, Any]) -> RunSpec:
        """The paper's one-layer spec at ``ctx`` (its steps and universe; None: the paper's point) with this
        setting's fields replaced, then ``parts`` (e.g. the encoding, K)."""
        from lengthgen.experiments.common import paper_spec

        base = paper_spec(ctx if ctx is not None else Context(())).replace(task=dict(self.task), model=dict(self.model))
        return base.replace(**parts)

    @property
    def max_len(self) -> int:
        """Lmax: the "16" of "L <= 16" / "L > 16" at this setting."""
        return self.spec().task.max_len

    @property
    def chance(self) -> float:
        """1/m at this setting's vocabulary."""
        return 1.0 / self.spec().task.vocab

    @property
    def near_chance(self) -> float:
        """APE's "near chance" threshold, 1/m + 0.10 (0.15 at the paper's m = 20)."""
        return round(self.chance + CHANCE_MARGIN, 12)  # 1/20 + 0.10 is 0.15000000000000002 in floats

    def seed_list(self, paper_count: int) -> tuple[int, ...]:
        """The seeds of a claim whose paper count is ``paper_count`` at this setting."""
        if self.seeds is not None:
            _require(paper_count <= len(self.seeds), f"{paper_count} seeds asked of {self.name}'s {len(self.seeds)}")
            return self.seeds[:paper_count]
        return tuple(range(self.seed_count or paper_count))

    def seed_count_for(self, paper_count: int) -> int:
        """How many seeds a claim of ``paper_count`` runs here (the record's paper_seeds at this setting)."""
        return len(self.seed_list(paper_count))


def _realised(name: str, **how: Any) -> Setting:
    """The catalogue's setting ``name`` (its words: ``catalogue.ROBUSTNESS``) as the suite runs it."""
    words = next(w for w in ROBUSTNESS if w.name == name)
    return Setting(words.name, words.what, **how)


SETTINGS: tuple[Setting, ...] = (
    _realised("offsets-far", offsets=(4, 5, 6), seed_count=5),
    _realised("width-32", model=(("d", 32),)),
    _realised("width-128", model=(("d", 128),)),
    _realised("vocab-10", task=(("vocab", 10),)),
    _realised("vocab-40", task=(("vocab", 40),)),
    _realised("range-8-24", task=(("max_len", 24),)),
    _realised("fresh-seeds", seeds=FRESH_SEEDS),
)
BY_NAME = {s.name: s for s in SETTINGS}
assert len(BY_NAME) == len(SETTINGS), "setting names must be unique"
assert [s.name for s in SETTINGS] == [w.name for w in ROBUSTNESS], "every catalogue setting, in its order"


def setting(name: str) -> Setting:
    """The setting called ``name``; ValueError naming it (and the known ones) otherwise."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown robustness setting {name!r} (known: {', '.join(BY_NAME)})") from None
