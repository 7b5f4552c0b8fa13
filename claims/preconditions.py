"""The claims' preconditions (catalogue, "Admissible readings"): what the paper reports of the models a claim
reads, which the claim presupposes. A multiverse cell measures them on its universe's own models before the
claim's checks; one that fails rules the cell out (``ClaimRecorder.rule_out``: the verdict "ruled out", a
reading the paper's own results exclude, neither reproduced nor not). At the paper's point every precondition
holds (``claims/test_admissibility.py``), and a precondition never changes a verdict there.

- ``one-layer fit``: the universe's reference one-layer heads (the C1 grid: RoPE and APE, K = 1, 2, 3, the
  paper's 8 seeds) fit the training task in range. The paper reports near-perfect in-range accuracy for them;
  a reading under which they do not fit is one the paper cannot have used, whichever claim reads its models.
  Measured before the claim's own models are trained, so a ruled-out universe trains nothing more.
- ``content fit``: the content-task heads with H = 1 and H = 2 solve the task in range (the paper: one head
  "implements both offsets", "with two heads ... solved at 1.00"; it reports nothing of four heads in range, so
  the experiment's H = 4 heads are no precondition).
- ``two-layer fit``: the cell's two-layer RoPE and APE transformers (at the cell's width) fit their task in
  range: measured on the claim's own models (they are the models it reads).

Every one reads "fits in range" as the catalogue does: seed-mean accuracy >= :data:`FIT` at every L <= Lmax
of each K. What a claim itself asserts (C11's linear heads fitting, C19's ALiBi heads) is its check, not a
precondition: the paper's point does not meet C19's, which is that claim's finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from lengthgen.records.check import fit_text, model_of
from lengthgen.scale import Scale

FIT = 0.95  # seed-mean accuracy at every L <= Lmax: the catalogue's reading of the paper's "near-perfect"
FIT_NOTE = (
    'the paper reports its heads fit the task "near-perfectly" in range; the catalogue ("Admissible readings") '
    "reads it as seed-mean accuracy >= 0.95 at every L <= 16 of each K"
)
ONE_LAYER, CONTENT, TWO_LAYER = "one-layer fit", "content fit", "two-layer fit"


@dataclass(frozen=True)
class Precondition:
    """A fact the paper reports of the models a claim reads."""

    name: str  # "one-layer fit", ...: the name the declarations use
    what: str  # in words, for the reason of a ruled-out cell
    on_result: bool  # measured on the claim's own result (after its measure), not on models of its own before
    measure: Callable[[Scale, Any, Any], list[tuple[str, dict[str, Any], list[float]]]]  # (scale, cache, result)
    # -> [(check name, its coordinates, per-seed in-range accuracy)], every one compared with FIT
    reports: tuple[str, ...] = ()  # the models the paper reports fitting, as the check names call them ("RoPE",
    # "content H=2"): a check may measure only these (``models_of``)
    words: str = ""  # what the paper says of them, quoted


def _grid(scale: Scale, cache: Any, result: Any) -> list[tuple[str, dict[str, Any], list[float]]]:
    from claims.grid import phenomenon_result

    grid = phenomenon_result(scale, cache)
    return [
        (
            f"{enc.upper() if enc != 'rope' else 'RoPE'} K={k} L={length}: in-range accuracy",
            {"encoding": enc, "K": k, "L": length},
            grid.accuracy(enc, k, length),
        )
        for enc in grid.encodings
        for k in grid.offsets
        for length in grid.lengths
        if length <= grid.max_len
    ]


REPORTED_HEADS = (1, 2)  # the head counts the paper reports solving the content task (not the experiment's 4)


def _content(scale: Scale, cache: Any, result: Any) -> list[tuple[str, dict[str, Any], list[float]]]:
    from claims.multihead import measure

    content = measure(scale, cache)
    return [
        (f"content H={h} L={length}: in-range accuracy", {"H": h, "L": length}, content.accuracy(h, length))
        for h in content.heads
        if h in REPORTED_HEADS
        for length in content.lengths
        if length <= content.max_len
    ]


def _two_layer(scale: Scale, cache: Any, result: Any) -> list[tuple[str, dict[str, Any], list[float]]]:
    return [
        (
            f"two-layer {enc.upper() if enc != 'rope' else 'RoPE'} L={length}: in-range accuracy",
            {"encoding": enc, "L": length},
            result.accuracy(enc, length),
        )
        for enc in result.encodings
        for length in result.lengths
        if length <= result.max_len
    ]


PRECONDITIONS: dict[str, Precondition] = {
    p.name: p
    for p in (
        Precondition(
            ONE_LAYER,
            "the one-layer RoPE and APE heads fit the task in range",
            False,
            _grid,
            ("RoPE", "APE"),
            'a RoPE head "keeps near-perfect accuracy" and the APE head collapses only "the moment it encounters an '
            'unseen length" (Fig. 1, Table 1)',
        ),
        Precondition(
            CONTENT,
            "the content-task heads with H = 1 and H = 2 solve it in range",
            False,
            _content,
            ("content H=1", "content H=2"),
            'one head "implements both offsets"; "with two heads ... solved at 1.00" (the multi-head paragraph)',
        ),
        Precondition(
            TWO_LAYER,
            "the two-layer transformers fit their task in range",
            True,
            _two_layer,
            ("two-layer RoPE", "two-layer APE"),
            '"RoPE generalizes while APE degrades out of range": both fit in range (Sec. 5.2)',
        ),
    )
}


def of(spec: Any) -> tuple[Precondition, ...]:
    """The preconditions of a claim: by the model families it reads, and the content heads where it reads them."""
    names = [ONE_LAYER] if "one-layer" in spec.families else []
    names += [CONTENT] if spec.reads_content else []
    names += [TWO_LAYER] if "two-layer" in spec.families else []
    return tuple(PRECONDITIONS[n] for n in names)


def record(claim: Any, precondition: Precondition, scale: Scale, cache: Any, result: Any = None) -> list[str]:
    """Measure ``precondition`` and record each of its checks on ``claim``; the failed ones' descriptions. A check
    of a model the paper does not report of is a ValueError (a precondition measures only what the paper reports)."""
    failed = []
    for name, at, values in precondition.measure(scale, cache, result):
        if model_of(name) not in precondition.reports:
            raise ValueError(f"{precondition.name}: {name!r} measures a model the paper reports nothing of")
        made = claim.precondition(
            f"{precondition.name}: {name}",
            values,
            ">=",
            FIT,
            paper="near-perfect in range",
            source="suite-reading",
            source_note=FIT_NOTE,
            at=at,
        )
        if not made.passed:
            failed.append(f"{name} {made.value:.3g}")
    return failed


def rule_out_if_failed(claim: Any, precondition: Precondition, failed: list[str]) -> bool:
    """Rule the cell out when ``failed`` is not empty: the reason names the precondition, and which of its models
    fail and which fit, with their numbers."""
    if not failed:
        return False
    mine = [c for c in claim.record.preconditions if c.name.startswith(f"{precondition.name}: ")]
    claim.rule_out(
        f"ruled out by {precondition.name} ({precondition.what}; the paper: near-perfect, read as >= {FIT}): "
        f"{fit_text(mine)}"
    )
    return True
