"""--device (pytest's --lengthgen-device): CPU by default, CUDA on request; the same results within float32
rounding, and the device is part of the cache key. The CUDA comparison runs where a GPU exists and is
skipped where none does."""

from __future__ import annotations

import pytest
import torch

from lengthgen.config import EvalConfig
import inspect

from lengthgen.device import CPU, device_named
from lengthgen.engine.ensemble import stack, train_ensemble
from lengthgen.engine.evaluate_two_layer import evaluate_transformer, vocabulary_carriers
from lengthgen.engine.evaluate_variants import evaluate_variant
from lengthgen.engine.train_two_layer import train_transformers
from lengthgen.engine.evaluate import evaluate_models
from lengthgen.engine.train import Member, train_members
from lengthgen.runtime import Runtime
from lengthgen.store.one_layer import train_key

from tests.helpers import tiny_spec

# Over 60 Adam steps, float32 arithmetic on a GPU (other kernels, other summation orders) moves weights
# by rounding-level amounts that grow slowly; accuracies over 512 sequences then agree to a few
# sequences at most.
DEVICE_WEIGHT_ATOL = 1e-3
DEVICE_ACCURACY_ATOL = 0.01

NO_CUDA = "no CUDA device on this machine: the GPU comparison needs one (torch.cuda.is_available() is False)"


def test_default_is_cpu():
    assert Runtime().device == CPU == torch.device("cpu")


# every engine function that puts tensors on a device: each takes it as an argument, the CPU by default
ENGINE_FUNCTIONS = (
    stack,
    train_ensemble,
    train_members,
    evaluate_models,
    evaluate_variant,
    train_transformers,
    evaluate_transformer,
    vocabulary_carriers,
)


@pytest.mark.parametrize("function", ENGINE_FUNCTIONS, ids=lambda f: f.__name__)
def test_the_engine_takes_its_device_as_an_argument(function):
    assert inspect.signature(function).parameters["device"].default == CPU


def test_the_device_module_keeps_no_current_device():
    import lengthgen.device as device

    assert not hasattr(device, "get_device") and not hasattr(device, "computing_on")


def test_stacked_parameters_live_on_the_device_given():
    modules = [torch.nn.Linear(2, 3), torch.nn.Linear(2, 3)]
    meta = torch.device("meta")  # any device other than the CPU: moving onto it computes nothing
    assert {p.device for p in stack(modules, meta).values()} == {meta}
    assert {p.device for p in stack(modules).values()} == {CPU}


def test_a_runtime_takes_a_device_by_name():
    assert Runtime("cpu").device == CPU


@pytest.mark.parametrize("name, fragment", [("tpu", "'tpu'"), ("mps", "'mps'")])
def test_unknown_devices_rejected(name, fragment):
    with pytest.raises(ValueError, match=fragment):
        device_named(name)
    with pytest.raises(ValueError, match=fragment):
        Runtime(name)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA; the absent-device error cannot occur")
def test_cuda_without_a_gpu_is_a_clear_error():
    with pytest.raises(ValueError, match="no CUDA device is available"):
        Runtime("cuda")


def test_device_is_part_of_the_cache_key():
    member = Member(tiny_spec(), 0)
    assert train_key(member, torch.device("cuda")) != train_key(member) == train_key(member, CPU)


@pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA)
@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_cuda_matches_cpu_within_tolerance(encoding):
    spec = tiny_spec(encoding, steps=60)
    members = [Member(spec, 0), Member(spec, 1)]
    evaluation = EvalConfig(lengths=(12, 24), sequences=512)
    cpu = train_members(members)
    cpu_eval = evaluate_models(cpu, evaluation)
    cuda = torch.device("cuda")
    gpu = train_members(members, device=cuda)
    gpu_eval = evaluate_models(gpu, evaluation, device=cuda)
    for a, b in zip(cpu, gpu):
        for name in a.state:
            assert b.state[name].device.type == "cpu"
            torch.testing.assert_close(a.state[name], b.state[name], atol=DEVICE_WEIGHT_ATOL, rtol=0)
    for rows_a, rows_b in zip(cpu_eval, gpu_eval):
        for ra, rb in zip(rows_a, rows_b):
            assert abs(ra.accuracy - rb.accuracy) <= DEVICE_ACCURACY_ATOL
