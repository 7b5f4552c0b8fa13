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
}  # figures.FOREST_COLOURS


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
        assert share > 0.0002, f"the overview's {verdict} colour {colour} covers {share:.4%} of the first screen"
    shaded = np.mean(np.all(np.abs(rgb - (0xFF, 0xF1, 0xE0)) <= 2, axis=-1))  # the +-2 s.e. band (and a chip)
    assert shaded > 0.01, f"the close band covers {shaded:.3%} of the first screen"
