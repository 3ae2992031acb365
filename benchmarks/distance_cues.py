"""How much distance information blind FOA cues carry in reverberant rooms.

For single-source clips of ``foakit.synth.random_scene`` (RT60 0.2-0.8 s, SNR 15-30 dB,
0.8-4.5 m, rendered with each room engine) it prints the correlation of ``log r`` with:

* ``ideal DRR``: ``log (r_c / r)^2`` with the room's critical distance ``r_c = 0.057
  sqrt(V / RT60)`` (an upper bound no blind cue reaches: it knows the room);
* ``diffuseness``: ``log((1 - psi) / psi)`` of the analysed event (the analysis's
  ``distance_m`` proxy);
* ``hypercardioid DRR``: direct and diffuse energy solved from the omni and a hypercardioid
  (directivity 4) aimed at the true direction, ``(4 E_beam - E_omni) / (4 (E_omni -
  E_beam))``, over the source's active frames (200 Hz - 6 kHz);
* ``onset share``: the intensity toward the source over the energy, in the time-frequency
  bins whose energy rose 6 dB or more over the three frames before (onsets, where the
  direct sound leads its reverberation);

and the share of answers within 1 m of the best shrunk log-linear fit of each cue (fitted
in-sample, so an optimistic figure) against the best constant.  Two more fits pair the
diffuseness with a fact of the room no blind cue gives, ``log RT60`` or ``log V`` (the
volume): which of them the distance answer misses.  The dsp baseline's
distance answer (``foakit.bench.sobench.calibration``) uses the diffuseness proxy.

    python benchmarks/distance_cues.py [--clips 60] [--seed 9100]
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np


def _cues(sc, x: np.ndarray) -> dict[str, float]:
    from scipy.signal import stft

    from foakit.analysis import analyze_samples
    from foakit.conventions import direction_to_vector

    s = sc.sources[0]
    out = {"ideal DRR": 2.0 * math.log(0.057 * math.sqrt(float(np.prod(sc.room_dim))
                                                         / sc.rt60_s) / s.distance_m)}
    res = analyze_samples(x, sc.sample_rate)
    evs = [e for e in res.events if abs(e.onset_s - s.onset_s) < 0.3]
    psi = max(evs, key=lambda e: e.offset_s - e.onset_s).diffuseness if evs else float("nan")
    out["diffuseness"] = math.log(max(1.0 - psi, 1e-3) / max(psi, 1e-3))
    f, t, spec = stft(x, fs=sc.sample_rate, nperseg=512, noverlap=256)
    band = (f > 200) & (f < 6000)
    w, y, z, xx = (spec[k][band] for k in range(4))
    u = direction_to_vector(s.azimuth_deg, s.elevation_deg)
    on = (t > s.onset_s + 0.05) & (t < s.offset_s)
    beam = 0.25 * w + 0.75 * (u[0] * xx + u[1] * y + u[2] * z)
    e_w, e_b = np.sum(np.abs(w[:, on]) ** 2), np.sum(np.abs(beam[:, on]) ** 2)
    out["hypercardioid DRR"] = math.log(max((4 * e_b - e_w) / (4 * (e_w - e_b)), 1e-3))
    p = np.abs(w) ** 2
    prev = np.mean([np.roll(p, k, axis=1) for k in (1, 2, 3)], axis=0)
    rise = (p > 10 ** 0.6 * prev) & ((t > s.onset_s) & (t < s.offset_s))[None, :]
    toward = np.real(np.conj(w) * (u[0] * xx + u[1] * y + u[2] * z))
    energy = 0.5 * (np.abs(w) ** 2 + np.abs(xx) ** 2 + np.abs(y) ** 2 + np.abs(z) ** 2)
    out["onset share"] = math.log(max(toward[rise].sum() / max(energy[rise].sum(), 1e-20),
                                      1e-3))
    return out


#: room facts (not blind cues) paired with the diffuseness in the extra fits
_ROOM_FACTS = {"log RT60": lambda sc: math.log(sc.rt60_s),
               "log V": lambda sc: math.log(float(np.prod(sc.room_dim)))}


def _within_1m(r: np.ndarray, cue: np.ndarray | None) -> float:
    """Best share within 1 m of ``c + w (exp(a + b cue) - c)`` (or of a constant)."""
    if cue is None:
        est = np.full_like(r, np.median(r))
    else:
        a = np.column_stack([np.ones(len(r)), cue])
        coef, *_ = np.linalg.lstsq(a, np.log(r), rcond=None)
        est = np.exp(a @ coef)
    best = 0.0
    for c in np.arange(1.0, 4.0, 0.05):
        for w in np.arange(0.0, 1.25, 0.05) if cue is not None else (0.0,):
            best = max(best, float(np.mean(np.abs(c + w * (est - c) - r) <= 1.0)))
    return best


def main() -> int:
    from foakit.synth import random_scene, render_scene

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=60)
    ap.add_argument("--seed", type=int, default=9100)
    args = ap.parse_args()
    for engine in ("ism", "pyroomacoustics"):
        rows, dist, facts = [], [], []
        for i in range(args.clips):
            sc = random_scene(args.seed + i, n_sources=1, rt60_s=(0.2, 0.8),
                              snr_db=(15.0, 30.0), sample_rate=16000)
            rows.append(_cues(sc, render_scene(sc, engine=engine)))
            dist.append(sc.sources[0].distance_m)
            facts.append({k: f(sc) for k, f in _ROOM_FACTS.items()})
        r = np.asarray(dist)
        print(f"{engine}, {len(r)} single-source clips: the best constant puts "
              f"{_within_1m(r, None):.0%} within 1 m")
        for name in rows[0]:
            v = np.asarray([row[name] for row in rows])
            ok = np.isfinite(v)
            print(f"  {name:18s} corr(log r) {np.corrcoef(np.log(r[ok]), v[ok])[0, 1]:+.2f}, "
                  f"fit within 1 m {_within_1m(r[ok], v[ok]):.0%}")
        psi = np.asarray([row["diffuseness"] for row in rows])
        for name in _ROOM_FACTS:
            v = np.column_stack([psi, [f[name] for f in facts]])
            ok = np.all(np.isfinite(v), axis=1)
            print(f"  diffuseness + {name} (the room, not blind): fit within 1 m "
                  f"{_within_1m(r[ok], v[ok]):.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
