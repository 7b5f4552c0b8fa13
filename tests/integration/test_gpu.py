"""--device cuda against the CPU, beyond ``tests/unit/test_device.py`` (which compares one-layer RoPE and APE
training): every other encoding, linear attention, several heads, the content task, the two-layer
transformer's training and evaluation, and the cache path on the GPU (keys, saving, loading).

Every test is skipped without CUDA; ``scripts/gpu-check`` runs this file on a GPU machine. The seeds'
data and initial weights come from CPU generators on every device, so the only differences are float32
rounding (other kernels, other summation orders), which Adam turns into weight differences that grow
slowly with the steps; a device bug (a mask, a table or a data stream on the wrong device, a silent
copy) moves the losses from the first step and the weights by O(lr * steps) everywhere.
"""

from __future__ import annotations

import pytest
import torch

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig
from lengthgen.engine.evaluate import evaluate_models
from lengthgen.store.one_layer import evaluated, train_key, trained
from lengthgen.engine.train import Member, train_members
from lengthgen.engine.evaluate_two_layer import evaluate_transformer
from lengthgen.engine.train_two_layer import TwoLayerSpec, train_transformers
from lengthgen.runtime import Runtime

from tests.helpers import tiny_spec

NO_CUDA = (
    "no CUDA device on this machine: the CPU-against-CUDA comparison needs one (torch.cuda.is_available() is False)"
)
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA)
CUDA = torch.device("cuda")


STEPS = 60  # Adam steps of the one-layer comparisons (as tests/unit/test_device.py)
TRANSFORMER_STEPS = 20  # the two-layer model: 20 steps of batch 8
# float32 rounding through STEPS Adam steps at lr 1e-3: a weight can move by at most lr * STEPS = 0.06,
# rounding moves it by far less (test_device.py's bound for RoPE/APE); a device bug moves it by O(0.06)
WEIGHT_ATOL = 1e-3
# the per-member training losses recorded every 10 steps: rounding-level relative differences
LOSS_RTOL = 1e-3
# accuracies over 512 sequences: a few sequences near a tie may flip (1/512 each)
ACCURACY_ATOL = 0.01
# the two-layer model: 20 steps at lr 1e-3 (a weight moves by at most 0.02; init std 0.02)
TRANSFORMER_WEIGHT_ATOL = 2e-3
# its per-position accuracies and attention over 256 sequences
TRANSFORMER_EVAL_ATOL = 0.02


def assert_close_models(cpu, gpu, weight_atol: float) -> None:
    for a, b in zip(cpu, gpu):
        for name in a.state:
            assert b.state[name].device.type == "cpu", f"{name} came back on {b.state[name].device}"
            diff = (a.state[name] - b.state[name]).abs().max().item()
            assert diff <= weight_atol, f"{name} (seed {a.seed}): CPU-CUDA difference {diff:.2e} > {weight_atol:g}"
        losses_a, losses_b = torch.tensor(a.trajectory["loss"]), torch.tensor(b.trajectory["loss"])
        assert a.trajectory["step"] == b.trajectory["step"]
        torch.testing.assert_close(losses_b, losses_a, rtol=LOSS_RTOL, atol=0)


VARIANTS = {  # one-layer configurations test_device.py does not cover
    "nope": tiny_spec("nope", steps=STEPS),
    "alibi": tiny_spec("alibi", steps=STEPS),
    "t5": tiny_spec("t5", steps=STEPS),
    "linear": tiny_spec("rope", steps=STEPS, attention="linear"),
    "heads-4": tiny_spec("rope", steps=STEPS, heads=4),
    "content": tiny_spec("rope", steps=STEPS).replace(task={"kind": "content", "offset": 2, "alt_offset": 3}),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_one_layer_variants_match_the_cpu(variant):
    members = [Member(VARIANTS[variant], 0), Member(VARIANTS[variant], 1)]
    evaluation = EvalConfig(lengths=(12, 24), sequences=512)
    cpu = train_members(members)
    cpu_eval = evaluate_models(cpu, evaluation)
    gpu = train_members(members, device=CUDA)
    gpu_eval = evaluate_models(gpu, evaluation, device=CUDA)
    assert_close_models(cpu, gpu, WEIGHT_ATOL)
    for rows_a, rows_b in zip(cpu_eval, gpu_eval):
        for ra, rb in zip(rows_a, rows_b):
            assert abs(ra.accuracy - rb.accuracy) <= ACCURACY_ATOL, (variant, ra.length, ra.accuracy, rb.accuracy)


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_two_layer_transformer_trains_and_evaluates_like_the_cpu(encoding):
    spec = TwoLayerSpec().replace(
        model={"encoding": encoding, "d": 32}, train={"steps": TRANSFORMER_STEPS, "batch": 8, "record_every": 5}
    )
    members = [Member(spec, 0), Member(spec, 1)]
    evaluation = EvalConfig(lengths=(16, 32), sequences=256)
    cpu = train_transformers(members)
    cpu_eval = [evaluate_transformer(m, evaluation) for m in cpu]
    gpu = train_transformers(members, device=CUDA)
    gpu_eval = [evaluate_transformer(m, evaluation, device=CUDA) for m in gpu]
    assert_close_models(cpu, gpu, TRANSFORMER_WEIGHT_ATOL)
    for a, b in zip(cpu_eval, gpu_eval):
        for t, (x, y) in enumerate(zip(a.position_accuracy, b.position_accuracy)):
            assert (x is None) == (y is None) and (x is None or abs(x - y) <= TRANSFORMER_EVAL_ATOL), (t, x, y)
        torch.testing.assert_close(
            torch.tensor(b.target_attention), torch.tensor(a.target_attention), atol=TRANSFORMER_EVAL_ATOL, rtol=0
        )


def test_the_cache_on_the_gpu_keeps_cuda_models_apart_and_loads_them_back(tmp_path):
    members = [Member(tiny_spec("rope", steps=STEPS), seed) for seed in (0, 1)]
    evaluation = EvalConfig(lengths=(12, 24), sequences=512)
    cpu_cache, cache = Cache(tmp_path), Cache(tmp_path, runtime=Runtime("cuda"))  # one folder, two devices
    cpu = trained(members, cpu_cache)
    cpu_keys = {train_key(m) for m in members}
    assert {train_key(m, CUDA) for m in members}.isdisjoint(cpu_keys)  # the device is part of the key
    gpu = trained(members, cache)
    assert cpu_cache.stats["train:computed"] == cache.stats["train:computed"] == 2  # nothing shared
    again = trained(members, cache)
    assert cache.stats["train:hit"] == 2
    for a, b in zip(gpu, again):
        for name in a.state:
            assert torch.equal(a.state[name], b.state[name])
    assert_close_models(cpu, gpu, WEIGHT_ATOL)
    gpu_rows = evaluated(gpu, evaluation, cache)
    cpu_rows = evaluated(cpu, evaluation, cpu_cache)
    for rows_a, rows_b in zip(cpu_rows, gpu_rows):
        for ra, rb in zip(rows_a, rows_b):
            assert abs(ra.accuracy - rb.accuracy) <= ACCURACY_ATOL, (ra.length, ra.accuracy, rb.accuracy)
