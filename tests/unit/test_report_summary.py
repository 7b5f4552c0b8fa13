"""The terminal summary and the one-line texts shared with the page."""

from __future__ import annotations

from lengthgen.catalogue import Catalogue
from lengthgen.report import summary_lines
from lengthgen.analysis.run_view import RunView, completeness, record_of, run_scale
from lengthgen.report.text import headline, num, scale_text
from tests.helpers import registry
from tests.report_samples import ENVIRONMENT, all_records, failed, reproduced, skipped


def test_summary_has_one_block_per_claim_with_paper_and_measured():
    lines = summary_lines(RunView.from_records(all_records(), ENVIRONMENT, registry()), width=140)
    assert all(len(line) <= 140 for line in lines)
    starts = [line.split()[0] for line in lines[1:] if line[:1] == "C"]
    assert starts == ["C1", "C4", "C6", "C8", "C9", "C10", "C15", "C18"]
    text = "\n".join(lines)
    assert "8 seeds, K in {1,2,3}; RoPE near 1.00" in text  # C1's paper value
    assert "rope accuracy beyond the training range: 0.949" in text  # C1's measured headline
    assert "key carrier fraction K=2: 0.412 in [0.65, 0.95]" in text  # C4's failed check
    assert "-> C8: 1 of 1 checks fail as expected (a flat profile)" in text  # why C8 is not reproduced
    start = next(i for i, line in enumerate(lines) if line.startswith("run:"))
    run = " ".join(line.strip() for line in lines[start : start + 2] if not line.startswith("wall time"))
    claims = len(registry().catalogue.claims)
    assert run.startswith(
        f"run: mixed scale, partial: 8 of {claims} catalogue claims; 3 reproduced, 1 reproduced (close), "
        "1 not reproduced"
    )
    assert "models trained 48, from the cache 72" in lines[-1]


def test_narrow_terminals_wrap_rather_than_overflow():
    lines = summary_lines([reproduced()], width=60)  # below the minimum width: laid out at 100
    assert max(len(line) for line in lines[:-1]) <= 100
    assert sum(1 for line in lines if line.startswith("C1")) == 1


def test_headline_prefers_the_failed_check_then_measured_then_nearest_check():
    assert headline(failed()).startswith("key carrier fraction K=2: 0.412 in")
    assert headline(reproduced()).startswith("rope accuracy beyond the training range: 0.949 [")
    assert headline(skipped()) == "no measurement recorded"


def test_run_scale_and_label():
    def scale(records):
        return run_scale([record_of(r) for r in records])

    def label(records, catalogue):
        return completeness([record_of(r) for r in records], catalogue).label

    assert scale([reproduced()]) == "paper"
    assert scale([reproduced(), skipped()]) == "paper"  # a skipped test does not make a run mixed
    assert scale([reproduced(), {**skipped(), "verdict": "reproduced"}]) == "mixed"
    claims = len(registry().catalogue.claims)
    assert label([skipped()], registry().catalogue) == f"quick scale, partial: 1 of {claims} catalogue claims"
    assert label([skipped()], Catalogue()) == "quick scale: 1 claim (no catalogue recorded)"


def test_numbers_and_scales_in_words():
    assert [num(v) for v in (None, float("nan"), 3.0, 0.123456, 1e-8)] == ["n/a", "n/a", "3", "0.123", "1e-08"]
    assert (
        scale_text({"name": "paper", "seeds": 2, "paper_seeds": 8, "steps": 4000, "sequences": 4096})
        == "paper: 2 seeds (paper: 8), 4000 steps, 4096 sequences"
    )
    assert scale_text({"name": "quick", "seeds": 0, "steps": 0, "examples": 25}) == "quick: no training, examples: 25"


def test_cache_counters_by_kind():
    from lengthgen.testing.environment import cache_counts

    counts = cache_counts(
        {
            "train:hit": 5,
            "train:computed": 2,
            "eval:hit": 4,
            "two-layer:computed": 3,
            "two-layer-eval:computed": 3,
            "eval:damaged": 1,
        }
    )
    assert (counts["models_trained"], counts["models_from_cache"]) == (5, 5)
    assert (counts["evaluations_computed"], counts["evaluations_from_cache"], counts["damaged_entries"]) == (3, 4, 1)
    assert "two-layer: 3 computed, 0 from the cache" in counts["cache_by_kind"]


def test_several_tests_of_one_claim_are_named():
    first, second = reproduced(), reproduced()
    second["test"] = "claims/test_c01_phenomenon.py::test_other[paper-alibi]"
    lines = summary_lines([first, second], width=140)
    assert "test: test_other[paper-alibi]" in "\n".join(lines)
    assert "test: test_rope_generalizes_ape_collapses[paper]" in "\n".join(lines)


def test_headline_quantities_come_first():
    from lengthgen.records import ClaimRecorder

    recorder = ClaimRecorder("C4")
    recorder.measure("untrained baseline", [0.05, 0.06])
    recorder.measure("trained key carrier fraction", [0.80, 0.82], headline=True)
    recorder.check("fraction", [0.80, 0.82], ">=", 0.65)
    record = recorder.record.to_dict()
    assert [name for name, m in record["measured"].items() if m["headline"]] == ["trained key carrier fraction"]
    assert headline(record) == "trained key carrier fraction: 0.81 [0.683, 0.937] (n=2)"


def test_close_calls_are_labelled_with_their_intervals_and_the_path_is_shown():
    lines = summary_lines(all_records(), ENVIRONMENT, width=160)
    text = "\n".join(lines)
    assert "C10   paper  reproduced (close)" in text
    assert (
        "close: clamp K=1 L=20: APE accuracy: mean 0.1473 [0.1435, 0.1511] (95% t-interval within [0, 1]) <= 0.15; "
        "about 4 seeds would decide it"
    ) in text
    assert "seeds 3 -> 7 -> 11, decided" in text  # C18 through the --lengthgen-until-decided loop
    assert "C18   paper  reproduced " in text and "C18   paper  reproduced (close)" not in text
