"""Decided or within noise, by one rule (lengthgen/analysis/outcome.py): a cell against the claim's verdict at the
paper's point, a row's spread in one line, and the claims whose checks are their preconditions."""

from __future__ import annotations

import pytest

from lengthgen.records import ClaimRecorder
from lengthgen.records.verdict import decide
from lengthgen.analysis.outcome import (
    Outcome,
    Spread,
    beyond_noise,
    flip_check,
    relation,
    shared_text,
    twins,
)

PAPER = {"name": "paper", "seeds": 8, "paper_seeds": 8}
SHARP = [0.96, 0.97, 0.96, 0.97, 0.96, 0.97, 0.96, 0.97]  # mean 0.965, interval clear of 0.95
BLUNT = [0.90, 0.99, 0.91, 0.98, 0.90, 0.99, 0.92, 0.97]  # mean 0.945 < 0.95, interval holds 0.95
LOW = [0.50, 0.52, 0.51, 0.50, 0.52, 0.51, 0.50, 0.52]  # clearly below 0.95


FIT_AT = {"encoding": "rope", "K": 1, "L": 12}  # the one-layer precondition's coordinates
FAR_AT = {"encoding": "rope", "K": 1, "L": 48}


def cell(values, reading: str | None = "init=torch", pre: list | None = None, name="RoPE K=1 L=48: accuracy", at=None):
    """A decided record: one check of ``values`` >= 0.95 at ``at`` (default: L = 48; ``pre``: precondition values at
    ``FIT_AT``, recorded first)."""
    c = ClaimRecorder("C1")
    c.set_scale(**PAPER)
    if reading is not None:
        c.set_universe(reading)
    if pre is not None:
        c.precondition("one-layer fit: RoPE K=1 L=12: in-range accuracy", pre, ">=", 0.95, at=FIT_AT)
    c.check(name, values, ">=", 0.95, at=FAR_AT if at is None else at)
    decide(c.record)
    return c.record


def ruled() -> object:
    c = ClaimRecorder("C1")
    c.set_universe("init=gpt2")
    c.precondition("one-layer fit: RoPE K=1 L=12: in-range accuracy", LOW, ">=", 0.95)
    c.rule_out("ruled out by one-layer fit")
    c.expect_ruled_out(("one-layer fit*",))
    decide(c.record)
    return c.record


def test_the_one_rule():
    paper = cell(SHARP, reading=None)
    assert relation(cell(SHARP), paper) == Outcome.HOLDS
    assert relation(cell(LOW), paper) == Outcome.OTHER_WAY  # decided the other way
    close = cell(BLUNT)
    assert close.verdict == "not reproduced (undeclared)" and close.close
    assert relation(close, paper) == Outcome.WITHIN_NOISE  # on the other side, inside the seeds' interval: no change
    assert relation(ruled(), paper) == Outcome.RULED_OUT
    failing = cell(LOW, reading=None)
    assert relation(cell(LOW), failing) == Outcome.HOLDS and relation(cell(SHARP), failing) == Outcome.OTHER_WAY


def test_an_outcome_renders_as_its_text():
    """The one vocabulary is text wherever it is printed: str, format, f-strings and joins give its value."""
    assert [str(o) for o in Outcome] == ["holds", "other way", "within noise", "ruled out"]
    assert f"{Outcome.OTHER_WAY}|{Outcome.WITHIN_NOISE:>14}" == "other way|  within noise"
    assert "; ".join([Outcome.HOLDS, Outcome.RULED_OUT]) == "holds; ruled out" and Outcome.HOLDS == "holds"
    assert Outcome("within noise") is Outcome.WITHIN_NOISE
    with pytest.raises(ValueError, match="'maybe'"):
        Outcome("maybe")


def test_a_spread_counts_the_paper_point_and_says_within_noise_apart():
    paper = cell(SHARP, reading=None)
    cells = (
        ("init=torch", cell(SHARP)),
        ("init=flax", cell(LOW, "init=flax")),
        ("lengths=per-batch", cell(BLUNT, "lengths=per-batch")),
        ("lengths=per-batch+init=torch", cell(BLUNT, "lengths=per-batch+init=torch")),
        ("init=gpt2", ruled()),
    )
    spread = Spread("C1", paper, cells)
    assert spread.count == (2, 5)  # the paper's point and init=torch hold, of 5 admissible
    assert spread.text() == (
        "holds in 2 of 5 admissible universes; decided the other way under init=flax; within noise under "
        "lengths=per-batch (1 more); ruled out: init=gpt2"
    )
    assert Spread("C1", paper, cells[:1]).text() == "holds in 2 of 2 admissible universes"
    at = Spread("C1", paper, cells[:2], noun="settings", under="at", held="at")
    assert at.text() == "holds at 2 of 3 settings; decided the other way at init=flax"


def test_a_claim_made_of_its_preconditions_defines_admissibility():
    """C7-like: the claim's check is what its precondition measured, so an admissible cell cannot fail it."""
    twin = cell(SHARP, pre=SHARP, name="RoPE K=1 L=12: in-range accuracy", at=FIT_AT)
    assert [c.name for c in twins(twin)] == ["RoPE K=1 L=12: in-range accuracy"]
    spread = Spread("C7", None, (("init=torch", twin), ("init=gpt2", ruled())))
    assert spread.defines_admissibility
    assert spread.text() == "defines admissibility: cannot fail in an alternative universe; ruled out: init=gpt2"
    other_values = cell(SHARP, pre=[v - 0.001 for v in SHARP], name="RoPE K=1 L=12: in-range accuracy", at=FIT_AT)
    assert not twins(other_values)  # the same coordinates, other values: another measurement
    other_length = cell(SHARP, pre=SHARP, name="RoPE K=1 L=48: accuracy")
    assert not twins(other_length)  # another length: the claim's own check
    assert not Spread("C1", None, (("init=torch", other_length),)).defines_admissibility


def test_a_claim_sharing_some_checks_says_how_many():
    c = ClaimRecorder("C1")
    c.set_scale(**PAPER)
    c.set_universe("init=torch")
    c.precondition("one-layer fit: RoPE K=1 L=12: in-range accuracy", SHARP, ">=", 0.95, at=FIT_AT)
    c.check("RoPE K=1 L=12: in-range accuracy", SHARP, ">=", 0.95, at=FIT_AT)
    c.check("RoPE K=1 L=48: accuracy", SHARP, ">=", 0.95, at=FAR_AT)
    decide(c.record)
    spread = Spread("C1", None, (("init=torch", c.record),))
    assert not spread.defines_admissibility
    assert shared_text(spread) == "; 1 of its checks are its preconditions too (RoPE K=1 L=12: in-range accuracy)"
    assert shared_text(spread, most=0) == "; 1 of its checks are its preconditions too"


def test_twins_match_on_coordinates_not_names():
    """A check twins a precondition by what it measures (``Check.at``): renamed, it still does; under the same
    name at other coordinates (or another encoding) it does not; more coordinates than the precondition's do."""
    renamed = cell(SHARP, pre=SHARP, name="in range: the RoPE head's accuracy, first offset", at=FIT_AT)
    assert [c.name for c in twins(renamed)] == ["in range: the RoPE head's accuracy, first offset"]
    same_name = "RoPE K=1 L=12: in-range accuracy"
    assert not twins(cell(SHARP, pre=SHARP, name=same_name, at={**FIT_AT, "L": 16}))  # another length
    assert not twins(cell(SHARP, pre=SHARP, name=same_name, at={**FIT_AT, "encoding": "ape"}))  # another encoding
    assert not twins(cell(SHARP, pre=SHARP, name=same_name, at={"K": 1, "L": 12}))  # no encoding: not the RoPE head
    assert not twins(cell(SHARP, pre=SHARP, name=same_name, at={}))  # no coordinates at all
    more = cell(SHARP, pre=SHARP, name="lambda=0 K=1 L=12: RoPE accuracy", at={"lambda": 0.0, **FIT_AT})
    assert len(twins(more)) == 1  # a check may state more coordinates than its precondition


@pytest.mark.parametrize("heads", [(1, 2, 4), (1, 2)])
def test_the_content_precondition_measures_only_the_heads_the_paper_reports(monkeypatch, heads):
    """The paper reports H = 1 and H = 2 solving the content task; of H = 4 it reports nothing in range."""
    import claims.multihead
    from claims import preconditions

    class Content:
        lengths, max_len = (12, 16, 20), 16

        def __init__(self):
            self.heads = heads

        def accuracy(self, h, length):
            return [0.5] * 8 if h == 4 else [1.0] * 8  # an H = 4 that would fail, were it a precondition

    monkeypatch.setattr(claims.multihead, "measure", lambda scale, cache: Content())
    measured = preconditions.PRECONDITIONS["content fit"].measure(None, None, None)
    assert {name.split()[1] for name, _, _ in measured} == {"H=1", "H=2"}
    assert {at["H"] for _, at, _ in measured} == {1, 2}
    recorder = ClaimRecorder("C21")
    recorder.set_universe("init=torch")
    failed = preconditions.record(recorder, preconditions.PRECONDITIONS["content fit"], None, None)
    assert failed == [] and len(recorder.record.preconditions) == 4


def test_a_precondition_that_measures_an_unreported_model_is_refused():
    from claims import preconditions

    made_up = preconditions.Precondition(
        "content fit",
        "x",
        False,
        lambda s, c, r: [("content H=4 L=12: in-range accuracy", {"H": 4, "L": 12}, [1.0] * 8)],
        ("content H=1",),
    )
    recorder = ClaimRecorder("C21")
    with pytest.raises(ValueError, match="'content H=4 L=12: in-range accuracy' measures a model the paper reports"):
        preconditions.record(recorder, made_up, None, None)


def seeded(values, op, threshold, seeds, reading: str | None = "init=flax", reduce="all", name="offset, every seed"):
    """A decided record of one check over ``seeds`` (its seed list recorded, so a comparison can pair them)."""
    c = ClaimRecorder("C16")
    c.set_scale(name="paper", seeds=len(seeds), paper_seeds=len(seeds), seed_list=list(seeds))
    if reading is not None:
        c.set_universe(reading)
    c.check(name, values, op, threshold, reduce=reduce)
    decide(c.record)
    return c.record


FIVE = range(5)


def test_a_flip_resting_on_one_seed_of_five_is_within_noise():
    paper = seeded([150, 100, 150, 200, 150], "<=", 500, FIVE, reading=None)
    flax = seeded([150, 550, 150, 200, 150], "<=", 500, FIVE)  # one seed of five past 500
    assert flax.verdict == "not reproduced (undeclared)" and not flax.close  # an every-seed check is never close
    assert relation(flax, paper) == Outcome.WITHIN_NOISE
    assert not beyond_noise(flax, paper)
    mine, theirs = flip_check(flax, paper)
    assert (mine.failing, theirs.failing) == (1, 0)


def test_a_flip_on_every_seed_of_eight_is_a_change_and_five_of_five_is_not_yet():
    eight = range(8)
    paper = seeded([-1] * 8, "==", -1, eight, reading=None)
    assert relation(seeded([-101] * 8, "==", -1, eight), paper) == Outcome.OTHER_WAY  # exact McNemar: 2/256
    paper5 = seeded([-1] * 5, "==", -1, FIVE, reading=None)
    assert (
        relation(seeded([-40] * 5, "==", -1, FIVE), paper5) == Outcome.WITHIN_NOISE
    )  # 2/32: five seeds cannot decide it
    # the other direction: the paper's point fails, the cell reproduces; the paper's deciding check is read
    failing = seeded([-1, -76, -1, -76, -1, -1, -1, -1], "==", -1, eight, reading=None)
    assert relation(seeded([-1] * 8, "==", -1, eight), failing) == Outcome.WITHIN_NOISE


def test_a_mean_flip_is_a_change_only_where_the_paired_difference_excludes_zero():
    paper = seeded(SHARP, ">=", 0.95, range(8), reading=None, reduce="mean", name="acc")
    low = seeded([v - 0.05 for v in SHARP], ">=", 0.95, range(8), reduce="mean", name="acc")
    assert low.verdict == "not reproduced (undeclared)" and not low.close
    assert relation(low, paper) == Outcome.OTHER_WAY
    # the cell fails 0.96 decidedly on its own, the paper's point passes it, every seed lower than its pair
    paper_seeds = [0.99, 0.97, 0.955, 0.99, 0.97, 0.955, 0.99, 0.97]
    cell_seeds = [0.93, 0.95, 0.955, 0.93, 0.95, 0.955, 0.94, 0.95]
    paper_mixed = seeded(paper_seeds, ">=", 0.96, range(8), reading=None, reduce="mean", name="acc")
    cell_mixed = seeded(cell_seeds, ">=", 0.96, range(8), reduce="mean", name="acc")
    assert paper_mixed.reproduces and not cell_mixed.reproduces and not cell_mixed.close
    assert relation(cell_mixed, paper_mixed) == Outcome.OTHER_WAY  # the paired interval excludes 0
    # one seed of eight differs (its pair 0.40 lower), the rest equal: the paired interval holds 0
    paper_one = seeded([0.99] * 8, ">=", 0.95, range(8), reading=None, reduce="mean", name="acc")
    cell_one = seeded([0.99] * 7 + [0.59], ">=", 0.95, range(8), reduce="mean", name="acc")
    assert not cell_one.reproduces and not beyond_noise(cell_one, paper_one)
    assert relation(cell_one, paper_one) == Outcome.WITHIN_NOISE


def test_runs_that_share_no_seeds_are_compared_unpaired():
    paper = seeded([-3] * 5, "==", -3, FIVE, reading=None)
    fresh = seeded([-3, -3, -3, -3, -27], "==", -3, range(100, 105), reading=None)
    assert not beyond_noise(fresh, paper)  # Fisher's exact: 1 of 5 against 0 of 5
    all_fail = seeded([-27] * 5, "==", -3, range(100, 105), reading=None)
    assert beyond_noise(all_fail, paper)  # 5 of 5 against 0 of 5: 2/252


def test_a_flip_without_per_seed_values_is_decided_by_its_close_call():
    paper = cell(SHARP, reading=None)  # no seed list: nothing to pair
    assert beyond_noise(cell(LOW), paper) and relation(cell(LOW), paper) == Outcome.OTHER_WAY
