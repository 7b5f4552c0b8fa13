"""The README is the page a reviewer reads in minutes: under :data:`MOST_WORDS` words as rendered (its generated
sections included), opening with the paper, then the commands (the CPU build of torch before the package), then
the answer, then a glossary of the words the answer uses; every glossary word is defined, or the glossary
linked, before the README first uses it."""

from __future__ import annotations

import re

import pytest

from tests.helpers import ROOT

MOST_WORDS = 1500  # a reviewer's few minutes; the rest of the documentation lives under docs/
TORCH_CPU = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
INSTALL = 'pip install -e ".[test]"'
TERMS = (  # the words the answer and the verdict table use, each defined in the glossary
    "reading",
    "open choice",
    "universe",
    "admissible",
    "precondition",
    "deciding check",
    "multiverse",
    "within noise",
    "ruled out",
    "close",
)


def readme() -> str:
    return (ROOT / "README.md").read_text()


def test_the_readme_is_short():
    words = len(readme().split())
    assert words < MOST_WORDS, f"README.md has {words} words (at most {MOST_WORDS - 1}); move detail into docs/"


def test_it_opens_with_the_paper_then_the_commands_then_the_answer_then_the_glossary():
    text = readme()
    order = [
        "Relative Positions Generalize, Absolute Positions Memorize",
        TORCH_CPU,
        INSTALL,
        "pytest claims -n auto",
        "<!-- lengthgen docs: begin answer -->",
        "## Glossary",
    ]
    at = [text.find(part) for part in order]
    assert -1 not in at and at == sorted(at), (
        f"README.md's opening parts out of order or missing: {dict(zip(order, at))}"
    )
    assert "names no authors" in text[: at[1]], "the README says who wrote the paper (the text names no one)"


def test_it_shows_the_page_of_the_reference_run_without_training():
    assert "lengthgen report --run tests/data/claims-reference.json.gz" in readme()
    assert "/tmp/lengthgen-page/index.html" in readme()


def glossary(text: str) -> str:
    start = text.index("## Glossary")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


@pytest.mark.parametrize("term", TERMS)
def test_every_term_is_defined_before_its_first_use(term):
    text = readme()
    entries = re.findall(r"^- \*\*(.+?)\*\*", glossary(text), re.MULTILINE)
    defined = {word.strip().lower() for entry in entries for word in entry.rstrip(".").split(",")}
    assert term in defined, f"the glossary defines {sorted(defined)}, not {term!r}"
    first = re.search(rf"\b{re.escape(term)}", text, re.IGNORECASE)
    linked = text.find("(#glossary)")
    assert first.start() >= text.index("## Glossary") or -1 < linked < first.start(), (
        f"{term!r} is used at offset {first.start()} before the glossary is linked (offset {linked})"
    )
