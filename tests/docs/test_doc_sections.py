"""The generated sections of a hand-written document (lengthgen/report/doc_sections.py): the body between a
pair of markers is replaced and everything else stays; every broken pair is a ValueError naming the document
and its line."""

from __future__ import annotations

import pytest

from lengthgen.report.doc_sections import BEGIN, END, fill, spans

DOC = f"# title\nhand-written\n{BEGIN.format(name='table')}\nold\nrows\n{END.format(name='table')}\ntail\n"


def test_the_body_is_replaced_and_the_rest_kept():
    out = fill(DOC, {"table": "| a |\n| 1 |\n"}, "doc.md")
    assert (
        out == f"# title\nhand-written\n{BEGIN.format(name='table')}\n| a |\n| 1 |\n{END.format(name='table')}\ntail\n"
    )
    assert fill(out, {"table": "| a |\n| 1 |\n"}, "doc.md") == out  # rendering twice changes nothing


def test_an_empty_section_fills():
    empty = f"{BEGIN.format(name='x')}\n{END.format(name='x')}\n"
    assert fill(empty, {"x": "body"}, "d") == f"{BEGIN.format(name='x')}\nbody\n{END.format(name='x')}\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (f"{BEGIN.format(name='a')}\n", "d.md:1: section 'a' has no end marker"),
        (f"{END.format(name='a')}\n", "d.md:1: section 'a' ends without its begin marker"),
        (
            f"{BEGIN.format(name='a')}\n{BEGIN.format(name='b')}\n{END.format(name='b')}\n{END.format(name='a')}\n",
            "d.md:2: section 'b' begins inside 'a'",
        ),
        (
            f"{BEGIN.format(name='a')}\n{END.format(name='a')}\n{BEGIN.format(name='a')}\n{END.format(name='a')}\n",
            "d.md:3: section 'a' appears twice",
        ),
        ("<!-- lengthgen docs: bgin a -->\n", "d.md:1: a malformed marker"),
    ],
    ids=["no-end", "no-begin", "nested", "twice", "malformed"],
)
def test_broken_markers_name_the_document_and_line(text, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")):
        spans(text, "d.md")


def test_an_unknown_or_a_missing_section_is_refused():
    with pytest.raises(ValueError, match="section 'table' is not one `lengthgen docs` renders"):
        fill(DOC, {}, "doc.md")
    with pytest.raises(ValueError, match="the markers of section 'costs' are missing"):
        fill(DOC, {"table": "", "costs": ""}, "doc.md")
