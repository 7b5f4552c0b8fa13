"""Every private torch call the library makes, against the public path it replaces.

The engine calls a few of torch's underscore functions directly. Each is kept only with a test here that
fails loudly if the pinned torch changes what it computes; a new private call in ``lengthgen/`` without one
fails ``test_every_private_call_is_covered``.
"""

from __future__ import annotations

import ast

import pytest
import torch

from lengthgen.seeding import generator
from tests.helpers import ROOT

# the private calls covered here (the fused Adam kernels and their step counter: tests/unit/test_fast_path.py's
# test_fused_adam_matches_torch_adam_bit_for_bit, bit for bit against torch.optim.Adam/AdamW(fused=True))
COVERED = {"_fused_adam_", "_fused_adamw_", "_foreach_add_", "_softmax_backward_data"}

# float32: the closed form sums the row's products in another order than the kernel
FORMULA_ATOL = 1e-6  # gradients of order 1


def _private_calls() -> dict[str, list[str]]:
    """Each ``torch._name`` attribute read in the library's code (not its comments or docstrings), with where."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "lengthgen").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "torch"
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.setdefault(node.attr, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_private_call_is_covered():
    calls = _private_calls()
    uncovered = {name: where for name, where in calls.items() if name not in COVERED}
    assert not uncovered, f"private torch calls without a test against their public path: {uncovered}"
    assert set(calls) == COVERED, f"covered but no longer called (drop them from COVERED): {COVERED - set(calls)}"


def _attention(shape: tuple[int, ...], dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits with masked (-inf) entries, as a padded sequence has, and an upstream gradient."""
    g = generator(0, "softmax-backward-test")
    logits = torch.randn(shape, generator=g)  # (S, H, P, B)
    logits.masked_fill_(torch.rand(shape, generator=g) < 0.2, float("-inf"))
    logits.select(dim, 0).clamp_(min=0.0)  # every softmax row keeps one finite entry
    return logits, torch.randn(shape, generator=g)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_softmax_backward_data_is_autograd_of_softmax(dtype):
    """The hand-derived backward's ``torch._softmax_backward_data(d_out, out, dim, dtype)`` is the gradient
    autograd takes through ``torch.softmax(x, dim)``: bit for bit, and the closed form out * (d - sum(d * out))."""
    dim = 2
    logits, upstream = _attention((3, 2, 7, 5), dim)  # (S, H, P, B)
    logits, upstream = logits.to(dtype).requires_grad_(), upstream.to(dtype)
    out = torch.softmax(logits, dim)  # (S, H, P, B)
    (autograd,) = torch.autograd.grad(out, logits, upstream)
    private = torch._softmax_backward_data(upstream, out.detach(), dim, out.dtype)
    assert torch.equal(private, autograd)
    closed = out.detach() * (upstream - (upstream * out.detach()).sum(dim, keepdim=True))
    gap = (private - closed).abs().max().item()
    assert gap <= FORMULA_ATOL, f"private softmax backward differs from the closed form by {gap}"
    assert torch.equal(private[out.detach() == 0], torch.zeros_like(private[out.detach() == 0]))
