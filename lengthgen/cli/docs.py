"""``lengthgen docs``: the documents rendered from the reference run (``tests/data/claims-reference.json.gz``:
the claims at the paper's scale, the robustness map and the multiverse, cold) and the costs recorded with it
(``tests/data/costs-reference.json``, written by ``lengthgen timed``): ``docs/catalogue.md`` whole
(:mod:`lengthgen.report.catalogue_page`), and the sections between markers of the README, docs/findings.md,
docs/predictions.md, docs/robustness.md and docs/speed.md, and docs/statistics.md's seed paths from the same
claims with seeds added until decided (``tests/data/claims-until-decided.json.gz``), and docs/protocol.md's
development measurements (``tests/data/development.json``, ``scripts/record-development``)
(:mod:`lengthgen.report.doc_sections`; the prose around them stays hand-written). ``--check`` writes nothing and
exits 1 naming the first line that differs. A missing, truncated or older-format reference run or costs file, or
a document whose markers are broken, is one line and exit 2, and leaves every document as it was. No torch.
"""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path

NAME = "docs"
HELP = "render the README's and docs/' recorded numbers from the reference run (--check: compare only)"
ROOT = Path(__file__).resolve().parents[2]  # the repository (an editable install)
REFERENCE = ROOT / "tests" / "data" / "claims-reference.json.gz"
COSTS = ROOT / "tests" / "data" / "costs-reference.json"
OTHER_CPU = ROOT / "tests" / "data" / "costs-other-cpu.json"  # a slower CPU's cold claims run (the README's ratio)
CI_COSTS = ROOT / "tests" / "data" / "costs-ci.json"  # the costs file of a `.ci/run` on a clean clone
BENCH = ROOT / "tests" / "data" / "bench-reference.json"  # pytest-benchmark's JSON of the benchmarks, serially
UNTIL_DECIDED = ROOT / "tests" / "data" / "claims-until-decided.json.gz"  # `--lengthgen-until-decided=24` on it
EXTENDED = ROOT / "tests" / "data" / "claims-extended.json.gz"  # `-m multiverse_extended` with the same code
EXTENDED_COSTS = ROOT / "tests" / "data" / "costs-extended.json"  # what its cold run cost (`lengthgen timed`)
DEVELOPMENT = ROOT / "tests" / "data" / "development.json"  # scripts/record-development: docs/protocol.md's numbers


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reference", type=Path, default=REFERENCE, metavar="PATH", help="the reference run")
    parser.add_argument("--costs", type=Path, default=COSTS, metavar="PATH", help="the costs recorded with it")
    parser.add_argument(
        "--ci-costs", type=Path, default=CI_COSTS, metavar="PATH", help="a .ci/run's costs (the README's CI table)"
    )
    parser.add_argument(
        "--bench", type=Path, default=BENCH, metavar="PATH", help="the recorded benchmarks (docs/speed.md's table)"
    )
    parser.add_argument(
        "--seeds-added",
        type=Path,
        default=UNTIL_DECIDED,
        metavar="PATH",
        help="the reference run's claims with seeds added until decided (docs/statistics.md's seed paths)",
    )
    parser.add_argument(
        "--extended",
        type=Path,
        default=EXTENDED,
        metavar="PATH",
        help="the multiverse's extended cells, run on their own with the reference's code (added to its grid)",
    )
    parser.add_argument(
        "--extended-costs",
        type=Path,
        default=EXTENDED_COSTS,
        metavar="PATH",
        help="what the cold run of the extended cells cost (docs/robustness.md)",
    )
    parser.add_argument(
        "--development",
        type=Path,
        default=DEVELOPMENT,
        metavar="PATH",
        help="the development measurements behind choices made after seeing a result (docs/protocol.md)",
    )
    parser.add_argument(
        "--other-cpu", type=Path, default=OTHER_CPU, metavar="PATH", help="a slower CPU's costs (the README's ratio)"
    )
    parser.add_argument("--root", type=Path, default=ROOT, metavar="DIR", help="the repository whose docs it writes")
    parser.add_argument("--check", action="store_true", help="compare only: exit 1 naming the first line that differs")


def rendered(
    reference: Path,
    costs: Path,
    root: Path,
    other_cpu: Path | None = None,
    until_decided: Path | None = None,
    bench: Path | None = None,
    ci_costs: Path | None = None,
    development: Path | None = None,
    extended: Path | None = None,
    extended_costs: Path | None = None,
) -> dict[str, str]:
    """Each rendered document (its path under ``root`` -> its whole new text), before anything is written."""
    from lengthgen.cli.timed import read as read_costs
    from lengthgen.report import bench_doc, development_doc, findings_doc, readme, robustness_doc, until_decided_doc
    from lengthgen.report.catalogue_page import render
    from lengthgen.report.data import read, with_cells_of
    from lengthgen.report.doc_sections import fill
    from lengthgen.report.run_view import RunView

    recorded = read(reference)
    data = with_cells_of(recorded, read(extended)) if extended is not None else recorded  # the whole factorial
    run = RunView.from_data(data)
    spent = read_costs(costs)
    other = read_costs(other_cpu) if other_cpu is not None else None
    timed = bench_doc.read(bench) if bench is not None else None
    ci = read_costs(ci_costs) if ci_costs is not None else None
    more_seeds = RunView.from_data(read(until_decided)) if until_decided is not None else None
    developed = development_doc.read(development) if development is not None else None
    sections = {
        "README.md": {
            "answer": readme.answer(run),
            "verdicts": readme.verdict_table(run),
            "costs": readme.costs_table(spent, data.get("environment", {}), other),
        },
        "docs/findings.md": {
            "claims": findings_doc.claims_table(run),
            "non-reproductions": findings_doc.non_reproductions(run.claims),
            "ruled-out": findings_doc.ruled_out(run),
            "controls": findings_doc.controls_table(run),
        },
        "docs/predictions.md": {
            "predictions": findings_doc.predictions_table(run),
            "prediction-failures": findings_doc.non_reproductions(run.predictions),
        },
        "docs/speed.md": {"claim-costs": findings_doc.claim_costs(run)},
        "docs/memory.md": {"peak-memory": findings_doc.peak_memory(run)},
        "docs/robustness.md": {
            "robustness-map": robustness_doc.robustness_map(run),
            "map-breaks": robustness_doc.map_breaks(run),
            "multiverse-outcomes": robustness_doc.outcomes_table(run),
            "stated-numbers": robustness_doc.stated_numbers(run),
            "universes": robustness_doc.universes(  # models per universe: the reference's own cold cells
                data, read_costs(extended_costs) if extended_costs is not None else None, recorded
            ),
        },
    }
    if ci is not None:
        sections["README.md"]["ci-costs"] = readme.ci_section(ci)
    if timed is not None:
        sections["docs/speed.md"]["benchmarks"] = bench_doc.benchmarks(timed)
    if developed is not None:
        sections["docs/protocol.md"] = {
            "two-layer-widths": development_doc.two_layer_widths(developed),
            "quick-steps": development_doc.quick_steps(developed),
        }
    if more_seeds is not None:
        sections["docs/statistics.md"] = {"seeds-added": until_decided_doc.seeds_added(more_seeds)}
    out = {"docs/catalogue.md": render(data)}
    for name, parts in sections.items():
        path = root / name
        if not path.exists():
            raise ValueError(f"{name}: no such document under {root}")
        out[name] = fill(path.read_text(), parts, name)
    return out


def run(args: argparse.Namespace) -> int:
    # every document rendered before anything is written: a bad input changes nothing
    documents = rendered(
        args.reference,
        args.costs,
        args.root,
        args.other_cpu,
        args.seeds_added,
        args.bench,
        args.ci_costs,
        args.development,
        args.extended,
        args.extended_costs,
    )
    stale = []
    for name, text in documents.items():
        path = args.root / name
        old = path.read_text() if path.exists() else ""
        if old == text:
            continue
        if args.check:
            first = next(
                (
                    line
                    for line in difflib.unified_diff(old.splitlines(), text.splitlines(), lineterm="", n=0)
                    if line.startswith(("-", "+")) and not line.startswith(("---", "+++"))
                ),
                "",
            )
            stale.append(f"{name} differs from its rendering: {first[:160]}")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {name}")
    for line in stale:
        print(line)
    return 1 if stale else 0
