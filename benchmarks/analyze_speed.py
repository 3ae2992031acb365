"""Speed of ``foakit analyze`` against a straightforward scipy.signal.stft + intensity loop.

Writes N hours of synthetic 4-channel 16 kHz clips (10 s each) to a temporary folder, then in
one run times

* the reference: for each file, soundfile.read, ``scipy.signal.stft`` of the 4 channels with
  the same window / hop, active intensity and energy per bin, one process;
* ``foakit analyze`` as a subprocess (whole process: start-up, decode, analysis, writing),

and prints the ratio, the real-time factor, and the peak memory of ``foakit analyze`` on the
corpus and on its first half (it must stay flat as the corpus grows).

``--rooms`` writes reverberant clips instead (ISM rooms of RT60 0.2-0.8 s with 1-3 sources,
the scenes of ``accuracy.py``; 36 rendered and written over and over): the analysis steps
that run on reverberant clips only (the onset support, the leakage and lead-in rules) are
then timed too.

    python benchmarks/analyze_speed.py [--hours 1.0] [--workers 2] [--rooms]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import soundfile as sf


def write_clips(root: str, n_clips: int, *, sr: int, clip_s: float, seed: int,
                noise_level: float, fresh_noise: bool, names: tuple[str, str]) -> int:
    """Write ``n_clips`` 4-channel PCM16 clips of 1-3 noise bursts from random directions
    over sensor noise (one draw for every clip, or a fresh one per clip with
    ``fresh_noise``), 100 a folder, named ``{names[0]}NNN/{names[1]}NNNNN.wav``; return
    their number."""
    from foakit.conventions import encode_plane_wave

    rng = np.random.default_rng(seed)
    n = int(clip_s * sr)
    noise = None if fresh_noise else rng.normal(size=(4, n)) * noise_level
    for i in range(n_clips):
        x = rng.normal(size=(4, n)) * noise_level if noise is None else noise.copy()
        for _ in range(rng.integers(1, 4)):
            on = rng.uniform(0, clip_s - 2)
            a, b = int(on * sr), int(min(clip_s, on + rng.uniform(1, 5)) * sr)
            s = np.zeros(n)
            s[a:b] = rng.normal(size=b - a) * 0.05
            x += encode_plane_wave(s, rng.uniform(-180, 180), rng.uniform(-40, 40))
        write_clip(root, i, x.T.astype(np.float32), sr, names)
    return n_clips


def write_clip(root: str, i: int, x: np.ndarray, sr: int, names: tuple[str, str]) -> None:
    """Write clip ``i`` (``x`` [shape=(n, 4)]) as PCM16 to
    ``{root}/{names[0]}NNN/{names[1]}NNNNN.wav``, 100 clips a folder."""
    sub = os.path.join(root, f"{names[0]}{i // 100:03d}")
    os.makedirs(sub, exist_ok=True)
    sf.write(os.path.join(sub, f"{names[1]}{i:05d}.wav"), x, sr, subtype="PCM_16")


def make_corpus(root: str, hours: float, sr: int = 16000, clip_s: float = 10.0) -> int:
    """``hours`` of 10 s clips (seed 0, one sensor-noise draw for every clip)."""
    return write_clips(root, int(np.ceil(hours * 3600 / clip_s)), sr=sr, clip_s=clip_s,
                       seed=0, noise_level=0.003, fresh_noise=False, names=("d", "c"))


def make_room_corpus(root: str, hours: float, *, unique: int = 36, seed: int = 0,
                     sr: int = 16000, clip_s: float = 10.0) -> int:
    """``hours`` of 10 s reverberant clips: ``unique`` ISM rooms (1-3 sources, RT60 0.2-0.8
    s, SNR 8-20 dB, 0.8-4.5 m: the multi-source scenes of ``accuracy.py``, seed ``seed``),
    each scaled to a peak of 0.9 and written in turn until the hours are filled (rendering
    every clip would take longer than analysing it), named as :func:`make_corpus` names
    its clips (:func:`write_clip`); return their number."""
    from foakit.synth import random_scene, render_scene

    if unique < 1:
        raise ValueError(f"{unique=} must be >= 1")
    n_clips = int(np.ceil(hours * 3600 / clip_s))
    rendered = []
    for i in range(min(unique, n_clips)):
        scene = random_scene(seed * 10000 + i, n_sources=(1, 3), rt60_s=(0.2, 0.8),
                             snr_db=(8.0, 20.0), distance_m=(0.8, 4.5), sample_rate=sr,
                             duration_s=clip_s)
        x = render_scene(scene, engine="ism")
        rendered.append((0.9 / max(float(np.max(np.abs(x))), 1e-12) * x).T.astype(np.float32))
    for i in range(n_clips):
        write_clip(root, i, rendered[i % len(rendered)], sr, ("d", "c"))
    return n_clips


def reference_loop(root: str) -> float:
    """The straightforward way: scipy.signal.stft + intensity per file, one process."""
    import scipy.signal

    from foakit.params import stft_grid

    t0 = time.perf_counter()
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            x, sr = sf.read(os.path.join(dirpath, name), dtype="float32", always_2d=True)
            g = stft_grid(sr)
            _, _, z = scipy.signal.stft(x.T, fs=sr, nperseg=g.win_length,
                                        noverlap=g.win_length - g.hop_length)
            w, y, zz, xx = z
            inten = np.stack([np.real(np.conj(w) * c) for c in (xx, y, zz)])
            energy = 0.5 * (np.abs(z) ** 2).sum(axis=0)
            _ = inten.sum(), energy.sum()
    return time.perf_counter() - t0


def run_foakit(audio: str, out: str, workers: int, files: list[str] | None = None
               ) -> tuple[float, float]:
    """Wall time and peak RSS (MiB, largest process) of one ``foakit analyze`` run."""
    code = ("import resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "r = subprocess.run(sys.argv[1:])\n"
            "dt = time.perf_counter() - t\n"
            "print(dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
            "sys.exit(r.returncode)\n")
    cmd = [sys.executable, "-c", code, sys.executable, "-m", "foakit", "analyze", audio,
           "-o", out, "--workers", str(workers), "--no-progress"]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    dt, rss = r.stdout.split()
    return float(dt), float(rss)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rooms", action="store_true",
                    help="reverberant ISM rooms of 1-3 sources instead of dry noise bursts")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        audio = os.path.join(tmp, "audio")
        n = (make_room_corpus(audio, args.hours) if args.rooms
             else make_corpus(audio, args.hours))
        half = os.path.join(tmp, "half")
        os.makedirs(half)
        for d in sorted(os.listdir(audio))[: max(1, len(os.listdir(audio)) // 2)]:
            os.symlink(os.path.join(audio, d), os.path.join(half, d))
        audio_s = n * 10.0
        # warm the Numba cache outside the timed runs (a fresh install compiles once)
        run_foakit(half, os.path.join(tmp, "warm"), 1)
        t_ref = reference_loop(audio)
        t_fk, rss_full = run_foakit(audio, os.path.join(tmp, "out"), args.workers)
        _, rss_half = run_foakit(half, os.path.join(tmp, "out_half"), args.workers)
    kind = f"reverberant rooms ({min(36, n)} rendered)" if args.rooms else "dry noise bursts"
    print(f"corpus: {n} clips, {audio_s / 3600:.2f} h of 4-channel 16 kHz audio ({kind}), "
          f"{os.cpu_count()} cores, --workers {args.workers}")
    print(f"reference scipy.signal.stft + intensity loop: {t_ref:.2f} s "
          f"({audio_s / t_ref:.0f}x real time)")
    print(f"foakit analyze (whole process):               {t_fk:.2f} s "
          f"({audio_s / t_fk:.0f}x real time)")
    print(f"ratio foakit / reference speed: {t_ref / t_fk:.2f}x  (target >= 4x)")
    print(f"real-time factor: {audio_s / t_fk:.0f}x  (target >= 2000x on 2 cores)")
    print(f"peak RSS per process: {rss_half:.0f} MiB on half the corpus, {rss_full:.0f} MiB on "
          f"all of it (ratio {rss_full / rss_half:.2f}; flat = about 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
