"""How the room engines of ``foakit.synth`` differ, on the same scenes.

For each of ``--scenes`` random one-source rooms (RT60 0.2-0.9 s, 0.8-4.5 m, the scene
generator of ``accuracy.py``), every engine's FOA room response is measured:

* ``T20 / RT60``: the W channel's Schroeder decay from -5 to -25 dB, extrapolated to 60 dB,
  over the scene's nominal RT60;
* ``DRR``: direct (first millisecond) to reverberant energy on W (dB);
* ``early el err``: the elevation of the pseudo-intensity of the first 50 ms (direct sound and
  early reflections) minus the source's (degrees): how far floor and ceiling pull it;
* ``early dir err``: the angle between that direction and the source's;
* ``late Z share``: the Z channel's share of X + Y + Z energy after 50 ms (1/3 isotropic);
* ``s / RIR``: seconds per room response on this machine.

Each figure is the median over the scenes, with the 10th and 90th percentiles in brackets.

    python benchmarks/room_models.py [--scenes 30] [--rate 16000] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

ENGINES = ("ism", "pyroomacoustics", "pyroomacoustics-bands", "ism-surfaces",
           "pyroomacoustics-surfaces")


def t20(w: np.ndarray, sr: int) -> float:
    """Schroeder T20 of ``w`` (s), extrapolated to 60 dB."""
    edc = np.cumsum(w[::-1] ** 2)[::-1]
    db = 10.0 * np.log10(edc / edc[0] + 1e-30)
    i5, i25 = int(np.argmax(db <= -5.0)), int(np.argmax(db <= -25.0))
    if i25 <= i5 + 1:
        return float("nan")
    return float(-60.0 / np.polyfit(np.arange(i5, i25) / sr, db[i5:i25], 1)[0])


def measure(h: np.ndarray, sr: int, az: float, el: float) -> dict[str, float]:
    """The figures of one FOA room response ``h`` (W, Y, Z, X) of a source at (az, el)."""
    from foakit.conventions import angular_distance, vector_to_direction

    n1, n50 = max(1, sr // 1000), int(0.05 * sr)
    w = h[0]
    drr = 10.0 * np.log10(np.sum(w[:n1] ** 2) / max(float(np.sum(w[n1:] ** 2)), 1e-30))
    e = h[:, :n50]
    iv = [float(np.sum(e[0] * e[3])), float(np.sum(e[0] * e[1])), float(np.sum(e[0] * e[2]))]
    e_az, e_el = (float(v) for v in vector_to_direction(iv))
    late = np.sum(h[1:, n50:] ** 2, axis=1)
    return {"T20 / RT60": t20(w, sr), "DRR": drr, "early el err": e_el - el,
            "early dir err": float(angular_distance(e_az, e_el, az, el)),
            "late Z share": float(late[1] / max(late.sum(), 1e-30))}


def run(scenes: int, rate: int, seed: int) -> dict[str, dict[str, list[float]]]:
    """Each engine's figures over the scenes, per figure (lists in scene order)."""
    from foakit.synth import random_scene, room_impulse_response

    out: dict[str, dict[str, list[float]]] = {e: {} for e in ENGINES}
    for i in range(scenes):
        scene = random_scene(seed * 10000 + i, n_sources=1, rt60_s=(0.2, 0.9),
                             snr_db=20.0, distance_m=(0.8, 4.5), sample_rate=rate,
                             duration_s=2.0)
        src = scene.sources[0]
        for engine in ENGINES:
            t0 = time.perf_counter()
            h = room_impulse_response(scene, 0, engine=engine)
            dt = time.perf_counter() - t0
            m = measure(h, rate, src.mid_azimuth_deg, src.elevation_deg)
            m["T20 / RT60"] /= scene.rt60_s
            m["s / RIR"] = dt
            for k, v in m.items():
                out[engine].setdefault(k, []).append(v)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenes", type=int, default=30)
    p.add_argument("--rate", type=int, default=16000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.scenes < 1:
        p.error(f"--scenes {args.scenes} must be >= 1")
    res = run(args.scenes, args.rate, args.seed)
    print(f"{args.scenes} one-source rooms, RT60 0.2-0.9 s, 0.8-4.5 m, {args.rate} Hz, "
          f"seed {args.seed}: median [10th, 90th percentile]")
    figures = list(next(iter(res.values())))
    w = max(len(e) for e in res)
    print(f"  {'engine':<{w}}" + "".join(f"{k:>24}" for k in figures))
    for engine, m in res.items():
        cells = []
        for k in figures:
            v = np.asarray(m[k], dtype=float)
            lo, mid, hi = np.nanpercentile(v, [10, 50, 90])
            cells.append(f"{mid:.2f} [{lo:.2f}, {hi:.2f}]")
        print(f"  {engine:<{w}}" + "".join(f"{c:>24}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
