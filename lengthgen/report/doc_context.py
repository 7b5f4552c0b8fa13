"""The one context every document ``lengthgen docs`` writes is rendered over: the recorded runs, read from the
paths the command names (:class:`Inputs`), and the values computed from them (:class:`DocContext`). The report's
own computations fill it (the answer, the multiverse's outcomes, the stated numbers, the curves); the templates
(``report/templates/docs/``) hold the words. A missing, truncated or foreign file is a one-line ValueError. No
torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lengthgen.records import ClaimRecord
from lengthgen.analysis import data
from lengthgen.report import costs
from lengthgen.analysis import multiverse as mv
from lengthgen.report.multiverse import ruled_out_lines
from lengthgen.analysis.answer import answer, seed_notes
from lengthgen.report.doc_claims import SeedsAdded, Shown, VerdictRow, controls, failing, seeds_added, shown, tests
from lengthgen.report.doc_bench import Benchmarks
from lengthgen.report.doc_costs import Costs, Slower, slower
from lengthgen.report.doc_development import Development
from lengthgen.report.doc_multiverse import OutcomeRow, Universes, UniverseModels, map_breaks, outcome_rows
from lengthgen.report.doc_multiverse import universe_models, universes
from lengthgen.analysis.startup import Startup
from lengthgen.report.robustness import map_lines
from lengthgen.analysis.run_view import RunView
from lengthgen.report.stated_numbers import StatedView, stated_view

FILES = {  # each recorded input, by the name of its field: its file's name in a folder of recorded runs, what it is
    "reference": ("claims-reference.json.gz", "the reference run (the claims cold, the map, the multiverse)"),
    "costs": ("costs-reference.json", "what each of its commands cost (lengthgen timed)"),
    "other_cpu": ("costs-other-cpu.json", "a slower CPU's cold claims run (the README's ratio)"),
    "ci_costs": ("costs-ci.json", "the costs of a .ci/run on a clean clone (the README's CI table)"),
    "bench": ("bench-reference.json", "the benchmarks, serially (pytest-benchmark's JSON)"),
    "seeds_added": ("claims-until-decided.json.gz", "the reference's claims with seeds added until decided"),
    "extended": ("claims-extended.json.gz", "the multiverse's extended cells, run with the reference's code"),
    "extended_costs": ("costs-extended.json", "what the cold run of the extended cells cost"),
    "development": ("development.json", "the development measurements (scripts/record-development)"),
    "startup": ("startup.json", "what each start-up tweak saves (scripts/record-startup)"),
}


@dataclass(frozen=True)
class Inputs:
    """Where each recorded input lies (:data:`FILES` says what each is)."""

    reference: Path
    costs: Path
    other_cpu: Path
    ci_costs: Path
    bench: Path
    seeds_added: Path
    extended: Path
    extended_costs: Path
    development: Path
    startup: Path

    @classmethod
    def in_folder(cls, folder: Path) -> "Inputs":
        """The inputs under ``folder`` by their usual names (:data:`FILES`)."""
        return cls(**{name: Path(folder) / file for name, (file, _) in FILES.items()})


@dataclass(frozen=True)
class DocContext:
    """What the documents show, as values (the templates' ``doc``)."""

    run: RunView  # the reference run, with the extended cells joined to its multiverse
    answer: str  # the run's answer in at most 80 words (``analysis.answer``)
    seed_notes: dict[str, str]  # per claim test (its test name) whose verdict moves with the seeds, in words
    tests: list[VerdictRow]  # every claim test at the paper's point, with what the other readings do to it
    claims: list[Shown]  # the paper's claims' tests at the paper's point
    predictions: list[Shown]  # the predictions' tests
    failing_claims: list[Shown]  # those that do not reproduce
    failing_predictions: list[Shown]
    controls: list[Shown]  # the negative controls at the paper's scale
    by_runtime: list[ClaimRecord]  # every claim test, the slowest first
    worker_seconds: float  # their seconds added up
    peak_processes: list[str]  # the processes of the reference's commands that record their peak memory
    map_lines: list[str]  # the robustness map as ``lengthgen robustness`` prints it, without per-cell details
    map_breaks: list[tuple[str, list[Shown]]]  # per setting, its cells that do not reproduce
    outcomes: list[OutcomeRow] | None  # per multiverse row, what the readings do (None: no multiverse)
    ruled_out: list[str]  # per reading that rules cells out, which models fail and which fit
    stated: StatedView | None  # what the paper's stated numbers say of its readings (None: no multiverse)
    universes: Universes  # the universes of the recorded plan of cells
    universe_models: list[UniverseModels]  # the models each universe of the reference's own cold cells trained
    sources: dict[str, list[tuple[str | None, int]]]  # per claim, its checks' threshold sources and their counts
    costs: Costs  # the reference's commands
    slower: Slower | None  # a slower CPU's cold command against the same here
    ci: Costs  # a `.ci/run` on a clean clone
    extended_costs: Costs  # the extended cells' cold runs
    bench: Benchmarks
    development: Development
    startup: Startup
    seeds_added: SeedsAdded  # the reference's claims with seeds added until decided


def load(inputs: Inputs) -> DocContext:
    """The context of the recorded runs at ``inputs``; ValueError (one line) for a bad one."""
    recorded = data.read(inputs.reference)
    joined = data.with_cells_of(recorded, data.read(inputs.extended))  # the whole factorial
    run = RunView.from_data(joined)
    grid = mv.view_grid(run)
    spent = Costs.of(costs.read(inputs.costs))
    more_seeds = RunView.from_data(data.read(inputs.seeds_added))
    envs = (run.environment, run.robustness_environment, run.multiverse_environment)
    return DocContext(
        run=run,
        answer=answer(run, more_seeds),
        seed_notes={n.test_name: n.note for n in seed_notes(run, more_seeds)},
        tests=tests(run.records, grid),
        claims=shown(run.claims),
        predictions=shown(run.predictions),
        failing_claims=failing(run.claims),
        failing_predictions=failing(run.predictions),
        controls=controls(run.controls),
        by_runtime=sorted(run.records, key=lambda c: -float(c.runtime_s or 0)),
        worker_seconds=sum(float(c.runtime_s or 0) for c in run.records),
        peak_processes=sorted({p for env in envs if env for p in (env.get("peak_rss_mib") or {})}),
        map_lines=map_lines(run.robustness, details=False, catalogue=run.catalogue, records=run.records),
        map_breaks=map_breaks(run),
        outcomes=outcome_rows(run, grid) if grid is not None else None,
        ruled_out=ruled_out_lines(grid) if grid is not None else [],
        stated=stated_view(run),
        universes=universes(joined),
        universe_models=universe_models(recorded),
        sources=data.threshold_sources(joined),
        costs=spent,
        slower=slower(spent, Costs.of(costs.read(inputs.other_cpu))),
        ci=Costs.of(costs.read(inputs.ci_costs)),
        extended_costs=Costs.of(costs.read(inputs.extended_costs)).part("multiverse_extended"),
        bench=Benchmarks.read(inputs.bench),
        development=Development.read(inputs.development),
        startup=Startup.read(inputs.startup),
        seeds_added=seeds_added(more_seeds),
    )
