"""The GPU benchmark of ``scripts/gpu-check``: figures into one JSON file.

Phases (each timed on its own, with ``torch.cuda.synchronize`` around every measured region; the file is
rewritten after each phase, so a run cut short keeps what it measured):

1. ``ensemble_step``: one training step of a RoPE ensemble pass (paper model, d = 64, batch 256) with
   S members, for each S of ``--sizes``: milliseconds per step and microseconds per model-step.
2. ``c1_grid``: the C1 grid (RoPE and APE, K = 1, 2, 3, seeds 0-7; 48 models x ``--steps``) trained cold
   as large ensembles (one pass per signature: 24 members), then evaluated at the paper's lengths with
   ``--sequences`` sequences; per cell the seed-mean accuracy. With ``--cpu-reference`` the same grid
   also trains on the CPU (``--cpu-workers`` processes, one thread each) and the file records the largest
   CPU-GPU difference of weights and of any cell's accuracy.
3. ``sweep``: the whole one-layer sweep of C17/C18 (9 sweep points x K = 2, 3 x seeds 0-2; 54 models)
   cold, one pass per sweep point (6 members: as large as its signature allows).

No cache is read or written. ``--budget-s`` skips the phases that would start after that many seconds
(they are recorded as skipped). Dry run on a machine without a GPU: ``--device cpu --steps 20 ...``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from the checkout without installing it

import torch  # noqa: E402

from lengthgen.config import PAPER_EVAL_LENGTHS, EvalConfig  # noqa: E402
from lengthgen.context import Context  # noqa: E402
from lengthgen.device import CPU, device_named  # noqa: E402
from lengthgen.engine.evaluate import evaluate_models  # noqa: E402
from lengthgen.experiments.common import paper_spec  # noqa: E402
from lengthgen.experiments.sweeps import SWEEP, sweep_spec  # noqa: E402
from lengthgen.engine.grouping import group_members  # noqa: E402
from lengthgen.models import table_forward  # noqa: E402
from lengthgen.engine.parallel import train_passes  # noqa: E402
from lengthgen.engine.train import Member, _Streams, build_model, train_members  # noqa: E402
from lengthgen.runtime import Runtime  # noqa: E402

UNLIMITED = 10**6  # members per pass: "as large as the signature allows"
WARMUP_STEPS = 20  # ensemble_step: steps run before timing (CUDA context, kernel selection, allocator)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def timed(function, device: torch.device):
    sync(device)
    start = time.perf_counter()
    value = function()
    sync(device)
    return value, time.perf_counter() - start


def ensemble_step(sizes: list[int], steps: int, device: torch.device) -> list[dict]:
    """Milliseconds per training step of one RoPE ensemble pass of each size (the engine's own step)."""
    from torch.func import stack_module_state
    import torch.nn.functional as F

    rows = []
    for size in sizes:
        spec = paper_spec(Context((), steps))
        members = [Member(spec, seed) for seed in range(size)]
        stacked, _ = stack_module_state([build_model(m.spec, m.seed) for m in members])
        params = {name: v.detach().to(device).requires_grad_() for name, v in stacked.items()}
        optimizer = torch.optim.Adam(params.values(), lr=1e-3, fused=True)
        streams = _Streams(members, spec.train.batch)

        def run(count: int, first: int) -> None:
            for step in range(first, first + count):
                batch = streams.step(step).to(device)  # (S, B, P)
                out = table_forward(params, spec.model, batch.tokens, batch.lengths)
                S, B, m = out.logits.shape
                loss = F.cross_entropy(out.logits.view(S * B, m), batch.targets.view(-1), reduction="none")
                optimizer.zero_grad(set_to_none=True)
                loss.view(S, B).mean(1).sum().backward()
                optimizer.step()

        run(WARMUP_STEPS, 0)
        _, seconds = timed(lambda: run(steps, WARMUP_STEPS), device)
        rows.append(
            {
                "members": size,
                "steps": steps,
                "ms_per_step": round(1e3 * seconds / steps, 3),
                "us_per_model_step": round(1e6 * seconds / steps / size, 2),
            }
        )
        print(f"ensemble_step S={size}: {rows[-1]['ms_per_step']} ms/step", flush=True)
    return rows


def c1_members(steps: int) -> list[Member]:
    return [
        Member(paper_spec(Context((), steps), model={"encoding": e}, task={"offset": k}), s)
        for e in ("rope", "ape")
        for k in (1, 2, 3)
        for s in range(8)
    ]


def evaluate_grouped(passes: list[list[Member]], models: dict, evaluation: EvalConfig, device: torch.device) -> dict:
    """Per member, its evaluation rows (models of one signature are evaluated together)."""
    rows = {}
    for group in passes:
        chosen = [models[(m.spec, m.seed)] for m in group]
        for member, per_length in zip(group, evaluate_models(chosen, evaluation, device=device)):
            rows[(member.spec, member.seed)] = per_length
    return rows


def cell_accuracy(members: list[Member], rows) -> dict[str, float]:
    """Seed-mean accuracy per (encoding, K, L)."""
    cells: dict[str, list[float]] = {}
    for member, per_length in zip(members, rows):
        for row in per_length:
            key = f"{member.spec.model.encoding} K={member.spec.task.offset} L={row.length}"
            cells.setdefault(key, []).append(row.accuracy)
    return {key: round(sum(v) / len(v), 4) for key, v in cells.items()}


def c1_grid(steps: int, sequences: int, cpu_reference: bool, cpu_workers: int, device: torch.device) -> dict:
    members = c1_members(steps)
    passes = group_members(members, max_members=UNLIMITED)
    evaluation = EvalConfig(lengths=PAPER_EVAL_LENGTHS, sequences=sequences)
    trained, train_s = timed(lambda: [m for p in passes for m in train_members(p, device=device)], device)
    by_member = {(m.spec, m.seed): m for m in trained}
    models = [by_member[(m.spec, m.seed)] for m in members]
    evals, eval_s = timed(lambda: evaluate_grouped(passes, by_member, evaluation, device), device)
    rows = [evals[(m.spec, m.seed)] for m in members]
    result = {
        "models": len(members),
        "steps": steps,
        "passes": [len(p) for p in passes],
        "train_s": round(train_s, 2),
        "eval_s": round(eval_s, 2),
        "eval_sequences": sequences,
        "accuracy": cell_accuracy(members, rows),
    }
    print(f"c1_grid: trained {len(members)} models in {train_s:.1f} s, evaluated in {eval_s:.1f} s", flush=True)
    if cpu_reference:
        try:
            small = group_members(members, max_members=4)  # passes never change a number: spread them out
            start = time.perf_counter()
            with Runtime(CPU, cpu_workers) as on_cpu:
                cpu_models = {(m.spec, m.seed): m for _, ms in train_passes(small, on_cpu, 1) for m in ms}
            cpu_train_s = time.perf_counter() - start
            cpu_list = [cpu_models[(m.spec, m.seed)] for m in members]
            torch.set_num_threads(max(1, cpu_workers))
            cpu_evals = evaluate_grouped(passes, cpu_models, evaluation, CPU)
            cpu_rows = [cpu_evals[(m.spec, m.seed)] for m in members]
        finally:
            torch.set_num_threads(1)
        weight_diff = max(
            (a.state[n] - b.state[n]).abs().max().item() for a, b in zip(cpu_list, models) for n in a.state
        )
        cpu_cells = cell_accuracy(members, cpu_rows)
        acc_diff = max(abs(cpu_cells[k] - result["accuracy"][k]) for k in cpu_cells)
        per_model = max(abs(ra.accuracy - rb.accuracy) for a, b in zip(cpu_rows, rows) for ra, rb in zip(a, b))
        result["cpu_reference"] = {
            "workers": cpu_workers,
            "train_s": round(cpu_train_s, 2),
            "max_weight_diff": weight_diff,
            "max_cell_accuracy_diff": round(acc_diff, 4),
            "max_model_accuracy_diff": round(per_model, 4),
            "accuracy": cpu_cells,
        }
        print(
            f"c1_grid CPU reference: {cpu_train_s:.1f} s on {cpu_workers} processes; largest weight difference "
            f"{weight_diff:.2e}, cell accuracy difference {acc_diff:.4f}",
            flush=True,
        )
    return result


def sweep(steps: int, device: torch.device) -> dict:
    specs = {
        sweep_spec(Context((), steps), k, factor, value)
        for factor, values in SWEEP.items()
        for value in values
        for k in (2, 3)
    }
    members = [Member(spec, seed) for spec in sorted(specs, key=repr) for seed in range(3)]
    passes = group_members(members, max_members=UNLIMITED)
    _, seconds = timed(lambda: [train_members(p, device=device) for p in passes], device)
    print(f"sweep: {len(members)} models in {len(passes)} passes, {seconds:.1f} s", flush=True)
    return {"models": len(members), "steps": steps, "passes": [len(p) for p in passes], "train_s": round(seconds, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the JSON figures file")
    parser.add_argument("--device", default="cuda", help="cuda (default), or cpu for a dry run")
    parser.add_argument("--steps", type=int, default=4000, help="training steps of the grid and sweep (paper: 4000)")
    parser.add_argument("--step-steps", type=int, default=200, help="timed steps per ensemble size (default 200)")
    parser.add_argument(
        "--sizes",
        default="16,64,256",
        help="ensemble sizes of the step timing (default "
        "16,64,256; the data of 50 steps is drawn at once: 420 MB of tokens at 256)",
    )
    parser.add_argument("--sequences", type=int, default=4096, help="evaluation sequences per length (paper: 4096)")
    parser.add_argument(
        "--cpu-reference", action="store_true", help="also train the phenomenon grid on the CPU and compare"
    )
    parser.add_argument("--cpu-workers", type=int, default=12, help="processes of the CPU reference (default 12)")
    parser.add_argument("--budget-s", type=float, default=200.0, help="start no phase after this many seconds")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    torch.set_num_threads(1)  # as the suite: one thread per process (the GPU does the arithmetic)
    device = device_named(args.device)
    figures: dict = {
        "device": str(device),
        "gpu": torch.cuda.get_device_name() if device.type == "cuda" else None,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "phases": {},
    }

    def write() -> None:
        figures["total_s"] = round(time.perf_counter() - started, 2)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(figures, indent=1))

    phases = {
        "ensemble_step": lambda: ensemble_step([int(s) for s in args.sizes.split(",")], args.step_steps, device),
        "c1_grid": lambda: c1_grid(args.steps, args.sequences, args.cpu_reference, args.cpu_workers, device),
        "sweep": lambda: sweep(args.steps, device),
    }
    status = 0
    for name, phase in phases.items():
        elapsed = time.perf_counter() - started
        if elapsed > args.budget_s:
            figures["phases"][name] = {"skipped": f"budget of {args.budget_s:g} s spent ({elapsed:.0f} s)"}
        else:
            try:
                figures["phases"][name] = phase()
            except Exception as error:  # record it and go on: the other phases still measure something
                figures["phases"][name] = {"error": f"{type(error).__name__}: {error}"}
                print(f"{name} failed: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
                status = 1
        write()
    if device.type == "cuda":
        figures["max_memory_allocated_mib"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    write()
    print(f"wrote {args.out}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
