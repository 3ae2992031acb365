"""``foakit analyze`` on the local pool against a Dask LocalCluster of 1 and 2 workers.

Writes a synthetic corpus of 10 s 4-channel 16 kHz clips (``--hours``, default 1.0, the
corpus of ``analyze_speed.py``) to a temporary folder, then in one run analyses it with

* ``local``: the local process pool, ``--workers`` processes;
* ``dask1`` / ``dask2``: ``analyze_corpus(dask=DaskCluster("local:N"))``, N single-threaded
  worker processes on 127.0.0.1 (the cluster's start-up is timed apart);

each configuration in a fresh subprocess, ``--repeats`` times, interleaved (so that a burst
of load from other programs hits them alike).  Printed per run: wall seconds of
``analyze_corpus`` and audio seconds per wall second; then the medians, the throughput
ratios to the local pool, the measured time per task of the scheduler on no-op tasks, the
idle time of a worker thread per task in the corpus runs, and the client process's CPU per
clip (scheduler, communication and writing; writing apart), and the CPU seconds of all
the processes of a run (workers, client, scheduler), which other programs' load disturbs
less than wall time.  The outputs of the local and
of the 2-worker runs are compared (clips.jsonl lines and frame tables, order aside).

    python benchmarks/dask_scaling.py [--hours 1.0] [--workers 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _cpu_self() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _cpu_children() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _noop(batch):
    return batch


def one_run(config: str, audio: str, out: str, workers: int, batch_size: int) -> dict:
    """One configuration in this process; returns its figures."""
    from foakit.corpus import analyze_corpus, keep_freed_memory

    keep_freed_memory()
    row: dict = {"config": config, "load_before": os.getloadavg()[0]}
    if config.startswith("noop"):
        return noop_run(int(config[len("noop"):]), row)
    if config == "local":
        cpu0, kids0 = _cpu_self(), _cpu_children()
        s = analyze_corpus(audio, out, workers=workers, progress=False, batch_size=batch_size)
        row.update(wall_s=s.seconds, audio_s=s.audio_seconds, clips=s.n_ok + s.n_error,
                   client_cpu_s=_cpu_self() - cpu0)
        # the pool's workers are joined when analyze_corpus returns: their CPU is counted
        row["total_cpu_s"] = row["client_cpu_s"] + _cpu_children() - kids0
    else:

        from foakit.dist import DaskCluster

        n = int(config[len("dask"):])
        t0 = time.perf_counter()
        with DaskCluster(f"local:{n}", dashboard=False) as dc:
            row["startup_s"] = time.perf_counter() - t0
            cpu0, w0 = _cpu_self(), dc.client.run(_cpu_self)
            s = analyze_corpus(audio, out, progress=False, batch_size=batch_size, dask=dc)
            w1 = dc.client.run(_cpu_self)
            st = dc.last_run
            row.update(wall_s=s.seconds, audio_s=s.audio_seconds, clips=s.n_ok + s.n_error,
                       client_cpu_s=_cpu_self() - cpu0, tasks=st.tasks,
                       mean_group=statistics.mean(st.group_sizes),
                       max_group=max(st.group_sizes), compute_s=st.compute_s,
                       finish_s=st.finish_s, threads=n, run_wall_s=st.wall_s)
            row["idle_per_task_ms"] = 1e3 * (st.wall_s * n - st.compute_s) / st.tasks
            row["total_cpu_s"] = row["client_cpu_s"] + sum(w1[w] - w0[w] for w in w1)
    row["load_after"] = os.getloadavg()[0]
    return row


def noop_run(n: int, row: dict) -> dict:
    """The scheduler's cost per task: no-op tasks of one item on a LocalCluster of ``n``
    workers, at the run's in-flight bound (2 per worker thread: latency-bound) and with
    256 in flight (throughput-bound); CPU of this process (client and scheduler)."""
    from collections import deque

    from foakit.dist import DaskCluster, run_batches_dask

    n_tasks = 2000
    with DaskCluster(f"local:{n}", dashboard=False) as dc:
        for name, depth in (("noop", None), ("noop256", 256)):
            t0, c0 = time.perf_counter(), _cpu_self()
            st = run_batches_dask(deque([[i] for i in range(n_tasks)]), _noop,
                                  lambda r: None, lambda x, e: None, cluster=dc,
                                  in_flight=depth, target_task_s=1e-9)
            row[f"{name}_task_ms"] = 1e3 * (time.perf_counter() - t0) / st.tasks
            row[f"{name}_client_cpu_ms"] = 1e3 * (_cpu_self() - c0) / st.tasks
    row["load_after"] = os.getloadavg()[0]
    return row


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--workers", type=int, default=2, help="local pool processes")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--json", help="also write the rows here")
    ap.add_argument("--one", nargs=4, metavar=("CONFIG", "AUDIO", "OUT", "WORKERS"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        config, audio, out, workers = args.one
        print(json.dumps(one_run(config, audio, out, int(workers), args.batch_size)))
        return 0

    from analyze_speed import make_corpus

    rows = []
    with tempfile.TemporaryDirectory(prefix="foakit_dask_") as tmp:
        audio = os.path.join(tmp, "audio")
        t0 = time.perf_counter()
        n_clips = make_corpus(audio, args.hours)
        print(f"corpus: {n_clips} clips of 10 s ({n_clips * 10 / 3600:.2f} h) written in "
              f"{time.perf_counter() - t0:.1f} s; {os.cpu_count()} cores", flush=True)
        for rep in range(args.repeats):
            for config in ("local", "dask1", "dask2"):
                out = os.path.join(tmp, f"{config}-{rep}")
                t0 = time.perf_counter()
                r = subprocess.run([sys.executable, __file__, "--batch-size",
                                    str(args.batch_size), "--one", config, audio, out,
                                    str(args.workers)], capture_output=True, text=True)
                if r.returncode != 0:
                    print(r.stderr, file=sys.stderr)
                    return 1
                row = json.loads(r.stdout.strip().splitlines()[-1])
                # the whole command: interpreter, imports, cluster start-up and close
                row["command_wall_s"] = time.perf_counter() - t0
                row["repeat"] = rep
                rows.append(row)
                extra = "" if config == "local" else (
                    f", start-up {row['startup_s']:.1f} s, {row['tasks']} tasks "
                    f"(mean {row['mean_group']:.1f} batches)")
                print(f"{config:6s} run {rep}: {row['wall_s']:.2f} s, "
                      f"{row['audio_s'] / row['wall_s']:.0f} audio s / s, CPU "
                      f"{row['total_cpu_s']:.2f} s; whole command {row['command_wall_s']:.2f} s; "
                      f"load "
                      f"{row['load_before']:.1f} -> {row['load_after']:.1f}{extra}", flush=True)
        identical = same_outputs(os.path.join(tmp, "local-0"), os.path.join(tmp, "dask2-0"))
        for config in ("noop1", "noop2"):
            r = subprocess.run([sys.executable, __file__, "--one", config, audio, "-", "0"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stderr, file=sys.stderr)
                return 1
            rows.append(json.loads(r.stdout.strip().splitlines()[-1]))

    def med(config, key):
        return statistics.median(r[key] for r in rows if r["config"] == config)

    thr = {c: med(c, "audio_s") / med(c, "wall_s") for c in ("local", "dask1", "dask2")}
    print(f"\nmedian throughput (audio s per wall s): local ({args.workers} processes) "
          f"{thr['local']:.0f}, dask 1 worker {thr['dask1']:.0f}, dask 2 workers "
          f"{thr['dask2']:.0f}")
    print(f"ratios: dask2 / local = {thr['dask2'] / thr['local']:.3f}, dask1 / local = "
          f"{thr['dask1'] / thr['local']:.3f}, dask2 / dask1 = "
          f"{thr['dask2'] / thr['dask1']:.3f}")
    cpu = {c: med(c, "total_cpu_s") for c in thr}
    print("median CPU seconds, all processes (workers, client, scheduler): " + ", ".join(
        f"{c} {v:.2f} s" for c, v in cpu.items()) + f"; local / dask2 = "
        f"{cpu['local'] / cpu['dask2']:.3f}")
    spread = {c: (min(r["wall_s"] for r in rows if r["config"] == c),
                  max(r["wall_s"] for r in rows if r["config"] == c)) for c in thr}
    print("wall range over repeats: " + ", ".join(f"{c} {a:.2f}-{b:.2f} s"
                                                 for c, (a, b) in spread.items()))
    cmd = {c: med(c, "audio_s") / med(c, "command_wall_s") for c in thr}
    print("whole command, audio s per wall s: " + ", ".join(f"{c} {v:.0f}"
                                                          for c, v in cmd.items())
          + f"; dask2 / local = {cmd['dask2'] / cmd['local']:.3f}")
    for c in ("dask1", "dask2"):
        clips = med(c, "clips")
        sched = (med(c, "client_cpu_s") - med(c, "finish_s")) / clips
        print(f"{c}: idle per task {med(c, 'idle_per_task_ms'):.1f} ms, client process CPU "
              f"per clip {1e3 * med(c, 'client_cpu_s') / clips:.2f} ms (writing "
              f"{1e3 * med(c, 'finish_s') / clips:.2f} ms, the rest, scheduler and "
              f"communication, {1e3 * max(sched, 0.0):.2f} ms), cluster start-up "
              f"{med(c, 'startup_s'):.1f} s")
    for r in rows:
        if r["config"].startswith("noop"):
            print(f"{r['config']}: no-op task {r['noop_task_ms']:.2f} ms wall "
                  f"({r['noop_client_cpu_ms']:.2f} ms client+scheduler CPU) at 2 per thread "
                  f"in flight, {r['noop256_task_ms']:.2f} ms "
                  f"({r['noop256_client_cpu_ms']:.2f} ms) at 256")
    local_cpu = 1e3 * med("local", "client_cpu_s") / med("local", "clips")
    print(f"local: parent CPU per clip {local_cpu:.2f} ms")
    print(f"outputs of local and dask2 identical (order aside): {identical}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "identical": identical, "throughput": thr}, fh, indent=2)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
