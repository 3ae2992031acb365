"""GPU check: the CUDA backend against the CPU backend, then throughput.

One command, a few minutes on an H200::

    python benchmarks/gpu_check.py [--hours 10] [--clip-s 20] [--distinct 32] [--out DIR]

1. **Correctness**: distinct reverberant synthetic clips (``foakit.synth``) analysed on both
   backends (events compared with :func:`foakit.gpu.check.compare_events`, frames with
   ``compare_frames``), and the demo corpus through ``analyze_corpus`` on both backends
   (clips.jsonl records: identical event lists expected).
2. **Throughput** on ``--hours`` of audio (the distinct clips repeated; files hard-linked):
   the Numba CUDA kernels alone (CUDA-event timed inside the real pipeline), the device stage
   (STFT to peaks on device-resident audio), in-memory end to end (``analyze_clips`` against
   ``analyze_samples`` on all cores) and corpus end to end (``analyze_corpus`` with
   ``backend="cuda"`` against ``"cpu"``), with the peak device memory.  Figures are
   "x real time" (audio seconds per wall second) and GPU / CPU ratios.

Without a CUDA device it says so, runs the same steps on a tiny corpus with the batched path
on NumPy (``backend="cpu"`` of :mod:`foakit.gpu`) so the script itself is exercised, and
reports the GPU figures as unmeasured.  Exit status 1 when a correctness check fails.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DISTINCT: list[np.ndarray] = []  # the distinct clips, inherited by forked CPU workers
SR = 16000
TARGET_KERNELS = 1e6
TARGET_E2E = 5e4


def log(msg: str) -> None:
    print(msg, flush=True)


def make_clips(n: int, clip_s: float, sr: int, seed: int) -> list[np.ndarray]:
    """Distinct reverberant scenes (1-3 sources, some moving) from foakit.synth."""
    from foakit.synth import random_scene, render_scene

    out = []
    for i in range(n):
        sc = random_scene(seed + i, duration_s=clip_s, sample_rate=sr, rt60_s=(0.2, 0.7),
                          snr_db=(10, 30), n_sources=(1, 3), allow_motion=True)
        out.append(np.ascontiguousarray(render_scene(sc, engine="ism"), dtype=np.float32))
    return out


def _cpu_job(i: int):
    from foakit.analysis import analyze_samples

    return analyze_samples(DISTINCT[i % len(DISTINCT)], SR)


def write_corpus(root: Path, clips: list[np.ndarray], n_files: int) -> Path:
    """The distinct clips as 16-bit wavs, hard-linked ``n_files`` times into root/audio."""
    import soundfile as sf

    src, audio = root / "distinct", root / "audio"
    src.mkdir(parents=True, exist_ok=True)
    audio.mkdir(parents=True, exist_ok=True)
    for i, c in enumerate(clips):
        sf.write(src / f"d{i:03d}.wav", np.clip(c.T, -1, 1), SR, subtype="PCM_16")
    for j in range(n_files):
        dst = audio / f"c{j:05d}.wav"
        if not dst.exists():
            try:
                os.link(src / f"d{j % len(clips):03d}.wav", dst)
            except OSError:
                os.symlink(src / f"d{j % len(clips):03d}.wav", dst)
    return audio


class TimedKernels:
    """The CUDA kernels with a CUDA-event pair around every launch (or wall time on CPU)."""

    def __init__(self, inner, cupy=None) -> None:
        self.inner, self.cp, self.marks = inner, cupy, []

    def __getattr__(self, name):
        fn = getattr(self.inner, name)

        def call(*args, stream=None):
            if self.cp is None:
                t = time.perf_counter()
                fn(*args, stream=stream)
                self.marks.append((name, time.perf_counter() - t))
                return
            s = stream if stream is not None else self.cp.cuda.get_current_stream()
            e0, e1 = self.cp.cuda.Event(), self.cp.cuda.Event()
            e0.record(s)
            fn(*args, stream=stream)
            e1.record(s)
            self.marks.append((name, (e0, e1)))

        return call

    def seconds(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, m in self.marks:
            if self.cp is not None:
                m[1].synchronize()
                m = self.cp.cuda.get_elapsed_time(m[0], m[1]) / 1000.0
            out[name] = out.get(name, 0.0) + m
        return out


def track_peak_memory(cupy):
    """Route CuPy allocations through a hook that records the pool's peak use."""
    pool = cupy.get_default_memory_pool()
    peak = [0]

    def malloc(n):
        mem = pool.malloc(n)
        peak[0] = max(peak[0], pool.used_bytes())
        return mem

    cupy.cuda.set_allocator(malloc)
    return peak


def corpus_records(out_dir: Path) -> dict:
    from foakit.corpus import load_clips

    return load_clips(out_dir)


def compare_records(a: dict, b: dict) -> list[str]:
    from foakit.gpu.check import compare_events

    bad = []
    for path in sorted(set(a) | set(b)):
        ra, rb = a.get(path), b.get(path)
        if ra is None or rb is None:
            bad.append(f"{path}: missing in one run")
            continue
        d = compare_events(ra["events"], rb["events"])
        if d or ra["status"] != rb["status"] or ra["n_sources"] != rb["n_sources"]:
            bad.append(f"{path}: {d[:3] or (ra['status'], rb['status'])}")
    return bad


def gpu_corpus(audio: Path, out: Path, backend: str, workers: int) -> float:
    """``analyze_corpus(backend="cuda")``; the NumPy emulation writes clips.jsonl itself."""
    from foakit.corpus import analyze_corpus

    t = time.perf_counter()
    if backend == "cuda":
        analyze_corpus(audio, out, progress=False, backend="cuda", workers=workers,
                       batch_size=64)
        return time.perf_counter() - t
    import json

    from foakit.gpu.pipeline import analyze_batches_cuda
    from foakit.io import iter_audio_files
    from foakit.params import AnalysisParams

    files = iter_audio_files(audio)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "clips.jsonl", "w") as fh:
        def finish(results):
            for rec, _ in results:
                fh.write(json.dumps(dict(rec, frames_part=None)) + "\n")

        analyze_batches_cuda(str(audio), [files[i:i + 64] for i in range(0, len(files), 64)],
                             "ambix", AnalysisParams(), finish, workers=workers,
                             backend="cpu")
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    global SR
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=10.0)
    ap.add_argument("--clip-s", type=float, default=20.0)
    ap.add_argument("--distinct", type=int, default=32)
    ap.add_argument("--sr", type=int, default=16000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    SR = args.sr

    from foakit.backend import cuda_status
    from foakit.gpu.check import compare_events, compare_frames

    ok, why = cuda_status()
    backend = "cuda" if ok else "cpu"
    if not ok:
        log(f"gpu_check: no CUDA device ({why}).\n  GPU figures: UNMEASURED.  Running the "
            "steps on a tiny corpus with the batched path on NumPy to exercise the script.")
        args.hours = min(args.hours, 0.03)
        args.distinct = min(args.distinct, 4)
        args.clip_s = min(args.clip_s, 10.0)
    cupy = None
    if ok:
        import cupy

        dev = cupy.cuda.runtime.getDeviceProperties(0)
        name = dev["name"].decode() if isinstance(dev["name"], bytes) else dev["name"]
        log(f"device: {name}, {cupy.cuda.runtime.memGetInfo()[1] / 2**30:.0f} GiB; "
            f"CuPy {cupy.__version__}")
    work = Path(args.out or tempfile.mkdtemp(prefix="foakit-gpu-check-"))
    work.mkdir(parents=True, exist_ok=True)
    n_clips = max(1, math.ceil(args.hours * 3600 / args.clip_s))
    audio_s = n_clips * args.clip_s
    t0 = time.perf_counter()

    # ---- data (before any CUDA context: the CPU pool forks)
    DISTINCT.extend(make_clips(args.distinct, args.clip_s, SR, args.seed))
    log(f"{args.distinct} distinct {args.clip_s:.0f} s clips rendered "
        f"({time.perf_counter() - t0:.1f} s); throughput set: {n_clips} clips = "
        f"{audio_s / 3600:.2f} h")
    from foakit.bench.sobench.synth import make_demo_corpus

    make_demo_corpus(work / "demo", n_clips=8)
    audio = write_corpus(work / "corpus", DISTINCT, n_clips)

    # ---- CPU backend
    from foakit.corpus import analyze_corpus

    with mp.get_context("fork").Pool(args.workers) as pool:
        pool.map(_cpu_job, range(min(args.workers, len(DISTINCT))))  # warm (JIT caches)
        refs = pool.map(_cpu_job, range(len(DISTINCT)))
        t = time.perf_counter()
        cpu_all = pool.map(_cpu_job, range(n_clips), chunksize=4)
        cpu_mem_s = time.perf_counter() - t
    del cpu_all
    t = time.perf_counter()
    analyze_corpus(audio, work / "cpu-corpus", progress=False, backend="cpu",
                   workers=args.workers, batch_size=16)
    cpu_corpus_s = time.perf_counter() - t
    analyze_corpus(work / "demo" / "audio", work / "cpu-demo", progress=False, backend="cpu",
                   workers=args.workers)
    log(f"CPU: in memory {audio_s / cpu_mem_s:,.0f}x real time, corpus "
        f"{audio_s / cpu_corpus_s:,.0f}x ({args.workers} processes)")

    # ---- GPU backend: warm-up, then correctness
    from foakit.gpu import analyze_clips
    from foakit.gpu.batch import cpu_kernels, cuda_kernels
    from foakit.gpu.pipeline import host_pool

    peak = track_peak_memory(cupy) if ok else [0]
    analyze_clips(DISTINCT[:2], SR, backend=backend)  # JIT-compiles the CUDA kernels
    got = analyze_clips(DISTINCT, SR, backend=backend, host_workers=1)
    failures = []
    n_events = 0
    for i, (g, r) in enumerate(zip(got, refs, strict=True)):
        n_events += len(r.events)
        d = compare_events(g.events, r.events) + compare_frames(g.frames, r.frames)
        if d:
            failures.append(f"clip {i}: {d[:3]}")
    gpu_corpus(work / "demo" / "audio", work / "gpu-demo", backend, args.workers)
    demo_bad = compare_records(corpus_records(work / "gpu-demo"),
                               corpus_records(work / "cpu-demo"))
    log(f"correctness: {len(DISTINCT) - len(failures)}/{len(DISTINCT)} synthetic clips equal "
        f"({n_events} events); demo corpus: "
        f"{'identical event lists' if not demo_bad else f'{len(demo_bad)} clips differ'}")
    for f in (failures + demo_bad)[:10]:
        log(f"  DIFFERS {f}")

    # ---- throughput
    clips_all = [DISTINCT[i % len(DISTINCT)] for i in range(n_clips)]
    timed = TimedKernels(cuda_kernels() if ok else cpu_kernels(), cupy)
    with host_pool(args.workers) as hmap:
        # start the processes and load their JIT caches before timing
        analyze_clips([DISTINCT[i % len(DISTINCT)] for i in range(4 * args.workers)], SR,
                      backend=backend, host_map=hmap)
        t = time.perf_counter()
        res = analyze_clips(clips_all, SR, backend=backend, host_map=hmap, kernels=timed)
        gpu_mem_s = time.perf_counter() - t
    ksec = timed.seconds()
    kern_s = sum(ksec.values())
    assert len(res) == n_clips
    del res
    dev_s = device_stage_seconds(clips_all, backend, cupy)
    gpu_corpus_s = gpu_corpus(audio, work / "gpu-corpus", backend, args.workers)
    corpus_bad = compare_records(corpus_records(work / "gpu-corpus"),
                                 corpus_records(work / "cpu-corpus"))

    def rt(s: float) -> float:
        return audio_s / s if s > 0 else float("inf")

    label = "GPU" if ok else "GPU path on NumPy (emulation, NOT GPU figures)"
    log(f"\n== {label}: {audio_s / 3600:.2f} h of {SR} Hz FOA audio, {n_clips} clips ==")
    log(f"kernels alone (Numba {'CUDA' if ok else 'CPU'}: "
        + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in sorted(ksec.items()))
        + f"): {rt(kern_s):,.0f}x real time (target {TARGET_KERNELS:,.0f}x)")
    log(f"device stage (STFT .. peaks, device-resident audio): {rt(dev_s):,.0f}x real time")
    log(f"end to end in memory: {rt(gpu_mem_s):,.0f}x real time vs CPU {rt(cpu_mem_s):,.0f}x "
        f"-> ratio {cpu_mem_s / gpu_mem_s:.1f} (target {TARGET_E2E:,.0f}x)")
    log(f"end to end corpus (files -> clips.jsonl + frames): {rt(gpu_corpus_s):,.0f}x vs CPU "
        f"{rt(cpu_corpus_s):,.0f}x -> ratio {cpu_corpus_s / gpu_corpus_s:.1f}; "
        f"records {'identical' if not corpus_bad else f'DIFFER in {len(corpus_bad)} clips'}")
    if ok:
        from foakit.gpu.batch import device_bytes_per_sample
        from foakit.params import AnalysisParams

        est = device_bytes_per_sample(AnalysisParams().grid(SR))
        log(f"peak device memory (CuPy pool): {peak[0] / 2**30:.2f} GiB "
            f"(estimate used for batch sizing: {est:.0f} B per sample)")
    else:
        log("peak device memory: UNMEASURED (no device)")
    log(f"total {time.perf_counter() - t0:.0f} s")
    return 1 if failures or demo_bad or corpus_bad else 0


def device_stage_seconds(clips: list[np.ndarray], backend: str, cupy) -> float:
    """Stage 1 (STFT .. peaks, results to pinned memory) on device-resident batches."""
    from foakit.gpu import batch as B
    from foakit.gpu.pipeline import MAX_BATCH_SAMPLES
    from foakit.params import AnalysisParams

    params = AnalysisParams()
    per = max(1, MAX_BATCH_SAMPLES // clips[0].shape[1])
    x, n = B.pack_clips(clips[:per])
    reps = math.ceil(len(clips) / per)
    if cupy is None:
        t = time.perf_counter()
        for _ in range(reps):
            B.submit(x, n, SR, params=params)
        return time.perf_counter() - t
    xd = cupy.asarray(x)
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(2)]
    B.submit(xd, n, SR, params=params, xp=cupy, stream=streams[0]).done.synchronize()
    cupy.cuda.Device().synchronize()
    t = time.perf_counter()
    pending = []
    for r in range(reps):
        pending.append(B.submit(xd, n, SR, params=params, xp=cupy, stream=streams[r % 2]))
        if len(pending) > 2:
            pending.pop(0).done.synchronize()
    for st in pending:
        st.done.synchronize()
    return time.perf_counter() - t


if __name__ == "__main__":
    sys.exit(main())
