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


def fill_workers(passes: list[list[Member]], workers: int) -> list[list[Member]]:
    """``passes`` with the largest split in two (the first half rounded up) until there are ``workers`` passes
    or none has two members: fewer passes than processes leave a process idle, and a member trains the same
    in a smaller pass (``tests/unit/test_train.py``)."""
    passes = [list(group) for group in passes]
    while len(passes) < workers:
        largest = max(range(len(passes)), key=lambda i: len(passes[i]), default=None)
        if largest is None or len(passes[largest]) < 2:
            break
        group = passes.pop(largest)
        half = -(-len(group) // 2)
        passes[largest:largest] = [group[:half], group[half:]]
    return passes
