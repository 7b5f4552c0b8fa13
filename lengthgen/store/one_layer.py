"""Trained models and their evaluations, through the cache: train (or evaluate) only what is missing.

``trained(members, cache)`` returns one :class:`TrainedModel` per member. Entries already in the cache
are loaded; the missing ones go through :func:`lengthgen.store.cache.fetch_or_compute` (one lock per entry:
the entries no other process holds are computed first, in as few ensemble passes as their signatures
allow, and each is saved and released as soon as it is done). ``evaluated(models, evaluation, cache)``
does the same for evaluation results; ``evaluated_variant`` for an evaluation under an inference-time
variant of the forward (``engine/evaluate_variants.py``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import torch

from lengthgen.store.cache import Cache, fetch_or_compute, payload_key
from lengthgen.config import EvalConfig
from lengthgen.device import CPU
from lengthgen.engine.evaluate import LengthEval, evaluate_models
from lengthgen.engine.evaluate_variants import VARIANT_FILES, InferenceVariant, evaluate_variant
from lengthgen.store.fingerprint import code_fingerprint, environment, spec_files
from lengthgen.engine.grouping import fill_workers, group_members
from lengthgen.engine.parallel import train_passes
from lengthgen.progress import progress_bar
from lengthgen.engine.train import Member, TrainedModel, ensemble_signature


def train_payload(member: Member, device: torch.device = CPU) -> dict[str, Any]:
    """Everything that decides the numbers of ``member`` trained on ``device``."""
    files = spec_files(member.spec.model.encoding, member.spec.task.kind)
    return {"what": "one-layer", "spec": member.spec.to_dict(), "seed": member.seed, **environment(files, device)}


def train_key(member: Member, device: torch.device = CPU) -> str:
    return payload_key(train_payload(member, device))


def trained(members: Sequence[Member], cache: Cache, progress: bool | None = None) -> list[TrainedModel]:
    """One trained model per member (cached, or trained now and cached).

    Missing members are trained on the cache's runtime (``cache.runtime``: its device, and its ``workers``) in as
    few ensemble passes as their signatures allow (split further while there are fewer passes than processes);
    more than one worker trains the passes in that many processes (the CLI's ``--workers``). With a Dask
    scheduler in the runtime (``--scheduler``, pytest's ``--lengthgen-scheduler``; :mod:`lengthgen.engine.cluster`)
    the passes train on its workers and are saved here, under the same locks.
    """
    runtime = cache.runtime
    device = runtime.device

    def decode(i: int, entry: tuple[dict, dict]) -> TrainedModel:
        meta, tensors = entry
        return TrainedModel(members[i].spec, members[i].seed, tensors, meta["trajectory"], meta["seconds"])

    def compute(todo: list[int]):
        passes = fill_workers(group_members([members[i] for i in todo]), runtime.workers)  # (no process left idle)
        index = {id(members[i]): i for i in todo}
        steps = sum(len(p) * p[0].spec.train.steps for p in passes)
        with progress_bar(steps, f"train {len(todo)} models", progress, unit="model-step") as update:
            for number, models in train_passes(
                passes, runtime, torch.get_num_threads(), update, payload=train_payload, key=payload_key
            ):
                for member, model in zip(passes[number], models):
                    meta = {"trajectory": model.trajectory, "seconds": model.seconds}
                    yield index[id(member)], model, (train_payload(member, device), meta, model.state)

    return fetch_or_compute(cache, "train", [train_key(m, device) for m in members], decode, compute)


def eval_payload(model: TrainedModel, evaluation: EvalConfig, device: torch.device = CPU) -> dict[str, Any]:
    train = train_key(Member(model.spec, model.seed), device)
    return {"what": "eval", "train": train, "eval": dataclasses.asdict(evaluation)}


def evaluated(
    models: Sequence[TrainedModel],
    evaluation: EvalConfig,
    cache: Cache,
    variant: dict[str, Any] | None = None,
    transform: Callable[[TrainedModel], TrainedModel] | None = None,
    variant_files: tuple[str, ...] = (),
    evaluate: Callable[..., list[list[LengthEval]]] | None = None,
) -> list[list[LengthEval]]:
    """Per model, its :class:`LengthEval` per evaluation length (cached, or computed now and cached).

    With ``transform``, the weights evaluated are ``transform(model)`` (e.g. an inference-time fix of the APE table);
    with ``evaluate(models, evaluation, device=device)``, the evaluation itself is another function of the models (e.g.
    an inference-time change of the forward, ``engine/evaluate_variants.py``). Models run on the cache's runtime's
    device. Either way ``variant`` (plain data naming the change) and the code fingerprint of ``variant_files`` (the
    files that implement it) join the cache key.
    """
    changed = transform is not None or evaluate is not None
    if (variant is not None) != changed:  # a changed evaluation stored under the plain key would feed wrong numbers
        raise ValueError(
            f"variant {variant!r} must name a transform or an evaluate function, and only then "
            f"(transform {transform!r}, evaluate {evaluate!r})"
        )
    evaluate = evaluate or evaluate_models
    device = cache.runtime.device
    payloads = [eval_payload(m, evaluation, device) for m in models]
    if variant is not None:
        named = {"variant": variant, "variant_code": code_fingerprint(variant_files)}
        payloads = [{**p, **named} for p in payloads]

    def decode(i: int, entry: tuple[dict, dict]) -> list[LengthEval]:
        return [LengthEval.from_dict(row) for row in entry[0]["lengths"]]

    def compute(todo: list[int]):
        groups: dict[Any, list[int]] = {}
        for i in todo:
            groups.setdefault(ensemble_signature(models[i].spec), []).append(i)
        for indices in groups.values():
            chosen = [models[i] if transform is None else transform(models[i]) for i in indices]
            evaluations = evaluate(chosen, evaluation, device=device)
            for i, rows in zip(indices, evaluations):
                yield i, rows, (payloads[i], {"lengths": [r.to_dict() for r in rows]}, None)

    return fetch_or_compute(cache, "eval", [payload_key(p) for p in payloads], decode, compute)


def evaluated_variant(
    models: Sequence[TrainedModel], evaluation: EvalConfig, cache: Cache, variant: InferenceVariant
) -> list[list[LengthEval]]:
    """Per model, its :class:`LengthEval` per length under ``variant`` (cached, or computed now and cached).

    The key is the plain evaluation's payload plus the variant and the fingerprint of the file that
    implements it (``VARIANT_FILES``).
    """
    return evaluated(
        models,
        evaluation,
        cache,
        variant={"inference": variant.to_dict()},
        variant_files=VARIANT_FILES,
        evaluate=lambda chosen, ev, device: evaluate_variant(chosen, ev, variant, device),
    )
