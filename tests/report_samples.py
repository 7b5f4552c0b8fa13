"""Recorded claim results for the report's tests: one record per verdict and per figure kind, built
with the same ``ClaimRecorder`` and verdict rule as a real run (no training), each from its claim's catalogue
entry as the plugin passes it (``claims.registry``: the record's words, title and kind). A report that needs the
claims' catalogue or multiverse plan takes them from ``tests.helpers.registry()``, as a claims run records them."""

from __future__ import annotations

import copy
import math

from lengthgen.report import figure_specs as figures
from lengthgen.records import ClaimRecorder, Declared
from lengthgen.records.verdict import broken, decide
from lengthgen.scale import PAPER as PAPER_SCALE

from claims.multiverse import COLUMNS
from claims.registry import CLAIMS

LENGTHS = [12, 16, 20, 24, 32, 40, 48]
PAPER8 = {
    "name": "paper",
    "seeds": 8,
    "seed_list": list(range(8)),
    "paper_seeds": 8,
    "steps": 4000,
    "sequences": 4096,
    "lengths": LENGTHS,
}
QUICK8 = dict(PAPER8, name="quick", steps=1000, sequences=1024)


def _finish(recorder: ClaimRecorder, broke: str | None = None, reason: str | None = None, runtime: float = 1.5) -> dict:
    """The record as the plugin finishes it: decided by the verdict rule, or ``broke`` ("skipped", "error",
    "failed") with pytest's ``reason``."""
    record = recorder.record
    record.runtime_s = runtime
    if broke is None:
        if record.verdict is None:
            decide(record)
    else:
        broken(record, broke, reason)
    return record.to_dict()


def reproduced() -> dict:
    """C1 at paper scale: every check passes; a lines figure with per-seed bands and reference lines."""
    c = ClaimRecorder(CLAIMS["C1"].entry, "claims/test_c01_phenomenon.py::test_rope_generalizes_ape_collapses[paper]")
    c.set_scale(**PAPER8)
    c.choice("training lengths drawn per sequence, uniform in [8, 16]")
    c.note("a note <with> markup & ampersands")
    rope = [[1.0, 1.0, 0.99, 0.99, 0.97 - 0.01 * s, 0.93, 0.9] for s in range(8)]
    ape = [[1.0, 0.99, 0.06, 0.05, 0.05, 0.06, 0.05 + 0.005 * s] for s in range(8)]
    c.check("RoPE K=1 L=48: accuracy", [row[-1] for row in rope], ">=", 0.85, paper="near 1.00")
    c.check("APE K=1 L=20: accuracy", [row[2] for row in ape], "<=", 0.15, paper="near 0.05")
    c.measure("rope accuracy beyond the training range", [sum(r[2:]) / 5 for r in rope])
    c.figure(
        "accuracy_vs_length_K1",
        figures.lines(
            "Accuracy against length, K = 1",
            "evaluation length L",
            "accuracy",
            [
                figures.series("RoPE", LENGTHS, per_seed=rope),
                figures.series("APE", LENGTHS, per_seed=ape, style="dashed"),
            ],
            hlines=[(0.05, "chance")],
            vlines=[(16, "longest training length")],
        ),
    )
    return _finish(c, runtime=130.0)


def failed() -> dict:
    """C4 at paper scale: an assertion outside the recorder fails the test (a regression of the suite)."""
    c = ClaimRecorder(CLAIMS["C4"].entry, "claims/test_c04_carrier.py::test_carrier[paper]")
    c.set_scale(**dict(PAPER8, seeds=5, seed_list=list(range(5)), paper_seeds=5))
    c.check("key carrier fraction K=2", [0.41, 0.44, 0.39, 0.42, 0.40], "in", (0.65, 0.95), paper="0.80")
    c.check("cos(m_Q, R_-K m_K) K=2", [0.8, 0.82, 0.85, 0.79, 0.81], ">=", 0.6, paper="0.83")
    c.figure(
        "carrier_fraction",
        figures.bars(
            "Carrier fractions",
            "fraction",
            ["K=2", "K=3"],
            [
                {"label": "keys", "per_seed": [[0.41, 0.44, 0.39], [0.5, 0.52, 0.49]]},
                {"label": "queries", "values": [0.7, 0.72]},
            ],
            hlines=[(0.65, "threshold")],
        ),
    )
    return _finish(c, "failed", "AssertionError: C4 failed: 1 of 2 checks failed")


def not_reproduced() -> dict:
    """C8 at paper scale: a strict xfail with the measured value in its reason."""
    c = ClaimRecorder(CLAIMS["C8"].entry, "claims/test_c08_pinning.py::test_ape_head_pins_inside_training_range[paper]")
    c.set_scale(**PAPER8)
    c.check(
        "APE K=3 L=48: peak absolute position of every seed",
        [10, 12, 8, 12, 44, 12, 10, 12],
        "<",
        16.0,
        reduce="all",
        paper="inside the training range",
    )
    c.record.declared = Declared(("APE K=3 L=48: *",), "a flat profile")
    c.figure(
        "peak_positions",
        figures.heatmap(
            "Peak absolute position",
            "L",
            "seed",
            [20, 24, 32, 40, 48],
            list(range(3)),
            [[10, 12, 8, 12, 44], [12, 12, 4, 12, 12], [5, 6, 8, 9, 12]],
        ),
    )
    return _finish(c)


def inconclusive_seeds() -> dict:
    """C6 with 2 of the paper's 8 seeds: passes, but the mean's 95% interval contains the threshold."""
    c = ClaimRecorder(CLAIMS["C6"].entry, "claims/test_c06_dilution.py::test_dilution[paper]")
    c.set_scale(**dict(PAPER8, seeds=2, seed_list=[0, 1]))
    c.check("K=2: R^2 of the fit of 1/a* on L-1", [0.80, 0.95], ">=", 0.85, paper="linear")
    c.measure("slope c", [0.1, float("nan")])  # a NaN must survive into strict JSON as null
    c.figure(
        "inverse_peak",
        figures.lines(
            "1/a* against L-1",
            "L-1",
            "1/a*",
            [
                figures.series("seed 0", [11, 15, 19], y=[1.2, 1.6, 2.0], style="points"),
                figures.series("fit", [11, 15, 19], y=[1.2, 1.6, 2.0], style="dotted"),
            ],
            xscale="log",
            yscale="log",
            note="fitted lines dotted",
        ),
    )
    return _finish(c)


def skipped() -> dict:
    """C9 at quick scale: skipped (no quick variant)."""
    c = ClaimRecorder(CLAIMS["C9"].entry, "claims/test_c09_weight_decay.py::test_weight_decay[quick]")
    c.set_scale(**QUICK8)
    return _finish(c, "skipped", "no quick variant: the claim needs 4000 steps", runtime=0.001)


def broken_figure() -> dict:
    """C15 at quick scale: reproduced, one drawable figure and one malformed spec."""
    c = ClaimRecorder(
        CLAIMS["C15"].entry, "claims/test_c15_kernel.py::test_rotary_kernel_peaks_uniquely_at_zero[quick]"
    )
    c.set_scale(name="quick", seeds=0, steps=0)
    c.check("base 1e+04: max_(s>=4) g(s)/g(0)", 0.7479, "in", (0.74, 0.76), paper="0.75", exact=True)
    c.figure(
        "kernel",
        figures.lines(
            "g(s)/g(0)", "s", "ratio", [figures.series("base 1e4", range(50), y=[math.cos(s / 7) for s in range(50)])]
        ),
    )
    c.figure("malformed", {"kind": "lines", "title": "broken", "series": [{"label": "no data", "x": [1, 2]}]})
    return _finish(c, runtime=0.01)


def close_call() -> dict:
    """C10 at paper scale, 3 seeds: reproduced, but its deciding cell's interval contains 0.15 (a close call,
    shaped like C9's lambda = 1e-4, K = 1, L = 20 cell)."""
    c = ClaimRecorder(CLAIMS["C10"].entry, "claims/test_c10_ape_fixes.py::test_fixes_stay_at_chance[paper]")
    c.set_scale(**dict(PAPER8, seeds=3, seed_list=[0, 1, 2], paper_seeds=3))
    c.check("clamp K=1 L=20: APE accuracy", [0.146, 0.149, 0.147], "<=", 0.15, paper="chance (0.05)")
    c.check("rescale K=1 L=20: APE accuracy", [0.11, 0.12, 0.115], "<=", 0.15, paper="chance (0.05)")
    return _finish(c, runtime=40.0)


def _c18_values(seed: int) -> tuple[float, float]:
    """Synthetic dilution rates c(d=32), c(d=64) of one seed: d=32's lead is small against the spread."""
    return 0.0125 + 0.0025 * math.sin(3.7 * seed), 0.0100 + 0.0025 * math.cos(2.3 * seed)


def until_decided() -> dict:
    """C18 through the --lengthgen-until-decided loop (claims.run.run_claim, MAX 12): a seed-bootstrap statistic of
    the seed-mean curve, close with 3 seeds, then decided with more."""
    import dataclasses

    from claims.run import run_claim
    from claims.spec import ClaimSpec
    from lengthgen.scale import PAPER
    from lengthgen.sequential import Plan

    def measure(scale):
        return [_c18_values(seed) for seed in scale.seed_list(3)]

    def lead(rows) -> float:
        return sum(r[0] for r in rows) / len(rows) - sum(r[1] for r in rows) / len(rows)

    def check(claim, rows):
        claim.check(
            "K=2: c(d=32) - c(d=64) of the seed means", lead(rows), ">", 0.0, paper="falls", bootstrap=(rows, lead)
        )

    c = ClaimRecorder(
        CLAIMS["C18"].entry, "claims/test_c18_width_dilution.py::test_dilution_rate_falls_with_width[paper]"
    )
    words = {k: getattr(CLAIMS["C18"], k) for k in ("title", "where", "statement", "assertion", "paper_value")}
    spec = ClaimSpec("C18", **words, paper_seeds=3, measure=lambda scale, cache: measure(scale), checks=(check,))
    run_claim(spec, c, dataclasses.replace(PAPER, seeds=None), None, plan=Plan(12))
    return _finish(c, runtime=12.0)


def all_records() -> list[dict]:
    return [
        broken_figure(),
        skipped(),
        inconclusive_seeds(),
        not_reproduced(),
        failed(),
        reproduced(),
        close_call(),
        until_decided(),
    ]


def controls(record: dict, more: int = 0) -> list[dict]:
    """Negative-control records made from an assembled claim ``record``: one that failed (every check passed on
    the counterfactual), one that discriminates, then ``more`` copies of the failed one under other test ids."""
    control = dict(
        copy.deepcopy(record),
        kind="control",
        verdict="failed",
        verdict_reason="every check passed on the counterfactual\nmore",
        test="claims/test_c01_phenomenon.py::test_control[paper]",
    )
    good = dict(control, verdict="discriminates", test="claims/test_c01_phenomenon.py::test_other[paper]")
    others = [dict(control, test=f"claims/test_c01_phenomenon.py::test_c{i}[paper]") for i in range(more)]
    return [control, good, *others]


ENVIRONMENT = {
    "lengthgen": "0.1.0",
    "code_fingerprint": "0123456789abcdef",
    "suite_fingerprint": "fedcba9876543210",
    "torch": "2.13.0+cpu",
    "python": "3.11.7",
    "threads_per_process": 1,
    "workers": 2,
    "wall_time_s": 151.2,
    "models_trained": 48,
    "models_from_cache": 72,
    "command": "pytest claims -n 2",
    "cache": {"train:computed": 48, "train:hit": 72},
}


# ----------------------------------------------------------------------------------------------- multiverse

MULTIVERSE_TEST = "claims/test_multiverse.py::test_multiverse[{reading}-{column}]"  # claims/test_multiverse.py's ids


def multiverse_cell(
    reading: str, column: str, checks: list[tuple], declared: tuple[list[str], str] | None = None, strict: bool = True
) -> dict:
    """A multiverse cell's record as ``claims/test_multiverse.py`` makes it (``reading`` set on the record and
    the scale, the claim's own checks, a declaration carried or non-strict) and the plugin finishes it:
    ``verify()`` decides the outcome (AssertionError: failed, NotReproduced: xfailed), then the verdict rule.
    ``checks``: (name, values, op, threshold) each, or with a fifth item: the check's ``reduce``."""
    from lengthgen.records import NotReproduced

    c = ClaimRecorder(COLUMNS[column].entry, MULTIVERSE_TEST.format(reading=reading, column=column))
    c.set_universe(reading)
    c.set_scale(**PAPER8, universe=reading)
    c.choice(f"multiverse universe {reading}")
    for name, values, op, threshold, *reduce in checks:
        c.check(name, values, op, threshold, source="suite-reading", **({"reduce": reduce[0]} if reduce else {}))
    if declared is not None:
        c.expect_not_reproduced(PAPER_SCALE, Declared(tuple(declared[0]), declared[1]), strict=strict)
    try:
        c.verify()
    except (NotReproduced, AssertionError):
        pass  # the verdict is on the record
    return _finish(c, runtime=20.0)


C1_ROPE = ("RoPE K=1 L=48: accuracy", [0.97, 0.95, 0.99, 0.96, 0.98, 0.97, 0.96, 0.99], ">=", 0.85)
C8_PEAK = ("APE K=3 L=48: peak absolute position of every seed", [10, 12, 8, 12, 44, 12, 10, 12], "<", 16.0, "all")
C8_WHY = "a flat profile"


def multiverse_records() -> list[dict]:
    """Cells against :func:`all_records`' C1 (reproduced) and C8 (not reproduced): C1 not reproduced
    (undeclared) under init=gpt2 (APE leaves chance at L = 20: 0.31 > 0.15), C1 reproduced under
    ape-value=token, C8's non-reproduction carried under ape-rows=zero, C8 reproduced under init=gpt2 (its
    declaration non-strict there), C10 (a close call) reproduced under ape-value=token (it holds). C4 (failed)
    has no cell: "not run in the multiverse"."""
    ape_off = ("APE K=1 L=20: accuracy", [0.31, 0.29, 0.33, 0.30, 0.32, 0.31, 0.30, 0.32], "<=", 0.15)
    ape_ok = ("APE K=1 L=20: accuracy", [0.05, 0.06, 0.05, 0.04, 0.06, 0.05, 0.05, 0.06], "<=", 0.15)
    inside = ("APE K=3 L=48: peak absolute position of every seed", [10, 12, 8, 12, 11, 12, 10, 12], "<", 16.0, "all")
    return [
        multiverse_cell("init=gpt2", "C1", [C1_ROPE, ape_off]),
        multiverse_cell("ape-value=token", "C1", [C1_ROPE, ape_ok]),
        multiverse_cell("ape-rows=zero", "C8", [C8_PEAK], (["APE K=3 L=48: *"], C8_WHY)),
        multiverse_cell("init=gpt2", "C8", [inside], (["APE K=3 L=48: *"], C8_WHY), strict=False),
        multiverse_cell("ape-value=token", "C10", [("clamp K=1 L=20: APE accuracy", [0.10, 0.11, 0.12], "<=", 0.15)]),
    ]
