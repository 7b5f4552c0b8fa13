"""What every experiment result shares: one way to print its rows as a table and to write it as JSON.

A result holds typed rows (frozen dataclasses); ``text_table(title, columns, rows)`` prints them through
a list of ``Column`` specs, and ``to_json`` turns any result part (rows, fits, the ``config`` block) into
the plain values ``json.dumps`` writes: a dataclass as ``dataclasses.asdict`` gives it (fields in
declaration order; a field with ``metadata=ABSENT_IF_NONE`` left out where it is None), a tuple as a
list, a ``RunSpec`` by its ``to_dict`` and an ``EvalConfig`` as ``eval_dict``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from lengthgen.config import EvalConfig, RunSpec
from lengthgen.experiments.common import eval_dict

_ABSENT = "absent_if_none"
ABSENT_IF_NONE = {_ABSENT: True}  # a field's metadata: the field is left out of the JSON where it is None
_PLACE = re.compile(r"^(?:.?[<>^=])?\d*")  # the fill, alignment and width at the start of a format spec


@dataclass(frozen=True)
class Column:
    """One column of a text table: its header and how a row's cell is formatted."""

    header: str  # the header cell's text
    cell: Callable[[Any], Any]  # a row -> the value of its cell
    spec: str = ""  # the value's format spec, e.g. ">8.3f"; its fill, alignment and width also place the header
    gap: str = " "  # the text before the column (none before the first)
    header_spec: str | None = None  # the header's format spec (None: the fill, alignment and width of ``spec``)

    def header_text(self) -> str:
        spec = self.header_spec if self.header_spec is not None else _PLACE.match(self.spec).group(0)
        return format(self.header, spec)

    def cell_text(self, row: Any) -> str:
        return format(self.cell(row), self.spec)


def length_columns(
    lengths: Sequence[int], cell: Callable[[Any, int, int], Any], spec: str = "<7.3f", header_spec: str | None = None
) -> tuple[Column, ...]:
    """One ``L=<length>`` column per evaluation length, ``cell(row, index, length)`` its value; two spaces
    before the first of them, one between them (the per-length block every experiment's table has)."""
    return tuple(
        Column(
            f"L={L}", lambda row, i=i, L=L: cell(row, i, L), spec, gap="  " if i == 0 else " ", header_spec=header_spec
        )
        for i, L in enumerate(lengths)
    )


def table_lines(columns: Sequence[Column], rows: Iterable[Any], header: bool = True) -> list[str]:
    """The header line (unless ``header`` is false) and one line per row, the columns joined by their gaps."""

    def join(cells: Sequence[str]) -> str:
        return cells[0] + "".join(column.gap + text for column, text in zip(columns[1:], cells[1:]))

    lines = [join([column.header_text() for column in columns])] if header else []
    lines += [join([column.cell_text(row) for column in columns]) for row in rows]
    return lines


def text_table(title: str | Sequence[str], columns: Sequence[Column], rows: Iterable[Any]) -> str:
    """The title line(s), the header and one line per row."""
    titles = [title] if isinstance(title, str) else list(title)
    return "\n".join(titles + table_lines(columns, rows))


def to_json(value: Any) -> Any:
    """``value`` as the plain values ``json.dumps`` writes (see the module docstring), recursively."""
    if isinstance(value, RunSpec):
        return value.to_dict()
    if isinstance(value, EvalConfig):
        return eval_dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_json(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if not (f.metadata.get(_ABSENT) and getattr(value, f.name) is None)
        }
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value


def config(**parts: Any) -> dict[str, Any]:
    """The JSON ``config`` block of a result: its settings, in the order given, as ``to_json`` writes them."""
    return to_json(parts)
