"""A claim lives in its own module: outside the claim modules (``claims/test_<id>_<words>.py``) the code names
claims by id in at most :data:`MOST_LITERALS` string literals, in at most :data:`MOST_FILES` files, and the
library (``lengthgen/``) in none. Counted as the tokenizer sees the code: string literals that are not docstrings
and contain a claim id of the registry as a word (comments and docstrings are prose, not code)."""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from pathlib import Path

from claims.registry import CLAIMS, MODULE

ROOT = Path(__file__).resolve().parents[2]
MOST_LITERALS = 30  # the budget outside the claim modules (shared measures, the scheduler, the conftest)
MOST_FILES = 5
IDS = re.compile(r"\b(" + "|".join(sorted(map(re.escape, CLAIMS), key=len, reverse=True)) + r")\b")


def docstring_positions(source: str) -> set[tuple[int, int]]:
    """(line, column) of every docstring's opening token: the first statement of a module, class or function."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.add((first.lineno, first.col_offset))
    return found


def literals_naming_claims(path: Path) -> int:
    """String literals of ``path`` (docstrings aside) that contain a claim id as a word."""
    source = path.read_text()
    docstrings = docstring_positions(source)
    count = 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING and token.start not in docstrings and IDS.search(token.string):
            count += 1
    return count


def counted(folder: str) -> Counter:
    """Per file under ``folder`` (the claim modules aside), its literals naming a claim."""
    found = Counter()
    for path in sorted((ROOT / folder).rglob("*.py")):
        if path.parent.name == "claims" and MODULE.fullmatch(path.stem):
            continue
        n = literals_naming_claims(path)
        if n:
            found[str(path.relative_to(ROOT))] = n
    return found


def test_the_library_names_no_claim():
    found = counted("lengthgen")
    assert not found, f"claim ids in the library's code: {dict(found)}"


def test_outside_the_claim_modules_claims_are_named_within_the_budget():
    found = counted("claims") + counted("lengthgen") + counted("scripts")
    total = sum(found.values())
    assert total <= MOST_LITERALS and len(found) <= MOST_FILES, f"{total} literals in {len(found)} files: {dict(found)}"


def test_the_count_sees_a_literal_and_not_a_docstring(tmp_path):
    """The counter can fail: a literal naming a claim counts, a docstring or a comment naming one does not."""
    some = next(iter(CLAIMS))
    path = tmp_path / "probe.py"
    path.write_text(f'"""About {some}."""\n# {some}\nA = "{some}"\nB = "nothing"\n')
    assert literals_naming_claims(path) == 1
