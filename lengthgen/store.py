"""Trained models and their evaluations, through the cache: train (or evaluate) only what is missing.

``trained(members, cache)`` returns one :class:`TrainedModel` per member. Entries already in the cache
are loaded; the missing ones are locked (one lock per entry, in sorted order), looked up again (another
process may have finished them meanwhile), trained in as few ensemble passes as their signatures allow,
and saved. ``evaluated(models, evaluation, cache)`` does the same for evaluation results.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import torch

import lengthgen
from lengthgen.cache import Cache, payload_key
from lengthgen.config import EvalConfig
from lengthgen.evaluate import LengthEval, evaluate_models
from lengthgen.fingerprint import code_fingerprint, spec_files
from lengthgen.parallel import get_workers, train_passes
from lengthgen.progress import progress_bar
from lengthgen.grouping import group_members
from lengthgen.train import Member, TrainedModel, ensemble_signature


def environment(extra_files: tuple[str, ...] = ()) -> dict[str, Any]:
    """What besides the config decides the numbers."""
    return {
        "code": code_fingerprint(extra_files),
        "version": lengthgen.__version__,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
    }


def train_payload(member: Member) -> dict[str, Any]:
    files = spec_files(member.spec.model.encoding, member.spec.task.kind)
    return {"what": "one-layer", "spec": member.spec.to_dict(), "seed": member.seed, **environment(files)}


def train_key(member: Member) -> str:
    return payload_key(train_payload(member))


def _from_entry(member: Member, entry: tuple[dict, dict]) -> TrainedModel:
    meta, tensors = entry
    return TrainedModel(member.spec, member.seed, tensors, meta["trajectory"], meta["seconds"])


def trained(
    members: Sequence[Member], cache: Cache, progress: bool | None = None, workers: int | None = None
) -> list[TrainedModel]:
    """One trained model per member (cached, or trained now and cached).

    ``workers`` > 1 trains the missing ensemble passes in that many processes (default: the process-wide
    setting of ``lengthgen.parallel.set_workers``, which the CLI's ``--workers`` sets).
    """
    workers = get_workers() if workers is None else workers
    keys = [train_key(m) for m in members]
    found: dict[str, TrainedModel] = {}
    for member, key in zip(members, keys):
        if key not in found and (entry := cache.load("train", key)) is not None:
            found[key] = _from_entry(member, entry)
    missing = {key: member for member, key in zip(members, keys) if key not in found}
    if missing:
        with cache.locks("train", list(missing)):
            todo = []
            for key, member in missing.items():
                entry = cache.load("train", key)  # another process may have trained it while we waited
                if entry is not None:
                    found[key] = _from_entry(member, entry)
                else:
                    todo.append(member)
            passes = group_members(todo)
            steps = sum(len(p) * p[0].spec.train.steps for p in passes)
            with progress_bar(steps, f"train {len(todo)} models", progress, unit="model-step") as update:
                for index, models in train_passes(passes, workers, torch.get_num_threads(), update):
                    for member, model in zip(passes[index], models):
                        key = train_key(member)
                        meta = {"trajectory": model.trajectory, "seconds": model.seconds}
                        cache.save("train", key, train_payload(member), meta, model.state)
                        found[key] = model
    return [found[key] for key in keys]


def eval_payload(model: TrainedModel, evaluation: EvalConfig) -> dict[str, Any]:
    return {"what": "eval", "train": train_key(Member(model.spec, model.seed)), "eval": dataclasses.asdict(evaluation)}


def evaluated(models: Sequence[TrainedModel], evaluation: EvalConfig, cache: Cache) -> list[list[LengthEval]]:
    """Per model, its :class:`LengthEval` per evaluation length (cached, or computed now and cached)."""
    payloads = [eval_payload(m, evaluation) for m in models]
    keys = [payload_key(p) for p in payloads]
    found: dict[str, list[LengthEval]] = {}

    def lookup(key: str) -> bool:
        entry = cache.load("eval", key)
        if entry is not None:
            found[key] = [LengthEval.from_dict(row) for row in entry[0]["lengths"]]
        return entry is not None

    missing = {key: i for i, key in enumerate(keys) if key not in found and not lookup(key)}
    if missing:
        with cache.locks("eval", list(missing)):
            groups: dict[Any, list[int]] = {}
            for key, i in missing.items():
                if not lookup(key):
                    groups.setdefault(ensemble_signature(models[i].spec), []).append(i)
            for indices in groups.values():
                for i, rows in zip(indices, evaluate_models([models[i] for i in indices], evaluation)):
                    cache.save("eval", keys[i], payloads[i], {"lengths": [r.to_dict() for r in rows]})
                    found[keys[i]] = rows
    return [found[key] for key in keys]
