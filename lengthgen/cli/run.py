"""``lengthgen run CLAIM...``: run named claims exactly as their tests do, and print each one's experiment tables, its
checks and its verdict.

Each claim runs through the claims' own runner, ``run_claim`` of the claims directory's ``run.py``, with the claim's
``CLAIM`` spec (each of its variants in turn where it has some, as its tests do: one verdict per variant), a
``lengthgen.records.ClaimRecorder`` and the model cache, at the chosen scale (``--scale quick|paper``;
``--seeds SPEC`` replaces the scale's seeds) and, with ``--until-decided[=MAX]``, through the stopping rule of
pytest's ``--lengthgen-until-decided`` (a ``lengthgen.sequential.Plan`` handed to ``run_claim``). The recorder's
``verify()`` decides the verdict (``lengthgen.records.verdict.decide``) and so the outcome a test would have (it
held, a declared non-reproduction, or it failed). A test's notes and figures are not made here; its checks are all.

The claims directory is no part of the package, which never imports it statically (the import-linter contract
``no-claims``). It is loaded by path, the way pytest loads a ``conftest.py`` inside a package (its "prepend" import
mode): the folder above the claims directory's topmost package goes first on ``sys.path``, and the directory's
``registry`` and ``run`` modules are imported by their dotted names (``claims.registry``, ``claims.run``).
``--claims-dir`` names the directory (default ``claims/`` under the current directory); it must be a package whose
``registry.CLAIMS`` maps each claim id to its spec and whose ``run.run_claim`` runs one.

Bad input is one line and exit status 2: an unknown claim (the line lists the known ones), a missing claims
directory (the line says where it looked), an ``--out`` that cannot be written or holds a run's records (found
before anything trains). The exit status is 1 when a claim's test would fail (an undeclared
failure, an unexpected pass), else 0.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from lengthgen.cli.common import UNTIL_DECIDED_MAX, UsageError, add_output_options, checked_out, make_cache, seeds_arg
from lengthgen.cli.common import until_decided_arg

NAME = "run"
HELP = "run named claims as their tests do: each one's experiment tables, its checks and its verdict"
CLAIMS_DIR = Path("claims")  # the default --claims-dir, under the current directory
SCALES = ("paper", "quick")  # lengthgen.scale.SCALES' names, the default first


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "claims",
        nargs="+",
        metavar="CLAIM",
        help="claim ids, as the claims directory names them (case does not matter)",
    )
    parser.add_argument("--scale", choices=SCALES, default=SCALES[0], help="the scale to run at (default paper)")
    parser.add_argument(
        "--seeds",
        type=seeds_arg,
        default=None,
        metavar="SPEC",
        help="seeds in place of the scale's: a range 0-7 (inclusive) or a list 0,2,5 (default: each claim's own)",
    )
    parser.add_argument(
        "--until-decided",
        type=until_decided_arg,
        nargs="?",
        const=UNTIL_DECIDED_MAX,
        default=None,
        metavar="MAX",
        help="add seeds 4 at a time to a claim with a close deciding check until none is close or MAX (default "
        f"{UNTIL_DECIDED_MAX}) seeds are used, as pytest's --lengthgen-until-decided",
    )
    parser.add_argument(
        "--claims-dir",
        type=Path,
        default=CLAIMS_DIR,
        metavar="DIR",
        help=f"the claims directory, loaded by path (default {CLAIMS_DIR}/ under the current directory)",
    )
    add_output_options(parser)
    parser.epilog = (
        "--out PATH writes every claim's record (its checks, scale and verdict) and its experiment's results."
    )


def package_of(folder: Path) -> tuple[Path, str]:
    """``(the folder that goes on sys.path, the dotted name of the package at folder)``, as pytest's prepend import
    mode finds them for a conftest.py: the first folder above ``folder`` without an ``__init__.py``, and the names
    of the packages from there down."""
    names = [folder.name]
    root = folder.parent
    while (root / "__init__.py").is_file():
        names.insert(0, root.name)
        root = root.parent
    return root, ".".join(names)


def load_claims(folder: Path) -> tuple[dict[str, Any], Callable[..., Any]]:
    """The claims directory at ``folder``: its ``registry.CLAIMS`` and its ``run.run_claim`` (see the module
    docstring); UsageError saying where it looked when ``folder`` is not one."""
    folder = folder.resolve()
    needed = ("__init__.py", "registry.py", "run.py")
    if not all((folder / name).is_file() for name in needed):
        raise UsageError(f"no claims directory at {folder} (--claims-dir: a package with registry.py and run.py)")
    root, name = package_of(folder)
    loaded = sys.modules.get(name)
    if loaded is not None and Path(loaded.__file__ or "").resolve().parent != folder:
        raise UsageError(f"--claims-dir {folder}: another package {name!r} is imported ({loaded.__file__})")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        registry: ModuleType = importlib.import_module(f"{name}.registry")
        runner: ModuleType = importlib.import_module(f"{name}.run")
    except ImportError as error:  # a dependency of the claims (pytest: the test extra) is missing
        raise UsageError(f"cannot import the claims at {folder}: {error}") from None
    return registry.CLAIMS, runner.run_claim


def chosen(names: list[str], known: dict[str, Any]) -> list[str]:
    """The claim ids named (any case), in the order given; UsageError listing the known ids for an unknown one."""
    by_upper = {claim_id.upper(): claim_id for claim_id in known}
    unknown = [n for n in names if n.upper() not in by_upper]
    if unknown:
        raise UsageError(f"unknown claim {unknown[0]!r} (known: {', '.join(known)})")
    return list(dict.fromkeys(by_upper[n.upper()] for n in names))


def outcome_of(recorder: Any) -> str:
    """The outcome a claim test would have (``lengthgen.records.verdict.OUTCOMES``): the recorder's ``verify()``
    decides the verdict, and the test passes, ends as its declared non-reproduction (xfail) or fails."""
    from lengthgen.records import NotReproduced, VerdictFailed
    from lengthgen.records.verdict import FAIL, PASS, XFAIL

    try:
        recorder.verify()
    except NotReproduced:
        return XFAIL
    except VerdictFailed:
        return FAIL
    return PASS


def shown_seeds(seeds: list[int]) -> str:
    """``0-7`` for a range, else ``0,2,5``."""
    if seeds and seeds == list(range(seeds[0], seeds[0] + len(seeds))) and len(seeds) > 2:
        return f"{seeds[0]}-{seeds[-1]}"
    return ",".join(map(str, seeds)) or "none"


def report(name: str, record: Any, result: Any) -> str:
    """What is printed for one claim (or variant, a ``ClaimRecord``): its experiment's table, every check, the
    verdict."""
    scale = record.scale
    seeds = scale.get("seed_list") or []
    where = f"{scale.get('name', '?')} scale, " + (f"seeds {shown_seeds(seeds)}" if seeds else "no seeds: exact")
    lines = [f"== {name} ({where}): {record.title or record.claim}"]
    table = getattr(result, "table", None)
    if callable(table):
        lines += [table(), ""]
    checks = record.checks
    lines.append(f"checks: {sum(c.passed for c in checks)} of {len(checks)} hold")
    for check in checks:
        mark = "holds" if check.passed else "fails (declared)" if check.expected_to_fail else "fails"
        lines.append(f"  {mark}: {check.describe()}")
    reason = record.verdict_reason
    lines.append(f"{name}: {record.label}" + (f": {reason}" if reason else ""))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from lengthgen.records import ClaimRecorder
    from lengthgen.records.verdict import FAIL
    from lengthgen.scale import SCALES as BY_NAME
    from lengthgen.sequential import Plan
    from lengthgen.store.files import atomic_write

    out = checked_out(args.out)  # before anything loads or trains
    known, run_claim = load_claims(args.claims_dir)
    ids = chosen(args.claims, known)
    scale = BY_NAME[args.scale]
    if args.seeds is not None:
        scale = dataclasses.replace(scale, seeds=args.seeds)
    plan = Plan(args.until_decided) if args.until_decided is not None else None
    cache = make_cache(args)
    records, results, failed = [], {}, False
    for claim_id in ids:
        spec = known[claim_id]
        for variant in [v.name for v in spec.variants] or [None]:
            name = claim_id if variant is None else f"{claim_id} {variant}"
            recorder = ClaimRecorder(
                spec.entry, f"lengthgen run {claim_id}[{scale.name}{'-' + variant if variant else ''}]"
            )
            result = run_claim(spec if variant is None else spec.variant(variant), recorder, scale, cache, plan=plan)
            outcome = outcome_of(recorder)
            print(report(name, recorder.record, result), flush=True)
            print()
            failed |= outcome == FAIL
            records.append(recorder.record.to_dict())
            to_json = getattr(result, "to_json", None)
            results[name] = to_json() if callable(to_json) else None
    if out is not None:
        try:
            atomic_write(out, json.dumps({"records": records, "results": results}, indent=1, default=str))
        except OSError as error:
            raise UsageError(f"cannot write --out {str(out)!r}: {error.strerror}") from None
        print(f"wrote {out}")
    return 1 if failed else 0
