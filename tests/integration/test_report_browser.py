"""The page renders in a real browser: headless Chromium (Debian's package, installed by .ci/run) takes
a screenshot, which must show the page (many distinct colours, the verdict colours, the figures); and
the inline script sorts the claims table by verdict and by id."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

from lengthgen.report import write_report
from tests.report_samples import ENVIRONMENT, all_records

CHROMIUM = Path("/usr/bin/chromium")
TIMEOUT_S = 120  # a cold start of Chromium on busy shared cores
WINDOW = (1280, 2400)  # pixels: the claims table, the environment and the first figures
VERDICT_BACKGROUNDS = {  # the verdict cell colours of report/static/page.css, as 8-bit RGB
    "reproduced": (0xDA, 0xFB, 0xE1),
    "not reproduced": (0xFF, 0xF1, 0xE0),
    "inconclusive": (0xDD, 0xF4, 0xFF),
    "failed": (0xFF, 0xEB, 0xE9),
}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="headless Chromium is absent (/usr/bin/chromium): apt-get install -y chromium"
    ),
]


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    command = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=TIMEOUT_S)


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    return write_report(all_records(), ENVIRONMENT, tmp_path_factory.mktemp("report")).html


def test_screenshot_shows_the_page(page, tmp_path):
    shot = tmp_path / "page.png"
    result = chromium(tmp_path, f"--screenshot={shot}", f"--window-size={WINDOW[0]},{WINDOW[1]}", page.as_uri())
    assert shot.exists(), f"no screenshot; chromium said: {result.stderr[-2000:]}"
    rgb = (image.imread(shot)[..., :3] * 255).round().astype(np.uint8)
    assert rgb.shape[:2] == (WINDOW[1], WINDOW[0])
    colours = np.unique(rgb.reshape(-1, 3), axis=0)
    assert len(colours) > 200, f"only {len(colours)} distinct colours: a blank or unstyled page"
    non_white = np.mean(np.any(rgb < 245, axis=-1))
    assert non_white > 0.05, f"{non_white:.1%} of the pixels are not white"
    for verdict, colour in VERDICT_BACKGROUNDS.items():
        share = np.mean(np.all(np.abs(rgb.astype(int) - colour) <= 2, axis=-1))
        assert share > 0.001, f"the {verdict} colour {colour} covers {share:.3%} of the screenshot"


def rows_after_load(page: Path, fragment: str, tmp_path: Path) -> list[str]:
    result = chromium(tmp_path, "--dump-dom", page.as_uri() + fragment)
    assert result.returncode == 0, result.stderr[-2000:]
    return re.findall(r'<tr class="v-row[^"]*"[^>]*data-claim="(C\d+)"', result.stdout)


def test_table_sorts_by_verdict_and_by_id(page, tmp_path):
    assert rows_after_load(page, "", tmp_path) == ["C1", "C4", "C6", "C8", "C9", "C10", "C15", "C18"]
    # a close call sorts just before the clear calls of its verdict
    assert rows_after_load(page, "#sort=verdict", tmp_path) == ["C4", "C8", "C6", "C9", "C10", "C1", "C15", "C18"]
    assert rows_after_load(page, "#sort=id-desc", tmp_path) == ["C18", "C15", "C10", "C9", "C8", "C6", "C4", "C1"]


OVERVIEW_COLOURS = {
    "reproduced": (0x1A, 0x7F, 0x37),
    "failed": (0xCF, 0x22, 0x2E),
    "inconclusive": (0x05, 0x50, 0xAE),
    "not reproduced": (0x9A, 0x4D, 0x00),
}  # the verdicts' colours the overview draws (Verdict.colour, lengthgen.records.verdicts)


def test_the_page_opens_with_the_overview(page, tmp_path):
    """The forest plot is the first thing after the header, above the claims table, and it shows a row per
    claim in the verdict colours (the screenshot of the first screen, kept as overview.png, was looked at)."""
    source = page.read_text()
    assert source.index('id="overview"') < source.index('id="claims"')
    shot = tmp_path / "overview.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,900", page.as_uri())
    assert shot.exists()
    rgb = (image.imread(shot)[..., :3] * 255).round().astype(int)
    for verdict, colour in OVERVIEW_COLOURS.items():
        share = np.mean(np.all(np.abs(rgb - colour) <= 8, axis=-1))
        # a verdict's marker alone (an X for failed, with no interval) covers about 100 pixels at 1280 x 900
        assert share > 0.0001, f"the overview's {verdict} colour {colour} covers {share:.4%} of the first screen"
    shaded = np.mean(np.all(np.abs(rgb - (0xFF, 0xF1, 0xE0)) <= 2, axis=-1))  # the +-2 s.e. band (and a chip)
    assert shaded > 0.01, f"the close band covers {shaded:.3%} of the first screen"


# ------------------------------------------------------------------- the reference run's page, sized for reading

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "claims-reference.json.gz"
EXTENDED = REFERENCE.with_name("claims-extended.json.gz")  # the extended multiverse's cells, joined with --add
UNTIL_DECIDED = REFERENCE.with_name("claims-until-decided.json.gz")  # the seeds-added run, --seeds-added
MAX_HEIGHT_PX = 40_000  # the page at 1400 px with every detail closed: a reviewer scrolls it in minutes
MAX_BYTES = 1_500_000  # one offline file a reviewer opens at once
MIN_CONTRAST = 4.5  # WCAG 2 AA for body text
WIDE, NARROW = 1400, 420  # a desktop window and a phone, in CSS pixels
PROBE = """<script>
window.addEventListener("load", function () {
  function rgba(text) {
    var v = text.match(/[\\d.]+/g).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  }
  function over(top, below) {  // top composited over an opaque colour
    return [0, 1, 2].map(function (i) { return top[i] * top[3] + below[i] * (1 - top[3]); });
  }
  function background(el) {  // the opaque colour behind an element: its ancestors' backgrounds, over white
    var layers = [];
    for (var node = el; node && node.nodeType === 1; node = node.parentElement) {
      var c = rgba(getComputedStyle(node).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    var colour = [255, 255, 255];
    for (var i = layers.length - 1; i >= 0; i--) colour = over(layers[i], colour);
    return colour;
  }
  function luminance(c) {
    var l = c.map(function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  }
  var d = document.documentElement;
  var result = {height: d.scrollHeight, width: d.scrollWidth, viewport: window.innerWidth, low: [], checked: 0};
  document.querySelectorAll("details").forEach(function (el) { el.open = true; });  // every text, opened
  document.querySelectorAll("body *").forEach(function (el) {
    var own = Array.prototype.some.call(el.childNodes, function (n) {
      return n.nodeType === 3 && n.textContent.trim();
    });
    if (!own || !el.getClientRects().length || el.tagName === "SCRIPT" || el.tagName === "STYLE") return;
    var fg = rgba(getComputedStyle(el).color), bg = background(el);
    var a = luminance(over(fg, bg)), b = luminance(bg);
    var ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    result.checked++;
    if (ratio < %(min)s) result.low.push(el.tagName + "." + el.className + " " + ratio.toFixed(2) + ": " +
                                 el.textContent.trim().slice(0, 40));
  });
  parent.postMessage(JSON.stringify(result), "*");
});
</script>"""
FRAME = """<!doctype html><html><body style="margin:0"><pre id="result"></pre>
<iframe src="probe.html" style="width:%(width)dpx;height:1000px;border:0"></iframe>
<script>window.addEventListener("message", function (e) { document.getElementById("result").textContent = e.data; });
</script></body></html>"""


@pytest.fixture(scope="module")
def reference_page(tmp_path_factory) -> Path:
    """The page of the shipped reference run, drawn once for the module (no training: its records hold every
    number and figure spec)."""
    from lengthgen.report import write_page
    from lengthgen.analysis.data import read

    return write_page(read(REFERENCE), tmp_path_factory.mktemp("reference")).html


def measured(page: Path, width: int, tmp_path: Path) -> dict:
    """The page in a frame ``width`` CSS pixels wide (headless Chromium's window has a minimum width; a frame does
    not): its height and width with every detail closed, then each text's contrast with every detail open."""
    import json

    (tmp_path / "probe.html").write_text(page.read_text() + PROBE % {"min": MIN_CONTRAST})
    (tmp_path / "frame.html").write_text(FRAME % {"width": width})
    result = chromium(
        tmp_path,
        "--window-size=1600,1100",
        "--virtual-time-budget=10000",
        "--dump-dom",
        (tmp_path / "frame.html").as_uri(),
    )
    found = re.search(r'<pre id="result">([^<]*)</pre>', result.stdout)
    assert found and found.group(1), f"the probe did not report; chromium said: {result.stderr[-2000:]}"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def test_the_reference_page_is_short_and_light(reference_page, tmp_path):
    size = reference_page.stat().st_size
    assert size < MAX_BYTES, f"the page weighs {size:,} bytes"
    wide = measured(reference_page, WIDE, tmp_path)
    assert wide["viewport"] == WIDE and wide["height"] < MAX_HEIGHT_PX, f"at {WIDE} px: {wide['height']:,} px tall"
    assert wide["width"] <= WIDE, f"at {WIDE} px the page is {wide['width']} px wide"


@pytest.fixture(scope="module")
def readme_page(tmp_path_factory) -> Path:
    """The page as the README draws it: the reference run with the extended multiverse's cells joined (``--add``)
    and the seeds-added run's verdicts named (``--seeds-added``), drawn once for the module."""
    from lengthgen.analysis.data import read, with_cells_of
    from lengthgen.analysis.run_view import RunView
    from lengthgen.report import write_page

    view = RunView.from_json(with_cells_of(read(REFERENCE), read(EXTENDED)))
    more_seeds = RunView.from_json(read(UNTIL_DECIDED))
    return write_page(view, tmp_path_factory.mktemp("readme"), more_seeds=more_seeds).html


def test_the_readme_page_is_short_and_light(readme_page, tmp_path):
    size = readme_page.stat().st_size
    assert size < MAX_BYTES, f"the page with the extended cells and the seeds-added run weighs {size:,} bytes"
    wide = measured(readme_page, WIDE, tmp_path)
    assert wide["viewport"] == WIDE and wide["height"] < MAX_HEIGHT_PX, f"at {WIDE} px: {wide['height']:,} px tall"


def test_the_reference_page_fits_a_phone(reference_page, tmp_path):
    narrow = measured(reference_page, NARROW, tmp_path)
    assert narrow["viewport"] == NARROW
    assert narrow["width"] <= NARROW, f"at {NARROW} px the page is {narrow['width']} px wide (tables scroll inside)"


def test_every_text_has_contrast(reference_page, tmp_path):
    probe = measured(reference_page, WIDE, tmp_path)
    assert probe["checked"] > 1000, f"only {probe['checked']} texts checked"
    assert probe["low"] == [], f"{len(probe['low'])} texts under {MIN_CONTRAST}:1, e.g. {probe['low'][:8]}"


def after_script(page: Path, script: str, tmp_path: Path) -> str:
    """What ``script`` (run once the page has loaded) writes into a <pre id="probe">, read from the DOM."""
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.read_text() + '<pre id="probe"></pre><script>window.addEventListener("load", function () {'
        f'document.getElementById("probe").textContent = (function () {{ {script} }})();}});</script>'
    )
    result = chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="probe">([^<]*)</pre>', result.stdout)
    assert found, f"no probe output; chromium said: {result.stderr[-2000:]}"
    return found.group(1)


def test_every_column_sorts_and_a_verdict_filters(page, tmp_path):
    source = page.read_text()
    claims = source[source.index('<table id="claims">') : source.index("</thead>", source.index('<table id="claims">'))]
    headers = re.findall(r"<th(?:\s[^>]*)?>", claims)
    assert headers and all("data-sort=" in h for h in headers), headers
    by_runtime = rows_after_load(page, "#sort=runtime", tmp_path)
    runtimes = {
        claim: float(seconds)
        for seconds, claim in re.findall(r'data-runtime="([\d.]+)"[^>]*data-claim="(C\d+)"', source)
    }
    assert [runtimes[c] for c in by_runtime if c in runtimes] == sorted(runtimes.values())
    by_where = rows_after_load(page, "#sort=where-desc", tmp_path)
    assert sorted(by_where) == sorted(rows_after_load(page, "", tmp_path)) and by_where != rows_after_load(
        page, "#sort=where", tmp_path
    )
    shown = after_script(
        page,
        'var menu = document.querySelector(\'select[data-filter="claims"]\'); menu.value = "reproduced";'
        'menu.dispatchEvent(new Event("change"));'
        'return Array.prototype.filter.call(document.querySelectorAll("#claims tbody tr"), function (r) {'
        '  return getComputedStyle(r).display !== "none"; }).map(function (r) { return r.dataset.claim; }).join(" ");',
        tmp_path,
    )
    reproduced = re.findall(r'data-shown="reproduced"[^>]*data-claim="(C\d+)"', source)
    assert shown.split() == reproduced and 0 < len(reproduced) < 8, (shown, reproduced)
