"""Ensemble passes in parallel processes (one torch thread each), for the CLI and the benchmarks, or on
a Dask cluster (the CLI's ``--scheduler``, pytest's ``--lengthgen-scheduler``; :mod:`lengthgen.engine.cluster`)
for pytest and the CLI alike.

Under pytest-xdist the workers already are the processes, so claim tests train in-process (unless a
scheduler is connected); a serial pytest run trains in as many processes as the machine has cores
(``--lengthgen-workers``). Passes are independent and a member trains the same in any pass and any
process, so neither the worker count nor the cluster ever changes a number.

The processes are kept for the life of this process (one pool per worker count, thread count and device,
shut down at exit or by :func:`shutdown`): a spawned process pays torch's import once, not once per call.
:func:`map_unordered` runs any module-level function over items in the same pool (the two-layer
evaluations).
"""

from __future__ import annotations

import atexit
import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterator, Sequence, TypeVar

from lengthgen.engine import cluster
from lengthgen.device import get_device
from lengthgen.engine.train import Member, TrainedModel, train_members

_WORKERS = 1  # processes that train missing models (the CLI's --workers; pytest's --lengthgen-workers)
_POOL: tuple[tuple[int, int, str], ProcessPoolExecutor] | None = None  # ((workers, threads, device), the pool)
T = TypeVar("T")


def set_workers(count: int) -> None:
    """Process-wide: how many processes train missing models (like ``torch.set_num_threads``)."""
    global _WORKERS
    if count < 1:
        raise ValueError(f"--workers {count} must be at least 1")
    _WORKERS = count


def get_workers() -> int:
    return _WORKERS


# relative cost per member-step of each encoding's fast path, measured at d = 64 (APE gathers four
# table entries per logit); used only to start the longest passes first
ENCODING_COST = {"ape": 1.8}


def pass_cost(group: Sequence[Member]) -> float:
    spec = group[0].spec
    width = spec.model.d / 64 * spec.task.max_len / 16
    return len(group) * spec.train.steps * width * ENCODING_COST.get(spec.model.encoding, 1.0)


def _init_worker(threads: int, device: str) -> None:
    import torch

    from lengthgen.device import set_device

    torch.set_num_threads(threads)
    set_device(device)  # a spawned process starts on the CPU: without this, --device cuda --workers N trained there


def pool(workers: int, threads: int) -> ProcessPoolExecutor:
    """This process's pool of ``workers`` spawned processes with ``threads`` torch threads each on this
    process's device: made on first use and kept; another worker count, thread count or device replaces it, and so
    does a new one where a process died."""
    global _POOL
    key = (workers, threads, str(get_device()))
    if _POOL is not None and _POOL[0] == key and not _POOL[1]._broken:  # a process that died breaks its pool
        return _POOL[1]
    shutdown()
    context = multiprocessing.get_context("spawn")
    executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker, initargs=(threads, key[2]))
    _POOL = (key, executor)
    return executor


def has_pool() -> bool:
    """Whether this process has a pool of worker processes now."""
    return _POOL is not None


def shutdown() -> None:
    """Stop this process's pool (a no-op without one); the next parallel call starts a new one."""
    global _POOL
    if _POOL is not None:
        _POOL[1].shutdown(wait=True, cancel_futures=True)
        _POOL = None


atexit.register(shutdown)


def submit(function: Callable[..., Any], *args: Any, workers: int, threads: int) -> Future:
    """``function(*args)`` in this process's pool of ``workers`` processes (``function`` module-level, the
    arguments picklable): its future, for work that overlaps with this process's own."""
    return pool(workers, threads).submit(function, *args)


def map_unordered(
    function: Callable[[T], Any], items: Sequence[T], workers: int, threads: int
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, function(items[index]))`` as each finishes: in order in this process when
    ``workers`` <= 1 or there is one item, else in this process's pool (``function`` module-level, items
    picklable)."""
    if workers <= 1 or len(items) <= 1:
        for i, item in enumerate(items):
            yield i, function(item)
        return
    executor = pool(workers, threads)
    futures = {executor.submit(function, item): i for i, item in enumerate(items)}
    yield from _as_completed(futures)


def _as_completed(futures: dict) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` per future as it finishes; an exception cancels the futures not started, and a
    process that died takes the pool with it (the next call starts a new one)."""
    try:
        for future in as_completed(futures):
            yield futures[future], future.result()
    except BrokenProcessPool:
        shutdown()
        raise
    finally:
        for future in futures:
            future.cancel()


def train_passes(
    passes: Sequence[Sequence[Member]],
    workers: int = 1,
    threads: int = 1,
    progress: Callable[[int], None] | None = None,
    train: Callable[..., list[TrainedModel]] = train_members,
    payload: Callable[[Member], dict] | None = None,
    make: Callable[..., TrainedModel] = TrainedModel,
) -> Iterator[tuple[int, list[TrainedModel]]]:
    """Yield ``(index, models)`` for every pass as it finishes: in the given order in this process, or spread over
    ``workers`` processes (this process's :func:`pool`) with the longest passes started first, or, when a Dask
    scheduler is connected (:func:`lengthgen.engine.cluster.connect`), on its workers, longest first.

    ``train(members, progress=None)`` trains one pass (a module-level function: it travels to other
    processes by reference). On a cluster, ``payload(member)`` (the member's cache payload, required
    there) checks that a worker computed under this process's environment, and ``make(spec, seed, state,
    trajectory, seconds)`` rebuilds each model from the worker's plain data.
    ``progress(member_steps_done)`` is called as training advances (per pass when in parallel).
    """
    if cluster.active() and passes:
        if payload is None:
            raise ValueError("training on a Dask cluster needs the members' cache payload (payload=...)")
        order = sorted(range(len(passes)), key=lambda i: -pass_cost(passes[i]))  # longest first
        yield from cluster.remote_passes(passes, train, payload, make, threads, progress, order)
        return
    done = 0

    def advance(extra: int) -> None:
        if progress is not None:
            progress(done + extra)

    if workers <= 1 or len(passes) <= 1:  # in the given order: callers list what others wait for first
        for i in range(len(passes)):
            size = len(passes[i])
            yield i, train(passes[i], progress=lambda steps: advance(steps * size))
            done += size * passes[i][0].spec.train.steps
        return
    order = sorted(range(len(passes)), key=lambda i: -pass_cost(passes[i]))  # longest first
    executor = pool(workers, threads)
    futures = {executor.submit(train, list(passes[i])): i for i in order}
    for index, models in _as_completed(futures):
        done += len(passes[index]) * passes[index][0].spec.train.steps
        advance(0)
        yield index, models
