"""Whose threshold a check reads, by rule (lengthgen/records/basis.py), and the kind of each declared
non-reproduction: every claim quotes the paper's sentence(s) it tests; a check labelled the paper's names the token
of that quote it reads, and the token carries the check's threshold and reduction; every declaration states its
kind with a measured reason, and a "paper-statement" kind fails a check labelled the paper's. Read from the claim
modules (their specs and the source text of their ``.check(`` calls) and from the recorded runs; nothing trains."""

from __future__ import annotations

import ast
import gzip
import json
import re

import pytest

from lengthgen.catalogue import Entry
from lengthgen.records import ClaimRecord, ClaimRecorder, Declared
from lengthgen.records.basis import EVERY, PAPER_SOURCES, SEED_REDUCTIONS, covers, found, label, normal, refusal
from tests.helpers import DATA, ROOT, SHARED
from tests.unit.test_threshold_sources import check_calls

RUNS = sorted(DATA.glob("claims-*.json.gz"))  # every recorded run of the claims
PAPER_TEXT = [SHARED / "paper" / name for name in ("abstract.txt", "paper-body.txt")]
PROSE = re.compile(r"[A-Za-z0-9 ,;:'\u2019\-]+")  # a quote's prose, between its mathematical symbols
PROSE_WORDS = 3  # a stretch of prose this long is compared word for word with the paper's text


def claims():
    from claims.registry import CLAIMS

    return CLAIMS


def keyword(call: ast.Call, name: str):
    """A ``.check(`` call's keyword ``name`` as a Python value (None where absent; "?" where not a literal)."""
    node = next((k.value for k in call.keywords if k.arg == name), None)
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except ValueError:
        return "?"


def module_quotes() -> dict[str, tuple[str, ...]]:
    """Each claim module's file name -> its claim's quote."""
    from claims.registry import claim_modules

    return {m.__file__.rsplit("/", 1)[-1]: m.CLAIM.quote for m in claim_modules()}


def recorded_checks():
    """``(run, record, check)`` for every check of every record (claims, controls, cells) of every recorded run."""
    for path in RUNS:
        data = json.loads(gzip.decompress(path.read_bytes()))
        for part in ("records", "controls", "robustness", "multiverse"):
            for raw in data.get(part) or []:
                record = ClaimRecord.from_dict(raw)
                for check in record.checks:
                    yield path.name, record, check


# --------------------------------------------------------------------------------------------- the quotes


def test_every_claim_of_the_paper_quotes_the_sentences_it_tests():
    missing = [cid for cid, spec in claims().items() if not spec.prediction and not spec.quote]
    assert not missing, f"claims without a quote of the paper: {missing}"


@pytest.mark.skipif(not all(p.exists() for p in PAPER_TEXT), reason="the paper's text is not beside this checkout")
def test_every_quote_is_the_papers_own_words():
    paper = normal(re.sub(r"[${}\\]", "", "\n".join(p.read_text() for p in PAPER_TEXT)))  # its LaTeX as plain text
    absent = [
        (cid, stretch)
        for cid, spec in claims().items()
        for sentence in spec.quote
        for stretch in (s.strip(" ,;:-") for s in PROSE.findall(sentence))
        if len(stretch.split()) >= PROSE_WORDS and normal(stretch) not in paper
    ]
    assert not absent, f"quoted words not in the paper's text: {absent}"


# --------------------------------------------------------------------------------------------- the labels


def test_every_paper_label_in_the_claim_modules_names_a_token_of_its_quote():
    quotes = module_quotes()
    refused, stray, seen = [], [], 0
    for where, call in check_calls():
        source, quoted, reduce = keyword(call, "source"), keyword(call, "quoted"), keyword(call, "reduce")
        if source not in PAPER_SOURCES:
            if quoted is not None:
                stray.append(where)
            continue
        seen += 1
        quote = quotes.get(where.split(":")[0], ())
        op = call.args[2].value if isinstance(call.args[2], ast.Constant) else "?"
        if not isinstance(quoted, str) or not found(quote, quoted):
            refused.append((where, f"token {quoted!r} not in its claim's quote"))
        elif reduce in SEED_REDUCTIONS and not EVERY.search(normal(quoted)):
            refused.append((where, f"reduce={reduce!r} with {quoted!r}: no every / all / 100%"))
        else:
            try:
                threshold = ast.literal_eval(call.args[3])
            except ValueError:
                continue  # a computed threshold: the recorder applies the rule as the claim runs (the next test)
            given, why = refusal(quote, quoted, op, threshold, reduce if reduce != "?" else "mean")
            if given != source:
                refused.append((where, why))
    assert seen >= 5, seen  # a floor under the claim modules' paper labels: the walk finds them
    assert not refused, f"checks labelled the paper's that the rule refuses: {refused}"
    assert not stray, f"a quoted token on a check not labelled the paper's: {stray}"


def test_no_recorded_check_reads_as_the_papers_without_a_token_of_its_claims_quote():
    """Every check of every recorded run, as the report reads it: a label of the paper's names a token of its
    record's quote that the rule accepts (a record without its claim's quote reads none of the paper's)."""
    refused, counted = [], 0
    for run, record, check in recorded_checks():
        if check.threshold_source not in PAPER_SOURCES:
            continue
        counted += 1
        given, why = refusal(record.quote, check.quoted, check.op, check.threshold, check.reduce)
        if given != check.threshold_source:
            refused.append(f"{run} {record.claim} {record.setting or record.universe or ''} {check.name!r}: {why}")
    assert counted, "the recorded runs hold no check labelled the paper's"
    assert not refused, f"{len(refused)} recorded checks labelled the paper's that the rule refuses: {refused[:5]}"


def test_every_check_recorded_with_its_claims_quote_was_labelled_by_the_rule():
    """What a recorder wrote, before the read applies the rule: where a record carries its claim's quote, each
    check's written label is the rule's (the recorder refused any other)."""
    written, differ = 0, []
    for path in RUNS:
        data = json.loads(gzip.decompress(path.read_bytes()))
        for part in ("records", "controls", "robustness", "multiverse"):
            for raw in data.get(part) or []:
                if not raw.get("quote"):
                    continue
                for check in raw["checks"]:
                    written += 1
                    threshold = tuple(check["threshold"]) if check["op"] == "in" else check["threshold"]
                    source = check.get("threshold_source")
                    if source in PAPER_SOURCES:
                        given, why = refusal(raw["quote"], check.get("quoted"), check["op"], threshold, check["reduce"])
                        if given != source:
                            differ.append(f"{path.name} {raw['claim']} {check['name']!r}: {why}")
    assert written, "no recorded run carries its claims' quotes"
    assert not differ, differ


def test_the_reference_runs_paper_point_carries_the_quotes():
    data = json.loads(gzip.decompress((DATA / "claims-reference.json.gz").read_bytes()))
    unquoted = [r["claim"] for r in data["records"] if not r.get("prediction") and not r.get("quote")]
    assert not unquoted, f"records of the paper's claims without their quote: {unquoted}"


QUOTE = ("it carries a strong target carrier (0.98 versus a 0.02 baseline).", "selecting -K throughout")


@pytest.mark.parametrize(
    "quoted, op, threshold, reduce, expected",
    [
        ("0.98", ">=", 0.975, "mean", "paper-number"),  # within the rounding of 0.98: [0.975, 0.985)
        ("0.98", "in", (0.976, 0.984), "mean", "paper-number"),
        ("0.98", ">=", 0.8, "mean", None),  # a margin around the paper's number is the suite's reading
        ("0.98", ">=", 0.985, "mean", None),  # the rounding's open end
        ("0.99", ">=", 0.99, "mean", None),  # a number the quote does not state
        ("0.02 baseline", ">", 0.0, None, "paper-number"),  # words: an exact condition the quote states
        ("selecting -K throughout", "==", -2.0, "all", None),  # every seed, and the token says not every
        ("strong target carrier", ">=", 0.9, "min", None),  # a min over seeds: one seed decides
    ],
)
def test_the_rule(quoted, op, threshold, reduce, expected):
    given, why = refusal(QUOTE, quoted, op, threshold, reduce)
    assert given == expected, why


def test_a_stated_number_covers_its_rounding_and_a_range_its_ends():
    assert covers("0.97", 0.965) and covers("0.97", 0.9749) and not covers("0.97", 0.975)
    assert covers("100%", 1.0) and not covers("100%", 0.99)
    quote = ("The carrier fraction holds in 0.72\u20130.86 across widths",)
    assert refusal(quote, "0.72-0.86", "in", (0.72, 0.86), "mean")[0] == "paper-range"
    assert refusal(quote, "0.72-0.86", "in", (0.65, 0.95), "mean")[0] is None  # the paper's range widened
    assert refusal(quote, "0.72-0.86", ">=", 0.72, "mean")[0] is None
    assert not found(quote, "0.7") and not found(quote, "0.72-0.8")  # inside a longer number


def entry(quote: tuple[str, ...]) -> Entry:
    return Entry("C13", "t", "Sec. 5.2", "s", "carrier 0.98", "a", quote=quote)


def test_the_recorder_refuses_a_paper_label_the_rule_does_not_give():
    recorder = ClaimRecorder(entry(QUOTE[:1]))
    made = recorder.check("carrier", [0.98, 0.979], ">=", 0.975, source="paper-number", quoted="0.98")
    assert made.threshold_source == "paper-number" and made.quoted == "0.98"
    with pytest.raises(ValueError, match="'fabricated'.*'0.97' is not in its claim's quote"):
        recorder.check("fabricated", [0.98, 0.97], ">=", 0.97, source="paper-number", quoted="0.97")
    with pytest.raises(ValueError, match="'every seed'.*does not say every, all or 100%"):
        recorder.check("every seed", [1.0, 1.0], ">=", 0.975, reduce="all", source="paper-number", quoted="0.98")
    with pytest.raises(ValueError, match="'untokened'.*names no quoted token"):
        recorder.check("untokened", [1.0, 1.0], ">=", 0.975, source="paper-number")
    with pytest.raises(ValueError, match="'ranged'.*makes it 'paper-number'"):
        recorder.check("ranged", [0.98, 0.98], ">=", 0.975, source="paper-range", quoted="0.98")
    with pytest.raises(ValueError, match="'stray'.*'suite-reading' but names"):
        recorder.check("stray", [1.0, 1.0], ">=", 0.8, source="suite-reading", quoted="0.98")
    every = ClaimRecorder(entry(("the selected offset equals the target in 100% of seed\u00d7length cells",)))
    made = every.check("cell", [-2.0] * 5, "==", -2.0, reduce="all", source="paper-number", quoted="100% of seed")
    assert made.passed and made.threshold_source == "paper-number"


def test_a_recorded_paper_label_the_rule_refuses_reads_as_the_suites():
    recorder = ClaimRecorder(entry(QUOTE[:1]))
    recorder.check("carrier", [0.98, 0.979], ">=", 0.975, source="paper-number", quoted="0.98")
    data = recorder.record.to_dict()
    assert data["quote"] == list(QUOTE[:1]) and data["checks"][0]["quoted"] == "0.98"
    assert ClaimRecord.from_dict(data).checks[0].threshold_source == "paper-number"
    data["checks"][0].update(threshold=0.8, quoted="0.98")  # a file that says paper-number of a margin
    assert ClaimRecord.from_dict(data).checks[0].threshold_source == "suite-reading"
    data["checks"][0].update(threshold=0.975)
    data["quote"] = []  # an older record, without its claim's quote: no label of it reads the paper's
    assert ClaimRecord.from_dict(data).checks[0].threshold_source == "suite-reading"


def test_label_passes_the_suites_own_labels_through():
    assert label("x", "suite-reading", QUOTE, None, ">=", 0.8, "all") == "suite-reading"
    assert label("x", "catalogue-prediction", (), None, "==", -1.0, "all") == "catalogue-prediction"
    assert label("x", None, (), None, "==", -1.0, None) is None


# --------------------------------------------------------------------------------------------- the kinds


def declarations():
    """``(claim, declaration)`` for every declaration of every claim module, its variants' included."""
    for cid, spec in claims().items():
        for d in spec.declared:
            yield cid, d
        for v in spec.variants:
            for d in v.declared or ():
                yield f"{cid} {v.name}", d


def test_every_declared_non_reproduction_states_its_kind_with_a_measured_reason():
    unstated = [(cid, d.checks[0]) for cid, d in declarations() if d.kind is None or not d.reason.strip()]
    assert not unstated, f"declarations without a kind and its reason: {unstated}"
    unmeasured = [(cid, d.reason) for cid, d in declarations() if not re.search(r"\d", d.reason)]
    assert not unmeasured, f"a kind's reason without a measured number: {unmeasured}"


def kind_mismatch(record: ClaimRecord) -> str | None:
    """Why ``record``'s declared kind does not match the labels of the checks it fails (None where it does): a
    "paper-statement" record fails a check labelled the paper's, a "suite-reading" one fails none."""
    kind = record.declared.kind if record.declared is not None else None
    if kind is None or not record.failed_checks:
        return None
    paper = [c.name for c in record.failed_checks if c.basis == "paper"]
    if kind == "paper-statement" and not paper:
        return "paper-statement, and no check labelled the paper's fails"
    if kind == "suite-reading" and paper:
        return f"suite-reading, and it fails checks labelled the paper's: {paper}"
    return None


def test_a_declared_kind_matches_the_labels_of_the_checks_it_fails():
    wrong, kinds, seen = [], set(), set()
    for run, record, _ in recorded_checks():
        key = (run, record.test, record.setting, record.universe, record.kind)
        if key in seen:
            continue
        seen.add(key)
        if record.declared is not None and record.declared.kind is not None and record.failed_checks:
            kinds.add(record.declared.kind)
        why = kind_mismatch(record)
        if why is not None:
            wrong.append(f"{run} {record.claim} {record.variant} {record.setting or ''}: {why}")
    assert not wrong, wrong
    assert {"suite-reading", "structural"} <= kinds, kinds  # the recorded runs declare kinds


def test_each_declarations_kind_matches_the_labels_of_the_checks_it_names():
    """Every declaration of every claim module, against the reference run's checks of the same names (the labels
    the rule gives at the paper's point): a "paper-statement" kind names a check labelled the paper's, a
    "suite-reading" kind none."""
    from fnmatch import fnmatchcase

    data = json.loads(gzip.decompress((DATA / "claims-reference.json.gz").read_bytes()))
    labels: dict[str, dict[str, str]] = {}
    for raw in data["records"]:
        for check in ClaimRecord.from_dict(raw).checks:
            labels.setdefault(raw["claim"], {})[check.name] = check.basis
    wrong, kinds = [], set()
    for where, d in declarations():
        mine = labels.get(where.split()[0], {})
        named = [n for n in mine if any(fnmatchcase(n, p) for p in d.checks)]
        paper = [n for n in named if mine[n] == "paper"]
        kinds.add(d.kind)
        if d.kind == "paper-statement" and not paper:
            wrong.append(f"{where} at {d.at or 'the paper point'}: paper-statement names no check of the paper's")
        if d.kind == "suite-reading" and paper:
            wrong.append(f"{where} at {d.at or 'the paper point'}: suite-reading names checks of the paper's {paper}")
    assert not wrong, wrong
    assert kinds == {"paper-statement", "suite-reading", "structural"}, kinds


def test_the_kind_rule_fails_on_a_planted_mismatch():
    recorder = ClaimRecorder(entry(QUOTE[:1]))
    recorder.check("carrier", [0.5, 0.51], ">=", 0.8, source="suite-reading")
    recorder.record.declared = Declared(("carrier",), "lower", kind="paper-statement", reason="0.505 against 0.98")
    assert recorder.record.failure_kind == "paper-statement"
    assert "no check labelled the paper's fails" in kind_mismatch(recorder.record)
    recorder.check("carrier stated", [0.5, 0.51], ">=", 0.975, source="paper-number", quoted="0.98")
    assert kind_mismatch(recorder.record) is None
    recorder.record.declared = Declared(("carrier*",), "lower", kind="suite-reading", reason="0.505 against 0.8")
    assert "'carrier stated'" in kind_mismatch(recorder.record)
    with pytest.raises(ValueError, match="'sideways'"):
        Declared(("x",), "y", kind="sideways", reason="1")
    with pytest.raises(ValueError, match="measured reason"):
        Declared(("x",), "y", kind="structural")


def test_the_claim_modules_are_walked():
    assert (ROOT / "claims" / "test_c13_two_layer_heads.py").name in module_quotes()
