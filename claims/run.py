"""The one way a claim runs: :func:`run_claim`, called by each claim test at the paper's point, by the
robustness map (``claims/test_robustness.py``) and by the multiverse (``claims/test_multiverse.py``).

It measures the claim at a scale (the spec's ``run_scale`` applied), records every check on it
(``check(claim, result)``: a pure function of the result, so the negative control calls the same function
on a counterfactual) and returns the result (for figures); the caller then records its choices, notes and
figures and calls ``claim.verify()``. What the record says about where it ran is set here and only here: the
scale block, the robustness setting (``claim.set_setting``) or the multiverse universe (``claim.set_universe``),
and the declared non-reproduction with its strictness.

Under ``--lengthgen-until-decided[=MAX]`` (the plugin's ``until_decided`` fixture, which each claim test hands to
``run_claim(..., plan=...)``; ``lengthgen run --until-decided`` passes its own) the paper's point is measured by the
stopping rule's loop (``lengthgen.sequential.until_decided``): the looks are planned before
the first one (the claim's seeds, then 4 more at a time up to MAX), every interval is taken at the level
1 - 0.05/looks, and while a deciding check is close the claim is measured again with the next seeds (the
models of the earlier seeds come from the cache) and its checks recorded afresh. A robustness setting and a
reading fix their seeds: one look, as without the rule. An exact computation has no seeds to add.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

from lengthgen.experiments.robustness import Setting
from lengthgen.readings import Universe
from lengthgen.records.verdict import close_checks, deciding_check
from lengthgen.scale import Scale
from lengthgen.sequential import Plan, until_decided

from claims import preconditions
from claims.robustness import cell_scale
from claims.spec import ClaimSpec, Declared


@dataclass(frozen=True)
class Own:
    """The ``declared`` default of :func:`run_claim`: the spec's own declaration at the scale."""


OWN = Own()


def run_claim(
    spec: ClaimSpec,
    claim: Any,
    scale: Scale,
    cache: Any,
    *,
    setting: Setting | None = None,
    universe: Universe | None = None,
    declared: Declared | Own | None = OWN,
    strict: bool | None = None,
    choices: Sequence[str] = (),
    plan: Plan | None = None,
) -> Any:
    """Measure ``spec`` at ``scale`` and record its checks on ``claim`` (a ``ClaimRecorder``); returns the result.

    ``setting``: a robustness setting (the record's ``setting``; its seeds replace the scale's; the spec's
    ``at_setting`` measures where the setting changes the spec or K). ``universe``: a multiverse universe (the
    record's ``universe``; the scale carries it, ``Scale.universe``, so the specs are built under it).
    ``declared``: the known non-reproduction (default: the
    spec's own at the scale; None: none), declared where its scales name the scale's; ``strict``: whether a
    pass of it fails the test (None: strict with the paper's seeds, not with ``--lengthgen-seeds``).
    ``choices``: the record's choices about where it ran, recorded before the checks. ``plan``: the
    ``--lengthgen-until-decided`` stopping rule (None: one look at the claim's seeds); it applies at the paper's
    point only, so a setting or a universe with a plan is an error.
    """
    if setting is not None and universe is not None:
        raise ValueError(
            f"{spec.id}: a run is at a robustness setting or in a multiverse universe, not both "
            f"({setting.name!r}, {universe.name!r})"
        )
    if plan is not None and (setting is not None or universe is not None):
        raise ValueError(f"{spec.id}: the stopping rule applies at the paper's point, not at a setting or a universe")
    if universe is not None:
        scale = dataclasses.replace(scale, universe=universe)
    scale = scale if setting is None else _cell_scale(spec, setting, scale)
    at = spec.run_scale(scale)
    _record_where(spec, claim, at, setting, universe)
    own = spec.declaration(scale.name) if isinstance(declared, Own) else declared
    if own is not None:
        claim.expect_not_reproduced(scale, own, strict=strict)
    for text in choices:
        claim.choice(text)
    measure = spec.measure if setting is None or setting.seeds is not None else _at_setting(spec, setting)
    first = at.seed_list(spec.paper_seeds)
    if universe is not None:
        return _cell(spec, claim, measure, scale, at, cache)
    if plan is None or not first:
        return _look(spec, claim, measure, at, cache)

    def look(seeds: tuple[int, ...] | None) -> Any:
        now = at if seeds is None else dataclasses.replace(at, seeds=seeds)
        claim.set_scale(**spec.describe(now))
        return _look(spec, claim, measure, now, cache)

    return until_decided(claim, plan, tuple(first), look, close_checks, deciding_check)


def _cell_scale(spec: ClaimSpec, setting: Setting, scale: Scale) -> Scale:
    """The scale of the claim's cell at ``setting``: its seeds there (ValueError for a claim it does not run)."""
    if setting.name not in spec.settings:
        raise ValueError(f"{spec.id} does not run at {setting.name} (it runs at {', '.join(spec.settings) or 'none'})")
    return cell_scale(setting, spec.paper_seeds, scale)


def _record_where(spec: ClaimSpec, claim: Any, at: Scale, setting: Setting | None, universe: Universe | None) -> None:
    """The record's setting or universe, and its scale block (at a setting, paper_seeds is the setting's count)."""
    if setting is not None:
        claim.set_setting(setting.name)
        claim.set_scale(**at.describe(len(at.seeds)), setting=setting.name)
    elif universe is not None:
        claim.set_universe(universe.name)
        claim.set_scale(**spec.describe(at), universe=universe.name)
    else:
        claim.set_scale(**spec.describe(at))


def _at_setting(spec: ClaimSpec, setting: Setting) -> Any:
    """The claim's measure at a setting of another spec or K (its own experiment, ``ClaimSpec.at_setting``)."""
    if spec.at_setting is None:
        raise ValueError(f"{spec.id}: no measure at the robustness setting {setting.name!r}")
    return lambda scale, cache: spec.at_setting(setting, scale, cache)


def _cell(spec: ClaimSpec, claim: Any, measure: Any, scale: Scale, at: Scale, cache: Any) -> Any:
    """A multiverse cell: the claim's preconditions on the universe's models (those on models of their own
    first, so a ruled-out universe trains nothing more), then its measure, the preconditions on its result,
    and its checks; a failed precondition rules the cell out (None or the result, no checks)."""
    own = [p for p in preconditions.of(spec) if not p.on_result]
    for p in own:
        if preconditions.rule_out_if_failed(claim, p, preconditions.record(claim, p, scale, cache)):
            return None
    result = measure(at, cache)
    for p in preconditions.of(spec):
        if p.on_result and preconditions.rule_out_if_failed(
            claim, p, preconditions.record(claim, p, at, cache, result)
        ):
            return result
    for check in spec.checks:
        check(claim, result)
    return result


def _look(spec: ClaimSpec, claim: Any, measure: Any, scale: Scale, cache: Any) -> Any:
    result = measure(scale, cache)
    for check in spec.checks:
        check(claim, result)
    return result
