"""The two-layer transformer's cached kinds: trained models and their evaluations.

``trained_transformers(members, cache)`` loads what the cache holds and trains the rest (missing seeds of a spec in
ensemble passes of at most ``MAX_MEMBERS``, on the cache's runtime: here, in its pool of worker processes
(``Runtime.workers``) or on its Dask cluster), one lock per entry, like
``store/one_layer.py``; ``evaluated_transformers`` evaluates the missing models in that pool too. The training key
covers the full spec, the seed, the code fingerprint of the core plus ``MODEL_FILES``, torch's version, the thread
count and the device; an evaluation's key adds the evaluation settings and ``EVAL_FILES``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import torch

from lengthgen.config import EvalConfig
from lengthgen.engine import cluster
from lengthgen.engine.evaluate_two_layer import TransformerEval, evaluate_transformer
from lengthgen.device import CPU
from lengthgen.engine.parallel import map_unordered, train_passes
from lengthgen.engine.train_two_layer import (
    MAX_MEMBERS,
    TrainedTransformer,
    Member,
    TwoLayerSpec,
    train_transformers,
)
from lengthgen.progress import progress_bar
from lengthgen.store.cache import Cache, fetch_or_compute, payload_key
from lengthgen.store.fingerprint import code_fingerprint, environment

# the files besides the core whose code decides a trained transformer's numbers
MODEL_FILES = (
    "models/two_layer/transformer.py",
    "tasks/shift.py",
    "engine/train_two_layer.py",
    "encodings/rope.py",
    "encodings/ape.py",
)
# ... and its evaluation's
EVAL_FILES = MODEL_FILES + ("engine/evaluate_two_layer.py", "probes/retrieval.py", "probes/geometry.py")
CACHE_KIND = "two-layer"  # the cache's folder of trained transformers
EVAL_KIND = "two-layer-eval"  # ... of their evaluations


def train_payload(member: Member, device: torch.device = CPU) -> dict[str, Any]:
    """Everything that decides the numbers of ``member`` trained on ``device``."""
    return {
        "what": "two-layer-transformer",
        "spec": member.spec.to_dict(),
        "seed": member.seed,
        **environment(MODEL_FILES, device),
    }


def train_key(member: Member, device: torch.device = CPU) -> str:
    return payload_key(train_payload(member, device))


def trained_transformers(
    members: Sequence[Member], cache: Cache, progress: bool | None = None
) -> list[TrainedTransformer]:
    """One trained model per member: loaded from the cache, or trained now (missing seeds of a spec in
    one ensemble pass, on the cache's runtime) and saved. One lock per entry, so concurrent processes train each
    model once."""
    runtime = cache.runtime

    def decode(i: int, entry: tuple[dict, dict]) -> TrainedTransformer:
        meta, tensors = entry
        return TrainedTransformer(members[i].spec, members[i].seed, tensors, meta["trajectory"], meta["seconds"])

    def compute(todo: list[int]):
        groups: dict[TwoLayerSpec, list[int]] = {}
        for i in todo:
            groups.setdefault(members[i].spec, []).append(i)
        chunks = [
            indices[start : start + MAX_MEMBERS]
            for indices in groups.values()
            for start in range(0, len(indices), MAX_MEMBERS)
        ]
        for chunk, models in _train_chunks(chunks):
            for i, model in zip(chunk, models):
                meta = {"trajectory": model.trajectory, "seconds": model.seconds}
                yield i, model, (train_payload(members[i], runtime.device), meta, model.state)

    def _train_chunks(chunks: list[list[int]]):
        """``(chunk, models)`` per ensemble pass: on the runtime's Dask cluster, else in its pool of worker
        processes as each finishes, else here, in order."""
        if cluster.active(runtime) or (runtime.workers > 1 and len(chunks) > 1):
            passes = [[members[i] for i in chunk] for chunk in chunks]
            for number, models in train_passes(
                passes,
                runtime,
                threads=torch.get_num_threads(),
                train=train_transformers,
                payload=train_payload,
                key=payload_key,
                make=TrainedTransformer,
            ):
                yield chunks[number], models
            return
        for chunk in chunks:
            spec = members[chunk[0]].spec
            with progress_bar(
                spec.train.steps, f"train two-layer {spec.model.encoding} x{len(chunk)}", progress
            ) as update:
                models = train_transformers([members[i] for i in chunk], progress=update, device=runtime.device)
            yield chunk, models

    keys = [train_key(m, runtime.device) for m in members]
    return fetch_or_compute(cache, CACHE_KIND, keys, decode, compute)


def eval_payload(model: TrainedTransformer, evaluation: EvalConfig, device: torch.device = CPU) -> dict[str, Any]:
    return {
        "what": "two-layer-eval",
        "train": train_key(Member(model.spec, model.seed), device),
        "eval": dataclasses.asdict(evaluation),
        "code": code_fingerprint(EVAL_FILES),
    }


def evaluated_transformers(
    models: Sequence[TrainedTransformer], evaluation: EvalConfig, cache: Cache
) -> list[TransformerEval]:
    """Per model its :class:`TransformerEval`: from the cache, or computed now (in the pool of worker processes
    when the cache's runtime has one; on its device) and saved (one lock each)."""
    runtime = cache.runtime
    payloads = [eval_payload(m, evaluation, runtime.device) for m in models]

    def decode(i: int, entry: tuple[dict, dict]) -> TransformerEval:
        return TransformerEval.from_dict(entry[0])

    def compute(todo: list[int]):
        jobs = [(models[i], evaluation, runtime.device) for i in todo]
        for number, result in map_unordered(_evaluate, jobs, runtime, torch.get_num_threads()):
            yield todo[number], result, (payloads[todo[number]], result.to_dict(), None)

    return fetch_or_compute(cache, EVAL_KIND, [payload_key(p) for p in payloads], decode, compute)


def _evaluate(job: tuple[TrainedTransformer, EvalConfig, torch.device]) -> TransformerEval:
    """One evaluation, on the job's device (module-level: it travels to a worker process by reference)."""
    model, evaluation, device = job
    return evaluate_transformer(model, evaluation, device)
