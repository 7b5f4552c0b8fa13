"""docs/findings.md's and docs/predictions.md's rendered tables (``lengthgen docs``), from the reference run:
every claim test at the paper's point with its measured quantities in full, its close calls and its verdict;
what holds inside each non-reproduction (its failing checks with their numbers, the declared reason, the checks
that hold); and every negative control with the checks its counterfactual fails. The hand-written explanation
around them stays hand-written. No torch.
"""

from __future__ import annotations

from typing import Sequence

from lengthgen.report import text
from lengthgen.report.markdown import cell, table, test_ids
from lengthgen.records import ClaimRecord
from lengthgen.report import multiverse as mv
from lengthgen.report.run_view import RunView

MEASURED_CHARS = 600  # characters of the measured cell: every headline quantity, rarely cut
FAILING_SHOWN = 4  # failing checks listed per non-reproduction; the rest are counted ("and 8 more")


def _close(c: ClaimRecord) -> str:
    """ "close: NAME (value, [low, high] vs op threshold)" per close deciding check ("" without one)."""
    shown = []
    for check in c.close_checks:
        interval = f", [{text.num(check.ci95[0], 3)}, {text.num(check.ci95[1], 3)}]" if check.ci95 else ""
        shown.append(
            f"{check.name} ({text.num(check.value, 4)}{interval} vs {text.threshold_text(check.op, check.threshold)})"
        )
    return "close: " + "; ".join(shown) if shown else ""


def verdict_table(views: Sequence[ClaimRecord]) -> str:
    """A row per claim test: id (and variant), the claim in a few words and where it stands, the paper's value,
    the measured quantities (the failed deciding check first) and close calls, the verdict."""
    rows = []
    for c, shown_id in zip(views, test_ids(views)):
        measured = text.headline(c)
        close = _close(c)
        verdict = c.label if c.verdict else "unknown"
        rows.append(
            [
                cell(shown_id),
                cell(f"{c.title} ({c.where})"),
                cell(c.statement if c.is_prediction else c.paper_value),
                cell(measured + (f". {close}" if close else ""), MEASURED_CHARS),
                cell(verdict) if c.verdict == "reproduced" else f"**{cell(verdict)}**",
            ]
        )
    return "\n".join(table(["id", "claim (where)", "paper", "measured", "verdict"], rows)) + "\n"


def non_reproductions(views: Sequence[ClaimRecord], none: str = "Every claim test reproduces.\n") -> str:
    """A bullet per claim test that does not reproduce: its failing checks of all it ran, each with its measured
    value (per seed where every seed must pass) against its threshold, the declared reason (the claim's
    ``Declared``, data beside the claim, not prose here), and that every other check holds; ``none`` when every
    test reproduces."""
    lines = []
    for c, shown_id in zip(views, test_ids(views)):
        if c.verdict == "reproduced" or not c.failed_checks:
            continue
        failed, total = len(c.failed_checks), len(c.checks)
        shown = [
            f"{check.name}: measured {text.num(check.value, 4)}, needs {text.threshold_text(check.op, check.threshold)}"
            + (f" (per seed {text.per_seed(check.values)})" if check.reduce == "all" and check.values else "")
            for check in c.failed_checks[:FAILING_SHOWN]
        ]
        more = failed - len(shown)
        why = f" {c.declared.why[0].upper()}{c.declared.why[1:]}." if c.declared and c.declared.why else ""
        lines.append(
            f"- **{shown_id}** ({c.label}; {failed} of {total} checks fail).{why} Failing: "
            + "; ".join(shown)
            + (f"; and {more} more" if more > 0 else "")
            + f". The other {total - failed} checks hold."
        )
    return "\n".join(lines) + "\n" if lines else none


def claims_table(run: RunView) -> str:
    return verdict_table(run.claims)


def predictions_table(run: RunView) -> str:
    return verdict_table(run.predictions)


def controls_table(run: RunView) -> str:
    """A row per negative control at the paper's scale: the claim, its counterfactual, the checks that fail of
    those it ran, its verdict."""

    def label(v) -> str:  # the claim, and the control's parameters beyond its scale (C12 per width)
        params = v.test_name.split("[", 1)[1].rstrip("]") if "[" in v.test_name else ""
        shown = "-".join(p for p in params.split("-") if p not in ("paper", "quick"))
        return f"{v.claim} {shown}".strip()

    rows = [
        [
            cell(label(v)),
            cell(v.counterfactual, 240),
            f"{len(v.failed_checks)} / {len(v.checks)}",
            cell(v.verdict or "unknown"),
        ]
        for v in run.controls
        if v.scale.get("name", "?") in ("paper", "?")
    ]
    header = ["claim", "counterfactual (built from real, cached models)", "checks that fail", "verdict"]
    return "\n".join(table(header, rows)) + "\n"


def trained(record: ClaimRecord) -> str:
    """The models a test trained (a record of an older version does not say: "?")."""
    count = record.models_trained
    return "?" if count is None else str(count)


def claim_costs(run: RunView) -> str:
    """docs/speed.md's table: each claim test's seconds in the reference run's cold paper-scale run and, where the
    run records it, the models it trained (with the models shared between tests, a test's time is the models it
    trained first and its waits for the others), then the run's totals: wall time, models trained and read from
    the cache, peak memory per process."""
    counted = any(c.models_trained is not None for c in run.records)  # a run of an older version: no
    rows = [
        [cell(c.test_name), cell(c.claim), f"{float(c.runtime_s or 0):.1f} s"] + ([trained(c)] if counted else [])
        for c in sorted(run.records, key=lambda c: -float(c.runtime_s or 0))
    ]
    env = run.environment
    lines = table(["claim test", "claim", "seconds in the cold run"] + (["models it trained"] if counted else []), rows)
    total = sum(float(c.runtime_s or 0) for c in run.records)
    peak = ", ".join(f"{k} {v:.0f} MiB" for k, v in sorted((env.get("peak_rss_mib") or {}).items()))
    lines += [
        "",
        f"The tests' seconds add up to {total:.0f} s of worker time; the run took "
        f"{text.num(env.get('wall_time_s'), 4)} s of wall time on {env.get('workers', '?')} workers, trained "
        f"{env.get('models_trained', '?')} models and read {env.get('models_from_cache', '?')} from the cache"
        + (f"; peak resident memory: {peak}" if peak else "")
        + f" ({env.get('cpu_model', 'unknown CPU')}, torch kernels {env.get('cpu_capability', '?')}).",
    ]
    return "\n".join(lines) + "\n"


def peak_memory(run: RunView) -> str:
    """docs/memory.md's table: the peak resident memory of each process of the reference run's commands (the
    claims cold, the robustness map, the multiverse), a column per process."""
    runs = [
        ("`pytest claims -n auto` (cold)", run.environment),
        ("`pytest claims -m robustness -n auto`", run.robustness_environment),
        ("`pytest claims -m multiverse -n auto`", run.multiverse_environment),
    ]
    processes = sorted({name for _, env in runs if env for name in (env.get("peak_rss_mib") or {})})
    rows = [
        [label]
        + [f"{float(env['peak_rss_mib'][p]):.0f} MiB" if p in env.get("peak_rss_mib", {}) else "-" for p in processes]
        for label, env in runs
        if env and env.get("peak_rss_mib")
    ]
    if not rows:
        return "The reference run records no peak memory.\n"
    env = run.environment
    return (
        "\n".join(table(["command"] + processes, rows))
        + f"\n\nMeasured in the reference run ({env.get('cpu_model', 'unknown CPU')}, {env.get('workers', '?')} "
        f'workers, torch {env.get("torch", "?")}); "controller" is the xdist controller, which writes the report.\n'
    )


def ruled_out(run: RunView) -> str:
    """Per reading that rules multiverse cells out, which of the paper's models fail its preconditions and which
    fit, with their numbers (``multiverse.ruled_out_lines``)."""
    grid = mv.view_grid(run)
    lines = mv.ruled_out_lines(grid) if grid is not None else []
    return "".join(f"- {line}.\n" for line in lines) or "No reading rules a cell out in the reference run.\n"
