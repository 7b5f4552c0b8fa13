"""The run's Runtime: what it was asked for (device, workers, scheduler) checked at construction, what it makes
on first use (a pool, a client, the memo) kept per key and closed with it, and nothing of it process-wide: two
runtimes with different worker counts live side by side in one process."""

from __future__ import annotations

import pytest
import torch

from lengthgen.device import CPU
from lengthgen.engine import parallel
from lengthgen.runtime import Runtime
from lengthgen.store.cache import Cache


def test_defaults_and_names():
    runtime = Runtime()
    assert (runtime.device, runtime.workers, runtime.scheduler) == (CPU, 1, None)
    assert Runtime("cpu", 3).device == torch.device("cpu") and Runtime("cpu", 3).workers == 3
    assert Runtime() == Runtime("cpu")  # what it was asked for, not what it holds


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"workers": 0}, "workers=0"),
        ({"workers": True}, "workers=True"),
        ({"workers": 2.0}, "workers=2.0"),
        ({"device": "tpu"}, "'tpu'"),
        ({"device": 3}, "device=3"),
        ({"scheduler": 8786}, "scheduler=8786"),
    ],
)
def test_invalid_values_raise_naming_them(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        Runtime(**kwargs)


def test_a_resource_is_kept_for_its_key_replaced_for_another_and_closed_with_the_runtime():
    closed = []
    made = iter(["first", "second"])
    runtime = Runtime()
    first = runtime.resource("thing", 1, lambda: next(made), closed.append)
    assert runtime.resource("thing", 1, lambda: pytest.fail("kept: not made again"), closed.append) == first
    assert runtime.resource("thing", 2, lambda: next(made), closed.append) == "second" and closed == ["first"]
    assert runtime.held("thing") == "second" and runtime.held("other") is None
    with runtime:
        pass
    assert closed == ["first", "second"] and runtime.held("thing") is None
    runtime.close()  # a second close is a no-op
    assert closed == ["first", "second"]


def test_the_memo_computes_once_per_key_and_is_dropped_at_close():
    calls = []
    runtime = Runtime()
    assert [runtime.remember(k, lambda: calls.append(k) or len(calls)) for k in ("a", "b", "a")] == [1, 2, 1]
    other = Runtime()
    assert other.remember("a", lambda: "another runtime's") == "another runtime's"  # memos are not shared
    runtime.close()
    assert runtime.remember("a", lambda: "again") == "again"


def test_two_runtimes_with_different_worker_counts_coexist():
    """Nothing is process-wide: each runtime keeps its own worker count and pool, a cache computes on its own
    runtime, and closing one runtime leaves the other's pool."""
    with Runtime(workers=2) as two, Runtime(workers=3) as three, Runtime() as one:
        assert (one.workers, two.workers, three.workers) == (1, 2, 3)
        assert Cache(enabled=False, runtime=two).runtime is two and Cache(enabled=False).runtime.workers == 1
        pool_two, pool_three = parallel.pool(two, 1), parallel.pool(three, 1)  # no process starts before a submit
        assert pool_two is not pool_three
        assert (pool_two._max_workers, pool_three._max_workers) == (2, 3)
        two.close()
        assert not parallel.has_pool(two) and parallel.pool(three, 1) is pool_three
        assert list(parallel.map_unordered(abs, [-3, 2], one, threads=1)) == [(0, 3), (1, 2)]  # in this process
        assert not parallel.has_pool(one)
    assert not parallel.has_pool(three)
