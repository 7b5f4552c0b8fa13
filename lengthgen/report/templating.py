"""The report's Jinja2 environment and its package data: the templates (``report/templates/*.html.j2`` for the
page, ``report/templates/text/*.j2`` for the texts) and the stylesheet and script (``report/static/``) that the
page inlines, so it stays one self-contained file, beside the page's fixed words (``static/page.json``).

Autoescaping is on for every ``.html.j2`` template: every value a template prints is escaped, so the
Python side hands over plain text (claim names, reasons, check names) and never escapes anything itself.
``StrictUndefined``: a variable or attribute the template names and the view-model lacks raises
``jinja2.UndefinedError`` instead of printing nothing.

Whitespace: the page holds each fragment (a table, a claim's section) as one line of HTML, while the
templates spread it over lines. A ``-`` inside a tag (``{%- ... -%}``, ``{{- ... }}``) strips the newline
and indentation on that side, and a template line that starts with the empty comment ``{#- #}`` is
joined to the line before it; newlines without such a mark are the page's own.

The texts (the terminal summary, the markdown summary, ``lengthgen diff``, a specification curve, the robustness
map's and the multiverse's grids) render through
the same environment's overlay for text (:func:`text_environment`, :func:`render_text`): nothing escaped (a
markdown cell escapes its own characters: the ``cell`` filter), a line holding only a block tag (``{% for %}``,
``{% if %}``, ...) leaves nothing in the output, and the text ends as its template ends. The documents
``lengthgen docs`` writes render through an overlay of that one with their own filters and globals
(:func:`text_overlay`, ``lengthgen.report.doc_render``).
"""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

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

CELL_CHARS = 160  # characters of a markdown table cell by default ("..." beyond)
TEMPLATES = "templates"  # folder of lengthgen/report holding the templates (package data)
CACHE_SIZE = 400  # compiled templates an overlay keeps (jinja2's default)
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


def cell(value: object, limit: int = CELL_CHARS) -> str:
    """``value`` as one markdown table cell: one line, pipes escaped, ``<`` and ``>`` as entities (no HTML gets
    in), at most ``limit`` characters."""
    shown = re.sub(r"\s+", " ", str(value)).strip()
    if len(shown) > limit:
        shown = shown[: limit - 3].rstrip() + "..."
    return shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def pipes(value: object) -> str:
    """``value`` in a markdown table cell as it is (no cut, no entities): pipes escaped, newlines as spaces."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def wrap_lines(value: str, width: int, lines: int = 0, indent: str = "") -> list[str]:
    """``value`` wrapped to ``width`` (lines after the first start with ``indent``): at least one line ("" for
    an empty value); given ``lines`` > 0, at most that many, the last cut to end in "..."."""
    wrapped = textwrap.wrap(value, width, subsequent_indent=indent) or [""]
    if 0 < lines < len(wrapped):
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: max(width - 3, 0)].rstrip() + "..."
    return wrapped


FILTERS = {  # what the texts' templates filter values through
    "cell": cell,  # a value as one markdown table cell
    "wrap_lines": wrap_lines,  # a value wrapped to a width, as lines
    "pipes": pipes,  # a value in a markdown table cell as it is: pipes escaped, one line
    "repr": repr,  # a value as Python writes it (a check's name quoted)
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
    env.filters.update(FILTERS)
    return env


@lru_cache(maxsize=None)
def text_environment() -> jinja2.Environment:
    """The environment's overlay for the texts (``templates/text/``): the same loader, globals and filters; no
    escaping; block tags alone on a line leave nothing (module docstring)."""
    return environment().overlay(autoescape=False, trim_blocks=True, lstrip_blocks=True)


def text_overlay(filters: Mapping[str, Any], globals_: Mapping[str, Any]) -> jinja2.Environment:
    """An overlay of :func:`text_environment` with more ``filters`` and globals (``globals_``): the same settings,
    loader, filters and globals besides. Its dicts and its cache of compiled templates are its own (an overlay
    shares its parent's dicts and copies its cache), so neither environment sees the other's."""
    env = text_environment().overlay(cache_size=CACHE_SIZE)
    env.filters = {**env.filters, **filters}
    env.globals = {**env.globals, **globals_}
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


def render_text(template: str, **context: Any) -> str:
    """``template`` (a name under ``report/templates``, ``text/...``) rendered as text with ``context``."""
    return text_environment().get_template(template).render(**context)


def render_lines(template: str, **context: Any) -> list[str]:
    """:func:`render_text` as lines: the text split at its newlines, less the newline at its end."""
    return render_text(template, **context).removesuffix("\n").split("\n")


def render_macro(template: str, name: str, *args: Any) -> str:
    """The macro ``name`` of ``template`` (a name under ``report/templates``, ``text/...``) called with ``args``:
    a piece of text that the templates and the Python side share."""
    return str(getattr(text_environment().get_template(template).module, name)(*args))
