"""foakit on a real distributed.LocalCluster (worker processes on 127.0.0.1): the batches'
contract of run_batches, the CLI's outputs against the local pool, and the faults (a worker
killed mid-run, a clip that kills its worker, the client killed with -9 and resumed)."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter, deque
from pathlib import Path

import pytest

pytest.importorskip("distributed")


from foakit.dist import DaskCluster, run_batches_dask  # noqa: E402
from foakit.errors import FoakitError, ParameterError  # noqa: E402
from foakit.pool import WORKER_DIED, run_batches  # noqa: E402

from .outputs import make_foa_corpus, same_outputs  # noqa: E402
from .workers import (  # noqa: E402
    _children,
    _failed,
    _square,
    kill_parent_and_find_survivors,
)


@pytest.fixture(scope="module")
def cluster():
    with DaskCluster("local:2", dashboard=False) as c:
        yield c


def _wait_for_workers(cluster, n=2, timeout=60):
    cluster.client.wait_for_workers(n, timeout=timeout)


def _run(cluster, batches, work, **kw):
    calls = []
    stats = run_batches_dask(deque(list(b) for b in batches), work, calls.append, _failed,
                             cluster=cluster, **kw)
    return calls, stats


def _delivered(calls):
    return [r for call in calls for r in call]


def test_every_item_is_delivered_once_one_call_per_batch(cluster):
    batches = [list(range(i, i + 3)) for i in range(0, 30, 3)]
    calls, stats = _run(cluster, batches, _square)
    got = _delivered(calls)
    assert sorted(x for x, _, _ in got) == list(range(30))
    assert all(y == x * x for x, y, _ in got)
    assert sorted(sorted(x for x, _, _ in c) for c in calls) == batches
    assert os.getpid() not in {pid for _, _, pid in got}
    assert stats.batches == 10 and stats.killed == 0


def test_tasks_grow_to_the_target_by_measurement(cluster):
    """Batches of 20 ms: the first tasks hold one batch; later ones as many as make about
    the target (0.2 s), each batch still handed to finish on its own."""
    work = functools.partial(_square, delay=0.01)
    batches = [[2 * i, 2 * i + 1] for i in range(200)]
    calls, stats = _run(cluster, batches, work, target_task_s=0.2)
    assert sorted(x for x, _, _ in _delivered(calls)) == list(range(400))
    assert len(calls) == 200 and {len(c) for c in calls} == {2}
    assert stats.group_sizes[0] == 1 and max(stats.group_sizes) >= 5
    assert stats.tasks < 100


def test_an_exception_fails_its_batch_only_and_reraise_stops(cluster):
    work = functools.partial(_square, mode="raise", victim=5)
    got = _delivered(_run(cluster, [range(0, 4), range(4, 8), range(8, 12)], work)[0])
    assert sorted(x for x, _, _ in got) == list(range(12))
    failed = sorted((x, e) for x, e, pid in got if pid is None)
    assert failed == [(x, "internal error: ValueError: bad item 5") for x in range(4, 8)]
    work = functools.partial(_square, mode="foakit", victim=5)
    with pytest.raises(FoakitError, match="cannot write a checkpoint"):
        _run(cluster, [range(0, 4), range(4, 8), range(8, 12)], work, reraise=(FoakitError,))


def test_run_batches_passes_dask_through(cluster):
    calls = []
    run_batches(deque([[1], [2], [3]]), _square, calls.append, _failed, workers=1,
                dask=cluster)
    got = _delivered(calls)
    assert sorted(x for x, _, _ in got) == [1, 2, 3]
    assert os.getpid() not in {pid for _, _, pid in got}  # workers=1 is not "here" on Dask


def test_idle_work_is_all_done_and_may_add_batches(cluster):
    extra = [[100], [101, 102], [103]]

    def idle():
        if not extra:
            return False
        queue.append(extra.pop(0))
        return True

    queue = deque([[i] for i in range(6)])
    calls = []
    run_batches_dask(queue, functools.partial(_square, delay=0.02), calls.append, _failed,
                     cluster=cluster, idle=idle)
    assert sorted(x for x, _, _ in _delivered(calls)) == [*range(6), 100, 101, 102, 103]
    assert not queue and not extra


@pytest.mark.slow
def test_a_clip_that_kills_its_worker_is_retried_then_recorded(cluster):
    """The victim's worker dies in its batch, again alone, and once more as a suspect run
    with nothing else in flight: only it is recorded (WORKER_DIED); every other item of the
    batches killed with it is delivered once."""
    _wait_for_workers(cluster)
    work = functools.partial(_square, mode="exit", victim=13, delay=0.01)
    calls, stats = _run(cluster, [range(i, i + 4) for i in range(0, 40, 4)], work)
    got = _delivered(calls)
    counts = Counter(x for x, _, _ in got)
    assert sorted(counts) == list(range(40)) and set(counts.values()) == {1}
    assert [r for r in got if r[2] is None] == [(13, WORKER_DIED, None)]
    assert [c for c in calls if any(x == 13 for x, _, _ in c)] == [[(13, WORKER_DIED, None)]]
    assert 3 <= stats.killed
    _wait_for_workers(cluster)


def test_bad_arguments(cluster):
    with pytest.raises(ParameterError, match="in_flight"):
        _run(cluster, [[1]], _square, in_flight=0)
    with pytest.raises(ParameterError, match="target_task_s"):
        _run(cluster, [[1]], _square, target_task_s=0)
    with pytest.raises(ParameterError, match="dask="):
        run_batches(deque([[1], [2]]), _square, list.append, _failed, workers=2, dask=3)


# The command line --------------------------------------------------------------------------

def foakit(*args, **kw):
    return subprocess.run([sys.executable, "-m", "foakit", *args], capture_output=True,
                          text=True, timeout=300, **kw)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """80 clips of 30 s (some 3 s of work on 2 cores) and a broken file, and the local
    pool's outputs for them."""
    root = tmp_path_factory.mktemp("dask_corpus")
    make_foa_corpus(root / "audio", 80, duration=30.0)
    (root / "audio" / "broken.wav").write_bytes(b"RIFF....WAVEjunk")
    r = foakit("analyze", str(root / "audio"), "-o", str(root / "local"), "--workers", "2",
               "--batch-size", "3", "--no-progress")
    assert r.returncode == 1, r.stderr
    return root


@pytest.mark.slow
def test_cli_outputs_equal_the_local_pool(corpus, tmp_path):
    out = tmp_path / "out"
    r = foakit("analyze", str(corpus / "audio"), "-o", str(out), "--dask", "local:2",
               "--batch-size", "3", "--no-progress", "--dask-dashboard")
    assert r.returncode == 1, r.stderr  # the broken file, as in the local run
    assert "broken.wav" in r.stderr and "Traceback" not in r.stderr
    assert "Dask scheduler tcp://127.0.0.1:" in r.stderr and "dashboard" in r.stderr
    if importlib.util.find_spec("bokeh") is not None:
        assert "dashboard http://127.0.0.1:" in r.stderr
    same_outputs(out, corpus / "local")
    r = foakit("analyze", str(corpus / "audio"), "-o", str(out), "--dask", "local:1",
               "--no-progress")
    assert r.returncode == 1 and "81 already done (1 of them failed)" in r.stderr
    # without --dask-dashboard a local cluster serves none, and says how to get one
    assert "dashboard none (--dask-dashboard serves one" in r.stderr


def _dask_workers(parent: int) -> list[int]:
    """The worker processes of a CLI run's LocalCluster: the children of its fork
    server."""
    out = []
    for pid in _children(parent):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"forkserver" in cmd:
            out += _children(pid)
    return out


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_nothing(corpus, tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "foakit", "analyze", str(corpus / "audio"), "-o", str(out),
           "--dask", "local:2", "--batch-size", "1", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    clips = out / "clips.jsonl"
    killed = None
    deadline = time.time() + 120
    while time.time() < deadline and killed is None:
        if clips.exists() and clips.read_text().count("\n") >= 4:
            workers = _dask_workers(proc.pid)
            if len(workers) == 2:
                os.kill(workers[0], signal.SIGKILL)
                killed = clips.read_text().count("\n")
        time.sleep(0.01)
    _, err = proc.communicate(timeout=300)
    assert killed is not None and killed < 81, "the kill must land mid-run"
    assert proc.returncode == 1, err  # the broken file only
    paths = [json.loads(line)["path"] for line in clips.read_text().splitlines()]
    assert len(paths) == len(set(paths)) == 81  # every clip once
    same_outputs(out, corpus / "local")


@pytest.mark.slow
def test_client_killed_leaves_no_worker_and_resumes(corpus, tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "foakit", "analyze", str(corpus / "audio"), "-o", str(out),
           "--dask", "local:2", "--batch-size", "1", "--no-progress"]
    kids, left, lines = kill_parent_and_find_survivors(
        cmd, out / "clips.jsonl", min_lines=3, n_children=4, mark=uuid.uuid4().hex)
    # the resource tracker, the fork server and its two workers
    assert len(kids) >= 4, "the workers must be running at the kill"
    assert 3 <= lines < 81, "the kill must land mid-run"
    assert left == []
    text = (out / "clips.jsonl").read_text()
    assert text.endswith("\n")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert f"{lines} already done" in r.stderr
    paths = [json.loads(line)["path"] for line in (out / "clips.jsonl").read_text().splitlines()]
    assert len(paths) == len(set(paths)) == 81  # none redone
    same_outputs(out, corpus / "local")


def test_cli_usage_errors_exit_2(tmp_path):
    make_foa_corpus(tmp_path / "audio", 1)
    for spec, msg in [("local:0", "must be >= 1"), ("local:x", "not an integer"),
                      (str(tmp_path / "nope.json"), "neither")]:
        r = foakit("analyze", str(tmp_path / "audio"), "-o", str(tmp_path / "o"), "--dask",
                   spec, "--no-progress")
        assert r.returncode == 2 and msg in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "o" / "clips.jsonl").exists()


def test_an_unreachable_scheduler_is_a_cluster_error():
    from foakit.dist import ClusterError

    with pytest.raises(ClusterError, match="tcp://127.0.0.1:9"):
        DaskCluster("tcp://127.0.0.1:9", timeout_s=1)


def test_a_scheduler_file_is_followed(cluster, tmp_path):
    path = tmp_path / "scheduler.json"
    path.write_text(json.dumps({"type": "Scheduler", "address": cluster.address}))
    with DaskCluster(path) as other:
        assert other.address == cluster.address and other.cluster is None
        calls, _ = _run(other, [[1, 2], [3]], _square)
    assert sorted(x for x, _, _ in _delivered(calls)) == [1, 2, 3]


def test_cuda_batches_run_the_gpu_pipeline_on_the_workers(cluster, tmp_path):
    """``--backend cuda`` on Dask runs foakit.gpu's pipeline in each worker; here on its
    NumPy backend (no device needed): the same records as the CPU path."""
    from foakit.corpus import _work_cuda, analyze_file

    make_foa_corpus(tmp_path / "audio", 6, duration=3.0)
    (tmp_path / "audio" / "broken.wav").write_bytes(b"RIFF....WAVEjunk")
    paths = sorted(str(p.relative_to(tmp_path / "audio"))
                   for p in (tmp_path / "audio").rglob("*.wav"))
    work = functools.partial(_work_cuda, str(tmp_path / "audio"), channel_order="ambix",
                             params_d={}, pipeline="cpu")
    calls = []
    run_batches_dask(deque([paths[:4], paths[4:]]), work, calls.append, _failed,
                     cluster=cluster)
    got = {rec["path"]: rec for rec, _ in _delivered(calls)}
    assert sorted(got) == paths
    for p in paths:
        want, _ = analyze_file(str(tmp_path / "audio"), p)
        assert got[p]["status"] == want["status"]
        assert got[p]["n_frames"] == want["n_frames"]
        assert got[p]["n_sources"] == want["n_sources"]


def test_cuda_without_a_device_on_the_workers_stops_with_exit_2(cluster, tmp_path):
    from foakit.backend import cuda_status

    if cuda_status()[0]:
        pytest.skip("a CUDA device is present")
    make_foa_corpus(tmp_path / "audio", 2)
    r = foakit("analyze", str(tmp_path / "audio"), "-o", str(tmp_path / "o"), "--dask",
               cluster.address, "--backend", "cuda", "--no-progress")
    assert r.returncode == 2 and "backend='cuda' is unavailable" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_cli_starts_the_fork_server_before_parsing_for_dask_commands_only():
    # in a fresh interpreter: the fork server of multiprocessing is one per process
    code = (
        "import multiprocessing.forkserver as F\n"
        "from foakit.cli import _prestart_dask\n"
        "for argv in (['score', '--dask', 'local:2'], ['analyze', 'a', '--dask'],\n"
        "             ['demo', '--dask', 'local'],\n"
        "             ['analyze', 'a', '--dask', 'tcp://127.0.0.1:1'], ['analyze', 'a'],\n"
        "             ['info', 'analyze', '--dask=local:2'], []):\n"
        "    _prestart_dask(argv)\n"
        "    assert F._forkserver._forkserver_pid is None, argv\n"
        "_prestart_dask(['baseline', 'rmsaqa', 'qa.json', '--dask=local:2'])\n"
        "assert F._forkserver._forkserver_pid is not None\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_prestart_starts_the_fork_server_for_local_specs_only():
    # in a fresh interpreter: the fork server of multiprocessing is one per process
    code = (
        "import multiprocessing.forkserver as F\n"
        "from foakit.dist import prestart\n"
        "for spec in ('tcp://127.0.0.1:1', 'local:0', 'nonsense:x', 'sched.json'):\n"
        "    prestart(spec)\n"
        "    assert F._forkserver._forkserver_pid is None, spec\n"
        "prestart('local:2')\n"
        "pid = F._forkserver._forkserver_pid\n"
        "assert pid is not None\n"
        "prestart('local')\n"
        "assert F._forkserver._forkserver_pid == pid\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
