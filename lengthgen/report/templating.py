"""The page's Jinja2 environment and its package data: the templates (``report/templates/*.html.j2``) and
the stylesheet and script (``report/static/``) that the page inlines, so it stays one self-contained file.

Autoescaping is on for every ``.html.j2`` template: every value a template prints is escaped, so the
Python side hands over plain text (claim names, reasons, check names) and never escapes anything itself.
``StrictUndefined``: a variable or attribute the template names and the view-model lacks raises
``jinja2.UndefinedError`` instead of printing nothing.

Whitespace: the page holds each fragment (a table, a claim's section) as one line of HTML, while the
templates spread it over lines. A ``-`` inside a tag (``{%- ... -%}``, ``{{- ... }}``) strips the newline
and indentation on that side, and a template line that starts with the empty comment ``{#- #}`` is
joined to the line before it; newlines without such a mark are the page's own.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

import jinja2

from lengthgen.analysis.formats import (
    check_text,
    close_text,
    measure_note,
    num,
    plain_numbers,
    source_text,
    summary_text,
    threshold_text,
    values_note,
)

TEMPLATES = "templates"  # folder of lengthgen/report holding the templates (package data)
STATIC = "static"  # folder of lengthgen/report holding the inlined CSS and JS (package data)
GLOBALS = {  # what the page's templates call (``environment``)
    "num": num,
    "threshold_text": threshold_text,
    "summary_text": summary_text,
    "measure_note": measure_note,
    "values_note": values_note,
    "check_text": check_text,
    "close_text": close_text,
    "source_text": source_text,
    "plain_numbers": plain_numbers,
}


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    """The one environment of the page's templates (built once: it caches the compiled templates); its globals
    format the records' checks and quantities (``lengthgen.analysis.formats``)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("lengthgen.report", TEMPLATES),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,  # the page ends with a newline, as a text file should
    )
    env.globals.update(GLOBALS)
    return env


@lru_cache(maxsize=None)
def static_text(name: str) -> str:
    """The text of ``report/static/<name>`` (``page.css``, ``page.js``, ...), read from the package."""
    path = resources.files("lengthgen.report").joinpath(STATIC, name)
    if not path.is_file():
        raise ValueError(f"no static file {name!r} in lengthgen/report/{STATIC}")
    return path.read_text(encoding="utf-8")


def render(template: str, **context: Any) -> str:
    """``template`` (a name under ``report/templates``) rendered with ``context``."""
    return environment().get_template(template).render(**context)
