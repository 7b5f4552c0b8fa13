"""--scheduler (pytest's --lengthgen-scheduler): ensemble passes on a real Dask cluster equal a local run's
bit for bit, and a worker killed mid-pass loses and corrupts nothing.

The cluster is one ``dask scheduler`` and two ``dask worker`` processes (one thread each, no nanny, so
killing a worker's process kills the worker), all bound to 127.0.0.1 and stopped in the fixture's
teardown within a bounded time. ``distributed`` comes with the test extra (``pip install -e ".[test]"``;
tests/integration/test_plugin_entry_point.py checks it), so the cluster path is tested by default.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import torch

from lengthgen.engine import cluster
from lengthgen.store.cache import Cache
from lengthgen.cli import main
from lengthgen.store.one_layer import train_key, trained
from lengthgen.engine.train import Member
from lengthgen.runtime import Runtime

from tests.helpers import ROOT, tiny_spec

HOST = "127.0.0.1"  # the test's cluster listens on the loopback interface only
START_TIMEOUT_S = 120  # scheduler and two workers importing distributed on 2 busy shared cores
STOP_TIMEOUT_S = 10  # per process: SIGTERM, then SIGKILL after this long
KILL_AFTER_S = 0.5  # how long a pass has run on a (warm) worker when the test kills it
KILLED_PASS_STEPS = 4000  # the killed pass's training steps: long enough that it still runs KILL_AFTER_S after it
# was seen busy, with the poll's own delay, on a fast CPU whose cores other tests keep busy (-n auto)
SUBPROCESS_TIMEOUT_S = 300


# ---- the address: validated, and unreachable is a usage error (no cluster needed) -------------------


@pytest.mark.parametrize(
    "text",
    [
        "localhost:8786",
        "tcp://",
        "tcp://host",
        "tcp://host:0",
        "tcp://host:99999",
        "tcp://host:port",
        "http://host:8786",
        "tcp://host:8786/path",
        "",
    ],
)
def test_bad_addresses_are_rejected_naming_the_value(text):
    with pytest.raises(ValueError, match="is not a Dask scheduler address"):
        cluster.parse_address(text)


@pytest.mark.parametrize(
    "text, address",
    [
        ("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786"),
        (" tcp://node-1:8786 ", "tcp://node-1:8786"),
        ("tls://[::1]:8786", "tls://[::1]:8786"),
    ],
)
def test_good_addresses_are_normalised(text, address):
    assert cluster.parse_address(text) == address


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def test_cli_bad_and_unreachable_scheduler_are_one_line_usage_errors(capsys):
    base = ["train", "--encoding", "rope", "--offset", "2", "--seeds", "0", "--steps", "5", "--no-cache"]
    with pytest.raises(SystemExit) as raised:  # argparse's type= check
        main([*base, "--scheduler", "localhost:8786"])
    err = capsys.readouterr().err
    assert raised.value.code == 2 and "is not a Dask scheduler address" in err and err.count("\n") == 1, err
    status = main([*base, "--scheduler", f"tcp://{HOST}:{closed_port()}"])
    err = capsys.readouterr().err
    assert status == 2 and "cannot connect" in err and err.count("\n") == 1, err


def test_without_distributed_the_scheduler_is_a_usage_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    runtime = Runtime(scheduler=f"tcp://{HOST}:8786")
    with pytest.raises(ValueError, match=r"needs the dask extra: pip install -e \"\.\[dask\]\""):
        cluster.client(runtime)
    assert runtime.held(cluster.CLIENT) is None


def test_the_default_path_imports_nothing_of_dask():
    code = (
        "import sys, importlib, lengthgen.cli, lengthgen.store.one_layer, lengthgen.testing.plugin, "
        "lengthgen.engine.train_two_layer; "
        "[importlib.import_module(m) for m in (*lengthgen.testing.plugin.pytest_plugins, "
        "*lengthgen.testing.plugin.SUITE_MODULES)]; "  # the plugin's modules
        "lengthgen.cli.build_parser(); print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('dask', 'distributed')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S, check=True
    )
    assert result.stdout.strip() == "[]", result.stdout


def run_pytest(args: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", "-p", "no:xdist"],
        check=False,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_S,
    )


@pytest.mark.slow
def test_pytest_bad_and_unreachable_scheduler_exit_4(tmp_path):
    for address, fragment in [
        ("localhost:8786", "is not a Dask scheduler address"),
        (f"tcp://{HOST}:{closed_port()}", "cannot connect"),
    ]:
        result = run_pytest(
            ["tests/unit/test_config.py", f"--lengthgen-scheduler={address}", f"--lengthgen-cache-dir={tmp_path}"]
        )
        assert result.returncode == 4 and fragment in result.stderr, (result.returncode, result.stderr[-2000:])


# ---- a real cluster on 127.0.0.1 --------------------------------------------------------------------


def dask_command() -> list[str]:
    return [sys.executable, "-m", "dask"]


class LocalCluster:
    """A scheduler and named workers as separate processes; ``kill(name)`` SIGKILLs one worker."""

    def __init__(self, folder: Path, workers: int = 2):
        self.folder = folder
        self.processes: dict[str, subprocess.Popen] = {}
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
        info = folder / "scheduler.json"
        self._start(
            "scheduler", ["scheduler", "--host", HOST, "--port", "0", "--no-dashboard", "--scheduler-file", str(info)]
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while not info.exists() or not info.read_text().strip():
            self._check_alive("scheduler")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the Dask scheduler did not start within {START_TIMEOUT_S} s")
            time.sleep(0.1)
        self.address = json.loads(info.read_text())["address"]
        for i in range(workers):
            self._start(
                f"w{i}",
                [
                    "worker",
                    self.address,
                    "--host",
                    HOST,
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--name",
                    f"w{i}",
                    "--death-timeout",
                    "60",
                ],
            )

    def _start(self, name: str, args: list[str]) -> None:
        log = open(self.folder / f"{name}.log", "wb")
        self.processes[name] = subprocess.Popen(
            [*dask_command(), *args], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        log.close()

    def _check_alive(self, name: str) -> None:
        if self.processes[name].poll() is not None:
            raise RuntimeError(f"dask {name} exited: {(self.folder / f'{name}.log').read_text()[-2000:]}")

    def wait_for_workers(self, count: int) -> None:
        import distributed

        with distributed.Client(self.address, timeout=START_TIMEOUT_S) as client:
            client.wait_for_workers(count, timeout=START_TIMEOUT_S)
            client.run(
                importlib.import_module, "lengthgen.engine.train"
            )  # torch imported: a task starts training at once

    def kill(self, name: str) -> None:
        self.processes[name].send_signal(signal.SIGKILL)
        self.processes[name].wait(STOP_TIMEOUT_S)

    def stop(self) -> None:
        """Shut the cluster down through its scheduler; terminate, then kill, whatever is left."""
        import distributed

        with contextlib.suppress(Exception):  # a scheduler that does not answer is terminated below
            with distributed.Client(self.address, timeout=STOP_TIMEOUT_S) as client:
                client.shutdown()
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(STOP_TIMEOUT_S)
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(STOP_TIMEOUT_S)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    local = None
    try:
        local = LocalCluster(tmp_path_factory.mktemp("dask"))
        local.wait_for_workers(2)
        yield local
    finally:
        if local is not None:
            local.stop()


@pytest.fixture
def on_cluster(dask_cluster):
    """A runtime whose passes train on the test's cluster (its client connected now, closed after the test)."""
    with Runtime(scheduler=dask_cluster.address) as runtime:
        cluster.client(runtime)
        yield runtime


def passes_of(steps: int) -> list[Member]:
    """Members in two ensemble passes (RoPE and APE, two offsets x two seeds each)."""
    return [
        Member(tiny_spec(encoding, steps=steps, offset=k), seed)
        for encoding in ("rope", "ape")
        for k in (1, 2)
        for seed in (0, 1)
    ]


def assert_same_models(local, remote) -> None:
    for a, b in zip(local, remote):
        assert (a.spec, a.seed) == (b.spec, b.seed)
        assert a.state.keys() == b.state.keys()
        for name in a.state:
            assert torch.equal(a.state[name], b.state[name]), f"{name} of {a.spec.model.encoding} seed {a.seed} differs"
        assert a.trajectory == b.trajectory


def entries(cache: Cache) -> dict[str, bytes]:
    """Every file of the cache's trained models, by name: each manifest and its tensor file."""
    return {p.name: p.read_bytes() for p in (cache.root / "train").rglob("*") if p.is_file()}


def assert_cache_holds_exactly(cache: Cache, members, reference: Cache) -> None:
    keys = {train_key(m) for m in members}
    files = entries(cache)
    assert set(files) == {f"{k}.json" for k in keys} | {f"{k}.safetensors" for k in keys}, sorted(files)
    theirs = entries(reference)
    for key in keys:  # the weights byte for byte; the manifests' trajectories (not their wall times)
        assert files[f"{key}.safetensors"] == theirs[f"{key}.safetensors"]
        mine, ref = (json.loads(f[f"{key}.json"]) for f in (files, theirs))
        assert mine["payload"] == ref["payload"] and mine["meta"]["trajectory"] == ref["meta"]["trajectory"]
        assert cache.load("train", key) is not None  # verifies size and hash (a damaged entry would warn: an error)


@pytest.mark.slow
def test_cluster_trains_the_same_numbers_as_a_local_run(on_cluster, tmp_path):
    members = passes_of(steps=60)
    reference = Cache(tmp_path / "local")  # a local runtime
    local = trained(members, reference)
    remote_cache = Cache(tmp_path / "remote", runtime=on_cluster)
    remote = trained(members, remote_cache)
    assert_same_models(local, remote)
    assert remote_cache.stats["train:computed"] == len(members)
    assert_cache_holds_exactly(remote_cache, members, reference)
    hits = remote_cache.stats["train:hit"]
    again = trained(members, remote_cache)  # now cached: nothing goes to the cluster
    assert remote_cache.stats["train:hit"] - hits == len(members)
    assert remote_cache.stats["train:computed"] == len(members)
    assert_same_models(local, again)


@pytest.mark.slow
def test_cli_and_pytest_send_passes_to_the_cluster(on_cluster, tmp_path):
    args = [
        "train",
        "--encoding",
        "ape",
        "--offset",
        "3",
        "--seeds",
        "0-1",
        "--steps",
        "40",
        "--sequences",
        "64",
        "--lengths",
        "12,20",
    ]
    assert main([*args, "--cache-dir", str(tmp_path / "local"), "--out", str(tmp_path / "local.json")]) == 0
    assert (
        main(
            [
                *args,
                "--cache-dir",
                str(tmp_path / "remote"),
                "--out",
                str(tmp_path / "remote.json"),
                "--scheduler",
                on_cluster.scheduler,
            ]
        )
        == 0
    )
    assert json.loads((tmp_path / "local.json").read_text()) == json.loads((tmp_path / "remote.json").read_text())
    test_file = tmp_path / "test_through_cluster.py"
    test_file.write_text(
        textwrap.dedent(f"""
        from lengthgen.store.one_layer import trained
        from lengthgen.engine.train import Member
        from tests.helpers import ROOT, tiny_spec

        def test_trains_there(model_cache, runtime):
            assert runtime.scheduler == {on_cluster.scheduler!r} and model_cache.runtime is runtime
            trained([Member(tiny_spec(steps=20), 0)], model_cache)
            assert model_cache.stats["train:computed"] == 1
    """)
    )
    result = run_pytest(
        [
            str(test_file),
            f"--lengthgen-scheduler={on_cluster.scheduler}",
            f"--lengthgen-cache-dir={tmp_path / 'py'}",
            "-o",
            "lengthgen_suite=true",
            "-q",
        ]
    )  # the file lies outside the suite's pytest.ini
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


@pytest.mark.slow
def test_two_layer_models_train_through_the_cluster(on_cluster, tmp_path, monkeypatch):
    """The transformer's pass loop (store/two_layer.py's trained_transformers) sends its passes to the
    cluster through the same hook, with the same numbers and cache files as a local run."""
    from lengthgen.engine import train_two_layer as tt
    from lengthgen.store import two_layer as st

    spec = tt.TwoLayerSpec().replace(model={"d": 32}, train={"steps": 12, "batch": 8, "record_every": 5})
    members = [tt.Member(spec, seed) for seed in (0, 1)] + [tt.Member(spec.replace(model={"encoding": "ape"}), 0)]
    sent = []
    real = cluster.remote_passes
    monkeypatch.setattr(
        cluster,
        "remote_passes",
        lambda runtime, passes, *a, **k: sent.append(len(passes)) or real(runtime, passes, *a, **k),
    )
    remote_cache = Cache(tmp_path / "remote", runtime=on_cluster)
    remote = st.trained_transformers(members, remote_cache)
    assert sent == [2] and remote_cache.stats[f"{st.CACHE_KIND}:computed"] == len(members)  # two passes, remotely
    local = st.trained_transformers(members, Cache(tmp_path / "local"))
    for a, b in zip(local, remote):
        assert isinstance(b, tt.TrainedTransformer) and (a.spec, a.seed) == (b.spec, b.seed)
        assert all(torch.equal(a.state[n], b.state[n]) for n in a.state) and a.trajectory == b.trajectory


@pytest.mark.slow
def test_a_worker_killed_mid_pass_loses_and_corrupts_nothing(dask_cluster, on_cluster, tmp_path):
    members = passes_of(steps=KILLED_PASS_STEPS)
    reference = Cache(tmp_path / "local")
    local = trained(members, reference)
    client = cluster.client(on_cluster)
    killed: dict[str, object] = {}

    def kill_a_busy_worker() -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            busy = {
                w: keys
                for w, keys in client.processing().items()
                if any(str(k).startswith(cluster.TASK_PREFIX) for k in keys)
            }
            if busy:
                address, keys = next(iter(busy.items()))
                time.sleep(KILL_AFTER_S)  # inside the pass
                names = {a: info["name"] for a, info in client.scheduler_info()["workers"].items()}
                still = client.processing().get(address, ())
                killed.update(name=names[address], keys=list(keys), still_running=bool(set(keys) & set(still)))
                dask_cluster.kill(names[address])
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=kill_a_busy_worker, daemon=True)
    watcher.start()
    remote_cache = Cache(tmp_path / "remote", runtime=on_cluster)
    remote = trained(members, remote_cache)
    watcher.join(STOP_TIMEOUT_S)
    assert killed.get("still_running"), f"no worker was killed while its pass ran: {killed}"
    assert len(client.scheduler_info()["workers"]) == 1  # the pass reran on the other worker
    assert_same_models(local, remote)
    assert_cache_holds_exactly(remote_cache, members, reference)
    for member in members:  # no entry's lock is left held
        release = remote_cache.try_lock("train", train_key(member))
        assert release is not None, f"the lock of {member} is still held"
        release()
