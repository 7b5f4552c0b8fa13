"""The multiverse's registry (lengthgen/readings.py, applied by lengthgen/experiments/multiverse.py) and its one
mechanism: the active universe applied by paper_spec / two_layer_spec / run_phenomenon, and claims.memo keyed on
it; the cells the claims' registry plans (claims/multiverse.py)."""

from __future__ import annotations

import dataclasses

import pytest

from lengthgen.config import RunSpec
from lengthgen.engine.train_two_layer import TwoLayerSpec
from lengthgen.experiments import multiverse as mv
from lengthgen.experiments.common import paper_spec
from lengthgen.experiments.two_layer import FIRST_WIDTH, WIDTH, two_layer_spec
from lengthgen.multiverse_cells import LONGER

from lengthgen.scale import PAPER as PAPER_SCALE, QUICK
from claims import multiverse as cells
from claims.memo import Context, MemoKey, memo, memo_key

ONE_LAYER_SPECS = [paper_spec(model={"encoding": e}) for e in ("rope", "ape", "nope", "alibi", "t5")]
ONE_LAYER_SPECS.append(paper_spec(model={"encoding": "ape"}, train={"weight_decay": 1e-2}))  # C9's decayed APE
TWO_LAYER_SPECS = [two_layer_spec(e, d=d) for e in ("rope", "ape") for d in (WIDTH, FIRST_WIDTH)]


def differences(a, b) -> set[tuple[str, str]]:
    """(part, field) pairs where two specs differ."""
    out = set()
    for part in (f.name for f in dataclasses.fields(a)):
        x, y = getattr(a, part), getattr(b, part)
        out |= {(part, f.name) for f in dataclasses.fields(x) if getattr(x, f.name) != getattr(y, f.name)}
    return out


@pytest.mark.parametrize("reading", mv.READINGS, ids=lambda r: r.name)
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
        reading = mv.BY_NAME[name]
        assert all(c.ape_only for c in reading.changes)
        for spec in ONE_LAYER_SPECS + TWO_LAYER_SPECS:
            if spec.model.encoding != "ape":
                assert mv.apply_reading(reading, spec) is spec


def test_decay_only_readings_leave_models_without_weight_decay_untouched():
    """weight-decay=decoupled changes C9's decayed models and no other: without decay AdamW is Adam, and one
    model keeps one config (one cache key)."""
    reading = mv.BY_NAME["weight-decay=decoupled"]
    assert all(c.decay_only for c in reading.changes)
    for spec in ONE_LAYER_SPECS + TWO_LAYER_SPECS:
        changed = mv.apply_reading(reading, spec)
        assert (changed is spec) == (spec.train.weight_decay == 0), spec
    assert mv.Universe("d", (reading,)).reaches(("one-layer",), True, reads_decay=True)
    assert not mv.Universe("d", (reading,)).reaches(("one-layer",), True)


def test_the_default_universe_leaves_specs_identical():
    assert mv.active_universe() is mv.PAPER
    bare = RunSpec().replace(train={"steps": 4000})
    assert paper_spec() == bare and paper_spec(model={"encoding": "ape"}) == bare.replace(model={"encoding": "ape"})
    plain = TwoLayerSpec(model=TwoLayerSpec().model.__class__(encoding="ape", d=WIDTH))
    assert two_layer_spec("ape") == plain
    for spec in ONE_LAYER_SPECS + TWO_LAYER_SPECS:
        assert mv.apply_active(spec) is spec and mv.apply_universe(mv.PAPER, spec) is spec


def test_under_applies_the_reading_to_built_specs_and_resets():
    from lengthgen.experiments.phenomenon import run_phenomenon  # noqa: F401 (its hook is exercised below)

    with mv.under("init=gpt2") as u:
        assert mv.active_universe() is u
        assert paper_spec().model.init == "gpt2" and two_layer_spec("rope").model.init == "gpt2"
    with mv.under("ape-value=token"):
        assert paper_spec(model={"encoding": "ape"}).model.ape_value == "token"
        assert paper_spec().model.ape_value == "embedded"  # RoPE: untouched
    with mv.under("two-layer-steps=900"):
        assert two_layer_spec("rope").train.steps == 900 and two_layer_spec("rope", d=FIRST_WIDTH).train.steps == 900
        assert paper_spec().train.steps == 4000
    with mv.under("lengths=per-batch+init=gpt2+ape-rows=zero+ape-value=token"):
        ape = paper_spec(model={"encoding": "ape"})
        assert (ape.model.init, ape.model.ape_unseen, ape.model.ape_value, ape.train.length_mix) == (
            "gpt2",
            "zero",
            "token",
            "per-batch",
        )
    assert mv.active_universe() is mv.PAPER


def test_phenomenon_applies_ape_readings_after_choosing_the_encoding(monkeypatch):
    from lengthgen.experiments import phenomenon

    seen = {}
    monkeypatch.setattr(phenomenon, "train_grid", lambda specs, *a, **k: seen.update(specs) or {})
    monkeypatch.setattr(phenomenon, "PhenomenonResult", lambda *a: None)
    with mv.under("ape-rows=zero"):
        phenomenon.run_phenomenon((0,), 10)
    assert seen[("ape", 1)].model.ape_unseen == "zero" and seen[("rope", 1)].model.ape_unseen == "init"


def test_memo_keys_differ_per_universe():
    keys = set()
    for universe in (mv.PAPER,) + mv.UNIVERSES:
        with mv.under(universe):
            keys.add(memo_key(("phenomenon", 1), PAPER_SCALE))
    assert len(keys) == len(mv.UNIVERSES) + 1
    # the default universe: the key of the explicit context (universe, plan, scale) and what is measured
    assert memo_key(("phenomenon", 1), PAPER_SCALE) == MemoKey(Context("paper", None, PAPER_SCALE), ("phenomenon", 1))
    assert memo_key(("phenomenon", 1), QUICK) != memo_key(("phenomenon", 1), PAPER_SCALE)  # the scale is in it
    values = []
    for universe in (mv.PAPER, mv.universe("lengths=per-batch+ape-rows=zero")):
        with mv.under(universe):
            values.append(memo(("test-multiverse-memo",), PAPER_SCALE, lambda: mv.active_universe().name))
    assert values == ["paper", "lengths=per-batch+ape-rows=zero"]
    with pytest.raises(ValueError, match="'paper'"):
        Context("paper", None, "paper")


def test_invalid_names_raise_naming_them():
    with pytest.raises(ValueError, match="'init=xavier'"):
        mv.universe("init=xavier")
    with pytest.raises(ValueError, match="'nonsense'"):
        with mv.under("nonsense"):
            pass
    with pytest.raises(ValueError, match="'no_such_field'"):
        mv.check_change(mv.Change("one-layer", "model", "no_such_field", 1))
    with pytest.raises(ValueError, match="'seven'"):
        seven = mv.Change("one-layer", "model", "init", "seven")
        mv.check_reading(mv.Reading("init", "init=seven", "x", "y", (seven,)))
    with pytest.raises(ValueError, match="'three-layer'"):
        mv.Change("three-layer", "model", "init", "gpt2")
    with pytest.raises(ValueError, match="'mixed'"):
        mv.choice("mixed")


def test_every_choice_has_an_alternative_with_who_and_claims():
    for choice in mv.CHOICES:
        readings = [r for r in mv.READINGS if r.choice == choice.name]
        assert readings, choice.name
        assert all(r.who.strip() and cells.touched(mv.universe(r.name)) and r.what.strip() for r in readings)
    catalogue = {"lengths", "init", "ape-rows", "ape-value", "two-layer-steps"}
    assert catalogue <= {c.name for c in mv.CHOICES}
    assert all(name and why for name, why in mv.LEFT_AT_ONE_READING)


def test_a_combination_takes_one_reading_per_choice_in_the_registry_order():
    both = mv.universe("lengths=per-batch+ape-rows=zero")
    assert [r.name for r in both.readings] == ["lengths=per-batch", "ape-rows=zero"]
    assert mv.combine([mv.BY_NAME["ape-rows=zero"], mv.BY_NAME["lengths=per-batch"]]) == both
    with pytest.raises(ValueError, match="one reading per choice"):
        mv.universe("init=gpt2+init=torch")
    with pytest.raises(ValueError, match="registry's order"):
        mv.universe("ape-rows=zero+lengths=per-batch")
    with pytest.raises(ValueError, match="'all-alternatives'"):
        mv.universe("all-alternatives")
    with pytest.raises(ValueError, match="change"):
        mv.Universe("twice", (mv.BY_NAME["init=gpt2"], mv.BY_NAME["init=gpt2"]))
    three = [mv.BY_NAME[n] for n in ("lengths=per-batch", "ape-rows=zero", "ape-value=token")]
    assert [u.name.count("+") for u in mv.factorial(three)] == [1, 1, 1, 2]


def test_the_factorial_leaves_out_readings_ruled_out_alone():
    """init=gpt2 is ruled out alone for every one-layer claim (the declarations): no combination holds it;
    every combination is extended (its cost), each single reading's cell is planned."""
    combined = [(u, c) for u, c in cells.all_cells() if "+" in u.name]
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
    assert all(mv.extended(u.name, c) for u, c in combined)
    assert dict(cells.not_run())["init=gpt2"].startswith("ruled out alone")


def test_every_touched_claim_has_a_cell_under_every_universe_default_or_extended():
    every = {(u.name, c) for u, c in cells.all_cells()}
    default, extended = set(map(_named, cells.cells())), set(map(_named, cells.extended_cells()))
    assert default | extended == every and not default & extended
    for universe in mv.UNIVERSES:
        for claim in cells.touched(universe):
            assert all((universe.name, column) in every for column in mv.columns(claim))
        assert universe.claims == cells.touched(universe)  # the plan handed to the report (lengthgen.readings)
    assert {(u, c) for u, c in extended if "+" not in u} == {(u, c) for u, c, _ in mv.left_out()}
    assert all(why for _, _, why in mv.left_out())
    assert set(map(_named, mv.cells())) == default  # the report reads the same cells
    # the non-reproductions at the paper's point keep every reading alone in the default run, but the one whose
    # cells are all extended for their cost (the transformers trained 3x as long): the extended run answers there
    for column in ("C8", "C10", "C12-d64", "C13-d64", "C19", "C20", "P1", "P2"):
        for universe in mv.UNIVERSES:
            if mv.split_column(column)[0] in cells.touched(universe) and universe.name != LONGER:
                assert (universe.name, column) not in extended, (universe.name, column)
    assert {c for u, c in extended if u == LONGER} == {"C12", "C12-d64", "C13", "C13-d64"}
    assert {c for u, c in cells.cells() if c.startswith("C12")} == {"C12", "C12-d64"}


def _named(cell):
    universe, column = cell
    return universe.name, column


def test_the_plain_registry_imports_no_torch():
    """lengthgen.readings and lengthgen.multiverse_cells (what rendering a claims.json reads, with the
    `lengthgen multiverse` command) load without torch; the engine part (lengthgen.experiments.multiverse)
    re-exports the same objects."""
    import subprocess
    import sys

    code = (
        "import sys; import lengthgen.readings, lengthgen.multiverse_cells as cells, lengthgen.cli.multiverse; "
        "print('torch' in sys.modules, cells.left_out() == cells.left_out() and len(cells.left_out()))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["False", str(len(mv.left_out()))], out.stdout + out.stderr  # no plan needed
    from lengthgen import multiverse_cells, readings

    assert mv.READINGS is readings.READINGS and mv.UNIVERSE_BY_NAME is readings.UNIVERSE_BY_NAME
    assert mv.LEFT_OUT is multiverse_cells.LEFT_OUT and mv.cells is multiverse_cells.cells
