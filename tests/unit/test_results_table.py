"""The shared table and JSON of experiment results (``lengthgen.experiments.results``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from lengthgen.config import EvalConfig
from lengthgen.experiments.results import ABSENT_IF_NONE, Column, config, table_lines, text_table, to_json
from lengthgen.probes.dilution import DilutionFit


@dataclass(frozen=True)
class Row:
    offset: int  # K
    weights: tuple[float, ...]  # per length
    fit: DilutionFit  # a nested dataclass
    margin: float | None = field(default=None, metadata=ABSENT_IF_NONE)  # left out of the JSON where None
    loss: float | None = None  # written as null where None


COLUMNS = (
    Column("K", lambda r: r.offset, ">2"),
    Column("a*", lambda r: r.weights[0], "<7.3f", gap="  "),
    Column("mu", lambda r: "-" if r.margin is None else f"{r.margin:.2f}", header_spec=">4"),
)


def test_the_header_takes_the_cells_alignment_and_width():
    rows = [Row(2, (0.5,), DilutionFit(0.01, 1.0, 0.9), margin=3.0), Row(3, (0.25,), DilutionFit(0.02, 1.0, 0.8))]
    lines = ["title", " K  a*        mu", " 2  0.500   3.00", " 3  0.250   -"]
    assert text_table("title", COLUMNS, rows).splitlines() == lines
    assert table_lines(COLUMNS, rows[:1], header=False) == [" 2  0.500   3.00"]


def test_to_json_follows_the_field_order_and_leaves_out_absent_fields():
    row = Row(2, (0.5, 0.25), DilutionFit(0.01, 1.0, 0.9))
    assert json.dumps(to_json(row)) == (
        '{"offset": 2, "weights": [0.5, 0.25], "fit": {"slope": 0.01, "intercept": 1.0, "r2": 0.9}, "loss": null}'
    )
    assert to_json(Row(2, (), DilutionFit(0, 0, 0), margin=1.5))["margin"] == 1.5
    assert config(seeds=(0, 1), eval=EvalConfig(lengths=(12, 16), sequences=8)) == {
        "seeds": [0, 1],
        "eval": {"lengths": [12, 16], "sequences": 8},
    }
