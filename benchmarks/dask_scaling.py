"""``foakit analyze`` on Dask against the local process pool, whole process, and where the
time goes.

The corpus is held-out audio foakit never saw: 10 s 4-channel 24 kHz clips synthesised
here with a seed of their own (``--seconds`` of audio, default 12,000 s = 1,200 clips), one
to three noise bursts from random directions over a noise floor.

Scaling (the default): each configuration runs the command a user runs, ``python -m foakit
analyze AUDIO -o OUT --no-progress`` in a fresh process, timed from start to exit:

* ``local``: ``--workers N`` (the local pool);
* ``dask-local``: ``--dask local:N`` (the command starts and stops a LocalCluster);
* ``dask-sched``: ``--dask SCHEDULER_FILE`` against a cluster started beforehand by this
  script (``dask scheduler --scheduler-file F`` and ``dask worker --scheduler-file F
  --nworkers N --nthreads 1``, with the settings docs/dask.md recommends), kept up over
  all repeats and warmed by one untimed command on 100 clips (``--cold``: not).

The order of the three is rotated from one repeat to the next, and each Dask run's
throughput is divided by the local pool's of the same repeat.  Also measured, on the
pre-started cluster: the CPU of the client process per clip (its whole CPU over the full
corpus minus that over its first 100 clips, divided by the extra clips: start-up
excluded; the median of ``--client-pairs`` such pairs, 5 by default), the CPU of the
worker processes per clip, the scheduler process's CPU per task (2,000 no-op tasks), and
from them how many workers one client and one scheduler feed.
The outputs of the local and Dask runs are compared (clips.jsonl lines and frame tables,
order and part names aside).

    python benchmarks/dask_scaling.py [--seconds 12000] [--workers 2] [--repeats 3]

``--profile``: one ``analyze_corpus(dask=...)`` run in this process on a LocalCluster of N
workers, phase by phase: importing distributed, starting the cluster (with and without the
dashboard), the run (the client's main thread by function: submitting, taking results,
writing; the client's other threads, where its communication and the in-process scheduler
run), the bytes of results that come back per clip, the workers' CPU per clip, closing.

    python benchmarks/dask_scaling.py --profile [--seconds 2000]

``--timeline``: ``--repeats`` alternated pairs of the whole commands ``--workers N`` and
``--dask local:N``, each with marks of its phases in wall seconds from its start (the fork
server started, its loading begun and done, the cluster open, the work begun and done, the
cluster closed, the exit), and the median of each mark: where the fixed cost of
``--dask local:N`` lies against the local pool's.

    python benchmarks/dask_scaling.py --timeline --audio DIR [--repeats 5]

``--idle``: the CPU an idle LocalCluster burns by the clock, with Dask's default settings
and with :data:`foakit.dist.LOCAL_CONFIG`, alternated twice.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

#: Seed of the held-out corpus (no other benchmark or test uses it).
SEED = 2929


def make_heldout(root: str, seconds: float, *, sr: int = 24000, clip_s: float = 10.0,
                 seed: int = SEED) -> int:
    """Write ``ceil(seconds / clip_s)`` 4-channel PCM16 clips under ``root`` (100 a
    folder, a fresh sensor-noise draw per clip); return their number."""
    import math

    from analyze_speed import write_clips

    return write_clips(root, math.ceil(seconds / clip_s), sr=sr, clip_s=clip_s, seed=seed,
                       noise_level=0.002, fresh_noise=True, names=("h", "h"))


def _cpu_self() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _cpu_children() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _proc_cpu(pids: list[int]) -> float:
    """CPU seconds of these processes and their children (psutil, a Dask dependency)."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            p = psutil.Process(pid)
            for q in [p, *p.children(recursive=True)]:
                t = q.cpu_times()
                total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def _thread_cpu() -> dict[str, float]:
    """CPU seconds of each thread of this process, by name (Linux /proc)."""
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as fh:
                stat = fh.read()
            with open(f"/proc/self/task/{tid}/comm") as fh:
                name = fh.read().strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        key = "main" if int(tid) == os.getpid() else name
        out[key] = out.get(key, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def _noop(batch):
    return batch


# Scaling -----------------------------------------------------------------------------------

def _env_name(key: str) -> str:
    """Dask's environment variable for a configuration key."""
    return "DASK_" + key.upper().replace(".", "__").replace("-", "_")


class Cluster:
    """``dask scheduler`` + ``dask worker --nworkers N --nthreads 1``, started here."""

    def __init__(self, tmp: str, n: int) -> None:
        from foakit.dist import LOCAL_CONFIG

        self.file = os.path.join(tmp, "scheduler.json")
        dask = os.path.join(os.path.dirname(sys.executable), "dask")
        # the settings docs/dask.md recommends (those foakit's local:N clusters use)
        env = dict(os.environ, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0",
                   **{_env_name(k): str(v) for k, v in LOCAL_CONFIG.items()})
        self.sched = subprocess.Popen(
            [dask, "scheduler", "--scheduler-file", self.file, "--host", "127.0.0.1",
             "--port", "0", "--no-dashboard"], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(self.file) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.workers = subprocess.Popen(
            [dask, "worker", "--scheduler-file", self.file, "--nworkers", str(n),
             "--nthreads", "1", "--no-dashboard"], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        from distributed import Client

        with Client(scheduler_file=self.file, timeout=60) as c:
            c.wait_for_workers(n, timeout=120)

    def warm(self, audio: str, out: str) -> float:
        """One untimed command on the first folder: the workers import foakit and load its
        kernels on their first task, once in the life of a cluster (a long-lived cluster
        is warm); returns its wall seconds."""
        return run_cli(os.path.join(audio, "h000"), out, ["--dask", self.file])["wall_s"]

    def close(self) -> None:
        for p in (self.workers, self.sched):
            try:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(p.pid, signal.SIGKILL)


def run_cli(audio: str, out: str, opts: list[str]) -> dict:
    """The command, timed whole; its CPU (it and its children) from the kernel."""
    shutil.rmtree(out, ignore_errors=True)
    c0, t0 = _cpu_children(), time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "foakit", "analyze", audio, "-o", out,
                        "--no-progress", *opts], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"foakit analyze {opts} exited {r.returncode}: {r.stderr[-2000:]}")
    return {"wall_s": wall, "cpu_s": _cpu_children() - c0, "load": os.getloadavg()[0]}


def same_outputs(a: str, b: str) -> bool:
    import numpy as np

    from foakit.corpus import read_frames

    def lines(d):
        rows = []
        with open(os.path.join(d, "clips.jsonl")) as fh:
            for line in fh:
                rec = json.loads(line)
                rec.pop("frames_part")
                rows.append(json.dumps(rec, sort_keys=True))
        return sorted(rows)

    if lines(a) != lines(b):
        return False
    key = [("path", "ascending"), ("frame", "ascending")]
    ta, tb = (read_frames(d).sort_by(key) for d in (a, b))
    if ta.schema != tb.schema or ta.num_rows != tb.num_rows:
        return False
    for name in ta.column_names:
        x, y = (t[name].to_numpy(zero_copy_only=False) for t in (ta, tb))
        if not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
            return False
    return True


def scheduler_per_task(cluster: Cluster, n_tasks: int = 2000) -> dict:
    """CPU of the scheduler process and of this client per no-op task."""
    from collections import deque

    from foakit.dist import DaskCluster, run_batches_dask

    with DaskCluster(cluster.file, dashboard=False) as dc:
        s0, c0, t0 = _proc_cpu([cluster.sched.pid]), _cpu_self(), time.perf_counter()
        st = run_batches_dask(deque([[i] for i in range(n_tasks)]), _noop, lambda r: None,
                              lambda x, e: None, cluster=dc, in_flight=256,
                              target_task_s=1e-9)
        return {"tasks": st.tasks, "wall_ms": 1e3 * (time.perf_counter() - t0) / st.tasks,
                "sched_cpu_ms": 1e3 * (_proc_cpu([cluster.sched.pid]) - s0) / st.tasks,
                "client_cpu_ms": 1e3 * (_cpu_self() - c0) / st.tasks}


def idle_client_rate(file: str, seconds: float = 10.0) -> float:
    """CPU seconds per second of this process connected to the scheduler and idle."""
    from foakit.dist import DaskCluster

    with DaskCluster(file, dashboard=False) as dc:
        dc.n_threads()
        time.sleep(1.0)
        c0, t0 = _cpu_self(), time.perf_counter()
        time.sleep(seconds)
        return (_cpu_self() - c0) / (time.perf_counter() - t0)


def scaling(args: argparse.Namespace) -> int:
    n = args.workers
    with tempfile.TemporaryDirectory(prefix="foakit_dask_") as tmp:
        audio = args.audio or os.path.join(tmp, "audio")
        t0 = time.perf_counter()
        n_clips = make_heldout(audio, args.seconds) if not args.audio else sum(
            len(f) for _, _, f in os.walk(audio))
        print(f"corpus: {n_clips} held-out clips of 10 s at 24 kHz ({n_clips * 10} s of "
              f"audio; {time.perf_counter() - t0:.1f} s); {os.cpu_count()} cores; load "
              f"{os.getloadavg()[0]:.1f}", flush=True)
        t0 = time.perf_counter()
        cluster = Cluster(tmp, n)
        print(f"cluster started beforehand in {time.perf_counter() - t0:.1f} s: dask "
              f"scheduler + dask worker --nworkers {n} --nthreads 1", flush=True)
        if not args.cold:
            warm_s = cluster.warm(audio, os.path.join(tmp, "warm"))
            print(f"warm-up command on its first 100 clips (untimed): {warm_s:.1f} s",
                  flush=True)
        configs = {"local": ["--workers", str(n)], "dask-local": ["--dask", f"local:{n}"],
                   "dask-sched": ["--dask", cluster.file]}
        names = list(configs)
        rows = []
        try:
            for rep in range(args.repeats):
                order = names[rep % 3:] + names[:rep % 3]
                got = {}
                for name in order:
                    w0 = _proc_cpu([cluster.workers.pid]) if name == "dask-sched" else 0.0
                    r = run_cli(audio, os.path.join(tmp, name), configs[name])
                    if name == "dask-sched":
                        r["worker_cpu_s"] = _proc_cpu([cluster.workers.pid]) - w0
                    got[name] = r
                for name in names:
                    got[name]["ratio"] = got["local"]["wall_s"] / got[name]["wall_s"]
                print(f"repeat {rep} (order {', '.join(order)}): " + "; ".join(
                    f"{k} {v['wall_s']:.2f} s ({n_clips * 10 / v['wall_s']:.0f} audio s/s, "
                    f"x{v['ratio']:.3f}, load {v['load']:.1f})" for k, v in got.items()),
                    flush=True)
                rows.append(got)
            identical = {k: same_outputs(os.path.join(tmp, "local"), os.path.join(tmp, k))
                         for k in ("dask-local", "dask-sched")} if rows else {}
            # The client's CPU is a cost per clip (a) plus one per second of wall (b: its
            # event loop's heartbeats and polls), which a slow (loaded or small) cluster
            # charges to each clip.  b is measured on this process connected and idle; a
            # from the full corpus against its first folder, b times the extra wall taken
            # off.  At N workers of w CPU per clip the client runs a * N / w + b of a core.
            idle_b = idle_client_rate(cluster.file)
            small = os.path.join(audio, "h000")
            n_small = len(os.listdir(small))
            per, per_a, wcpu = [], [], []
            for _ in range(args.client_pairs):
                w0 = _proc_cpu([cluster.workers.pid])
                big = run_cli(audio, os.path.join(tmp, "c-big"), configs["dask-sched"])
                wcpu.append(_proc_cpu([cluster.workers.pid]) - w0)
                lit = run_cli(small, os.path.join(tmp, "c-small"), configs["dask-sched"])
                extra = n_clips - n_small
                per.append((big["cpu_s"] - lit["cpu_s"]) / extra)
                per_a.append((big["cpu_s"] - lit["cpu_s"]
                              - idle_b * (big["wall_s"] - lit["wall_s"])) / extra)
            client_ms = 1e3 * statistics.median(per)
            client_a_ms = 1e3 * statistics.median(per_a)
            worker_ms = 1e3 * statistics.median(
                [r["dask-sched"]["worker_cpu_s"] for r in rows] + wcpu) / n_clips
            sched = scheduler_per_task(cluster)
        finally:
            cluster.close()
    print()
    for k in ("dask-local", "dask-sched"):
        ratios = [r[k]["ratio"] for r in rows]
        if ratios:
            print(f"{k} / local throughput: " + ", ".join(f"{x:.3f}" for x in ratios)
                  + f" (median {statistics.median(ratios):.3f})")
    print(f"outputs identical to the local pool's: {identical}")
    print(f"worker CPU per clip {worker_ms:.2f} ms; client CPU per extra clip "
          f"{client_ms:.3f} ms (runs: " + ", ".join(f"{1e3 * x:.3f}" for x in per)
          + f") = {100 * client_ms / worker_ms:.2f} % of a worker's")
    print(f"client idle, connected: {1e3 * idle_b:.1f} ms of CPU per second; per clip with "
          f"that taken off {client_a_ms:.3f} ms (runs: "
          + ", ".join(f"{1e3 * x:.3f}" for x in per_a) + f") = "
          f"{100 * client_a_ms / worker_ms:.2f} % of a worker's: one client core feeds "
          f"{(1 - idle_b) * worker_ms / client_a_ms:.0f} workers")
    print(f"scheduler per no-op task: {sched['sched_cpu_ms']:.2f} ms CPU (client "
          f"{sched['client_cpu_ms']:.2f} ms, wall {sched['wall_ms']:.2f} ms at 256 in flight "
          f"over {sched['tasks']} tasks): with 1 s tasks one scheduler feeds "
          f"{1e3 / sched['sched_cpu_ms']:.0f} worker threads")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "identical": identical, "client_cpu_ms": client_ms,
                       "client_per_clip_ms": client_a_ms, "client_idle_per_s": idle_b,
                       "worker_cpu_ms": worker_ms, "scheduler": sched}, fh, indent=2)
    return 0 if all(identical.values()) else 1


# Profile -----------------------------------------------------------------------------------

def profile(args: argparse.Namespace) -> int:
    import cProfile
    import pickle
    import pstats

    from foakit.corpus import _work, analyze_corpus, keep_freed_memory
    from foakit.params import AnalysisParams

    keep_freed_memory()
    with tempfile.TemporaryDirectory(prefix="foakit_dask_") as tmp:
        audio = args.audio or os.path.join(tmp, "audio")
        n_clips = make_heldout(audio, args.seconds) if not args.audio else sum(
            len(f) for _, _, f in os.walk(audio))
        print(f"corpus: {n_clips} held-out clips ({n_clips * 10} s); load "
              f"{os.getloadavg()[0]:.1f}")
        t0, c0 = time.perf_counter(), _cpu_self()
        import distributed  # noqa: F401

        from foakit.dist import DaskCluster
        print(f"import distributed: {time.perf_counter() - t0:.2f} s wall, "
              f"{_cpu_self() - c0:.2f} s CPU")
        # the first start also starts the fork server (it imports foakit and loads the
        # kernels once); later ones in this process fork from the same server
        for i, (dash, what) in enumerate(((False, "cold: fork server included"),
                                          (True, "fork server up"),
                                          (False, "fork server up"))):
            t0, c0 = time.perf_counter(), _cpu_self()
            dc = DaskCluster(f"local:{args.workers}", dashboard=dash)
            print(f"LocalCluster start ({what}, dashboard {dash}): "
                  f"{time.perf_counter() - t0:.2f} s wall, {_cpu_self() - c0:.2f} s CPU of "
                  "this process")
            if i < 2:
                dc.close()
        # one batch's result as it travels back to the client
        paths = sorted(os.path.relpath(os.path.join(d, f), audio)
                       for d, _, fs in os.walk(audio) for f in fs)[:16]
        res = _work(audio, paths, "ambix", AnalysisParams().to_dict())
        t0 = time.perf_counter()
        blob = pickle.dumps(res, protocol=5)
        dump_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        pickle.loads(blob)
        load_s = time.perf_counter() - t0
        print(f"a batch's result: {len(blob) / 16 / 1e3:.0f} kB per clip pickled; "
              f"{1e3 * dump_s / 16:.3f} ms to pickle, {1e3 * load_s / 16:.3f} ms to unpickle "
              "per clip")
        def wcpu():
            return sum(dc.client.run(_worker_cpu).values())
        w0, th0, c0 = wcpu(), _thread_cpu(), _cpu_self()
        prof = cProfile.Profile(time.thread_time)
        prof.enable()
        s = analyze_corpus(audio, os.path.join(tmp, "out"), progress=False, dask=dc)
        prof.disable()
        th1, w1 = _thread_cpu(), wcpu()
        st = dc.last_run
        n = s.n_ok + s.n_error
        stats = pstats.Stats(prof)
        cum = {}
        for (file, _, func), (_, _, _, ct, _) in stats.stats.items():
            for key, (f_end, name) in {"submit": ("client.py", "submit"),
                                       "result": ("client.py", "result"),
                                       "finish": ("corpus.py", "finish"),
                                       "write": ("corpus.py", "write"),
                                       "repair": ("corpus.py", "_repair"),
                                       "listing": ("io.py", "iter_audio_files")}.items():
                if file.endswith(f_end) and func == name:
                    cum[key] = cum.get(key, 0.0) + ct
        main_cpu = th1.get("main", 0) - th0.get("main", 0)
        others = {k: th1[k] - th0.get(k, 0.0) for k in th1 if k != "main"}
        print(f"run: {s.seconds:.2f} s wall, {st.tasks} tasks; client process CPU "
              f"{_cpu_self() - c0:.2f} s = {1e3 * (_cpu_self() - c0) / n:.2f} ms per clip")
        print(f"  main thread {main_cpu:.2f} s: " + ", ".join(
            f"{k} {v:.3f} s ({1e3 * v / n:.3f} ms/clip)" for k, v in cum.items()))
        print("  other threads (Dask's event loop: client communication and the in-process "
              "scheduler): " + ", ".join(f"{k} {v:.2f} s" for k, v in others.items() if v))
        print(f"  workers: compute {1e3 * st.compute_s / n:.2f} ms per clip (wall in "
              f"work), worker processes' CPU {1e3 * (w1 - w0) / n:.2f} ms per clip")
        t0 = time.perf_counter()
        dc.close()
        print(f"close: {time.perf_counter() - t0:.2f} s")
    return 0


def _worker_cpu() -> float:
    return _cpu_self()


def idle(args: argparse.Namespace) -> int:
    """CPU of an idle LocalCluster (this process, its workers and their nannies) over
    ``--idle-s`` seconds, with Dask's default settings and with foakit's."""
    import psutil

    import foakit.dist as dist

    me = psutil.Process()

    def cpu() -> float:
        return _proc_cpu([me.pid])

    ours = dict(dist.LOCAL_CONFIG)
    for name, config in (("Dask's defaults", {}), ("foakit.dist.LOCAL_CONFIG", ours)) * 2:
        dist.LOCAL_CONFIG = config
        with dist.DaskCluster(f"local:{args.workers}", dashboard=False):
            time.sleep(2.0)  # past the start
            c0, t0 = cpu(), time.perf_counter()
            time.sleep(args.idle_s)
            share = (cpu() - c0) / (time.perf_counter() - t0)
        print(f"idle LocalCluster of {args.workers} workers, {name}: {100 * share:.1f} % of "
              f"a core (load {os.getloadavg()[0]:.1f})", flush=True)
    dist.LOCAL_CONFIG = ours
    return 0


#: The command a timeline runs instead of ``python -m foakit``: foakit's own entry point,
#: with the functions that open and close each phase wrapped to append a mark to a file.
_TIMED_MAIN = """
import os, sys, time

def mark(name):
    with open(os.environ["FOAKIT_TIMELINE"], "a") as f:
        f.write(f"{name} {time.time():.4f}\\n")

def wrap(obj, attr, name):
    orig = getattr(obj, attr)
    def timed(*a, **k):
        mark(name + " begun")
        try:
            return orig(*a, **k)
        finally:
            mark(name + " done")
    setattr(obj, attr, timed)

if __name__ == "__main__":
    import atexit
    import foakit.dist as dist
    import foakit.pool as pool
    dist._PRELOAD[:] = ["_timeline_a", *dist._PRELOAD, "_timeline_b"]
    wrap(dist, "_start_fork_server", "fork server start")
    wrap(dist.DaskCluster, "__init__", "cluster open")
    wrap(dist.DaskCluster, "close", "cluster close")
    wrap(pool, "run_batches", "work")
    from foakit.cli import main
    atexit.register(mark, "exit")
    sys.exit(main())
"""

#: Imported by the fork server around its preload list (first and last).
_TIMED_PRELOAD = {
    "_timeline_a": "server loading begun",
    "_timeline_b": "server loading done",
}


def timeline(args: argparse.Namespace) -> int:
    """Median phase marks of the whole ``--workers N`` and ``--dask local:N`` commands."""
    if not args.audio:
        print("--timeline needs --audio DIR (a corpus written by this script)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "_foakit_timed.py"), "w") as f:
            f.write(_TIMED_MAIN)
        for mod, name in _TIMED_PRELOAD.items():
            with open(os.path.join(tmp, mod + ".py"), "w") as f:
                f.write("import os, time\n"
                        "with open(os.environ['FOAKIT_TIMELINE'], 'a') as f:\n"
                        f"    f.write(f'{name} {{time.time():.4f}}\\n')\n")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [tmp, os.path.dirname(HERE), *filter(None, [env.get("PYTHONPATH")])])
        marks: dict[str, dict[str, list[float]]] = {"local": {}, "dask-local": {}}
        flags = {"local": ["--workers", str(args.workers)],
                 "dask-local": ["--dask", f"local:{args.workers}"]}
        for rep in range(args.repeats):
            for name in (("local", "dask-local") if rep % 2 == 0 else ("dask-local", "local")):
                log = os.path.join(tmp, "marks.txt")
                env["FOAKIT_TIMELINE"] = log
                out = os.path.join(tmp, "out")
                shutil.rmtree(out, ignore_errors=True)
                t0 = time.time()
                r = subprocess.run([sys.executable, os.path.join(tmp, "_foakit_timed.py"),
                                    "analyze", args.audio, "-o", out, "--no-progress",
                                    *flags[name]], env=env, capture_output=True, text=True)
                t1 = time.time()
                if r.returncode != 0:
                    print(f"{name}: exit {r.returncode}: {r.stderr.strip()[-500:]}",
                          file=sys.stderr)
                    return 1
                seen: dict[str, float] = {}
                with open(log) as f:
                    for line in f:
                        key, _, t = line.rstrip().rpartition(" ")
                        seen.setdefault(key, float(t) - t0)  # the first of repeated marks
                os.unlink(log)
                seen["process ended"] = t1 - t0
                for key, t in seen.items():
                    marks[name].setdefault(key, []).append(t)
                print(f"repeat {rep} {name}: " + ", ".join(
                    f"{k} {v:.3f}" for k, v in sorted(seen.items(), key=lambda kv: kv[1])),
                    flush=True)
    print(f"\nmedian marks, s from the start of the process ({args.repeats} runs each):")
    for name, got in marks.items():
        print(f"  {name}: " + ", ".join(
            f"{k} {statistics.median(v):.3f}"
            for k, v in sorted(got.items(), key=lambda kv: statistics.median(kv[1]))))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=None,
                    help="seconds of audio (default 12000; 2000 with --profile)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--audio", help="a corpus written before by this script (else a new one)")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--cold", action="store_true",
                    help="no warm-up command on the pre-started cluster")
    ap.add_argument("--client-pairs", type=int, default=5,
                    help="pairs of full-corpus and first-folder commands the client's CPU "
                    "per clip is the median of (each pair alone scatters by about 0.1 ms)")
    ap.add_argument("--timeline", action="store_true",
                    help="phase marks of the whole local and dask-local commands")
    ap.add_argument("--idle", action="store_true",
                    help="only the CPU of an idle LocalCluster, Dask's settings and foakit's")
    ap.add_argument("--idle-s", type=float, default=10.0)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    if args.seconds is None:
        args.seconds = 2000.0 if args.profile else 12000.0
    if args.idle:
        return idle(args)
    if args.timeline:
        return timeline(args)
    return profile(args) if args.profile else scaling(args)


if __name__ == "__main__":
    sys.exit(main())
