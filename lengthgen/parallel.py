"""Ensemble passes in parallel processes (one torch thread each), for the CLI and the benchmarks.

Under pytest-xdist the workers already are the processes, so claim tests train in-process. Passes are
independent and a member trains the same in any pass, so the worker count never changes a number.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, Iterator, Sequence

from lengthgen.train import Member, TrainedModel, train_members

_WORKERS = 1  # processes that train missing models (set by the CLI's --workers; 1 under pytest)


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


def _init_worker(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)


def train_passes(
    passes: Sequence[Sequence[Member]],
    workers: int = 1,
    threads: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[int, list[TrainedModel]]]:
    """Yield ``(index, models)`` for every pass as it finishes: in the given order in this process, or
    spread over ``workers`` processes with the longest passes started first.

    ``progress(member_steps_done)`` is called as training advances (per pass when in parallel).
    """
    done = 0

    def advance(extra: int) -> None:
        if progress is not None:
            progress(done + extra)

    if workers <= 1 or len(passes) <= 1:  # in the given order: callers list what others wait for first
        for i in range(len(passes)):
            size = len(passes[i])
            yield i, train_members(passes[i], progress=lambda steps: advance(steps * size))
            done += size * passes[i][0].spec.train.steps
        return
    order = sorted(range(len(passes)), key=lambda i: -pass_cost(passes[i]))  # longest first
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(passes)), mp_context=context, initializer=_init_worker,
                             initargs=(threads,)) as pool:
        futures = {pool.submit(train_members, list(passes[i])): i for i in order}
        for future in as_completed(futures):
            index = futures[future]
            done += len(passes[index]) * passes[index][0].spec.train.steps
            advance(0)
            yield index, future.result()
