"""train_passes: passes in parallel processes give the numbers of one process bit for bit, and every pass
trains on the runtime's device (here or in the process that runs it) with the driver's thread count. The pool is
the runtime's: two runtimes keep their own."""

from __future__ import annotations

import pytest
import torch

from lengthgen.engine import parallel
from lengthgen.engine.parallel import train_passes
from lengthgen.engine.train import Member
from lengthgen.runtime import Runtime

from tests.helpers import tiny_spec


def passes() -> list[list[Member]]:
    return [[Member(tiny_spec(encoding, steps=20), seed) for seed in (0, 1)] for encoding in ("rope", "ape")]


@pytest.mark.slow
def test_two_processes_train_the_numbers_of_one():
    alone = dict(train_passes(passes(), Runtime()))
    with Runtime(workers=2) as two:
        spread = dict(train_passes(passes(), two, threads=1))
    assert sorted(spread) == sorted(alone) == [0, 1]
    for index, models in alone.items():
        for a, b in zip(models, spread[index]):
            assert all(torch.equal(a.state[n], b.state[n]) for n in a.state)
            assert a.trajectory == b.trajectory


def test_worker_processes_take_the_drivers_threads(monkeypatch):
    seen = {}
    monkeypatch.setattr(torch, "set_num_threads", lambda n: seen.setdefault("threads", n))
    parallel._init_worker(3)
    assert seen == {"threads": 3}


def test_every_pass_trains_on_the_runtimes_device():
    seen = []
    meta = torch.device("meta")  # any device other than the CPU: this stand-in computes nothing

    def train(members, progress=None, device=None):
        seen.append(device)
        return []

    assert [index for index, _ in train_passes(passes(), Runtime(meta), train=train)] == [0, 1]
    assert seen == [meta, meta]


def test_a_cluster_needs_the_payload():
    with pytest.raises(ValueError, match="payload"):
        next(train_passes(passes(), Runtime(scheduler="tcp://127.0.0.1:8786")))


def test_the_pool_is_kept_for_its_key_and_replaced_for_another():
    runtime = Runtime(workers=2)
    try:
        first = parallel.pool(runtime, 1)  # processes start on the first submit, not here
        assert parallel.pool(runtime, 1) is first
        second = parallel.pool(runtime, 2)
        assert second is not first and parallel.pool(runtime, 2) is second
    finally:
        parallel.shutdown(runtime)
    assert not parallel.has_pool(runtime)
    parallel.shutdown(runtime)  # a no-op without a pool


def test_map_unordered_in_process_keeps_the_order_and_needs_no_pool(monkeypatch):
    monkeypatch.setattr(parallel, "pool", lambda *a: pytest.fail("one worker must not start a pool"))
    assert list(parallel.map_unordered(abs, [-3, 2, -1], Runtime(), threads=1)) == [(0, 3), (1, 2), (2, 1)]
    assert list(parallel.map_unordered(abs, [-3], Runtime(workers=4), threads=1)) == [(0, 3)]


@pytest.mark.slow
def test_map_unordered_in_the_pool_gives_every_result_and_raises_a_jobs_error():
    with Runtime(workers=2) as runtime:
        assert dict(parallel.map_unordered(abs, [-3, 2, -1, -7], runtime, threads=1)) == {0: 3, 1: 2, 2: 1, 3: 7}
        kept = runtime.held(parallel.POOL)
        with pytest.raises(ValueError, match="invalid literal"):
            dict(parallel.map_unordered(int, ["1", "x"], runtime, threads=1))
        assert runtime.held(parallel.POOL) is kept  # a job's exception leaves the pool usable
        assert dict(parallel.map_unordered(abs, [-5, 6], runtime, threads=1)) == {0: 5, 1: 6}
    assert not parallel.has_pool(runtime)  # closed with the runtime
