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
                                        [--rate 16000] [--duration 10] [--rise 6]
                                        [--save FILE.npz]
    python benchmarks/onset_features.py --combine TUNED.npz [...] --on HELD.npz [...]

``--save`` keeps one run's candidates (their signals and groups) in a ``.npz`` file;
``--combine`` fits logistic scores of all eight signals (linear, and quadratic: with their
products in pairs) on the candidates of the first files and measures them on those of the
``--on`` files, which they never saw.  One tells true candidates from leakage: its ROC area,
and how many true candidates it keeps at the leakage rate of the event stage's onset test
(onset bins within ``event_onset_db`` of the cone's loud level; the threshold chosen on the
fitted files), against that test.  The other tells masked onsets from leakage among the
candidates the onset test rejects: its ROC area, and at the thresholds that admit 25 % and
50 % of the masked onsets (chosen on the fitted files, and in brackets the measured files'
own) how many leakage candidates come with each masked onset admitted.  A leakage candidate
admitted could start an event no source matches (at most one each: later steps of the event
stage may absorb some), so admitting masked onsets pays only when most of those admitted
are masked onsets.

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
#: The signals of a candidate, in the order of its row
NAMES = ("onset bins", "rise", "level", "other onset", "envelope", "direct share", "novelty",
         "distinct")
#: A saved candidate's kind: 0 leakage, 1 a true onset, 2 a true onset that is masked
KINDS = ("leakage", "true", "masked")


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
    ap.add_argument("--duration", type=float, default=10.0, help="clip length (s)")
    ap.add_argument("--rise", type=float, default=6.0, help="level rise of a candidate (dB)")
    ap.add_argument("--save", type=Path, help="keep the candidates in this .npz file")
    ap.add_argument("--combine", type=Path, nargs="+", metavar="NPZ",
                    help="fit a combined score on these saved runs' candidates")
    ap.add_argument("--on", type=Path, nargs="+", metavar="NPZ",
                    help="measure the combined score on these saved runs' candidates")
    args = ap.parse_args()
    if args.combine or args.on:
        if not (args.combine and args.on):
            ap.error("--combine needs --on" if args.combine else "--on needs --combine")
        try:
            return combine(args.combine, args.on)
        except (OSError, ValueError) as e:
            print(f"onset_features.py: {e}", file=sys.stderr)
            return 2
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
    groups = {"true": [], "masked": [], "leakage": []}
    try:
        with recording(trace):
            for i in range(args.clips):
                scene, _, yaw, x, _ = render_clip(i, args.seed, args.engine, (0.2, 0.9),
                                                  rate=args.rate, duration=args.duration,
                                                  sources=(1, 4), fan=0.5, yaw=True)
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
    for j, name in enumerate(NAMES):
        lk = [f[j] for f in groups["leakage"]]
        print(f"  {name:<14} {auc([f[j] for f in groups['true']], lk):20.3f} "
              f"{auc([f[j] for f in groups['masked']], lk):22.3f}")
    if args.save:
        _save(args.save, groups, f"{args.engine} seed {args.seed}, {args.clips} clips at "
                                 f"{args.rate} Hz, {args.duration:g} s",
              onset_db=params.event_onset_db)
    return 0


def _save(path: Path, groups: dict, title: str, *, onset_db: float) -> None:
    """Write the candidates of ``groups`` to ``path``: their signals (one row each, in
    :data:`NAMES` order), their kind (:data:`KINDS`: a masked candidate is also true, the
    same row in both lists) and the ``event_onset_db`` that called them masked."""
    rows = groups["leakage"] + groups["true"]
    masked = {id(r) for r in groups["masked"]}
    kind = [0] * len(groups["leakage"]) + [2 if id(r) in masked else 1 for r in groups["true"]]
    if kind.count(2) != len(groups["masked"]):
        raise ValueError(f"{kind.count(2)} of the {len(groups['masked'])} masked candidates "
                         "are rows of the true ones")
    np.savez(path, features=np.asarray(rows, dtype=np.float64).reshape(len(rows), len(NAMES)),
             kind=np.asarray(kind, dtype=np.int8), title=title, onset_db=onset_db)


def _load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, list[str], float]:
    """The saved candidates of ``paths`` stacked: signals, kinds, each file's title and the
    ``event_onset_db`` they were all saved with."""
    feats, kinds, titles, floors = [], [], [], set()
    for path in paths:
        with np.load(path) as z:
            missing = [k for k in ("features", "kind", "title", "onset_db") if k not in z]
            if missing:
                raise ValueError(f"{path}: no {', '.join(missing)} (not saved by --save)")
            if z["features"].ndim != 2 or z["features"].shape[1] != len(NAMES):
                raise ValueError(f"{path}: features of shape {z['features'].shape}, not "
                                 f"(n, {len(NAMES)})")
            feats.append(z["features"])
            kinds.append(z["kind"])
            titles.append(str(z["title"]))
            floors.add(float(z["onset_db"]))
    if len(floors) > 1:
        raise ValueError(f"{', '.join(map(str, paths))}: saved with event_onset_db "
                         f"{sorted(floors)}; masked means one of them")
    return np.concatenate(feats), np.concatenate(kinds), titles, floors.pop()


def pairwise(x: np.ndarray) -> np.ndarray:
    """``x`` (shape (n, d)) with the products of its columns in pairs (squares included)
    appended: a logistic score on these is a quadratic one on ``x``."""
    i, j = np.triu_indices(x.shape[1])
    return np.concatenate([x, x[:, i] * x[:, j]], axis=1)


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = 1e-2,
                 iters: int = 50) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weights of a logistic score of ``x`` (shape (n, d)) for ``y`` (0 / 1), by Newton's
    method with an L2 penalty ``l2`` on the standardised features; the two classes weigh
    alike whatever their sizes.  Returns the features' means and scales and the weights
    (the last one the bias)."""
    if not (0 < y.sum() < len(y)):
        raise ValueError(f"fit_logistic needs candidates of both classes: {int(y.sum())} of "
                         f"{len(y)} are 1")
    mu, sd = x.mean(0), x.std(0)
    sd = np.where(sd > 0, sd, 1.0)
    z = np.concatenate([(x - mu) / sd, np.ones((len(x), 1))], axis=1)
    w_cls = np.where(y == 1, 0.5 / y.sum(), 0.5 / (len(y) - y.sum()))
    w = np.zeros(z.shape[1])
    pen = np.full(z.shape[1], l2)
    pen[-1] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30, 30)))
        grad = z.T @ (w_cls * (p - y)) + pen * w
        hess = (z * (w_cls * p * (1 - p))[:, None]).T @ z + np.diag(pen)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            return mu, sd, w
    raise RuntimeError(f"fit_logistic did not converge in {iters=} iterations (last step "
                       f"{np.abs(step).max():.1e})")


def logistic_score(x: np.ndarray, mu: np.ndarray, sd: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The score (log-odds) of :func:`fit_logistic`'s weights on ``x``."""
    return ((x - mu) / sd) @ w[:-1] + w[-1]


def leakage_per_masked(score_masked: np.ndarray, score_leak: np.ndarray,
                       threshold: float) -> tuple[float, float]:
    """Share of masked candidates a ``threshold`` on the score admits, and how many leakage
    candidates it admits for each masked one (inf when it admits no masked one)."""
    got = int((score_masked >= threshold).sum())
    leak = int((score_leak >= threshold).sum())
    return got / max(len(score_masked), 1), (leak / got if got else float("inf"))


def _fitted_scores(expand, x: np.ndarray, y: np.ndarray, *on: np.ndarray) -> list[np.ndarray]:
    """The scores on each of ``on`` of a logistic score fitted to ``expand(x)`` for ``y``."""
    mu, sd, w = fit_logistic(expand(x), y.astype(np.float64))
    return [logistic_score(expand(a), mu, sd, w) for a in on]


def combine(fitted: list[Path], measured: list[Path]) -> int:
    """Fit the combined scores on ``fitted`` and print what they do on ``measured``."""
    xf, kf, tf, onset_db = _load(fitted)
    xm, km, tm, onset_db_m = _load(measured)
    if onset_db_m != onset_db:
        raise ValueError(f"the fitted files were saved with event_onset_db {onset_db:g}, the "
                         f"measured ones with {onset_db_m:g}; masked means one of them")
    print(f"fitted on {len(xf)} candidates ({(kf > 0).sum()} true, {(kf == 2).sum()} masked) "
          f"of: " + "; ".join(tf))
    print(f"measured on {len(xm)} candidates ({(km > 0).sum()} true, {(km == 2).sum()} "
          f"masked) of: " + "; ".join(tm))
    forms = (("linear", lambda a: a), ("quadratic", pairwise))
    # the event stage's onset test keeps a candidate whose onset bins come within
    # event_onset_db of the cone's loud level; a masked candidate is one it rejects
    floor = -onset_db
    passed_f, passed_m = xf[:, 0] >= floor, xm[:, 0] >= floor
    print(f"  the onset test (onset bins >= {floor:g} dB) keeps {passed_m[km > 0].mean():.1%} "
          f"of the true candidates and {passed_m[km == 0].mean():.1%} of the leakage; onset "
          f"bins alone, ROC area {auc(list(xm[km > 0, 0]), list(xm[km == 0, 0])):.3f}")
    rate_f = float(passed_f[kf == 0].mean())
    for form, expand in forms:
        sf, sm = _fitted_scores(expand, xf, kf > 0, xf, xm)
        thr = float(np.quantile(sf[kf == 0], 1 - rate_f))
        print(f"  {form} score, true vs leakage: ROC area "
              f"{auc(list(sm[km > 0]), list(sm[km == 0])):.3f}; at the onset test's leakage "
              f"rate on the fitted files it keeps {(sm[km > 0] >= thr).mean():.1%} of the true "
              f"candidates and {(sm[km == 0] >= thr).mean():.1%} of the leakage")
    rej_f, rej_m = ~passed_f & (kf != 1), ~passed_m & (km != 1)
    masked, leak = rej_m & (km == 2), rej_m & (km == 0)
    for files, rej, kind in (("fitted", rej_f, kf), ("measured", rej_m, km)):
        if not (rej & (kind == 2)).any() or not (rej & (kind == 0)).any():
            what = "masked onset" if not (rej & (kind == 2)).any() else "leakage"
            print(f"  no {what} among the candidates the onset test rejects in the {files} "
                  "files")
            return 0
    # the best single signal, chosen and oriented on the fitted files
    on_fitted = [auc(list(xf[rej_f & (kf == 2), j]), list(xf[rej_f & (kf == 0), j]))
                 for j in range(len(NAMES))]
    j = max(range(len(NAMES)), key=lambda k: abs(on_fitted[k] - 0.5))
    sign = 1.0 if on_fitted[j] >= 0.5 else -1.0
    print(f"  of the candidates the onset test rejects, {masked.sum()} masked onsets and "
          f"{leak.sum()} leakage; the best single signal on the fitted files, "
          f"{'' if sign > 0 else 'minus '}{NAMES[j]}, ROC area "
          f"{auc(list(sign * xm[masked, j]), list(sign * xm[leak, j])):.3f}")
    for form, expand in forms:
        sf, sm = _fitted_scores(expand, xf[rej_f], kf[rej_f] == 2, xf, xm)
        cells = []
        for share in (0.25, 0.5):
            thr = float(np.quantile(sf[rej_f & (kf == 2)], 1 - share))
            got, per = leakage_per_masked(sm[masked], sm[leak], thr)
            _, per_own = leakage_per_masked(sm[masked], sm[leak],
                                            float(np.quantile(sm[masked], 1 - share)))
            cells.append(f"{got:.0%} of them with {per:.1f} leakage each (own {share:.0%}: "
                         f"{per_own:.1f})")
        print(f"  {form} score, masked vs leakage: ROC area "
              f"{auc(list(sm[masked]), list(sm[leak])):.3f}; admitting " + ", ".join(cells))
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
