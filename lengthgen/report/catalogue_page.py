"""``docs/catalogue.md``: the paper's claims catalogue as a page, rendered from a recorded run: its catalogue (every
claim module's entry: the statement, where it stands in the paper, the paper's value, the suite's check) and its
records (where each check's threshold comes from: ``records.THRESHOLD_SOURCES``, counted per claim). ``lengthgen
docs`` writes it; ``tests/docs/test_docs_rendered.py`` fails when the page in the repository differs. No torch.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from lengthgen.records.record import reading_of, setting_of
from lengthgen.registry import Registry

SOURCE_WORDS = {  # records.THRESHOLD_SOURCES, as the page says them
    "paper-number": "the paper's number",
    "paper-range": "the paper's range",
    "suite-reading": "the suite's reading of the paper's words",
    "catalogue-prediction": "the catalogue's prediction",
    None: "not stated",
}


def sources(run: Mapping[str, Any]) -> dict[str, Counter]:
    """Per claim, how many of its checks at the paper's point take their threshold from each source."""
    found: dict[str, Counter] = {}
    for r in run.get("records", []):
        if r.get("kind", "claim") != "claim" or reading_of(r) or setting_of(r):
            continue
        if (r.get("scale") or {}).get("name") != "paper":
            continue
        found.setdefault(r["claim"], Counter()).update(c.get("threshold_source") for c in r.get("checks", []))
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(run: Mapping[str, Any]) -> str:
    """The page, from the run ``run`` (a claims.json's data): its catalogue and its records."""
    catalogue = Registry.from_data(run).catalogue
    by_claim = sources(run)
    env = run.get("environment", {})
    lines = [
        "# The claims catalogue",
        "",
        "<!-- rendered by `lengthgen docs` from the claim modules' entries in the reference run; edit those, not "
        "this -->",
        "",
        f"Every claim of the paper the suite checks ({len(catalogue.claims)}) and every prediction of its account it "
        f"tests ({len(catalogue.predictions)}): where it stands in the paper, what it says, the value the paper "
        "reports, and the check the "
        "suite makes at the paper's scale. The last column counts the checks of the claim's tests by where their "
        "thresholds come from, in the reference run"
        + (f" ({env.get('cpu_model')}, {env.get('started')})" if env.get("cpu_model") else "")
        + ": the paper's number or range, the suite's reading of a qualitative word, or a prediction's threshold "
        "fixed before its test was written.",
        "",
        "| id | where | claim | paper's value | the suite's check at paper scale | thresholds from |",
        "|---|---|---|---|---|---|",
    ]
    for claim in catalogue:
        counts = by_claim.get(claim.id, Counter())
        shown = "; ".join(
            f"{SOURCE_WORDS.get(s, s)}: {n}" for s, n in sorted(counts.items(), key=lambda kv: str(kv[0]))
        )
        kind = " (prediction)" if claim.prediction else ""
        lines.append(
            f"| {claim.id}{kind} | {_cell(claim.where)} | {_cell(claim.statement)} | {_cell(claim.paper_value)} | "
            f"{_cell(claim.assertion)} | {shown or 'no checks at the paper scale'} |"
        )
    return "\n".join(lines) + "\n"
