"""How well per-cone signals tell a source's own onset from reverberant leakage.

Candidates are the frames where a kept cone's level (smoothed over 3 frames, as the event
stage smooths it) rises by at least ``--rise`` dB over the lowest of its three frames before
and reaches within 20 dB of the cone's loud level (what a new sound in the cone looks like,
and what leakage also looks like).  A
candidate is *true* when a source the cone holds starts within 0.1 s of it, *masked* when
that source's cone has no onset bins near it (the onset test of ``foakit.events`` misses
it), else *leakage*.  For each signal the script prints the area under the ROC curve of
true against leakage candidates, and of masked against leakage ones (0.5: no better than
chance):

* ``onset bins``: in-cone onset-bin energy (dB over the cone's loud level) in frames t-1..t+2;
* ``rise``: the level rise itself;
* ``level``: the cone's mean level over the next 0.1 s (dB over its loud level);
* ``other onset``: minus the strongest onset-bin energy of any other cone in t-1..t+1 (a
  leaking onset coincides with another source's);
* ``envelope``: minus the correlation of the cone's level with the loudest other cone's over
  +-0.2 s (leakage follows another source's envelope);
* ``direct share``: the share of the cone's energy in t..t+2 held by bins not more diffuse
  than ``psi_max`` / 2;
* ``novelty``: minus the cosine similarity of the cone's 16-band log spectrum (its
  non-diffuse in-cone bins) over t..t+4 with its spectrum over the 0.1 s before (a new
  source brings a new spectrum);
* ``distinct``: minus the highest such similarity with another cone's spectrum over t..t+4
  (leakage carries the spectrum of the source it leaks from).

    python benchmarks/onset_features.py [--engine ism] [--seed 0] [--clips 60]
                                        [--rate 16000] [--rise 6]

The sets are those of ``accuracy.py --sets`` (``--fan 0.5 --yaw --sources 1 4 --rt60 0.2
0.9``); the analysis itself is unchanged (its steps are recorded as ``miss_stages.py`` does).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy import render_clip  # noqa: E402
from miss_stages import _holds, cone_onsets, recording  # noqa: E402

#: How near a true onset (s) a candidate counts as that source's
NEAR_S = 0.1


def auc(pos: list[float], neg: list[float]) -> float:
    """Area under the ROC curve of ``pos`` against ``neg`` (ties count half)."""
    if not pos or not neg:
        return float("nan")
    p = np.asarray(pos, dtype=np.float64)[:, None]
    n = np.asarray(neg, dtype=np.float64)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


def candidates(level: np.ndarray, ref: float, rise_db: float) -> list[int]:
    """First frame of each run of frames whose level rises ``rise_db`` over the lowest of
    the three before and lies within 20 dB of ``ref``."""
    lo = np.full(len(level), np.inf)
    for d in range(1, 4):
        lo[d:] = np.minimum(lo[d:], level[:-d])
    hit = (level - lo >= rise_db) & (level >= ref - 20.0)
    return [int(t) for t in np.flatnonzero(hit & ~np.r_[False, hit[:-1]])]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="ism")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clips", type=int, default=60)
    ap.add_argument("--rate", type=int, default=16000)
    ap.add_argument("--rise", type=float, default=6.0, help="level rise of a candidate (dB)")
    args = ap.parse_args()
    import foakit.analysis as A
    from foakit.analysis import analyze_samples
    from foakit.params import AnalysisParams
    from foakit.synth.render import yawed_truth

    t0 = time.perf_counter()
    params = AnalysisParams()
    trace: dict = {}
    spatial = A._spatial

    def keep_psi(x, grid, params_, intensity, energy, psi, votes, *rest):
        trace["psi"], trace["energy"], trace["intensity"] = psi, energy, intensity
        trace["band"] = grid.band(params_.fmin_hz, params_.fmax_hz)
        return spatial(x, grid, params_, intensity, energy, psi, votes, *rest)

    A._spatial = keep_psi
    names = ("onset bins", "rise", "level", "other onset", "envelope", "direct share",
             "novelty", "distinct")
    groups = {"true": [], "masked": [], "leakage": []}
    try:
        with recording(trace):
            for i in range(args.clips):
                scene, _, yaw, x, _ = render_clip(i, args.seed, args.engine, (0.2, 0.9),
                                               rate=args.rate, duration=10.0, sources=(1, 4),
                                               fan=0.5, yaw=True)
                truth = [yawed_truth(s.to_dict(), yaw) for s in scene.sources]
                fr = params.grid(scene.sample_rate).frame_rate
                trace.clear()
                trace.update(truth=truth, oracle="none", frame_rate=fr)
                analyze_samples(x, scene.sample_rate, params=params)
                if "cones" not in trace:
                    continue
                _clip_features(trace, truth, fr, params, args.rise, groups)
    finally:
        A._spatial = spatial
    n = {k: len(v) for k, v in groups.items()}
    print(f"{args.engine} seed {args.seed}, {args.clips} clips, rise >= {args.rise:g} dB: "
          f"{n['true']} true candidates ({n['masked']} of them masked), {n['leakage']} "
          f"leakage; {time.perf_counter() - t0:.0f} s")
    print(f"  {'signal':<14} {'AUC true vs leakage':>20} {'AUC masked vs leakage':>22}")
    for j, name in enumerate(names):
        lk = [f[j] for f in groups["leakage"]]
        print(f"  {name:<14} {auc([f[j] for f in groups['true']], lk):20.3f} "
              f"{auc([f[j] for f in groups['masked']], lk):22.3f}")
    return 0


def _clip_features(trace: dict, truth: list[dict], fr: float, params, rise_db: float,
                   groups: dict) -> None:
    axes = trace["kept"]
    lo, hi = trace["band"]
    psi, energy = trace["psi"][:, lo:hi], trace["energy"][:, lo:hi]
    n_axes, n_frames = axes.shape[:2]
    level, refs, onset = cone_onsets(trace)
    direct = np.where(psi <= params.psi_max / 2, energy, 0.0).sum(1) / np.maximum(
        energy.sum(1), 1e-30)
    bands = _cone_bands(trace["intensity"][:, :, lo:hi], energy, psi, axes, params)
    near = int(round(NEAR_S * fr))
    for k in range(n_axes):
        held = [t for t in truth if _holds(axes[k:k + 1], t, fr, params.cone_deg)]
        for t in candidates(level[k], refs[k], rise_db):
            own = [s for s in held if abs(s["onset_s"] * fr - t) <= near]
            a, b = max(0, t - 1), min(n_frames, t + 3)
            f_on = float(onset[k, a:b].max()) - refs[k]
            f_rise = float(level[k, t] - level[k, max(0, t - 3):t].min()) if t else 0.0
            f_level = float(level[k, t:t + near].mean()) - refs[k]
            others = [j for j in range(n_axes) if j != k]
            f_other = -max((float(onset[j, a:min(n_frames, t + 2)].max()) - refs[j]
                            for j in others), default=-200.0)
            f_env = 0.0
            if others:
                loud = max(others, key=lambda j: float(level[j, a:b].mean()))
                w0, w1 = max(0, t - 10), min(n_frames, t + 10)
                u, v = level[k, w0:w1], level[loud, w0:w1]
                if u.std() > 0 and v.std() > 0:
                    f_env = -float(np.corrcoef(u, v)[0, 1])
            f_direct = float(direct[t:t + 3].mean())
            after = bands[k, t:t + 5].sum(0)
            f_novel = -_cosine(after, bands[k, max(0, t - 6):max(1, t - 1)].sum(0))
            f_distinct = -max((_cosine(after, bands[j, t:t + 5].sum(0)) for j in others),
                              default=0.0)
            row = [f_on, f_rise, f_level, f_other, f_env, f_direct, f_novel, f_distinct]
            if own:
                groups["true"].append(row)
                if f_on < -params.event_onset_db:
                    groups["masked"].append(row)
            elif not any(abs(s["onset_s"] * fr - t) <= near for s in truth):
                groups["leakage"].append(row)


def _cone_bands(intensity: np.ndarray, energy: np.ndarray, psi: np.ndarray, axes: np.ndarray,
                params, n_bands: int = 16) -> np.ndarray:
    """Energy of the non-diffuse bins inside each cone per frame in ``n_bands`` bands of
    equal width on a log-frequency scale, shape (n_axes, n_frames, n_bands)."""
    norm = np.sqrt((intensity.astype(np.float64) ** 2).sum(0))
    vote = (psi <= params.psi_max) & (norm > 0)
    u = intensity / np.where(norm > 0, norm, 1.0)
    n_bins = energy.shape[1]
    edges = np.unique(np.geomspace(1, n_bins, n_bands + 1).astype(int) - 1)
    which = np.clip(np.searchsorted(edges, np.arange(n_bins), side="right") - 1, 0,
                    len(edges) - 1)
    cos_cone = np.cos(np.deg2rad(params.cone_deg))
    out = np.zeros((len(axes), energy.shape[0], len(edges)))
    for k in range(len(axes)):
        inside = vote & (np.einsum("ctb,tc->tb", u, axes[k].astype(np.float64)) >= cos_cone)
        e = np.where(inside, energy, 0.0)
        for b in range(len(edges)):
            out[k, :, b] = e[:, which == b].sum(1)
    return out


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two band-energy vectors in dB over their floor (0 when either
    is silent)."""
    la, lb = np.log10(a + 1e-12), np.log10(b + 1e-12)
    la, lb = la - la.min(), lb - lb.min()
    na, nb = np.linalg.norm(la), np.linalg.norm(lb)
    return float(la @ lb / (na * nb)) if na > 0 and nb > 0 else 0.0


if __name__ == "__main__":
    sys.exit(main())
