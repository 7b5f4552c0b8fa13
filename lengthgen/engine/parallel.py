"""Ensemble passes in parallel processes (one torch thread each), for the CLI and the benchmarks, or on
a Dask cluster (the CLI's ``--scheduler``, pytest's ``--lengthgen-scheduler``; :mod:`lengthgen.engine.cluster`)
for pytest and the CLI alike.

Where they run is the run's :class:`~lengthgen.runtime.Runtime`: its ``workers`` (the CLI's ``--workers``, pytest's
``--lengthgen-workers``), its ``scheduler`` and its ``device``, which every pass trains on (passed to the pass's
``train(members, progress=..., device=...)``, here or in the process that runs it). Under pytest-xdist the workers
already are the processes, so claim tests train in-process (unless a scheduler is given); a serial pytest run trains in
as many processes as the machine has cores. Passes are independent and a member trains the same in any pass and any
process, so neither the worker count nor the cluster ever changes a number.

The processes are the runtime's (one pool per worker count and thread count, made on first use and shut down by
``Runtime.close`` or :func:`shutdown`): a spawned process pays torch's import once, not once per call.
:func:`map_unordered` runs any module-level function over items in the same pool (the two-layer evaluations).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterator, Sequence, TypeVar

from lengthgen.engine import cluster
from lengthgen.engine.train import Member, TrainedModel, train_members
from lengthgen.runtime import Runtime

POOL = "process pool"  # the name a runtime holds its pool of training processes under
T = TypeVar("T")


# relative cost per member-step of each encoding's fast path, measured at d = 64 (APE gathers four
# table entries per logit); used only to start the longest passes first
ENCODING_COST = {"ape": 1.8}


def pass_cost(group: Sequence[Member]) -> float:
    spec = group[0].spec
    width = spec.model.d / 64 * spec.task.max_len / 16
    return len(group) * spec.train.steps * width * ENCODING_COST.get(spec.model.encoding, 1.0)


def _init_worker(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)


def _stop(executor: ProcessPoolExecutor) -> None:
    executor.shutdown(wait=True, cancel_futures=True)


def pool(runtime: Runtime, threads: int) -> ProcessPoolExecutor:
    """The runtime's pool of ``runtime.workers`` spawned processes with ``threads`` torch threads each: made on
    first use and kept; another thread count replaces it, and so does a new one where a process died."""
    held = runtime.held(POOL)
    if held is not None and held._broken:  # a process that died breaks its pool
        shutdown(runtime)
    key = (runtime.workers, threads)

    def make() -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(runtime.workers, mp_context=context, initializer=_init_worker, initargs=(threads,))

    return runtime.resource(POOL, key, make, _stop)


def has_pool(runtime: Runtime) -> bool:
    """Whether the runtime holds a pool of worker processes now."""
    return runtime.held(POOL) is not None


def shutdown(runtime: Runtime) -> None:
    """Stop the runtime's pool (a no-op without one); the next parallel call starts a new one."""
    runtime.release(POOL)


def submit(runtime: Runtime, function: Callable[..., Any], *args: Any, threads: int) -> Future:
    """``function(*args)`` in the runtime's pool (``function`` module-level, the arguments picklable): its
    future, for work that overlaps with this process's own."""
    return pool(runtime, threads).submit(function, *args)


def map_unordered(
    function: Callable[[T], Any], items: Sequence[T], runtime: Runtime, threads: int
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, function(items[index]))`` as each finishes: in order in this process when the runtime
    has one worker or there is one item, else in the runtime's pool (``function`` module-level, items
    picklable)."""
    if runtime.workers <= 1 or len(items) <= 1:
        for i, item in enumerate(items):
            yield i, function(item)
        return
    executor = pool(runtime, threads)
    futures = {executor.submit(function, item): i for i, item in enumerate(items)}
    yield from _as_completed(runtime, futures)


def _as_completed(runtime: Runtime, futures: dict) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` per future as it finishes; an exception cancels the futures not started, and a
    process that died takes the runtime's pool with it (the next call starts a new one)."""
    try:
        for future in as_completed(futures):
            yield futures[future], future.result()
    except BrokenProcessPool:
        shutdown(runtime)
        raise
    finally:
        for future in futures:
            future.cancel()


def train_passes(
    passes: Sequence[Sequence[Member]],
    runtime: Runtime,
    threads: int = 1,
    progress: Callable[[int], None] | None = None,
    train: Callable[..., list[TrainedModel]] = train_members,
    payload: Callable[[Member, Any], dict] | None = None,
    make: Callable[..., TrainedModel] = TrainedModel,
    key: Callable[[dict], str] | None = None,
) -> Iterator[tuple[int, list[TrainedModel]]]:
    """Yield ``(index, models)`` for every pass as it finishes: in the given order in this process, or spread over
    the runtime's ``workers`` processes (its :func:`pool`) with the longest passes started first, or, when the
    runtime names a Dask scheduler (:mod:`lengthgen.engine.cluster`), on its workers, longest first.

    ``train(members, progress=None, device=CPU)`` trains one pass on the runtime's device, given as ``device`` (a
    module-level function: it travels to other processes by reference). On a cluster, ``payload(member, device)`` (the
    member's cache payload, required there) checks that a worker computed under this process's environment,
    ``key(payload)`` (the payload's cache key, required there) names the pass's Dask task, and ``make(spec, seed, state,
    trajectory, seconds)`` rebuilds each model from the worker's plain data. ``progress(member_steps_done)`` is called
    as training advances (per pass when in parallel).
    """
    if cluster.active(runtime) and passes:
        if payload is None or key is None:
            raise ValueError("training on a Dask cluster needs the members' cache payload and its key (payload=, key=)")
        order = sorted(range(len(passes)), key=lambda i: -pass_cost(passes[i]))  # longest first
        yield from cluster.remote_passes(runtime, passes, train, payload, key, make, threads, progress, order)
        return
    done = 0
    device = runtime.device

    def advance(extra: int) -> None:
        if progress is not None:
            progress(done + extra)

    if runtime.workers <= 1 or len(passes) <= 1:  # in the given order: callers list what others wait for first
        for i in range(len(passes)):
            size = len(passes[i])
            models = train(passes[i], progress=lambda steps: advance(steps * size), device=device)
            yield i, models
            done += size * passes[i][0].spec.train.steps
        return
    order = sorted(range(len(passes)), key=lambda i: -pass_cost(passes[i]))  # longest first
    executor = pool(runtime, threads)
    futures = {executor.submit(train, list(passes[i]), device=device): i for i in order}
    for index, models in _as_completed(runtime, futures):
        done += len(passes[index]) * passes[index][0].spec.train.steps
        advance(0)
        yield index, models
