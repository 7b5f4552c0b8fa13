"""State a reader can see: an experiment gets its multiverse universe from the context it is passed, and a claim
its ``--lengthgen-until-decided`` plan from ``run_claim``'s argument. No context variable and no process-wide plan
remain in the package or the claims (counted as the tokenizer sees the code: comments and strings aside), and the
modules that carry the universe or the plan rebind no module state (no ``global`` statement)."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the names of the mechanisms that were process-wide: a context variable, the active universe, the global plan
FORBIDDEN = frozenset({"contextvars", "ContextVar", "active_universe", "apply_active", "set_plan", "current_plan"})
# the modules through which the universe and the plan pass: none may rebind module state
CARRIERS = (
    "lengthgen/context.py",
    "lengthgen/scale.py",
    "lengthgen/sequential.py",
    "lengthgen/experiments/common.py",
    "lengthgen/experiments/multiverse.py",
    "lengthgen/experiments/two_layer.py",
    "lengthgen/testing/fixtures.py",
    "claims/run.py",
    "claims/memo.py",
)


def code_names(path: Path) -> set[str]:
    """Every name token of ``path``'s code (not its comments or string literals)."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return {t.string for t in tokens if t.type == tokenize.NAME}


def python_files(*folders: str) -> list[Path]:
    return [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))]


def test_no_context_variable_or_process_wide_plan_remains():
    found = {
        str(p.relative_to(ROOT)): sorted(code_names(p) & FORBIDDEN)
        for p in python_files("lengthgen", "claims", "scripts")
    }
    assert not {path: names for path, names in found.items() if names}


def test_the_carriers_rebind_no_module_state():
    rebinding = [path for path in CARRIERS if "global" in code_names(ROOT / path)]
    assert not rebinding


def test_the_scan_sees_code_and_not_prose(tmp_path):
    """The scan can fail: a context variable in code is seen, the same words in a comment or a string are not."""
    code = tmp_path / "code.py"
    code.write_text("import contextvars\n_PLAN = None\n\n\ndef set_plan(p):\n    global _PLAN\n    _PLAN = p\n")
    assert code_names(code) & FORBIDDEN == {"contextvars", "set_plan"} and "global" in code_names(code)
    prose = tmp_path / "prose.py"
    prose.write_text('"""No ContextVar, no set_plan."""\n# global current_plan\nA = "active_universe"\n')
    assert not code_names(prose) & (FORBIDDEN | {"global"})
