"""foakit.pool.run_batches with real worker processes: crash isolation, delivery, bounds."""

from __future__ import annotations

import functools
import os
import signal
import threading
import time
from collections import Counter, deque
from pathlib import Path

import pytest

from foakit.errors import FoakitError, ParameterError
from foakit.pool import WORKER_DIED, run_batches

from .workers import (
    _failed,
    _proc_state,
    _square,
    kill_parent_and_find_survivors,
)

_PRELOADED = None


def _preloaded(batch):
    return [(x, _PRELOADED, os.getpid()) for x in batch]


def _set_preloaded(value):
    global _PRELOADED
    _PRELOADED = value


def _run(batches, work, **kw):
    """run_batches over ``batches``; returns the list of results of every finish call."""
    calls = []
    run_batches(deque(list(b) for b in batches), work, calls.append, _failed, **kw)
    return calls


def _delivered(calls):
    return [r for call in calls for r in call]


def _kill_marked(pid_dir: Path, stop: threading.Event) -> None:
    while not stop.is_set():
        for f in pid_dir.iterdir():
            os.kill(int(f.name), signal.SIGKILL)
            f.unlink()
        time.sleep(0.01)


def test_every_item_is_delivered_once_from_the_workers():
    batches = [range(i, i + 3) for i in range(0, 30, 3)]
    calls = _run(batches, _square, workers=2)
    got = _delivered(calls)
    assert sorted(x for x, _, _ in got) == list(range(30))
    assert all(y == x * x for x, y, _ in got)
    assert sorted(len(c) for c in calls) == [3] * 10  # one call per batch
    assert os.getpid() not in {pid for _, _, pid in got}


@pytest.mark.parametrize("mode", ["exit", "kill"])
def test_a_worker_that_dies_mid_batch_costs_only_its_item(tmp_path, mode):
    """The victim (in the middle of its batch, with batches before and after it) is the only
    failure; the items its worker finished before dying, and those of the batches in flight
    with it, are run again and delivered once."""
    stop = threading.Event()
    killer = threading.Thread(target=_kill_marked, args=(tmp_path, stop), daemon=True)
    killer.start()
    try:
        work = functools.partial(_square, mode=mode, victim=13, pid_dir=str(tmp_path),
                                 delay=0.01)
        calls = _run([range(i, i + 4) for i in range(0, 40, 4)], work, workers=2)
    finally:
        stop.set()
        killer.join()
    got = _delivered(calls)
    counts = Counter(x for x, _, _ in got)
    assert sorted(counts) == list(range(40)) and set(counts.values()) == {1}
    assert [r for r in got if r[2] is None] == [(13, WORKER_DIED, None)]
    assert all(y == x * x for x, y, pid in got if x != 13)
    assert [c for c in calls if any(x == 13 for x, _, _ in c)] == [[(13, WORKER_DIED, None)]]


def test_an_exception_fails_the_items_of_its_batch_only():
    work = functools.partial(_square, mode="raise", victim=5)
    got = _delivered(_run([range(0, 4), range(4, 8), range(8, 12)], work, workers=2))
    assert sorted(x for x, _, _ in got) == list(range(12))
    failed = sorted((x, e) for x, e, pid in got if pid is None)
    assert failed == [(x, "internal error: ValueError: bad item 5") for x in range(4, 8)]


def test_reraise_stops_the_run():
    work = functools.partial(_square, mode="foakit", victim=5)
    with pytest.raises(FoakitError, match="cannot write a checkpoint"):
        _run([range(0, 4), range(4, 8), range(8, 12)], work, workers=2, reraise=(FoakitError,))


@pytest.mark.parametrize("in_flight, want", [(None, 4), (3, 3), (1, 1)])
def test_batches_in_flight_are_bounded(in_flight, want):
    queue = deque([i] for i in range(16))
    seen, order = [], []

    def idle():  # called while batches are in flight and none has finished
        seen.append(16 - len(queue) - len(order))
        return False

    run_batches(queue, functools.partial(_square, delay=0.05),
                lambda res: order.extend(x for x, _, _ in res), _failed,
                workers=2, in_flight=in_flight, idle=idle)
    assert sorted(order) == list(range(16))
    assert max(seen) == want
    if want == 1:
        assert order == list(range(16))  # submitted in order


def test_idle_work_is_all_done_and_may_add_batches():
    extra = [[100], [101, 102], [103]]
    calls_idle = []

    def idle():
        calls_idle.append(1)
        if not extra:
            return False
        queue.append(extra.pop(0))
        return True

    queue = deque([[i] for i in range(6)])
    calls = []
    run_batches(queue, functools.partial(_square, delay=0.02), calls.append, _failed,
                workers=2, idle=idle)
    got = sorted(x for x, _, _ in _delivered(calls))
    assert got == [*range(6), 100, 101, 102, 103]
    assert not queue and not extra


@pytest.mark.parametrize("workers, n_batches", [(1, 3), (3, 1)])
def test_one_worker_or_one_batch_runs_here(workers, n_batches):
    loaded = []
    got = _delivered(_run([[i, i + 10] for i in range(n_batches)], _square, workers=workers,
                          preload=lambda: loaded.append(1)))
    assert {pid for _, _, pid in got} == {os.getpid()}
    assert len(got) == 2 * n_batches and not loaded
    with pytest.raises(ValueError, match="bad item 1"):  # nothing to isolate it here
        _run([[0, 1]], functools.partial(_square, mode="raise", victim=1), workers=workers)


@pytest.mark.skipif(os.name != "posix", reason="workers are forked on POSIX only")
def test_forked_workers_inherit_the_preload_and_run_the_initializer():
    got = _delivered(_run([[1], [2], [3]], _preloaded, workers=2,
                          preload=functools.partial(_set_preloaded, "parent")))
    assert {v for _, v, _ in got} == {"parent"}
    _set_preloaded(None)
    got = _delivered(_run([[1], [2], [3]], _preloaded, workers=2,
                          initializer=functools.partial(_set_preloaded, "worker")))
    assert {v for _, v, _ in got} == {"worker"} and _PRELOADED is None


def _freeze_count(batch):
    import gc

    return [(x, gc.get_freeze_count()) for x in batch]


@pytest.mark.skipif(os.name != "posix", reason="workers are forked on POSIX only")
def test_forked_workers_get_this_process_objects_frozen_and_they_are_put_back():
    """While forked workers run, this process's objects stay out of garbage collections
    (no copy-on-write of the heap); afterwards they are collected as before."""
    import gc

    assert gc.get_freeze_count() == 0
    seen = []
    got = run_batches(deque([[1], [2], [3]]), _freeze_count,
                      lambda r: seen.extend(r) or seen.append(("parent", gc.get_freeze_count())),
                      _failed, workers=2)
    assert got is None and gc.get_freeze_count() == 0
    assert all(n > 0 for _, n in seen)


@pytest.mark.parametrize("kw", [{"workers": 0}, {"workers": 2, "in_flight": 0}])
def test_bad_counts_are_parameter_errors(kw):
    with pytest.raises(ParameterError):
        _run([[1], [2]], _square, **kw)


def _die_late(batch):
    if batch == [1]:
        time.sleep(0.3)
        os._exit(3)
    return [(x, x * x, os.getpid()) for x in batch]


def test_a_pool_that_breaks_while_the_parent_is_in_finish():
    """Batch [0] finishes at once; while the parent handles it, [1]'s worker dies and the
    pool breaks before the parent submits its next batch."""
    calls = []

    def finish(res):
        if not calls:
            time.sleep(1.0)
        calls.append(res)

    run_batches(deque([[i] for i in range(6)]), _die_late, finish, _failed, workers=2,
                in_flight=2)
    got = _delivered(calls)
    assert sorted(x for x, _, _ in got) == list(range(6))
    assert [r for r in got if r[2] is None] == [(1, WORKER_DIED, None)]


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_workers_end_when_analyze_is_killed_with_sigkill(tmp_path):
    """``foakit analyze --workers 2`` killed with -9 mid-run leaves no worker behind."""
    import sys
    import uuid

    from .scenes import make_corpus

    n = 60
    make_corpus(tmp_path / "audio", n=n, bad=False)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "foakit", "analyze", str(tmp_path / "audio"), "-o", str(out),
           "--workers", "2", "--batch-size", "2", "--no-progress"]
    kids, left, lines = kill_parent_and_find_survivors(
        cmd, out / "clips.jsonl", min_lines=4, n_children=2, mark=uuid.uuid4().hex,
        grace_s=5.0)
    assert len(kids) >= 2, "the workers must be running at the kill"
    assert lines < n, "the kill must land mid-run"
    assert left == []


_PIPE_ONLY = """
import os, sys, time
from collections import deque
import foakit.pool as pool

class _NotLinux:  # the workers forked from here skip prctl: only the pipe can end them
    platform = "darwin"

pool.sys = _NotLinux()
out = sys.argv[1]

def work(batch):
    open(os.path.join(out, str(os.getpid())), "w").close()
    time.sleep(120)
    return batch

pool.run_batches(deque([[1], [2]]), work, print, lambda i, e: e, workers=2)
"""


@pytest.mark.skipif(not os.path.isdir("/proc") or os.name != "posix",
                    reason="needs /proc and forked workers")
def test_the_parent_pipe_alone_ends_the_workers(tmp_path):
    """Without the parent-death signal, the workers see the parent's pipe close."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _PIPE_ONLY, str(tmp_path)])
    try:
        deadline = time.time() + 60
        while time.time() < deadline and len(os.listdir(tmp_path)) < 2:
            time.sleep(0.01)
        pids = [int(p) for p in os.listdir(tmp_path)]
        assert len(pids) == 2, "both workers must be running at the kill"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        end = time.time() + 5
        while time.time() < end and any(_proc_state(p) not in (None, "Z") for p in pids):
            time.sleep(0.05)
        left = [p for p in pids if _proc_state(p) not in (None, "Z")]
    finally:
        if proc.poll() is None:
            proc.kill()
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert left == []
