"""State a reader can see: an experiment gets its multiverse universe from the context it is passed, a claim
its ``--lengthgen-until-decided`` plan from ``run_claim``'s argument, and the code that trains its device, training
processes, Dask client and memo from the run's ``Runtime`` (on the model cache), the multiverse its declarations
from the session. No context variable, no process-wide plan, device, worker count, pool, client, memo or
declarations remain in the package or the claims (counted as the tokenizer sees the code: comments and strings
aside), no module rebinds its state (no ``global`` statement anywhere), and the modules that carried the run's state
keep no mutable module-level container but the one listed with its reason."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the names of the mechanisms that were process-wide: a context variable, the active universe, the global plan
FORBIDDEN = frozenset({"contextvars", "ContextVar", "active_universe", "apply_active", "set_plan", "current_plan"})
# ... and the names of the run's state that was process-wide (lengthgen.runtime.Runtime holds it now)
FORBIDDEN_RUNTIME = frozenset(
    {
        "_DEVICE",  # the device (Runtime.device, passed to the engine's functions as device=)
        "computing_on",
        "get_device",
        "set_device",
        "_WORKERS",  # the training processes' count and their pool (Runtime.workers; parallel.pool(runtime))
        "set_workers",
        "get_workers",
        "_POOL",
        "WORKERS_BEFORE",
        "_CLIENT",  # the Dask client (cluster.client(runtime))
        "_ADDRESS",
        "_MEMO",  # the memo (Runtime.remember)
        "DECLARATIONS",  # the multiverse's declarations (claims.multiverse.load_declarations, per session)
    }
)
# the modules that held the run's state: no mutable container at module level but these, each for its reason
RUNTIME_MODULES = (
    "lengthgen/device.py",
    "lengthgen/runtime.py",
    "lengthgen/engine/parallel.py",
    "lengthgen/engine/cluster.py",
    "claims/memo.py",
    "claims/multiverse.py",
)
MUTABLE_ALLOWED = {
    ("lengthgen/runtime.py", "__all__"),  # the module's names
    ("lengthgen/engine/parallel.py", "ENCODING_COST"),  # a constant table, never written
    ("claims/multiverse.py", "COLUMNS"),  # every grid column's claim, built once from the registry, never written
}
MUTABLE_CALLS = ("dict", "list", "set", "defaultdict", "Counter", "OrderedDict", "deque")
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


def test_no_process_wide_runtime_state_remains():
    found = {
        str(p.relative_to(ROOT)): sorted(code_names(p) & FORBIDDEN_RUNTIME)
        for p in python_files("lengthgen", "claims", "scripts", "tests")
        if p.name != "test_explicit_state.py"
    }
    assert not {path: names for path, names in found.items() if names}


def test_no_module_rebinds_its_state():
    rebinding = [str(p.relative_to(ROOT)) for p in python_files("lengthgen", "claims") if "global" in code_names(p)]
    assert not rebinding


def mutable_module_names(path: Path) -> set[str]:
    """The names ``path`` binds at module level to a mutable container (a list, dict or set display or
    comprehension, or a call of one of :data:`MUTABLE_CALLS`)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        value = node.value
        display = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
        function = value.func if isinstance(value, ast.Call) else None
        called = (
            getattr(function, "id", getattr(function, "attr", None)) in MUTABLE_CALLS
        )  # list() or collections.deque()
        if isinstance(value, display) or called:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def test_the_runtime_modules_keep_no_mutable_module_state():
    found = {(path, name) for path in RUNTIME_MODULES for name in mutable_module_names(ROOT / path)}
    assert found == MUTABLE_ALLOWED


def test_the_scan_sees_code_and_not_prose(tmp_path):
    """The scan can fail: a context variable in code is seen, the same words in a comment or a string are not."""
    code = tmp_path / "code.py"
    code.write_text("import contextvars\n_PLAN = None\n\n\ndef set_plan(p):\n    global _PLAN\n    _PLAN = p\n")
    assert code_names(code) & FORBIDDEN == {"contextvars", "set_plan"} and "global" in code_names(code)
    prose = tmp_path / "prose.py"
    prose.write_text('"""No ContextVar, no set_plan."""\n# global current_plan\nA = "active_universe"\n')
    assert not code_names(prose) & (FORBIDDEN | {"global"})
    state = tmp_path / "state.py"
    state.write_text("import collections\n_POOL = None\nA: dict = {}\nB = [x for x in ()]\nC = collections.Counter()\n")
    assert mutable_module_names(state) == {"A", "B", "C"} and "_POOL" in code_names(state) & FORBIDDEN_RUNTIME
