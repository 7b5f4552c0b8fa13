"""The README, ARCHITECTURE.md, the changelog and the pages under docs/ link to each other: every relative link
names a file that exists, every link into a markdown page's ``#anchor`` names one of its headings (GitHub's slug
rule), and the README links every page under docs/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.helpers import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CHANGELOG.md", *DOCS]
LINK = re.compile(r"\]\(([^)\s]+)\)")  # [text](target)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in page.read_text().splitlines() if line.startswith("#")}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text()):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(target)
    assert not broken, f"{page.name}: broken links {broken}"


def test_readme_links_every_docs_page() -> None:
    readme = (ROOT / "README.md").read_text()
    missing = [p.name for p in DOCS if f"(docs/{p.name})" not in readme]
    assert not missing, f"docs pages the README does not link: {missing}"
