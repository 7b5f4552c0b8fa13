"""The maps of the code (ARCHITECTURE.md, docs/layout.md) name only what exists: every file they name is a file of
the repository, and every dotted name in backticks (``records.Declared``, ``verdicts.Verdict``,
``sequential.until_decided``) that starts with a module of the package is defined in that module."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from tests.helpers import ROOT

MAPS = ("ARCHITECTURE.md", "docs/layout.md")
SOURCES = ("lengthgen", "claims", "tests", "scripts")  # where a named file may live
FILE = re.compile(r"\b([A-Za-z_][\w/]*\.py)\b")  # a source file named by its name or path
DOTTED = re.compile(r"`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?`")  # `module.name` or `module.name()`


@lru_cache(maxsize=None)
def files() -> tuple[Path, ...]:
    return tuple(p.relative_to(ROOT) for top in SOURCES for p in (ROOT / top).rglob("*") if p.is_file())


def exists(name: str) -> bool:
    """A path relative to the root or to any folder of the sources, or a file's name."""
    return (ROOT / name).exists() or any(str(p).endswith("/" + name) or str(p) == name for p in files())


NOT_OURS = {"config.stash", "item.stash"}  # pytest's objects, named as the plugin uses them


def modules(path: list[str]) -> list[Path]:
    """The modules or packages a dotted prefix names: by its path from the root or from the package
    (``claims.multiverse``, ``records.verdict``), else any module of the package of its last name (``verdicts``)."""
    for base in (ROOT, ROOT / "lengthgen"):
        where = base.joinpath(*path)
        for found in (where.with_suffix(".py"), where / "__init__.py"):
            if found.is_file():
                return [found]
    name = path[-1]
    found = [p for p in (ROOT / "lengthgen").rglob(f"{name}.py")]
    found += [p / "__init__.py" for p in (ROOT / "lengthgen").rglob(name) if (p / "__init__.py").exists()]
    if name == "lengthgen":
        found.append(ROOT / "lengthgen" / "__init__.py")
    return found


def defines(module: Path, name: str) -> bool:
    text = module.read_text()
    pattern = rf"^\s*(?:def|class)\s+{name}\b|^\s*{name}\s*[:=]|^\s*(?:from .+ )?import .*\b{name}\b|\b{name}\b\s*,?$"
    if re.search(pattern, text, re.MULTILINE):
        return True
    folder = module.parent / module.stem  # a package's submodule
    return (module.parent / f"{name}.py").exists() if module.name == "__init__.py" else folder.is_dir()


def unknown_files(text: str) -> list[str]:
    return sorted({m for m in FILE.findall(text) if not exists(m)})


def unknown_names(text: str) -> list[str]:
    missing = []
    for dotted in dict.fromkeys(DOTTED.findall(text)):
        parts = dotted.split(".")
        if parts[-1] in ("py", "md", "json", "toml", "ini", "j2", "gz") or dotted in NOT_OURS:
            continue
        for i in range(len(parts) - 1, 0, -1):  # the longest prefix that names a module
            found = modules(parts[:i])
            if found:
                if not any(defines(m, parts[i]) for m in found):
                    missing.append(dotted)
                break
    return missing


@pytest.mark.parametrize("doc", MAPS)
def test_every_file_a_map_names_exists(doc: str) -> None:
    missing = unknown_files((ROOT / doc).read_text())
    assert not missing, f"{doc} names files that do not exist: {missing}"


@pytest.mark.parametrize("doc", MAPS)
def test_every_dotted_name_a_map_names_is_defined(doc: str) -> None:
    missing = unknown_names((ROOT / doc).read_text())
    assert not missing, f"{doc} names what no module defines: {missing}"


def test_a_name_that_no_longer_exists_is_caught() -> None:
    """The negative control: names a map once held after the code had moved on."""
    assert unknown_files("report/stated.py and records.py hold it") == ["records.py", "report/stated.py"]
    assert unknown_names("`readings.use_plan` and `records.Declared`") == ["readings.use_plan"]
