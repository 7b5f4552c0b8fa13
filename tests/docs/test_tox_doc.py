"""tox.ini does what docs/cli.md says of it: every env installs torch 2.13.0 with PyTorch's CPU index beside PyPI,
so pip takes the CPU build (its local label ``+cpu`` sorts after PyPI's plain 2.13.0), and the extras the page
names."""

from __future__ import annotations

import configparser
import re

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.helpers import ROOT

CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def tox_testenv() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini")
    return parser["testenv"]


def test_every_env_takes_torch_from_the_cpu_index():
    env = tox_testenv()
    setenv = dict(line.split("=", 1) for line in env["setenv"].strip().splitlines())
    assert {k.strip(): v.strip() for k, v in setenv.items()}.get("PIP_EXTRA_INDEX_URL") == CPU_INDEX, setenv
    (pin,) = [line.strip() for line in env["deps"].strip().splitlines() if line.strip().startswith("torch")]
    spec = SpecifierSet(pin.removeprefix("torch"))
    cpu = Version("2.13.0+cpu")
    assert spec.contains(cpu) and cpu > Version("2.13.0"), f"{pin} would not pick the CPU build"


def test_the_page_names_the_extras_tox_installs():
    extras = {e.strip() for e in tox_testenv()["extras"].replace(",", "\n").splitlines() if e.strip()}
    page = (ROOT / "docs" / "cli.md").read_text()
    tox = page[page.index("## Tox") :]
    named = set(re.findall(r"`(\w+)` extra", tox))
    assert named == extras, f"docs/cli.md's tox section names the extras {named}; tox.ini installs {extras}"
    assert "PIP_EXTRA_INDEX_URL" in tox
