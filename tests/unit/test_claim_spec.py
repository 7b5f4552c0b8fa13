"""A claim is one object: claims/spec.py's ClaimSpec (with Declared and Variant), the registry that discovers every
claim module's CLAIM, and the recorder's setters for where a record ran (no training)."""

from __future__ import annotations

import pkgutil

import pytest

from lengthgen.analysis.data import sort_key
from lengthgen.analysis.declared import _cell_key
from lengthgen.catalogue import NOT_IN_PAPER, claim_order
from lengthgen.records import ClaimRecorder, Declared
from lengthgen.scale import PAPER, QUICK
from tests.helpers import UNKNOWN_CLAIM

import claims

from claims.registry import CLAIMS, DuplicateClaim, catalogue, claim, claim_modules, discovered, order
from claims.spec import ClaimSpec, LeftOut, Variant


def _check(recorder, result):
    recorder.check("value", result, ">=", 0.5, source="suite-reading")


def _measure(scale, cache):
    return 1.0


PAPER_CLAIMS = [f"C{n}" for n in range(1, 23)]  # the paper's claims, C1..C22, then its predictions P1..P6
PREDICTIONS = [f"P{n}" for n in range(1, 7)]


def test_every_claim_module_declares_its_claim_in_the_registry():
    modules = sorted(m.name for m in pkgutil.iter_modules(claims.__path__) if m.name[:6] in ("test_c", "test_p"))
    assert sorted(m.__name__.removeprefix("claims.") for m in claim_modules()) == modules
    assert [c for c in CLAIMS if c in PAPER_CLAIMS + PREDICTIONS] == PAPER_CLAIMS + PREDICTIONS  # every one, by number
    assert list(CLAIMS) == [s.id for s in sorted(CLAIMS.values(), key=order)]  # the catalogue's order: claims first
    assert [s.prediction for s in CLAIMS.values()] == sorted(s.prediction for s in CLAIMS.values())
    assert all(CLAIMS[module.CLAIM.id] is module.CLAIM for module in claim_modules())
    assert [e.id for e in catalogue().predictions] == [c for c, s in CLAIMS.items() if s.prediction]
    assert [e.id for e in catalogue().claims] == [c for c, s in CLAIMS.items() if not s.prediction]
    assert catalogue().entry("C8") == CLAIMS["C8"].entry and catalogue().entry("C8").title == CLAIMS["C8"].title
    assert claim("C12") is CLAIMS["C12"]
    with pytest.raises(ValueError, match=f"'{UNKNOWN_CLAIM}'"):
        claim(UNKNOWN_CLAIM)


def test_the_variants_are_the_test_ids_and_inherit_what_they_leave_open():
    assert [v.name for v in CLAIMS["C12"].variants] == ["d64", "d96"]
    assert [v.name for v in CLAIMS["C20"].variants] == ["c1-reading", "first-reading"]
    d64, d96 = CLAIMS["C13"].variant("d64"), CLAIMS["C13"].variant("d96")
    assert d64.declaration("paper").checks != d64.declaration("quick").checks and d96.declaration("paper") is None
    assert CLAIMS["C20"].variant("c1-reading").declaration("paper") is CLAIMS["C20"].declaration("paper")
    assert CLAIMS["C20"].variant("c1-reading").declaration("quick") is None
    t5, alibi = CLAIMS["C19"].variant("target-t5"), CLAIMS["C19"].variant("target-alibi")
    assert t5.declaration("paper") is None and alibi.declaration("quick").checks[0].startswith("ALiBi K=2")
    assert len(CLAIMS["C19"].checks) == 4 and CLAIMS["C19"].carried is not None  # the cell: both tests, both schemes
    assert CLAIMS["C8"].declaration("paper") is not None and CLAIMS["C8"].carried is None  # one seed's: not carried
    assert CLAIMS["C11"].declaration("paper") is None and CLAIMS["C11"].declaration("quick") is not None
    with pytest.raises(ValueError, match="'d32'"):
        CLAIMS["C12"].variant("d32")


def test_the_spec_describes_its_scale_block():
    assert CLAIMS["C1"].describe(PAPER) == PAPER.describe(8)
    assert CLAIMS["C2"].describe(QUICK)["examples"] == 25  # an exact computation's own block
    assert CLAIMS["C12"].run_scale(PAPER).steps == 300 and CLAIMS["C1"].run_scale(PAPER) is PAPER
    # the transformers' quick recipe (lengthgen/scale.py): 100 steps, 256 sequences; the paper scale's are its own
    assert (CLAIMS["C12"].run_scale(QUICK).steps, CLAIMS["C12"].run_scale(QUICK).sequences) == (100, 256)
    assert CLAIMS["C13"].run_scale(QUICK).sequences == 256 and CLAIMS["C12"].run_scale(PAPER).sequences == 4096


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"title": " "}, "title=' '"),
        ({"assertion": ""}, "assertion=''"),
        ({"paper_seeds": -1}, "-1"),
        ({"paper_seeds": True}, "True"),
        ({"checks": ()}, r"\(\)"),
        ({"families": ("three-layer",)}, "three-layer"),
        ({"reads_ape": True}, "reads_ape=True"),
        ({"variants": (Variant("a"), Variant("a"))}, "'a'"),
        ({"declared": (Declared(("x",), "y"), Declared(("z",), "w"))}, "'paper'"),
        ({"families": ("one-layer",), "settings": ("width-99",)}, "'width-99'"),
        ({"settings": ("fresh-seeds",)}, "trains nothing"),
        ({"families": ("one-layer",), "settings": ("fresh-seeds",), "paper_value": NOT_IN_PAPER}, "not predictions"),
        ({"variants": (Variant("a"),), "cell_variant": "b"}, "'b'"),
        ({"families": ("one-layer",), "declared": (Declared(("x",), "y", at="width-32"),)}, "width-32"),
    ],
)
def test_an_invalid_spec_raises_naming_the_value(kwargs, fragment):
    words = {"title": "t", "where": "w", "statement": "s", "assertion": "a", "paper_value": "0.5"}
    fields = {"id": "C1", **words, "paper_seeds": 8, "measure": _measure, "checks": (_check,), **kwargs}
    with pytest.raises(ValueError, match=fragment):
        ClaimSpec(**fields)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"checks": "K=1*"}, "'K=1\\*'"),
        ({"checks": ()}, r"\(\)"),
        ({"why": " "}, "' '"),
        ({"scales": ("huge",)}, "huge"),
        ({"carried": "yes"}, "'yes'"),
        ({"at": "width-99"}, "'width-99'"),
    ],
)
def test_an_invalid_declaration_raises_naming_the_value(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        Declared(**{"checks": ("K=1*",), "why": "a reason", **kwargs})
    with pytest.raises(ValueError, match="''"):
        Variant("")
    with pytest.raises(ValueError, match="'init=xavier'"):
        LeftOut("init=xavier", "its cost")
    with pytest.raises(ValueError, match="'init=flax': say why"):
        LeftOut("init=flax", " ")


def test_the_recorder_sets_where_it_ran_and_refuses_an_empty_name():
    recorder = ClaimRecorder("C1")
    recorder.set_setting("width-32")
    assert (recorder.record.setting, recorder.record.universe) == ("width-32", None)
    recorder.set_universe("init=gpt2")  # one place a record ran: the universe replaces the setting
    assert (recorder.record.setting, recorder.record.universe) == (None, "init=gpt2")
    for setter in (recorder.set_setting, recorder.set_universe):
        with pytest.raises(ValueError, match="''"):
            setter("")
    with pytest.raises(ValueError, match="'maybe'"):
        recorder.expect_not_reproduced(PAPER, Declared(("value",), "a reason"), strict="maybe")
    recorder.expect_not_reproduced(PAPER, Declared(("value",), "a reason"), strict=False)
    assert recorder.record.declared.strict is False


def test_a_new_look_starts_from_the_record_at_the_first_look():
    recorder = ClaimRecorder("C9")
    recorder.choice("before the looks")
    recorder.begin_looks(0.99)
    recorder.check("first look", [0.1, 0.2], "<=", 0.5)
    recorder.note("first look")
    recorder.figure("f", {"x": 1})
    recorder.new_look()
    assert recorder.record.choices == ["before the looks"] and not recorder.record.checks
    assert not recorder.record.notes and not recorder.record.figures and recorder.decision_level == 0.99
    recorder.end_looks({"path": []}, added_seeds=True)
    assert recorder.record.looks == {"path": []}
    with pytest.raises(ValueError, match="1.5"):
        recorder.begin_looks(1.5)


def test_two_modules_declaring_one_id_are_one_line_naming_both():
    from types import SimpleNamespace

    first, second = (SimpleNamespace(__name__=f"claims.test_c15_{w}", CLAIM=CLAIMS["C15"]) for w in ("a", "b"))
    with pytest.raises(DuplicateClaim) as raised:
        discovered((first, second))
    assert str(raised.value) == "two claim modules declare C15: claims.test_c15_a and claims.test_c15_b"
    assert list(discovered((first,))) == ["C15"]


def test_one_order_of_claim_ids_sorts_the_registry_claims_json_and_the_declarations():
    ids = ["P10", "C22", "X1", "P2", "C3", "C10", "P1"]
    assert sorted(ids, key=claim_order) == ["C3", "C10", "C22", "P1", "P2", "P10", "X1"]
    assert sorted(ids, key=lambda c: sort_key({"claim": c})) == sorted(ids, key=claim_order)
    cells = {("paper", c): None for c in ("P3", "C12-d64", "C2", "C12")}
    assert [c for _, c in sorted(cells, key=_cell_key)] == ["C2", "C12", "C12-d64", "P3"]
    assert [s.id for s in sorted(CLAIMS.values(), key=order)] == sorted(CLAIMS, key=claim_order)
