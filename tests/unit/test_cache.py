"""The cache: round trip, damaged entries detected and retrained, --retrain, two concurrent processes
train a shared model once, and loading never runs pickled code."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import pickle
import time
from pathlib import Path

import pytest
import torch

from lengthgen.store.cache import Cache, CacheWarning, payload_key
from lengthgen.store.one_layer import train_key, trained
from lengthgen.engine.train import Member

from tests.helpers import tiny_spec

MEMBER = Member(tiny_spec("rope", steps=30), 1)


def _entry_files(root: Path, kind: str = "train") -> tuple[Path, Path]:
    key = train_key(MEMBER)
    folder = root / kind / key[:2]
    return folder / f"{key}.json", folder / f"{key}.safetensors"


def test_round_trip(tmp_path):
    cache = Cache(tmp_path)
    tensors = {"w": torch.arange(6.0).view(2, 3), "i": torch.tensor([1, 2])}
    key = payload_key({"x": 1})
    cache.save("thing", key, {"x": 1}, {"note": "hi", "values": [1.5, 2]}, tensors)
    meta, loaded = cache.load("thing", key)
    assert meta == {"note": "hi", "values": [1.5, 2]}
    for name in tensors:
        assert torch.equal(loaded[name], tensors[name])
    assert cache.stats["thing:hit"] == 1 and cache.stats["thing:computed"] == 1
    assert cache.load("thing", payload_key({"x": 2})) is None


def test_keys_are_canonical():
    assert payload_key({"a": 1, "b": [1, 2]}) == payload_key({"b": [1, 2], "a": 1})
    assert payload_key({"a": 1}) != payload_key({"a": 2})


def test_trained_twice_loads_the_second_time(tmp_path):
    cache = Cache(tmp_path)
    first = trained([MEMBER], cache)[0]
    second = trained([MEMBER], cache)[0]
    assert cache.stats["train:computed"] == 1 and cache.stats["train:hit"] == 1
    for name in first.state:
        assert torch.equal(first.state[name], second.state[name])
    assert second.trajectory == first.trajectory


def _corrupt_truncate_blob(manifest: Path, blob: Path) -> None:
    blob.write_bytes(blob.read_bytes()[:100])


def _corrupt_flip_blob_byte(manifest: Path, blob: Path) -> None:
    data = bytearray(blob.read_bytes())
    data[-5] ^= 0xFF
    blob.write_bytes(bytes(data))


def _corrupt_garbage_manifest(manifest: Path, blob: Path) -> None:
    manifest.write_text('{"format": 1, "key": ')


def _corrupt_remove_blob(manifest: Path, blob: Path) -> None:
    blob.unlink()


def _corrupt_wrong_key(manifest: Path, blob: Path) -> None:
    data = json.loads(manifest.read_text())
    data["key"] = "0" * 64
    manifest.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "corrupt",
    [
        _corrupt_truncate_blob,
        _corrupt_flip_blob_byte,
        _corrupt_garbage_manifest,
        _corrupt_remove_blob,
        _corrupt_wrong_key,
    ],
)
def test_damaged_entry_is_detected_and_retrained(tmp_path, corrupt):
    reference = trained([MEMBER], Cache(tmp_path))[0]
    corrupt(*_entry_files(tmp_path))
    cache = Cache(tmp_path)
    with pytest.warns(CacheWarning, match="damaged"):
        again = trained([MEMBER], cache)[0]
    assert cache.stats["train:damaged"] == 1 and cache.stats["train:computed"] == 1
    for name in reference.state:
        assert torch.equal(again.state[name], reference.state[name]), f"{name} differs after retraining"
    clean = Cache(tmp_path)
    trained([MEMBER], clean)
    assert clean.stats["train:hit"] == 1, "the retrained entry replaced the damaged one"


class _Payload:
    """A pickle that would create a file if unpickled."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


def test_loading_runs_no_pickled_code(tmp_path):
    trained([MEMBER], Cache(tmp_path))
    manifest, blob = _entry_files(tmp_path)
    canary = tmp_path / "pwned"
    evil = pickle.dumps(_Payload(str(canary)))
    blob.write_bytes(evil)
    data = json.loads(manifest.read_text())
    data["blob"].update(bytes=len(evil), sha256=hashlib.sha256(evil).hexdigest())  # a consistent manifest
    manifest.write_text(json.dumps(data))
    with pytest.warns(CacheWarning):
        assert Cache(tmp_path).load("train", train_key(MEMBER)) is None
    assert not canary.exists()


def test_retrain_ignores_entries_from_earlier_runs(tmp_path):
    trained([MEMBER], Cache(tmp_path))
    cache = Cache(tmp_path, fresh_after=time.time() + 1e-3)
    time.sleep(0.01)
    trained([MEMBER], cache)
    assert cache.stats["train:computed"] == 1
    trained([MEMBER], cache)  # what this run trained is shared
    assert cache.stats["train:hit"] == 1


def test_disabled_cache_stores_nothing(tmp_path):
    cache = Cache(tmp_path / "c", enabled=False)
    trained([MEMBER], cache)
    trained([MEMBER], cache)
    assert cache.stats["train:computed"] == 2
    assert not (tmp_path / "c").exists()


def _train_in_process(root: str, steps: int, queue) -> None:
    torch.set_num_threads(1)
    cache = Cache(root)
    member = Member(tiny_spec("rope", steps=steps), 1)
    model = trained([member], cache)[0]
    queue.put((dict(cache.stats), model.state["W_Q.weight"].sum().item()))


@pytest.mark.slow
def test_two_processes_train_a_shared_model_once(tmp_path):
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    processes = [context.Process(target=_train_in_process, args=(str(tmp_path), 1500, queue)) for _ in range(2)]
    for process in processes:
        process.start()
    results = [queue.get(timeout=300) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    computed = sum(stats.get("train:computed", 0) for stats, _ in results)
    hits = sum(stats.get("train:hit", 0) for stats, _ in results)
    assert (computed, hits) == (1, 1), f"computed {computed}, loaded {hits}: {results}"
    assert results[0][1] == results[1][1]


def _hold_then_save(root: str, key: str, ready, seconds: float) -> None:
    cache = Cache(root)
    with cache.lock("thing", key):
        ready.set()
        time.sleep(seconds)
        cache.save("thing", key, {"k": key}, {"by": "holder"})


@pytest.mark.slow
def test_computes_its_own_entries_first_then_waits_for_held_ones(tmp_path):
    from lengthgen.store.cache import fetch_or_compute

    held, own = payload_key({"k": "held"}), payload_key({"k": "own"})
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    holder = context.Process(target=_hold_then_save, args=(str(tmp_path), held, ready, 2.0))
    holder.start()
    assert ready.wait(60), "the holder process did not take its lock"
    computed: list[list[int]] = []

    def compute(todo):
        computed.append(sorted(todo))
        for i in todo:
            yield i, {"by": "me"}, ({"k": i}, {"by": "me"}, None)

    values = fetch_or_compute(Cache(tmp_path), "thing", [held, own], lambda i, entry: entry[0], compute)
    holder.join(60)
    assert computed == [[1]], "only the free entry is computed here; the held one is waited for"
    assert values == [{"by": "holder"}, {"by": "me"}]
