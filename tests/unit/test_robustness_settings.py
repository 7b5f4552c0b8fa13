"""The robustness settings registry (``lengthgen.experiments.robustness``) and the claims that run at each
(``ClaimSpec.settings``): the catalogue's table, the spec each setting trains, its readings of Lmax and chance, its
seeds, and one-line errors for invalid settings."""

from __future__ import annotations

import pytest

from lengthgen.context import Context
from lengthgen.experiments.common import paper_spec
from lengthgen.catalogue import ROBUSTNESS, SETTING_NAMES
from lengthgen.experiments.robustness import BY_NAME, FRESH_SEEDS, SETTINGS, Setting, setting

from claims.registry import CLAIMS, catalogue

# the catalogue's fresh-seeds row, written out: the claims that train models (every claim of the paper but C2 and
# C15, exact computations)
MODEL_CLAIMS = (
    "C1", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10", "C11", "C12",
    "C13", "C14", "C16", "C17", "C18", "C19", "C20", "C21", "C22",
)  # fmt: skip
# the catalogue's "Robustness settings" table, written out (settings -> claims)
CATALOGUE_TABLE = {
    "offsets-far": ("C1", "C3", "C4", "C5", "C6", "C8"),
    "width-32": ("C1", "C3", "C4", "C5", "C8"),
    "width-128": ("C1", "C3", "C4", "C5", "C8"),
    "vocab-10": ("C1", "C3", "C8"),
    "vocab-40": ("C1", "C3", "C8"),
    "range-8-24": ("C1", "C3", "C8"),
    "fresh-seeds": MODEL_CLAIMS,
}


def test_the_registry_is_the_catalogue_table():
    from claims.test_robustness import CELLS

    assert [s.name for s in SETTINGS] == list(CATALOGUE_TABLE) == list(SETTING_NAMES)
    assert [(s.name, s.what) for s in SETTINGS] == [(w.name, w.what) for w in ROBUSTNESS]
    assert {s.name: tuple(c for c, spec in CLAIMS.items() if s.name in spec.settings) for s in SETTINGS} == (
        CATALOGUE_TABLE
    )
    assert {s.name: tuple(e.id for e in catalogue() if s.name in e.settings) for s in SETTINGS} == CATALOGUE_TABLE
    # fresh seeds: exactly the paper's claims whose tests train models
    trained = tuple(c for c, spec in CLAIMS.items() if spec.families and not spec.prediction)
    assert tuple(c for c in trained if c in MODEL_CLAIMS) == MODEL_CLAIMS  # a claim added since may train too
    assert [p.values for p in CELLS] == [(s, c) for s, claims in CATALOGUE_TABLE.items() for c in claims]
    assert CELLS[0].id == "offsets-far-C1" and all(p.marks[0].args == (p.values[1],) for p in CELLS)


@pytest.mark.parametrize(
    "name, field, value",
    [
        ("width-32", ("model", "d"), 32),
        ("width-128", ("model", "d"), 128),
        ("vocab-10", ("task", "vocab"), 10),
        ("vocab-40", ("task", "vocab"), 40),
        ("range-8-24", ("task", "max_len"), 24),
    ],
)
def test_each_spec_setting_changes_one_field_of_the_paper_spec(name, field, value):
    spec = setting(name).spec(Context((), 4000), model={"encoding": "ape"}, task={"offset": 3})
    part, key = field
    assert getattr(getattr(spec, part), key) == value
    expected = paper_spec(Context((), 4000), model={"encoding": "ape"}, task={"offset": 3}).replace(
        **{part: {key: value}}
    )
    assert spec == expected  # nothing else changes
    assert setting(name).changes_spec


def test_offsets_and_seed_settings_keep_the_paper_spec():
    for name in ("offsets-far", "fresh-seeds"):
        assert setting(name).spec(Context((), 4000)) == paper_spec(Context((), 4000)) and not setting(name).changes_spec
    assert setting("offsets-far").offsets == (4, 5, 6)
    assert setting("offsets-far").seed_list(8) == (0, 1, 2, 3, 4)  # the catalogue: 5 seeds
    assert setting("fresh-seeds").seed_list(8) == FRESH_SEEDS == tuple(range(100, 108))
    assert setting("fresh-seeds").seed_list(5) == (100, 101, 102, 103, 104)
    assert setting("width-32").seed_list(8) == tuple(range(8)) and setting("width-32").seed_list(5) == tuple(range(5))


def test_readings_of_lmax_and_chance():
    assert setting("range-8-24").max_len == 24 and setting("width-32").max_len == 16
    assert setting("fresh-seeds").near_chance == 0.15  # exactly the catalogue's number at m = 20
    assert setting("vocab-10").chance == 0.1 and setting("vocab-10").near_chance == 0.2
    assert setting("vocab-40").near_chance == 0.125


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(task=(("vocabulary", 10),)), "'vocabulary' is not a TaskConfig field"),
        (dict(model=(("encoding", "ape"),)), "may not change the encoding"),
        (dict(model=(("d", 33),)), "even head width"),
        (dict(offsets=(4,), task=(("min_len", 3),)), "min_len"),
        (dict(seed_count=0), "seed_count=0"),
        (dict(name=" bad"), "' bad'"),
    ],
)
def test_an_invalid_setting_raises_naming_the_value(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        Setting(**{"name": "bad", "what": "bad", **kwargs})


def test_unknown_setting_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown robustness setting 'width-64'.*offsets-far"):
        setting("width-64")
    assert BY_NAME["vocab-10"] is setting("vocab-10")
    with pytest.raises(ValueError, match="5 seeds asked"):
        Setting("few", "few", seeds=(100, 101)).seed_list(5)


def test_every_cell_resolves_to_the_claims_own_checks_without_training():
    from lengthgen.records import ClaimRecorder
    from lengthgen.scale import PAPER

    from claims.mechanism import MECHANISM_OFFSETS
    from claims.registry import claim_modules
    from claims.robustness import GRID_OFFSETS, cell_scale
    from claims.run import run_claim

    specs = {module.CLAIM.id: (module.CLAIM, module) for module in claim_modules()}
    for s, claim in ((setting(name), c) for name, claims in CATALOGUE_TABLE.items() for c in claims):
        spec, module = specs[claim]
        assert spec.checks and all(getattr(c, "func", c).__module__ == module.__name__ for c in spec.checks)
        assert s.seeds is not None or spec.at_setting is not None  # another spec or K: the claim's own experiment
        scale = cell_scale(s, spec.paper_seeds)
        assert scale.name == "paper" and scale.steps == 4000 and scale.sequences == 4096
        assert scale.seeds == s.seed_list(len(scale.seeds))
    assert cell_scale(setting("fresh-seeds"), specs["C1"][0].paper_seeds).seeds == FRESH_SEEDS
    assert cell_scale(setting("fresh-seeds"), specs["C4"][0].paper_seeds).seeds == FRESH_SEEDS[:5]
    assert MECHANISM_OFFSETS == (2, 3) and GRID_OFFSETS == (1, 2, 3)  # the claims' K where a setting keeps it
    with pytest.raises(ValueError, match="C4 does not run at vocab-10"):
        run_claim(specs["C4"][0], ClaimRecorder("C4"), PAPER, None, setting=setting("vocab-10"))


def test_c1_reads_near_chance_as_one_over_m_plus_a_tenth():
    from claims.test_c01_phenomenon import APE_ABOVE_CHANCE

    assert APE_ABOVE_CHANCE == 0.10  # C1's check reads result.chance + 0.10: 0.15 at m = 20, 0.20 at m = 10
    assert setting("vocab-10").near_chance == 0.2 and setting("vocab-40").near_chance == 0.125
