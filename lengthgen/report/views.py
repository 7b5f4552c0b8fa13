"""The verdict's badge and the checks' groups, shared by the page's claims table, its claim sections and its grids
(the robustness map, the multiverse): plain text and flags, escaped by the templates that print them
(``lengthgen.report.templating``); the checks and measured quantities themselves reach the templates as the records'
own types. A verdict's colour and whether it is shown as a close call are the verdict's (``lengthgen.records.verdicts``)
and the record's (``ClaimRecord.labelled_close``), never decided here.

The pieces the terminal summary and the markdown summary share are here too: the verdicts counted (:data:`Counts`),
a negative control listed (:class:`Control`), the run's footer (:class:`Footer`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lengthgen.records import Check, ClaimRecord
from lengthgen.records.verdicts import UNKNOWN, Verdict, look
from lengthgen.report import text

SETTING = re.compile(r"\S+=\S+")  # a qualifier's token that names one setting: "L=12", "lambda=0.01"


Counts = tuple[tuple[str, int], ...]  # (verdict label, how many) in the order shown


@dataclass(frozen=True)
class Control:
    """A negative control that did not discriminate, as the summaries list it."""

    claim: str  # the claim's id
    test: str  # the control's test function with its parameters
    verdict: object  # its verdict: as recorded (the terminal), or "unknown" without one (the markdown)
    reason: str  # the first line of the verdict's reason


@dataclass(frozen=True)
class Footer:
    """The run's wall time, cache counters, processes and code fingerprint, as the summaries' last line shows them."""

    wall_time: str  # the wall time in words (``text.duration``)
    trained: object  # models trained (as recorded)
    cached: object  # models from the cache (as recorded)
    workers: object  # worker processes (as recorded)
    threads: object  # threads per process (as recorded)
    fingerprint: str  # the code fingerprint, "" where none is recorded


def footer(environment: Mapping[str, Any] | None) -> Footer | None:
    """The footer of a recorded environment; None without one."""
    if not environment:
        return None
    return Footer(
        text.duration(environment.get("wall_time_s")),
        environment.get("models_trained", 0),
        environment.get("models_from_cache", 0),
        environment.get("workers", 1),
        environment.get("threads_per_process", 1),
        str(environment.get("code_fingerprint") or ""),
    )


def verdict_class(verdict: Verdict | None) -> str:
    """The verdict's colour class (``Verdict.css``; "v-unknown" for None)."""
    return look(verdict).css


@dataclass(frozen=True)
class Badge:
    css: str  # the verdict's class, "v-reproduced", ... ("v-unknown" for a missing or unknown verdict)
    shown: str  # the verdict as shown ("unknown" when the record has none)
    close: bool  # shown "<verdict> (close)" with a dashed border


def badge(claim: ClaimRecord) -> Badge:
    """A claim test's badge: its verdict, shown as a close call (dashed, "<verdict> (close)") when the run view
    labels it one (``ClaimRecord.labelled_close``: reproduced and not reproduced only)."""
    return Badge(verdict_class(claim.verdict), str(claim.verdict or UNKNOWN), claim.labelled_close)


def verdict_badge(verdict: Verdict | None) -> Badge:
    """The badge of a verdict alone, without its close call (a grid's block under its cell)."""
    return Badge(verdict_class(verdict), str(verdict or UNKNOWN), False)


@dataclass(frozen=True)
class CheckGroup:
    """Checks that measure one quantity against one comparison at several settings, with one outcome ("RoPE K=1
    L=12: accuracy", "RoPE K=1 L=16: accuracy", ... each ``>= 0.95``, each passed): the page names the quantity,
    the comparison and the outcome once, then per run of settings ("RoPE K=1") each check's value and its last
    setting ("L=12"), so that many such checks take a line. A check alone in its group keeps its whole name."""

    quantity: str  # what the checks measure (their names after the qualifier), or a lone check's whole name
    comparison: str  # "op threshold" they share (">= 0.95"); "" where the value's text holds it (a lone check)
    passed: bool  # the checks' outcome
    runs: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # (settings shared, ((value, last setting), ...))
    span: tuple[str, str]  # the lowest and the highest of its values, as the values read ("" for a lone check)

    @property
    def lone(self) -> bool:
        """One check, shown as its name, its value and its comparison."""
        return len(self.runs) == 1 and len(self.runs[0][1]) == 1 and not self.runs[0][0] and not self.runs[0][1][0][1]

    @property
    def count(self) -> int:
        """How many checks the group holds."""
        return sum(len(values) for _, values in self.runs)


def _split(qualifier: str) -> tuple[str, str]:
    """A qualifier as (its settings but the last, its last setting): "RoPE K=1 L=12" -> ("RoPE K=1", "L=12"); one
    that does not end in a setting stays whole, as the last."""
    head, _, last = qualifier.rpartition(" ")
    return (head, last) if head and SETTING.fullmatch(last) else ("", qualifier)


def check_groups(checks: Sequence[Check]) -> tuple[CheckGroup, ...]:
    """Checks grouped by quantity, comparison and outcome, in the order each group first appears; inside a group,
    by the settings its qualifiers share. A check's name "qualifier: quantity" (split at the first ": ") joins the
    other checks of its quantity, comparison and outcome; every value and comparison reads as ``text.check_text``."""
    groups: dict[tuple[str, str, bool], list[Check]] = {}
    for k in checks:
        if k.counted and k.failing:  # its text names its failing seeds (check_text): shown alone, as it is
            groups[(k.name, f"#{len(groups)}", k.passed)] = [k]
            continue
        quantity = k.name.partition(": ")[2] or k.name
        groups.setdefault((quantity, text.threshold_text(k.op, k.threshold), k.passed), []).append(k)
    out = []
    for (quantity, comparison, passed), members in groups.items():
        if comparison.startswith("#"):  # a check shown alone with its own text
            out.append(CheckGroup(quantity, "", passed, (("", ((text.check_text(members[0]), ""),)),), ("", "")))
        elif len(members) == 1:  # nothing to share: the check as it is named
            value = text.num(members[0].value, 4)
            out.append(CheckGroup(members[0].name, comparison, passed, (("", ((value, ""),)),), ("", "")))
        else:
            runs: dict[str, list[tuple[str, str]]] = {}
            for k in members:
                qualifier, _, named = k.name.partition(": ")
                head, last = _split(qualifier) if named else ("", "")
                runs.setdefault(head, []).append((text.num(k.value, 4), last))
            numbers = [k.value for k in members if k.value is not None]
            span = (text.num(min(numbers), 4), text.num(max(numbers), 4)) if numbers else ("", "")
            out.append(CheckGroup(quantity, comparison, passed, tuple((h, tuple(v)) for h, v in runs.items()), span))
    return tuple(out)
