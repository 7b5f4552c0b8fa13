"""Ensemble passes on a Dask cluster (``--scheduler tcp://HOST:PORT`` of every subcommand, pytest's
``--lengthgen-scheduler``).

Optional: it needs ``distributed`` (``pip install -e ".[dask]"``), and nothing imports it until a
scheduler is given; without a scheduler nothing changes.

- The driver (the pytest process, each xdist worker, or the CLI) keeps its cache and its per-entry
  locks: ``fetch_or_compute`` decides what is missing exactly as on one machine, and only the training of
  the missing ensemble passes goes to the cluster, one task per pass, keyed by its members' cache keys.
- A worker trains the pass with the driver's torch thread count and device (as a local process does),
  and returns plain data: per member its cache payload, its trajectory and wall time (JSON-like), and
  its weights as safetensors bytes. The driver checks that the payload the worker computed equals its
  own (same code fingerprint, torch version, threads, device: else the numbers would be cached under a
  key that does not describe them) and saves them through the cache's normal save path, under the
  entry's lock. No shared filesystem is needed, and a worker never writes the cache.
- A worker that dies mid-pass loses nothing: Dask reschedules the task on another worker, and the
  driver saves only complete results. A member trains the same in any process (one torch thread, CPU
  generators for every draw), so the cluster's numbers equal a local run's bit for bit
  (``tests/integration/test_dask_cluster.py``).

The cluster is the run's: a :class:`~lengthgen.runtime.Runtime` with a ``scheduler`` trains every missing pass
there; its client connects on first use (:func:`client`) and disconnects when the runtime closes.
"""

from __future__ import annotations

import argparse
import hashlib
import ipaddress
import socket
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence
from urllib.parse import urlsplit

if TYPE_CHECKING:  # the runtime imports torch; this module stays light for the CLI's option parsing
    from lengthgen.runtime import Runtime

SCHEMES = ("tcp", "tls")  # the Dask transports with a HOST:PORT address (inproc/ucx are not for this)
CONNECT_TIMEOUT_S = 10  # an unreachable scheduler is a usage error after this long (Dask retries meanwhile)
TASK_PREFIX = "lengthgen-train-"  # Dask task keys: the prefix, then the pass's cache key (or a hash of them)

CLIENT = "dask client"  # the name a runtime holds its distributed.Client under


def parse_address(text: str) -> str:
    """``tcp://HOST:PORT`` (or ``tls://``), normalised; ``ValueError`` naming the value otherwise."""
    usage = f"{text!r} is not a Dask scheduler address (expected tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786)"
    parts = urlsplit(text.strip())
    if parts.scheme not in SCHEMES or not parts.hostname or parts.path or parts.query or parts.fragment:
        raise ValueError(usage)
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range
        raise ValueError(usage) from None
    if port is None or not 1 <= port <= 65535:
        raise ValueError(usage)
    host = parts.hostname
    try:
        host = f"[{host}]" if ipaddress.ip_address(host).version == 6 else host
    except ValueError:  # a host name
        pass
    return f"{parts.scheme}://{host}:{port}"


def scheduler_arg(text: str) -> str:
    """``type=`` of the scheduler options (the CLI's ``--scheduler``, pytest's ``--lengthgen-scheduler``): a
    usage error on a bad address."""
    try:
        return parse_address(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def client(runtime: Runtime, timeout: float | None = None, option: str = "--scheduler") -> Any:
    """The runtime's ``distributed.Client`` for its scheduler, connected on first use and kept until the runtime
    closes (``None`` where the runtime names no scheduler: training stays local).

    ``ValueError`` (one line, naming ``option``: the CLI's, or pytest's ``--lengthgen-scheduler``) if
    ``distributed`` is not installed or no scheduler answers in time.
    """
    if runtime.scheduler is None:
        return None
    address = parse_address(runtime.scheduler)
    return runtime.resource(CLIENT, address, lambda: _connect(address, timeout, option), _disconnect)


def check(address: str, option: str = "--scheduler") -> None:
    """Connect to the scheduler at ``address`` and disconnect: ``ValueError`` as :func:`client`'s where none
    answers (for a process that trains nothing, e.g. the xdist controller)."""
    _disconnect(_connect(parse_address(address), None, option))


def _connect(address: str, timeout: float | None, option: str) -> Any:
    try:
        import distributed
    except ImportError:
        raise ValueError(
            f'{option} {address} needs the dask extra: pip install -e ".[dask]" '
            "(the distributed package is not installed)"
        ) from None
    timeout = CONNECT_TIMEOUT_S if timeout is None else timeout
    parts = urlsplit(address)
    try:  # a refused or unroutable address fails here at once (Dask's own connect retries until its timeout)
        socket.create_connection((parts.hostname, parts.port), timeout=timeout).close()
    except OSError as error:
        raise ValueError(f"{option} {address}: cannot connect ({error.strerror or error})") from None
    try:
        return distributed.Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as error:
        reason = " ".join(str(error).split()) or type(error).__name__
        raise ValueError(
            f"{option} {address}: no Dask scheduler answers there within {timeout:g} s ({reason[:200]})"
        ) from None


def _disconnect(connected: Any) -> None:
    connected.close()


def active(runtime: Runtime) -> bool:
    """Whether the runtime's ensemble passes go to a cluster."""
    return runtime.scheduler is not None


def task_key(keys: Sequence[str]) -> str:
    """The Dask key of a pass: its member's cache key, or a hash of its members' keys in order."""
    if len(keys) == 1:
        return TASK_PREFIX + keys[0]
    return TASK_PREFIX + "pass-" + hashlib.sha256(",".join(keys).encode()).hexdigest()


def run_pass(train: Callable, payload: Callable, members: list, threads: int, device: str) -> list[dict[str, Any]]:
    """On a worker: train one pass as a local process would, and return plain data per member
    (``payload``: its cache payload as computed here; ``trajectory``, ``seconds``; ``state``: safetensors
    bytes). Module-level functions travel by reference, so the worker runs its installed lengthgen."""
    import torch
    from safetensors.torch import save

    from lengthgen.device import device_named

    torch.set_num_threads(threads)
    here = device_named(device)  # "cuda" is this worker's own default GPU; ValueError where it has none
    models = train(members, device=here)
    return [
        {
            "payload": payload(member, here),
            "trajectory": model.trajectory,
            "seconds": model.seconds,
            "state": save({name: t.detach().contiguous() for name, t in model.state.items()}),
        }
        for member, model in zip(members, models)
    ]


def _differences(mine: dict[str, Any], theirs: dict[str, Any]) -> str:
    names = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    return ", ".join(f"{k}: here {mine.get(k)!r}, worker {theirs.get(k)!r}" for k in names)


def remote_passes(
    runtime: Runtime,
    passes: Sequence[Sequence[Any]],
    train: Callable,
    payload: Callable,
    key_of: Callable[[dict], str],
    make: Callable,
    threads: int,
    progress: Callable[[int], None] | None = None,
    order: Sequence[int] | None = None,
) -> Iterator[tuple[int, list]]:
    """Yield ``(index, models)`` for every pass as the runtime's cluster finishes it (``key_of(payload)``, a
    member's cache key, names its task; ``make(spec, seed, state, trajectory, seconds)`` rebuilds a model from a
    worker's plain data). Passes are submitted in
    ``order`` (default: as given); on an error or an abandoned iteration the rest are cancelled."""
    import distributed
    from safetensors.torch import load

    connected = client(runtime)
    if connected is None:
        raise RuntimeError("no Dask scheduler in the runtime (Runtime(scheduler=...))")
    device = runtime.device.type  # each worker uses its own default GPU for "cuda"
    expected = [[payload(m, runtime.device) for m in group] for group in passes]
    futures = {}
    for i in order if order is not None else range(len(passes)):
        key = task_key([key_of(p) for p in expected[i]])
        future = connected.submit(run_pass, train, payload, list(passes[i]), threads, device, key=key)
        futures[future] = i
    done = 0
    try:
        for future in distributed.as_completed(list(futures), loop=connected.loop):
            index = futures[future]
            records = future.result()
            models = []
            for member, mine, record in zip(passes[index], expected[index], records):
                if record["payload"] != mine:
                    raise RuntimeError(
                        f"a Dask worker trained {member} under another environment "
                        f"({_differences(mine, record['payload'])}): install the same lengthgen "
                        "and torch on every worker"
                    )
                models.append(
                    make(member.spec, member.seed, load(record["state"]), record["trajectory"], record["seconds"])
                )
            done += len(passes[index]) * passes[index][0].spec.train.steps
            if progress is not None:
                progress(done)
            future.release()
            yield index, models
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            connected.cancel(pending)
