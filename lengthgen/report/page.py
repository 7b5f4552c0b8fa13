"""The one-page HTML report: self-contained (inline CSS, a few lines of inline JS, figures as base64
PNG), readable offline. Built from ``claims.json``'s data and the rendered figures; no claim-specific
code: every claim is shown the same way."""

from __future__ import annotations

import html
import re
import time
from typing import Any, Mapping, Sequence

from lengthgen.catalogue import CATALOGUE
from lengthgen.records import VERDICTS
from lengthgen.report import text
from lengthgen.report.figures import FigureError, Rendered, forest
from lengthgen.report.verdict import close_checks, deciding_check, interval_kind, is_close, standard_margin

PAPER_TITLE = "Relative Positions Generalize, Absolute Positions Memorize"
CHECKS_OPEN = 12  # a claim's checks table starts expanded up to this many checks
MEASURED_IN_TABLE = 3  # headline quantities shown in the claims table (all of them in the claim's section)
REASON_SHOWN = 160  # characters of a verdict's reason shown in the claims table
OVERVIEW_NAME = 56  # characters of a deciding check's name in the overview's row labels
CLOSE_RANK = 0.5  # a close call sorts just before its verdict's clear calls
VERDICT_RANK = {v: i for i, v in enumerate(("failed", "not reproduced", "inconclusive", "skipped", "reproduced"))}
assert set(VERDICT_RANK) == set(VERDICTS), "every verdict needs a sort rank and a colour"

CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#ffffff; --head:#f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg);
       background: var(--bg); margin: 0 auto; padding: 16px 24px 48px; max-width: 1600px; }
h1 { font-size: 22px; margin: 4px 0 6px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 0 0 6px; }
.muted, .small { color: var(--muted); } .small { font-size: 12px; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 12px; }
.run { font-size: 15px; margin: 6px 0; }
.chips span { display: inline-block; padding: 2px 10px; border-radius: 12px; margin: 2px 6px 2px 0; font-weight: 600; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid var(--line); padding: 5px 7px; vertical-align: top; text-align: left; }
th { background: var(--head); position: sticky; top: 0; z-index: 1; }
th button { font: inherit; font-weight: 700; border: 0; background: none; cursor: pointer; padding: 0; color: inherit; }
th button::after { content: " \\2195"; color: var(--muted); }
th[aria-sort=ascending] button::after { content: " \\25B2"; } th[aria-sort=descending] button::after { content: " \\25BC"; }
#claims td { font-size: 13px; } #claims td.id { font-weight: 700; white-space: nowrap; }
#claims th:nth-child(5) { min-width: 210px; } #claims th:nth-child(9) { min-width: 150px; }
.test { display: block; font-size: 11px; color: var(--muted); margin-top: 4px; overflow-wrap: anywhere; }
.reason { display: block; font-size: 11px; color: var(--fg); margin-top: 4px; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 700; font-size: 12px; white-space: nowrap; }
.v-reproduced { --v:#1a7f37; --vb:#dafbe1; } .v-not-reproduced { --v:#9a4d00; --vb:#fff1e0; }
.v-inconclusive { --v:#0550ae; --vb:#ddf4ff; } .v-failed { --v:#cf222e; --vb:#ffebe9; }
.v-skipped { --v:#59636e; --vb:#eff2f5; } .v-unknown { --v:#59636e; --vb:#eff2f5; }
tr.v-row > td:first-child { border-left: 5px solid var(--v); }
tr.v-row > td.verdict { background: var(--vb); }
.badge, .chips span { color: var(--v); background: var(--vb); border: 1px solid var(--v); }
.seeds { color: var(--muted); font-size: 11px; display: block; }
section.claim { border: 1px solid var(--line); border-left: 6px solid var(--v); border-radius: 6px; padding: 12px 16px;
                margin: 16px 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
table.checks td, table.checks th, table.env td, table.env th { font-size: 12px; padding: 3px 6px; }
td.pass { color: #1a7f37; font-weight: 700; } td.fail { color: #cf222e; font-weight: 700; }
.close { color: #9a4d00; font-size: 11px; font-weight: 600; }
.badge.close-call, .chips span.close-call { border-style: dashed; border-width: 2px; }
.closecalls { border: 1px dashed #9a4d00; border-radius: 4px; padding: 4px 10px; margin: 8px 0; background: #fffaf2; }
figure.overview { max-width: 1180px; margin: 8px 0 16px; }
.figs { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 12px; margin-top: 10px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 4px; padding: 6px; background: #fff; }
figure img { display: block; width: 100%; height: auto; }
figcaption { font-size: 12px; color: var(--muted); }
.figerror { color: #cf222e; font-size: 12px; }
details > summary { cursor: pointer; color: var(--muted); margin: 6px 0; }
table.env { width: auto; } table.env th { position: static; font-weight: 600; }
ul { margin: 4px 0; padding-left: 22px; }
"""

SORT_JS = """
["claims", "predictions"].forEach(function (tableId) {
  var table = document.getElementById(tableId);
  if (!table) return;
  var body = table.tBodies[0];
  function sortBy(key, dir) {
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var d = parseFloat(a.getAttribute("data-" + key)) - parseFloat(b.getAttribute("data-" + key));
      if (d === 0) d = parseFloat(a.getAttribute("data-id")) - parseFloat(b.getAttribute("data-id"));
      return dir * d;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    table.querySelectorAll("th[data-sort]").forEach(function (th) {
      if (th.getAttribute("data-sort") === key) th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    });
  }
  table.querySelectorAll("th[data-sort] button").forEach(function (button) {
    button.addEventListener("click", function () {
      var th = button.parentNode;
      sortBy(th.getAttribute("data-sort"), th.getAttribute("aria-sort") === "ascending" ? -1 : 1);
    });
  });
  var wanted = /^#sort=(id|verdict)(-desc)?$/.exec(window.location.hash);
  if (wanted) sortBy(wanted[1], wanted[2] ? -1 : 1);
});
"""


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def verdict_class(verdict: str | None) -> str:
    return "v-" + re.sub(r"[^a-z]+", "-", verdict) if verdict in VERDICTS else "v-unknown"


def badge(verdict: str | None, close: bool = False) -> str:
    """The verdict's badge; ``close``: shown "<verdict> (close)" with a dashed border (reproduced and not
    reproduced only: ``verdict.label``)."""
    shown = verdict or "unknown"
    if close and verdict in text.verdict.CLOSE_LABELLED:
        return f'<span class="badge {verdict_class(verdict)} close-call">{esc(shown)} (close)</span>'
    return f'<span class="badge {verdict_class(verdict)}">{esc(shown)}</span>'


def record_badge(record: Mapping[str, Any]) -> str:
    return badge(record.get("verdict"), bool(close_checks(record)))


def anchors(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """A unique, readable anchor per record: C1-paper, C1-paper-2, ..."""
    seen: dict[str, int] = {}
    out = []
    for r in records:
        base = f"{r['claim']}-{r.get('scale', {}).get('name', 'run')}"
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return out


def _summary_html(summary: Mapping[str, Any]) -> str:
    seeds = text.per_seed(summary.get("values"))
    values = summary.get("values") or []
    label = "per seed" if len(values) <= 64 else "values"
    return esc(text.summary_text(summary)) + (f'<span class="seeds">{label}: {esc(seeds)}</span>' if len(values) > 1 else "")


def _check_values_html(check: Mapping[str, Any]) -> str:
    """The per-seed values behind a check's statistic, and how they were reduced to it (or its interval:
    a seed bootstrap, "exact")."""
    values = check.get("values")
    kind = interval_kind(check)
    if kind == "exact":
        return '<span class="seeds">exact (no seeds, no interval)</span>'
    if kind == "bootstrap":
        ci = check.get("ci95")
        return (f'<span class="seeds">95% seed bootstrap {esc(text.interval(ci)) if ci else "(too few seeds)"}'
                + (f"; values: {esc(text.per_seed(values))}" if values else "") + "</span>")
    if not values or len(values) < 2:
        return ""
    n = len(values)
    how = {"mean": f"mean of {n} {text.interval(check.get('ci95'))}", "all": f"worst of {n} (every one must pass)",
           "min": f"min of {n}", "max": f"max of {n}"}.get(check.get("reduce"), f"{n} values")
    return f'<span class="seeds">{esc(how)}; values: {esc(text.per_seed(values))}</span>'


def measured_cell(record: Mapping[str, Any], anchor: str) -> str:
    measured = text.headline_measures(record)
    parts = [f"<div>{esc(name)}: {_summary_html(s)}</div>" for name, s in measured[:MEASURED_IN_TABLE]]
    if len(measured) > MEASURED_IN_TABLE:
        parts.append(f'<div class="small"><a href="#{esc(anchor)}">{len(measured) - MEASURED_IN_TABLE} more '
                     f"measured quantities</a></div>")
    passed, total = text.checks_passed(record)
    check = text.deciding_check(record)
    if check is not None and not parts:
        parts.append(f"<div>{esc(check['name'])}: <b>{esc(text.num(check['value'], 4))}</b>{_check_values_html(check)}</div>")
    if total:
        parts.append(f'<div class="small">checks passed: {passed} of {total}</div>')
    return "".join(parts) or '<span class="muted">nothing measured</span>'


def threshold_cell(record: Mapping[str, Any]) -> str:
    check = text.deciding_check(record)
    parts = []
    if check is not None:
        state = "" if check["passed"] else " (failed)"
        parts.append(f"<div>{esc(check['name'])}: <b>{esc(text.check_text(check))}</b>{state}</div>")
        if is_close(check):
            parts.append(f'<div class="small"><span class="close">close</span>: {esc(text.close_text(check, record))}'
                         "</div>")
    parts.append(f'<div class="small">catalogue: {esc(record.get("assertion", ""))}</div>')
    return "".join(parts)


def reason_html(record: Mapping[str, Any]) -> str:
    """Why the verdict is what it is, shortened for the table (in full in the claim's section)."""
    reason = record.get("verdict_reason")
    if not reason:
        return ""
    first = reason.splitlines()[0]
    short = first if len(first) <= REASON_SHOWN else first[: REASON_SHOWN - 3].rstrip() + "..."
    return f'<span class="reason" title="{esc(reason)}">{esc(short)}</span>'


def claims_table(records: Sequence[Mapping[str, Any]], ids: Sequence[str], table_id: str = "claims") -> str:
    head = (
        f'<table id="{table_id}"><thead><tr>'
        '<th data-sort="id"><button type="button">ID</button></th><th>Where</th><th>Statement</th>'
        "<th>Paper value</th><th>Measured (mean [95% interval], per seed)</th><th>Threshold and comparison</th>"
        '<th>Scale</th><th>Runtime</th><th data-sort="verdict"><button type="button">Verdict</button></th>'
        "</tr></thead><tbody>"
    )
    rows = []
    shared = text.shared_claims(records)
    for i, (r, anchor) in enumerate(zip(records, ids)):
        verdict = r.get("verdict")
        close = bool(close_checks(r)) and verdict in text.verdict.CLOSE_LABELLED
        rank = VERDICT_RANK.get(verdict, len(VERDICT_RANK)) - (CLOSE_RANK if close else 0)
        test = f'<span class="test">{esc(text.test_name(r))}</span>' if r["claim"] in shared else ""
        rows.append(
            f'<tr class="v-row {verdict_class(verdict)}" data-id="{text.claim_number(r["claim"]) * 1000 + i}" '
            f'data-verdict="{rank:g}" data-close="{str(close).lower()}" data-claim="{esc(r["claim"])}">'
            f'<td class="id"><a href="#{esc(anchor)}">{esc(r["claim"])}</a></td>'
            f"<td>{esc(r.get('where', ''))}</td><td>{esc(r.get('statement', ''))}{test}</td>"
            f"<td>{esc(r.get('paper_value', ''))}</td><td>{measured_cell(r, anchor)}</td><td>{threshold_cell(r)}</td>"
            f"<td>{esc(text.scale_text(r.get('scale', {})))}</td><td>{esc(text.duration(r.get('runtime_s')))}</td>"
            f'<td class="verdict">{record_badge(r)}{reason_html(r)}{_seeds_line(r)}</td></tr>'
        )
    return head + "".join(rows) + "</tbody></table>"


def checks_table(checks: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for c in checks:
        close = ' <span class="close" title="the check\'s deciding interval contains the threshold">close</span>' \
            if is_close(c) else ""
        result = '<td class="pass">pass</td>' if c["passed"] else '<td class="fail">FAIL</td>'
        if c.get("expected_to_fail"):
            result = result[:-5] + ' <span class="small">(declared expected failure)</span></td>'
        rows.append(
            f"<tr><td>{esc(c['name'])}</td><td><b>{esc(text.num(c['value'], 4))}</b>{_check_values_html(c)}</td>"
            f"<td>{esc(text.threshold_text(c['op'], c['threshold']))}{close}</td><td>{esc(c.get('paper') or '')}</td>"
            f"{result}</tr>"
        )
    return ('<table class="checks"><thead><tr><th>check</th><th>measured</th><th>comparison</th><th>paper</th>'
            "<th>result</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _list(title: str, items: Sequence[str]) -> str:
    if not items:
        return ""
    return f"<h4>{esc(title)}</h4><ul>" + "".join(f"<li>{esc(item)}</li>" for item in items) + "</ul>"


def figures_html(rendered: Sequence[Rendered]) -> str:
    out = []
    for fig in rendered:
        if fig.png_base64 is None:
            out.append(f'<figure class="broken"><div class="figerror">figure {esc(fig.name)} could not be drawn: '
                       f"{esc(fig.error)}</div></figure>")
            continue
        caption = f"<figcaption>{esc(fig.caption)}</figcaption>" if fig.caption else ""
        out.append(f'<figure><img alt="{esc(fig.title)}" src="data:image/png;base64,{fig.png_base64}">{caption}</figure>')
    return f'<div class="figs">{"".join(out)}</div>' if out else ""


def controls_html(controls: Sequence[Mapping[str, Any]]) -> str:
    """The claim's negative controls: the counterfactual each fed to the claim's checks, and how they failed."""
    if not controls:
        return '<h4>Negative control</h4><p class="small muted">no control ran for this claim in this run</p>'
    out = []
    for c in controls:
        checks = c.get("checks") or []
        failed = [k for k in checks if not k["passed"]]
        verdict = c.get("verdict") or "?"
        state = (f"the claim's checks <b>failed</b> on it, as they must: {len(failed)} of {len(checks)}"
                 if verdict == "discriminates" else f"<b class=\"fail\">{esc(verdict)}</b>: {esc(c.get('verdict_reason') or '')}")
        table = f"<details><summary>checks on the counterfactual</summary>{checks_table(failed or checks)}</details>"
        out.append(f'<div class="control"><div>{esc(text.test_name(c))} ({esc(text.scale_text(c.get("scale", {})))}): '
                   f"{esc(c.get('counterfactual') or '')}</div><div>{state}</div>{table if checks else ''}</div>")
    return "<h4>Negative control</h4>" + "".join(out)


def _seeds_line(record: Mapping[str, Any]) -> str:
    """In the table's verdict cell: the seeds a --until-decided claim ended with."""
    plan = record.get("sequential")
    if not plan:
        return ""
    path = " &rarr; ".join(str(look["seeds"]) for look in plan.get("path") or [])
    return f'<span class="seeds">seeds {path} ({esc(plan.get("stopped", ""))})</span>'


def close_calls_html(record: Mapping[str, Any]) -> str:
    """The claim's close deciding checks, each with its interval and the seeds that would decide it."""
    close = close_checks(record)
    if not close:
        return ""
    items = "".join(f"<li>{esc(c['name'])}: {esc(text.close_text(c, record))}</li>" for c in close)
    return (f'<div class="closecalls"><h4>Close calls ({len(close)})</h4><p class="small">The interval of each '
            "check below contains its threshold, so more seeds could turn the verdict. Seeds to decide: the "
            "smallest n whose t-interval at the level shown, with the spread observed here and the statistic as it "
            f"stands, would exclude the threshold (lengthgen.sequential.seeds_to_decide).</p><ul>{items}</ul></div>")


def path_html(record: Mapping[str, Any]) -> str:
    """The --until-decided path: the plan, and the seeds and deciding intervals at each look."""
    plan = record.get("sequential")
    if not plan:
        return ""
    rows = []
    for look in plan.get("path") or []:
        shown = look.get("close_checks") or ([look["deciding"]] if look.get("deciding") else [])
        cells = "; ".join(f"{c['name']}: {text.num(c['value'], 4)} {text.interval(c.get('interval'), 4)} "
                          f"{text.threshold_text(c['op'], c['threshold'])}" for c in shown[:3])
        more = f"; and {len(shown) - 3} more" if len(shown) > 3 else ""
        state = "close" if look.get("close") else "decided"
        rows.append(f"<tr><td>{look['seeds']}</td><td>{state}</td><td>{esc(cells + more)}</td></tr>")
    return (f"<h4>Seeds until decided</h4><p class=\"small\">{esc(text.path_text(record))}. The looks were fixed "
            "before the first one; every interval is taken at the level shown, so that all looks together decide "
            "wrongly at most 5% of the time (Bonferroni).</p>"
            '<table class="checks"><thead><tr><th>seeds</th><th>state</th><th>close checks (else the deciding '
            "check): statistic [interval at the look's level] threshold</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def overview_rows(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The overview's rows: each claim test's deciding check, as ``figures.forest`` takes them."""
    rows = []
    shared = text.shared_claims(records)
    for r in records:
        check = deciding_check(r)
        if check is None or r.get("verdict") == "skipped":
            continue
        margin = standard_margin(check, r)
        kind = "interval" if margin is not None else ("exact" if interval_kind(check) == "exact" else "none")
        name = check["name"] if len(check["name"]) <= OVERVIEW_NAME else check["name"][: OVERVIEW_NAME - 3] + "..."
        param = re.search(r"\[(.*)\]$", text.test_name(r))
        test = f" [{param.group(1)}]" if r["claim"] in shared and param else ""
        row = {"label": f"{r['claim']}{test}: {name}", "verdict": r.get("verdict"), "close": bool(close_checks(r)),
               "kind": kind, "passed": bool(check["passed"])}
        if margin is not None:
            row.update(margin=margin[0], low=margin[1], high=margin[2])
        rows.append(row)
    return rows


def overview_html(records: Sequence[Mapping[str, Any]]) -> str:
    """The forest plot before the table (drawn afresh: one figure for the whole run)."""
    import base64

    rows = overview_rows(records)
    if not rows:
        return ""
    try:
        png, caption = forest(rows)
    except FigureError as error:
        return f'<div class="figerror">the overview could not be drawn: {esc(error)}</div>'
    except Exception as error:  # a drawing problem must not lose the report
        return f'<div class="figerror">the overview could not be drawn: {esc(type(error).__name__)}: {esc(error)}</div>'
    close = sum(1 for r in rows if r["close"])
    return (f'<figure class="overview" id="overview"><img alt="overview: margin of each claim\'s deciding check '
            f'in standard errors" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'
            f"<figcaption>{len(rows)} claim tests, {close} close; {esc(caption)}</figcaption></figure>")


def claim_section(record: Mapping[str, Any], anchor: str, rendered: Sequence[Rendered],
                  controls: Sequence[Mapping[str, Any]] = ()) -> str:
    verdict = record.get("verdict")
    facts = [
        ("where", record.get("where", "")),
        ("paper value", record.get("paper_value", "")),
        ("catalogue check", record.get("assertion", "")),
        ("scale", text.scale_text(record.get("scale", {}))),
        ("runtime", text.duration(record.get("runtime_s"))),
        ("test", record.get("test", "")),
    ]
    if record.get("verdict_reason"):
        facts.append(("why " + (verdict or "unknown"), record["verdict_reason"]))
    dl = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts)
    measured = record.get("measured") or {}
    measured_html = ""
    if measured:
        measured_html = ('<h4>Measured</h4><table class="checks"><thead><tr><th>quantity</th>'
                         "<th>mean [95% interval] (n), per seed</th></tr></thead><tbody>"
                         + "".join(f"<tr><td>{esc(n)}</td><td>{_summary_html(s)}</td></tr>" for n, s in measured.items())
                         + "</tbody></table>")
    checks = record.get("checks") or []
    passed, total = text.checks_passed(record)
    checks_html = ""
    if checks:
        failed = [c for c in checks if not c["passed"]]
        if failed:
            checks_html += f"<h4>Failed checks ({len(failed)} of {total})</h4>" + checks_table(failed)
        if record.get("expected_failures") and failed:
            checks_html += (f'<p class="small">What holds inside this non-reproduction: {passed} of {total} checks '
                            "passed (the table below lists them all).</p>")
        opened = " open" if total <= CHECKS_OPEN else ""
        checks_html += (f"<details{opened}><summary>All checks: {passed} of {total} passed</summary>"
                        f"{checks_table(checks)}</details>")
    return (
        f'<section class="claim {verdict_class(verdict)}" id="{esc(anchor)}">'
        f"<h3>{esc(record['claim'])} {record_badge(record)} <span class=\"small\">{esc(text.scale_text(record.get('scale', {})))}"
        f"</span></h3><div>{esc(record.get('statement', ''))}</div><dl class=\"facts\">{dl}</dl>"
        f"{close_calls_html(record)}{path_html(record)}{measured_html}{checks_html}"
        f"{_list('Choices (what the paper leaves open)', record.get('choices') or [])}"
        f"{_list('Notes', record.get('notes') or [])}{controls_html(controls)}{figures_html(rendered)}</section>"
    )


ENVIRONMENT_ROWS = (
    ("lengthgen", "library version"),
    ("code_fingerprint", "code fingerprint (core numeric files, in every cache key)"),
    ("suite_fingerprint", "suite fingerprint (every .py of the package and claims)"),
    ("torch", "torch"),
    ("python", "Python"),
    ("numpy", "numpy"),
    ("matplotlib", "matplotlib"),
    ("platform", "platform"),
    ("cpus", "CPUs"),
    ("threads_per_process", "torch threads per process"),
    ("workers", "pytest-xdist workers"),
    ("started", "started"),
    ("wall_time_s", "wall time (pytest configured to the last test)"),
    ("models_trained", "models trained"),
    ("models_from_cache", "models from the cache (hits)"),
    ("evaluations_computed", "evaluations computed"),
    ("evaluations_from_cache", "evaluations from the cache"),
    ("damaged_entries", "damaged cache entries recomputed"),
    ("cache_by_kind", "cache use by kind"),
    ("cache_dir", "cache directory"),
    ("command", "command"),
    ("exit_status", "pytest exit status"),
)


def environment_block(environment: Mapping[str, Any]) -> str:
    rows = []
    for key, label in ENVIRONMENT_ROWS:
        if key not in environment or environment[key] is None:
            continue
        value = environment[key]
        if key == "wall_time_s":
            value = text.duration(float(value))
        rows.append(f"<tr><th>{esc(label)}</th><td class=\"mono\">{esc(value)}</td></tr>")
    known = {k for k, _ in ENVIRONMENT_ROWS} | {"cache"}
    rows += [f"<tr><th>{esc(k)}</th><td class=\"mono\">{esc(v)}</td></tr>" for k, v in environment.items()
             if k not in known]
    return '<table class="env">' + "".join(rows) + "</table>"


def not_run_block(records: Sequence[Mapping[str, Any]]) -> str:
    _, missing = text.coverage(records)
    if not missing:
        return '<p class="small">Every catalogue claim has a record in this run.</p>'
    items = "".join(f"<li><b>{esc(c)}</b> ({esc(CATALOGUE[c].where)}): {esc(CATALOGUE[c].statement)}</li>"
                    for c in missing)
    return (f"<details><summary>{len(missing)} catalogue claims have no record in this run (not selected, or no test "
            f"yet)</summary><ul class=\"small\">{items}</ul></details>")


def robustness_block(data: Mapping[str, Any]) -> str:
    """The robustness map (``lengthgen.report.robustness``): claims x settings, each cell linked to its checks."""
    from lengthgen.report.robustness import grid_html

    return "<h2>Robustness map</h2>" + grid_html(data.get("robustness") or [], data.get("robustness_environment"))


def predictions_block(records: Sequence[Mapping[str, Any]], ids: Sequence[str]) -> str:
    """The predictions beyond the paper (P1-P6, the catalogue's own section): their table, judged like the claims."""
    if not records:
        return ""
    return ('<h2 id="predictions-beyond-the-paper">Predictions beyond the paper</h2><p class="small">What the '
            "paper's account predicts and the paper does not test, each fixed in the catalogue with its threshold "
            "before its test was written; recorded, judged and controlled as the claims are. A prediction that is "
            "not reproduced is a finding about the account.</p>" + claims_table(records, ids, "predictions"))


def page(data: Mapping[str, Any], rendered: Mapping[int, Sequence[Rendered]]) -> str:
    """The HTML of ``data`` (``{"environment": ..., "records": [...]}``, records sorted by claim)."""
    records = data["records"]
    environment = data.get("environment") or {}
    ids = anchors(records)
    chips = "".join(f'<span class="{verdict_class(v.removesuffix(" (close)"))}'
                    f'{" close-call" if v.endswith(" (close)") else ""}">{n} {esc(v)}</span>'
                    for v, n in text.verdict_counts(records).items())
    generated = time.strftime("%Y-%m-%d %H:%M:%S %Z")  # when this page was drawn (the run's start is below)
    controls = data.get("controls") or []
    sections = ["".join(claim_section(r, a, rendered.get(i, []), [c for c in controls if c["claim"] == r["claim"]
                                                                  and c.get("scale", {}).get("name") == r.get("scale", {}).get("name")])
                        for i, (r, a) in enumerate(zip(records, ids)) if text.is_prediction(r) == part)
                for part in (False, True)]  # the paper's claims, then the predictions beyond it
    predicted = [i for i, r in enumerate(records) if text.is_prediction(r)]
    claimed = [i for i in range(len(records)) if i not in predicted]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>lengthgen reproduction report: {esc(text.run_label(records))}</title><style>{CSS}</style></head>
<body>
<header><h1>Reproduction report: &ldquo;{esc(PAPER_TITLE)}&rdquo;</h1>
<p class="run" id="run-scale">Run: <strong>{esc(text.run_label(records))}</strong>
<span class="small">&middot; {len(records)} claim tests &middot; generated {esc(generated)}</span></p>
<p class="chips" id="verdicts">{chips}</p>
<p class="small">Verdicts: <b>reproduced</b> (every check of the catalogue passed); <b>not reproduced</b> (a faithful
implementation fails exactly the checks its test declares, every other check holds; the reason gives this run's
measured values); <b>inconclusive</b> (the test
could not decide, e.g. fewer seeds than the paper and a mean whose 95% interval contains the threshold);
<b>failed</b> (a check failed that was not declared, a declared non-reproduction passed, or the test raised);
<b>skipped</b> (not run at this scale). <b>(close)</b>: a deciding check's interval (95%, or the
<code>--until-decided</code> level) contains its threshold, so more seeds could turn the verdict; the claim's section
lists those checks, their intervals and about how many seeds would decide them. Intervals: a mean over seeds has its
t-interval, a statistic of the seed-mean curve a seed bootstrap, an exact computation none; checks every seed must pass
and identities (==) have none and are never close. Each claim's section names its negative control: the claim's own checks fed a
counterfactual, which must fail.
Runtime: setup and call of the test (an experiment shared by several claims counts for the first test that
needs it; cached models load in seconds). Click <i>ID</i> or <i>Verdict</i> to sort. The same records as data: <a href="claims.json">claims.json</a>.</p>
</header>
<h2>Overview</h2>
{overview_html(records)}
<h2>Claims</h2>
{claims_table([records[i] for i in claimed], [ids[i] for i in claimed])}
{not_run_block(records)}
{predictions_block([records[i] for i in predicted], [ids[i] for i in predicted])}
{robustness_block(data)}
<h2>Environment</h2>
{environment_block(environment)}
<h2>Claims in detail</h2>
{sections[0]}
{"<h2>Predictions in detail</h2>" + sections[1] if predicted else ""}
<script>{SORT_JS}</script>
</body></html>
"""
