"""What adding seeds moved: docs/statistics.md's section rendered (``lengthgen docs``) from
a recorded ``pytest claims -n auto --lengthgen-until-decided=MAX`` run (``tests/data/claims-until-decided.json.gz``):
per claim test that took more than its own seeds, its seed path, where it stopped and its verdict; the claims
decided at their first look named together. No torch.
"""

from __future__ import annotations

from typing import Any, Mapping

from lengthgen.report import text
from lengthgen.report.markdown import test_ids
from lengthgen.records import ClaimRecord
from lengthgen.report.run_view import RunView


def _shown_at(look: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A look's close checks, else its deciding check (the record's ``looks`` path)."""
    return list(look.get("close_checks") or ([look["deciding"]] if look.get("deciding") else []))


def _check_at(look: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    return next((c for c in _shown_at(look) if c.get("name") == name), None)


def _shown(check: Mapping[str, Any], level: float) -> str:
    """``NAME: 0.8705, interval [0.827, 0.914] (99% level) against >= 0.85``."""
    interval = check.get("interval")
    bounds = f", interval {text.interval(interval, 4)} ({100 * level:.4g} % level)" if interval else ""
    return (
        f"{check['name']}: {text.num(check.get('value'), 4)}{bounds} against "
        f"{text.threshold_text(check['op'], check['threshold'])}"
    )


def _line(c: ClaimRecord, shown_id: str) -> str:
    plan = c.looks
    first, last = plan["path"][0], plan["path"][-1]
    where = "still close" if last.get("close") else f"decided at {last['seeds']} seeds"
    line = f"- **{shown_id}**, {first['seeds']} → {last['seeds']} seeds, {where}: **{c.label}**."
    followed = (_shown_at(last) or _shown_at(first) or [{}])[0]
    name = followed.get("name")
    if name is None:
        return line
    line += f" {_shown(followed, float(plan.get('level', 0.95)))}."
    steps = [(look["seeds"], _check_at(look, name)) for look in plan["path"]]
    steps = [(n, check) for n, check in steps if check is not None]
    if len(steps) > 1:
        line += " Its path: " + ", ".join(f"{text.num(check.get('value'), 3)} ({n})" for n, check in steps) + "."
    return line


def seeds_added(run: RunView) -> str:
    """A bullet per claim test that took more than its own seeds, then the ones decided at their first look."""
    views = list(run.claims) + list(run.predictions)
    ids = test_ids(views)
    moved, first_look = [], []
    for c, shown_id in zip(views, ids):
        if not c.looks or not c.looks.get("path"):
            continue
        if len(c.looks["path"]) > 1:
            moved.append(_line(c, shown_id))
        else:
            first_look.append(shown_id)
    env = run.environment
    plans = [c.looks for c in views if c.looks]
    most = max((int(p.get("max_seeds", 0)) for p in plans), default=0)
    head = (
        f"The recorded run: `pytest claims -n auto --lengthgen-until-decided={most}`, "
        f"{text.duration(env.get('wall_time_s'))} of wall time, {env.get('models_trained', '?')} models trained "
        f"and {env.get('models_from_cache', '?')} read from the cache ({env.get('cpu_model', 'unknown CPU')}, "
        f"{env.get('cpus', '?')} cores, torch kernels {env.get('cpu_capability', '?')}). Intervals are at the "
        "split level of each claim's looks."
    )
    tail = "- **Decided at the first look:** " + (", ".join(first_look) if first_look else "none") + "."
    return "\n".join([head, "", *moved, tail]) + "\n"
