"""The verdict's badge, shared by the page's claims table, its claim sections and its grids (the robustness map,
the multiverse): plain text and flags, escaped by the templates that print them (``lengthgen.report.templating``);
the checks and measured quantities themselves reach the templates as the records' own types. A verdict's colour
and whether it is shown as a close call are the display table's (``run_view.style``) and the record's
(``ClaimRecord.labelled_close``), never decided here."""

from __future__ import annotations

from dataclasses import dataclass

from lengthgen.records import ClaimRecord
from lengthgen.analysis import run_view


def verdict_class(verdict: str | None) -> str:
    """The verdict's colour class (``run_view.VERDICT_STYLES``; "v-unknown" for None or an unknown verdict)."""
    return run_view.style(verdict).css


@dataclass(frozen=True)
class Badge:
    css: str  # the verdict's class, "v-reproduced", ... ("v-unknown" for a missing or unknown verdict)
    shown: str  # the verdict as shown ("unknown" when the record has none)
    close: bool  # shown "<verdict> (close)" with a dashed border


def badge(claim: ClaimRecord) -> Badge:
    """A claim test's badge: its verdict, shown as a close call (dashed, "<verdict> (close)") when the run view
    labels it one (``ClaimRecord.labelled_close``: reproduced and not reproduced only)."""
    return Badge(verdict_class(claim.verdict), claim.verdict or "unknown", claim.labelled_close)


def verdict_badge(verdict: str | None) -> Badge:
    """The badge of a verdict alone, without its close call (a grid's block under its cell)."""
    return Badge(verdict_class(verdict), verdict or "unknown", False)
