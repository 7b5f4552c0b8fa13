"""The texts a person reads outside the page, rendered over the recorded runs (``tests/data/claims-*.json.gz``)
and the report's sample records: the markdown summary, the terminal summary, ``lengthgen diff`` (text and
markdown), the specification curves as text and the robustness map's and the multiverse's text grids (with
their details and the paper's records, and bare). ``tests/unit/test_text_pinned.py`` compares each with its pinned
text in :data:`PINNED`; ``python -m tests.text_cases`` writes that file anew (review its diff: every change in it
is a change a reader sees)."""

from __future__ import annotations

import copy
import gzip
import json
from functools import cache
from typing import Callable

from lengthgen.analysis.curve import column_of, curve
from lengthgen.analysis.data import assemble
from lengthgen.analysis.diff import diff_runs
from lengthgen.analysis.multiverse import view_grid
from lengthgen.analysis.run_view import RunView
from lengthgen.report import diff_render
from lengthgen.report.curve import curve_lines
from lengthgen.report.markdown import summary_markdown
from lengthgen.report.multiverse import grid_lines, ruled_out_lines
from lengthgen.report.robustness import map_lines
from lengthgen.report.summary import terminal_lines
from tests.helpers import DATA, ROOT, registry
from tests.report_samples import ENVIRONMENT, all_records, controls, multiverse_records, reproduced

PINNED = ROOT / "tests" / "golden" / "text.json.gz"  # case name -> its pinned text (gzipped JSON)
RUNS = ("claims-reference", "claims-until-decided", "claims-paper-1e63f06", "claims-extended")  # recorded runs read
WIDTHS = (100, 160)  # terminal widths the terminal summary is pinned at
DIFFS = (  # (old run, new run) pairs pinned for `lengthgen diff`
    ("claims-reference", "claims-reference"),
    ("claims-reference", "claims-until-decided"),
    ("claims-reference", "claims-paper-1e63f06"),
    ("claims-reference", "claims-extended"),
    ("claims-until-decided", "claims-reference"),
    ("claims-extended", "claims-paper-1e63f06"),
    ("samples", "samples-mv"),
    ("samples-mv", "samples"),
    ("samples", "claims-reference"),
)
FAIL_ON = ("worse-verdict", "drift")  # the --fail-on values pinned for each diff


def _controlled() -> dict:
    """The sample records with the robustness map's cells, two multiverse cells and thirteen negative controls
    (twelve that do not discriminate: more than the markdown summary lists)."""
    from tests.unit.test_robustness_report import map_records

    data = assemble(all_records() + map_records(), ENVIRONMENT)
    data["controls"] = controls(data["records"][0], more=11)
    data["multiverse"] = [
        dict(
            copy.deepcopy(data["robustness"][2]),
            mode={"kind": "reading", "reading": reading},
            verdict=v,
            test=f"claims/test_multiverse.py::test_reading[{reading}-C1]",
        )
        for reading, v in (("init-small", "reproduced"), ("mix-wide", "not reproduced (undeclared)"))
    ]
    return data


@cache
def views() -> dict[str, RunView]:
    """Every run the cases render: the recorded runs and the sample runs, by name."""
    from tests.unit.test_predictions_report import prediction

    shown = {name: RunView.from_json(DATA / f"{name}.json.gz") for name in RUNS}
    shown.update(
        {
            "samples": RunView.from_records(all_records(), ENVIRONMENT, registry()),
            "samples-mv": RunView.from_records(all_records() + multiverse_records(), ENVIRONMENT, registry()),
            "samples-mv-alone": RunView.from_records(multiverse_records(), ENVIRONMENT, registry()),
            "samples-no-environment": RunView.from_records(all_records(), {}, registry()),
            "samples-predictions": RunView.from_records([prediction("P4"), reproduced()], ENVIRONMENT, registry()),
            "samples-prediction-alone": RunView.from_records([prediction("P4")], ENVIRONMENT, registry()),
            "samples-controls": RunView.from_json(_controlled()),
            "empty": RunView.from_records([], {}, registry()),
        }
    )
    return shown


def cases() -> dict[str, Callable[[], str]]:
    """Each case's name ("<renderer>/<run>...") and the call that renders it."""
    out: dict[str, Callable[[], str]] = {}
    for name, view in views().items():
        out[f"markdown/{name}"] = lambda view=view: summary_markdown(view)
        for width in WIDTHS:
            out[f"terminal/{name}-{width}"] = lambda view=view, width=width: "\n".join(terminal_lines(view, width))
    for name, view in views().items():
        if view.robustness:
            out[f"robustness/{name}"] = lambda view=view: "\n".join(
                map_lines(view.robustness, catalogue=view.catalogue, records=view.records)
            )
            out[f"robustness/{name}-bare"] = lambda view=view: "\n".join(map_lines(view.robustness, details=False))
        if view.multiverse:
            out[f"multiverse/{name}"] = lambda view=view: "\n".join(
                grid_lines(view.multiverse, records=view.records, registry=view.registry)
            )
            out[f"multiverse/{name}-bare"] = lambda view=view: "\n".join(grid_lines(view.multiverse, details=False))
            out[f"ruled-out/{name}"] = lambda view=view: "\n".join(ruled_out_lines(view_grid(view)))
    for old, new in DIFFS:
        for fail_on in FAIL_ON:
            key = f"{old}--{new}-{fail_on}"
            pair = (views()[old], views()[new], f"{old}.json", f"{new}.json")
            out[f"diff-text/{key}"] = lambda pair=pair, f=fail_on: diff_render.text(diff_runs(*pair), f)
            out[f"diff-markdown/{key}"] = lambda pair=pair, f=fail_on: diff_render.markdown(diff_runs(*pair), f)
    for name in (*RUNS, "samples-mv"):
        view = views()[name]
        for column in dict.fromkeys(column_of(c, view.catalogue) for c in view.multiverse):
            out[f"curve/{name}-{column}"] = lambda view=view, column=column: "\n".join(curve_lines(curve(view, column)))
    return out


@cache
def pinned() -> dict[str, str]:
    """The pinned texts, by case name."""
    return json.loads(gzip.decompress(PINNED.read_bytes()))


def write() -> None:
    """Render every case and pin it (:data:`PINNED`)."""
    texts = {name: render() for name, render in sorted(cases().items())}
    PINNED.write_bytes(gzip.compress(json.dumps(texts, indent=0, sort_keys=True).encode(), 9, mtime=0))


if __name__ == "__main__":
    write()
