"""Decided or within noise, by one rule (lengthgen/report/outcome.py): a cell against the claim's verdict at the
paper's point, a row's spread in one line, and the claims whose checks are their preconditions."""

from __future__ import annotations

import pytest

from lengthgen.records import ClaimRecorder
from lengthgen.records.verdict import decide
from lengthgen.report.outcome import HOLDS, OTHER_WAY, RULED_OUT, WITHIN_NOISE, Spread, relation, shared_text, twins

PAPER = {"name": "paper", "seeds": 8, "paper_seeds": 8}
SHARP = [0.96, 0.97, 0.96, 0.97, 0.96, 0.97, 0.96, 0.97]  # mean 0.965, interval clear of 0.95
BLUNT = [0.90, 0.99, 0.91, 0.98, 0.90, 0.99, 0.92, 0.97]  # mean 0.945 < 0.95, interval holds 0.95
LOW = [0.50, 0.52, 0.51, 0.50, 0.52, 0.51, 0.50, 0.52]  # clearly below 0.95


def cell(values, reading: str | None = "init=torch", pre: list | None = None, name="RoPE K=1 L=48: accuracy"):
    """A decided record: one check of ``values`` >= 0.95 (``pre``: precondition values, recorded first)."""
    c = ClaimRecorder("C1")
    c.set_scale(**PAPER)
    if reading is not None:
        c.set_universe(reading)
    if pre is not None:
        c.precondition("one-layer fit: RoPE K=1 L=12: in-range accuracy", pre, ">=", 0.95)
    c.check(name, values, ">=", 0.95)
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
    assert relation(cell(SHARP), paper) == HOLDS
    assert relation(cell(LOW), paper) == OTHER_WAY  # decided the other way
    close = cell(BLUNT)
    assert close.verdict == "not reproduced (undeclared)" and close.close
    assert relation(close, paper) == WITHIN_NOISE  # on the other side, inside the seeds' interval: no change
    assert relation(ruled(), paper) == RULED_OUT
    failing = cell(LOW, reading=None)
    assert relation(cell(LOW), failing) == HOLDS and relation(cell(SHARP), failing) == OTHER_WAY


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
    twin = cell(SHARP, pre=SHARP, name="RoPE K=1 L=12: in-range accuracy")
    assert [c.name for c in twins(twin)] == ["RoPE K=1 L=12: in-range accuracy"]
    spread = Spread("C7", None, (("init=torch", twin), ("init=gpt2", ruled())))
    assert spread.defines_admissibility
    assert spread.text() == "defines admissibility: cannot fail in an alternative universe; ruled out: init=gpt2"
    other_values = cell(SHARP, pre=[v - 0.001 for v in SHARP], name="RoPE K=1 L=12: in-range accuracy")
    assert not twins(other_values)  # the same name, other values: another measurement
    other_length = cell(SHARP, pre=SHARP, name="RoPE K=1 L=48: accuracy")
    assert not twins(other_length)  # another length: the claim's own check
    assert not Spread("C1", None, (("init=torch", other_length),)).defines_admissibility


def test_a_claim_sharing_some_checks_says_how_many():
    c = ClaimRecorder("C1")
    c.set_scale(**PAPER)
    c.set_universe("init=torch")
    c.precondition("one-layer fit: RoPE K=1 L=12: in-range accuracy", SHARP, ">=", 0.95)
    c.check("RoPE K=1 L=12: in-range accuracy", SHARP, ">=", 0.95)
    c.check("RoPE K=1 L=48: accuracy", SHARP, ">=", 0.95)
    decide(c.record)
    spread = Spread("C1", None, (("init=torch", c.record),))
    assert not spread.defines_admissibility
    assert shared_text(spread) == "; 1 of its checks are its preconditions too (RoPE K=1 L=12: in-range accuracy)"
    assert shared_text(spread, most=0) == "; 1 of its checks are its preconditions too"


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
    assert {name.split()[1] for name, _ in measured} == {"H=1", "H=2"}
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
        lambda s, c, r: [("content H=4 L=12: in-range accuracy", [1.0] * 8)],
        ("content H=1",),
    )
    recorder = ClaimRecorder("C21")
    with pytest.raises(ValueError, match="'content H=4 L=12: in-range accuracy' measures a model the paper reports"):
        preconditions.record(recorder, made_up, None, None)
