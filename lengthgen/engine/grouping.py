"""How members are split into ensemble passes (orchestration only: it never changes a model's numbers,
since a member trains the same alone or beside others)."""

from __future__ import annotations

from typing import Sequence

from lengthgen.config import RunSpec
from lengthgen.engine.train import Member, ensemble_signature

MAX_MEMBERS = 16  # members per ensemble pass: measured fastest per model on these cores (cache-sized tables)


def group_members(members: Sequence[Member], max_members: int = MAX_MEMBERS) -> list[list[Member]]:
    """Split members into ensemble passes of equal signature and at most ``max_members`` each."""
    groups: dict[RunSpec, list[Member]] = {}
    for member in members:
        groups.setdefault(ensemble_signature(member.spec), []).append(member)
    passes = []
    for group in groups.values():
        count = -(-len(group) // max_members)  # passes needed; members spread evenly over them
        size = -(-len(group) // count)
        passes += [group[i : i + size] for i in range(0, len(group), size)]
    return passes
