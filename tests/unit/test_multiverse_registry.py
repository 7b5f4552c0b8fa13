"""The multiverse's registry (lengthgen/readings.py, applied by lengthgen/experiments/multiverse.py) and its one
mechanism: the universe of the experiment's context applied by paper_spec / two_layer_spec / run_phenomenon, and
claims.memo keyed on the scale that carries it; the cells the claims' registry plans (claims/multiverse.py)."""

from __future__ import annotations

import dataclasses

import pytest

from lengthgen.config import RunSpec
from lengthgen.engine.train_two_layer import TwoLayerSpec
from lengthgen.experiments import multiverse as mv
from lengthgen.experiments.common import paper_spec
from lengthgen.experiments.two_layer import FIRST_WIDTH, STEPS, WIDTH, two_layer_spec
from lengthgen import readings as rg
from lengthgen.context import Context
from lengthgen.scale import PAPER as PAPER_SCALE, QUICK
from lengthgen.runtime import Runtime
from claims import multiverse as cells
from claims.memo import MemoKey, memo

ONE = Context(())  # the paper's point: 4000 steps, the suite's readings
TWO = Context((), STEPS["paper"])  # the transformer's paper-scale steps
ONE_LAYER_SPECS = [paper_spec(ONE, model={"encoding": e}) for e in ("rope", "ape", "nope", "alibi", "t5")]
ONE_LAYER_SPECS.append(paper_spec(ONE, model={"encoding": "ape"}, train={"weight_decay": 1e-2}))  # C9's decayed APE
TWO_LAYER_SPECS = [two_layer_spec(TWO, e, d=d) for e in ("rope", "ape") for d in (WIDTH, FIRST_WIDTH)]


def under(name: str, ctx: Context = ONE) -> Context:
    """``ctx`` with the specs built under the universe called ``name``."""
    return ctx.replace(universe=rg.universe(name))


def differences(a, b) -> set[tuple[str, str]]:
    """(part, field) pairs where two specs differ."""
    out = set()
    for part in (f.name for f in dataclasses.fields(a)):
        x, y = getattr(a, part), getattr(b, part)
        out |= {(part, f.name) for f in dataclasses.fields(x) if getattr(x, f.name) != getattr(y, f.name)}
    return out


@pytest.mark.parametrize("reading", rg.READINGS, ids=lambda r: r.name)
def test_every_reading_changes_exactly_its_fields(reading):
    for spec in ONE_LAYER_SPECS + TWO_LAYER_SPECS:
        family = "one-layer" if isinstance(spec, RunSpec) else "two-layer"
        expected = {
            (c.part, c.field)
            for c in reading.changes
            if c.family == family
            and (not c.ape_only or spec.model.encoding == "ape")
            and (not c.decay_only or spec.train.weight_decay > 0)
        }
        assert differences(spec, mv.apply_reading(reading, spec)) == expected, (reading.name, spec)


def test_ape_only_readings_leave_other_encodings_untouched():
    for name in ("ape-rows=zero", "ape-value=token"):
        reading = rg.BY_NAME[name]
        assert all(c.ape_only for c in reading.changes)
        for spec in ONE_LAYER_SPECS + TWO_LAYER_SPECS:
            if spec.model.encoding != "ape":
                assert mv.apply_reading(reading, spec) is spec


def test_decay_only_readings_leave_models_without_weight_decay_untouched():
    """weight-decay=decoupled changes C9's decayed models and no other: without decay AdamW is Adam, and one
    model keeps one config (one cache key)."""
    reading = rg.BY_NAME["weight-decay=decoupled"]
    assert all(c.decay_only for c in reading.changes)
    for spec in ONE_LAYER_SPECS + TWO_LAYER_SPECS:
        changed = mv.apply_reading(reading, spec)
        assert (changed is spec) == (spec.train.weight_decay == 0), spec
    assert rg.Universe("d", (reading,)).reaches(("one-layer",), True, reads_decay=True)
    assert not rg.Universe("d", (reading,)).reaches(("one-layer",), True)


def test_the_default_universe_leaves_specs_identical():
    assert ONE.universe is rg.PAPER and TWO.universe is rg.PAPER
    bare = RunSpec().replace(train={"steps": 4000})
    assert paper_spec(ONE) == bare and paper_spec(ONE, model={"encoding": "ape"}) == bare.replace(
        model={"encoding": "ape"}
    )
    plain = TwoLayerSpec(model=TwoLayerSpec().model.__class__(encoding="ape", d=WIDTH))
    assert two_layer_spec(TWO, "ape") == plain
    for spec in ONE_LAYER_SPECS + TWO_LAYER_SPECS:
        assert mv.apply_universe(rg.PAPER, spec) is spec


def test_a_context_builds_its_specs_under_its_universe():
    gpt2 = under("init=gpt2")
    assert (
        paper_spec(gpt2).model.init == "gpt2" and two_layer_spec(under("init=gpt2", TWO), "rope").model.init == "gpt2"
    )
    token = under("ape-value=token")
    assert paper_spec(token, model={"encoding": "ape"}).model.ape_value == "token"
    assert paper_spec(token).model.ape_value == "embedded"  # RoPE: untouched
    longer = under("two-layer-steps=900", TWO)
    assert two_layer_spec(longer, "rope").train.steps == 900
    assert two_layer_spec(longer, "rope", d=FIRST_WIDTH).train.steps == 900
    assert paper_spec(under("two-layer-steps=900")).train.steps == 4000
    ape = paper_spec(under("lengths=per-batch+init=gpt2+ape-rows=zero+ape-value=token"), model={"encoding": "ape"})
    assert (ape.model.init, ape.model.ape_unseen, ape.model.ape_value, ape.train.length_mix) == (
        "gpt2",
        "zero",
        "token",
        "per-batch",
    )
    assert paper_spec(ONE).model.init != "gpt2"  # the context that asked for none builds none


def test_phenomenon_applies_ape_readings_after_choosing_the_encoding(monkeypatch):
    from lengthgen.experiments import phenomenon

    seen = {}
    monkeypatch.setattr(phenomenon, "train_grid", lambda ctx, cache, specs: seen.update(specs) or {})
    monkeypatch.setattr(phenomenon, "PhenomenonResult", lambda *a: None)
    phenomenon.run_phenomenon(under("ape-rows=zero", Context((0,), 10)), None)
    assert seen[("ape", 1)].model.ape_unseen == "zero" and seen[("rope", 1)].model.ape_unseen == "init"


def test_memo_keys_differ_per_universe():
    scales = [dataclasses.replace(PAPER_SCALE, universe=u) for u in (rg.PAPER,) + rg.UNIVERSES]
    assert len({MemoKey(scale, ("phenomenon", 1)) for scale in scales}) == len(rg.UNIVERSES) + 1
    assert MemoKey(QUICK, ("phenomenon", 1)) != MemoKey(PAPER_SCALE, ("phenomenon", 1))  # the scale is in it
    calls = []

    def compute() -> int:
        calls.append(len(calls))
        return len(calls)

    other = dataclasses.replace(PAPER_SCALE, universe=rg.universe("lengths=per-batch+ape-rows=zero"))
    with Runtime() as runtime:
        scales = (PAPER_SCALE, other, PAPER_SCALE, other)
        served = [memo(runtime, ("test-multiverse-memo",), scale, compute) for scale in scales]
    assert served == [1, 2, 1, 2] and len(calls) == 2  # computed once per universe, then served
    with pytest.raises(ValueError, match="'paper'"):
        MemoKey("paper", ("phenomenon", 1))


def test_invalid_names_raise_naming_them():
    with pytest.raises(ValueError, match="'init=xavier'"):
        rg.universe("init=xavier")
    with pytest.raises(ValueError, match="'nonsense'"):
        under("nonsense")
    with pytest.raises(ValueError, match="'no_such_field'"):
        mv.check_change(rg.Change("one-layer", "model", "no_such_field", 1))
    with pytest.raises(ValueError, match="'seven'"):
        seven = rg.Change("one-layer", "model", "init", "seven")
        mv.check_reading(rg.Reading("init", "init=seven", "x", "y", (seven,), "seven's init", "nanoGPT's"))
    with pytest.raises(ValueError, match="'init=unnamed' needs its label"):
        rg.Reading("init", "init=unnamed", "x", "y", (rg.Change("one-layer", "model", "init", "gpt2"),))
    with pytest.raises(ValueError, match="'three-layer'"):
        rg.Change("three-layer", "model", "init", "gpt2")
    with pytest.raises(ValueError, match="'mixed'"):
        rg.choice("mixed")


def test_every_choice_has_an_alternative_with_who_and_claims():
    for choice in rg.CHOICES:
        readings = [r for r in rg.READINGS if r.choice == choice.name]
        assert readings, choice.name
        assert all(r.who.strip() and cells.touched(rg.universe(r.name)) and r.what.strip() for r in readings)
    catalogue = {"lengths", "init", "ape-rows", "ape-value", "two-layer-steps"}
    assert catalogue <= {c.name for c in rg.CHOICES}
    assert all(name and why for name, why in rg.LEFT_AT_ONE_READING)


def test_a_combination_takes_one_reading_per_choice_in_the_registry_order():
    both = rg.universe("lengths=per-batch+ape-rows=zero")
    assert [r.name for r in both.readings] == ["lengths=per-batch", "ape-rows=zero"]
    assert rg.combine([rg.BY_NAME["ape-rows=zero"], rg.BY_NAME["lengths=per-batch"]]) == both
    with pytest.raises(ValueError, match="one reading per choice"):
        rg.universe("init=gpt2+init=torch")
    with pytest.raises(ValueError, match="registry's order"):
        rg.universe("ape-rows=zero+lengths=per-batch")
    with pytest.raises(ValueError, match="'all-alternatives'"):
        rg.universe("all-alternatives")
    with pytest.raises(ValueError, match="change"):
        rg.Universe("twice", (rg.BY_NAME["init=gpt2"], rg.BY_NAME["init=gpt2"]))
    three = [rg.BY_NAME[n] for n in ("lengths=per-batch", "ape-rows=zero", "ape-value=token")]
    assert [u.name.count("+") for u in rg.factorial(three)] == [1, 1, 1, 2]


@pytest.fixture(scope="module")
def declared():
    """The claims' multiverse declarations (claims/multiverse_declared.json)."""
    return cells.load_declarations()


def test_the_factorial_leaves_out_readings_ruled_out_alone(declared):
    """init=gpt2 is ruled out alone for every one-layer claim (the declarations): no combination holds it;
    every combination is extended (its cost), each single reading's cell is planned."""
    recorded = {c for _, c in declared.cells}  # a claim added since is not declared until recorded
    combined = [(u, c) for u, c in cells.all_cells(declared) if "+" in u.name and c in recorded]
    assert combined and not any("init=gpt2" in u.name for u, _ in combined)
    c8 = {u.name for u, c in combined if c == "C8"}  # per-batch, flax, zero and token are admissible alone for C8
    assert (
        len(c8) == 11
        and {"lengths=per-batch+ape-rows=zero", "lengths=per-batch+init=flax+ape-rows=zero+ape-value=token"} <= c8
    )
    assert len([u for u, c in combined if c == "C12"]) == 11
    assert [u.name for u, c in combined if c == "C3"] == ["lengths=per-batch+init=flax"]  # RoPE: no APE readings
    c9 = [u for u, c in combined if c == "C9"]  # C9 adds weight-decay=decoupled: 2^5 - 1 - 5 combinations
    assert len(c9) == 26 and all(not any(r.name == "init=gpt2" for r in u.readings) for u in c9)
    assert all(cells.extended(u.name, c) and cells.plan(declared).extended(u.name, c) for u, c in combined)
    assert dict(cells.not_run(declared))["init=gpt2"].startswith("ruled out alone")


LONGER = "two-layer-steps=900"  # the two-layer reading that trains the transformers 3x as long
RETRAINS = ("lengths=per-batch", "init=flax")  # the one-layer readings that retrain every one-layer claim
# The cells of one reading left out of the default run for their cost, written out here (the claims declare them
# in their modules, ``LeftOut``): the C17/C18 sweep and the reproductions on models of their own under a
# retraining one-layer reading, C9's own models under a reading of the APE table, the transformers 3x as long.
LEFT_OUT = (
    {(u, c) for u in RETRAINS for c in ("C9", "C11", "C14", "C17", "C18", "C21", "C22", "P5")}
    | {(u, "C9") for u in ("ape-rows=zero", "ape-value=token")}
    | {(LONGER, c) for c in ("C12", "C12-d64", "C13", "C13-d64")}
)


def test_every_touched_claim_has_a_cell_under_every_universe_default_or_extended(declared):
    plan = cells.plan(declared)
    every = {(u.name, c) for u, c in cells.all_cells(declared)}
    default, extended = set(map(_named, cells.cells(declared))), set(map(_named, cells.extended_cells(declared)))
    assert default | extended == every and not default & extended
    assert set(plan.cells) == every and len(plan.cells) == len(every)
    for universe in rg.UNIVERSES:
        for claim in cells.touched(universe):
            assert all((universe.name, column) in every for column in cells.columns(claim))
        assert plan.claims_of(universe.name) == cells.touched(universe)  # the plan recorded for the report
    assert {(u, c) for u, c in extended if "+" not in u} == {(u, c) for u, c, _ in plan.left_out} == LEFT_OUT
    assert all(why for _, _, why in plan.left_out) and plan.combinations_why
    assert set(plan.default_cells()) == default and set(plan.extended_cells()) == extended  # the report's cells
    # the non-reproductions at the paper's point keep every reading alone in the default run, but the one whose
    # cells are all extended for their cost (the transformers trained 3x as long): the extended run answers there
    for column in ("C8", "C10", "C12-d64", "C13-d64", "C19", "C20", "P1", "P2"):
        for universe in rg.UNIVERSES:
            if cells.COLUMNS[column].id in cells.touched(universe) and universe.name != LONGER:
                assert (universe.name, column) not in extended, (universe.name, column)
    assert {c for u, c in extended if u == LONGER} == {"C12", "C12-d64", "C13", "C13-d64"}
    assert {c for u, c in cells.cells(declared) if c.startswith("C12")} == {"C12", "C12-d64"}


def _named(cell):
    universe, column = cell
    return universe.name, column


def test_the_plain_registry_imports_no_torch(declared):
    """lengthgen.readings, lengthgen.multiverse_cells and lengthgen.registry (what rendering a claims.json reads,
    with the `lengthgen multiverse` command) load without torch, and read the claims' plan back from its recorded
    form as it was."""
    import json
    import subprocess
    import sys

    from lengthgen.registry import Registry

    from claims.registry import catalogue

    recorded = json.dumps(Registry(catalogue(), cells.plan(declared)).to_dict())
    code = (
        "import json, sys; import lengthgen.readings, lengthgen.multiverse_cells as cells, lengthgen.cli.multiverse; "
        "from lengthgen.registry import Registry; r = Registry.from_data(json.load(sys.stdin)); "
        "print('torch' in sys.modules, len(cells.left_out(r.plan, r.catalogue)), len(r.plan.default_cells()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=recorded, check=True, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.split() == ["False", str(len(LEFT_OUT)), str(len(cells.cells(declared)))], out.stdout + out.stderr
    assert Registry.from_data(json.loads(recorded)) == Registry(catalogue(), cells.plan(declared))


def test_a_cell_the_declarations_lack_says_how_to_record_it_when_it_fails(declared):
    """The claims' conftest adds ``RECORD_STEP`` to a failing multiverse cell's message and reason where the
    declarations file does not hold the cell, and leaves a recorded cell's failure as it was."""
    from types import SimpleNamespace

    from pathlib import Path

    from lengthgen.records import VerdictFailed
    from lengthgen.testing.run import RunRecords
    from lengthgen.testing.session import SESSION, LengthgenSession

    from claims import conftest

    recorded = next(iter(declared.cells))

    def failure(universe_name: str, column: str) -> tuple[str, str]:
        record = SimpleNamespace(verdict_reason="ruled out, which the declarations do not expect: x")
        config = SimpleNamespace(stash=pytest.Stash())  # the session's: the declarations are read into its object
        config.stash[SESSION] = LengthgenSession(
            started=0.0, fresh_after=None, plan=None, report_dir=Path("reports"), run=RunRecords(), runtime=None
        )
        item = SimpleNamespace(
            originalname="test_multiverse",
            callspec=SimpleNamespace(params={"universe_name": universe_name, "column": column}),
            funcargs={"claim": SimpleNamespace(record=record)},
            config=config,
        )
        call = conftest.pytest_runtest_call(item)
        next(call)
        with pytest.raises(VerdictFailed) as raised:
            call.throw(VerdictFailed("the cell failed"))
        return str(raised.value), record.verdict_reason

    message, reason = failure("init=gpt2", "X-0")
    assert message == f"the cell failed\n{cells.RECORD_STEP}" and reason.endswith(f"; {cells.RECORD_STEP}")
    assert "lengthgen multiverse --record" in cells.RECORD_STEP and cells.RECORD_STEP.startswith("undeclared")
    assert failure(*recorded) == ("the cell failed", "ruled out, which the declarations do not expect: x")
