"""The documents ``lengthgen docs`` writes, rendered from their templates (``report/templates/docs/``) over the one
context of the recorded runs (:class:`lengthgen.report.doc_context.DocContext`, the template's ``doc``).

A document the suite writes whole (:data:`WHOLE`) is its template's rendering. Any other keeps its hand-written
prose and has its generated sections between markers (``lengthgen.report.doc_sections``); its template defines
one macro per section, named as the markers name it with underscores for dashes, and every section of the
document is that macro's rendering (a macro whose name starts with ``_`` is a helper, no section). The templates
hold the words; the context holds the values.

Whitespace: a line holding only a block tag (``{% for %}``, ``{% if %}``, ...) leaves nothing in the output,
and a line that ends in one loses its newline unless the tag ends in ``+%}``. No torch.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from jinja2.runtime import Macro

from lengthgen.analysis import answer
from lengthgen.report import text
from lengthgen.report.doc_sections import fill
from lengthgen.report.templating import text_overlay
from lengthgen.records.verdict import REASON_CHECKS
from lengthgen.report.markdown import cell, verdict_cell

DOCUMENTS = ("docs/catalogue.md", "README.md") + tuple(  # every document it renders, by its path in the repository
    f"docs/{name}.md"
    for name in (
        "verdicts",
        "costs",
        "findings",
        "predictions",
        "speed",
        "memory",
        "robustness",
        "protocol",
        "statistics",
    )
)
WHOLE = ("docs/catalogue.md",)  # the documents rendered whole (no hand-written prose around them)
FILTERS = {
    "cell": cell,  # a value as one markdown table cell (one line, escaped, cut to a length)
    "verdict_cell": verdict_cell,  # a claim test's verdict as a cell, bold unless reproduced
}
GLOBALS = {  # the formats every rendering shares (lengthgen.report.text), besides the texts' (``num``, ...)
    "interval": text.interval,
    "threshold": text.threshold_text,
    "per_seed": text.per_seed,
    "headline": text.headline,
    "duration": text.duration,
    "failure_words": answer.FAILURE_WORDS,  # a failure's kind in words (records.record.FAILURE_KINDS)
    "reason_checks": REASON_CHECKS,  # a non-reproduction's failing checks spelled out, as in its verdict's reason
}


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    """The documents' environment: the texts' (``templating.text_environment``: markdown, so nothing is escaped; a
    name the context lacks raises) with the documents' filters and globals."""
    return text_overlay(FILTERS, GLOBALS)


def template_of(document: str) -> str:
    """The template of ``document`` (``docs/findings.md`` -> ``docs/findings.md.j2``)."""
    return f"docs/{Path(document).name}.j2"


def sections(document: str, doc: Any, only: str | None = None) -> dict[str, str]:
    """Each generated section of ``document`` (its marker's name -> its text), or the one named ``only``,
    rendered over ``doc`` (any object with the values those sections read: a test renders one from a few)."""
    module = environment().get_template(template_of(document)).make_module({"doc": doc})
    macros = {n.replace("_", "-"): m for n, m in vars(module).items() if isinstance(m, Macro)}
    return {name: str(macro()) for name, macro in macros.items() if only in (None, name)}


def whole(document: str, doc: Any) -> str:
    """A document the suite writes whole (:data:`WHOLE`), rendered over ``doc``."""
    return environment().get_template(template_of(document)).render(doc=doc)


def render(doc: Any, root: Path) -> dict[str, str]:
    """Every document (its path under ``root`` -> its whole new text), before anything is written; ValueError
    (one line) for a document missing under ``root`` or whose markers do not match its template's sections."""
    out = {}
    for name in DOCUMENTS:
        if name in WHOLE:
            out[name] = whole(name, doc)
            continue
        path = root / name
        if not path.exists():
            raise ValueError(f"{name}: no such document under {root}")
        out[name] = fill(path.read_text(), sections(name, doc), name)
    return out
