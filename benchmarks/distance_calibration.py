"""Calibrate the diffuseness distance proxy on synthetic reverberant rooms.

The proxy is ``r = r_c sqrt(psi / (1 - psi))`` (diffuse-field model, DRR = (r_c / r)^2). This
fits ``r_c`` (median of ``r_true / sqrt(psi / (1 - psi))`` over detected single-source events)
on foakit.synth rooms (RT60 0.2-0.8 s, SNR 15-30 dB, 0.8-4.5 m, built-in ISM engine) and
reports the error of the fitted and of the current default ``distance_rc_m``.

    python benchmarks/distance_calibration.py [--clips 80] [--seed 0]

``--dsp`` fits instead the SO-Bench dsp baseline's blind distance answer
(:data:`foakit.bench.sobench.calibration.DISTANCE_CALIBRATION`) on the TUNING corpora only:
``write_sobench_corpus`` seeds 100-103 and 105-108 with both engines (ism, pyroomacoustics),
RT60 0.2-0.8 s, 1-3 sources, 16 kHz / 20 s for even seeds and 24 kHz / 10 s for odd ones (the
real benchmarks' rates and lengths), plus the anechoic seed 104 (ism, 16 kHz / 20 s); the
measurement families of benchmarks/sobench_dsp_vs_prior.py use seeds 200 and up, those of
benchmarks/sobench_heldout_bar.py seeds 500 and up.

    python benchmarks/distance_calibration.py --dsp [--clips 60]

``--motion-gate`` chooses the dsp baseline's motion gate
(:data:`foakit.bench.sobench.calibration.MOTION_GATE`) on the same tuning corpora, asked
``classify_motion``: it prints the share of right answers for a grid of the gate's least
azimuth change and least event confidence, and the smallest change among the events the
analysis calls moving.

    python benchmarks/distance_calibration.py --motion-gate [--clips 60]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np


def collect(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from foakit.analysis import analyze_samples
    from foakit.conventions import angular_distance
    from foakit.synth import random_scene, render_scene

    psis, dists = [], []
    for i in range(n):
        sc = random_scene(seed * 1000 + i, n_sources=1, rt60_s=(0.2, 0.8), snr_db=(15.0, 30.0))
        res = analyze_samples(render_scene(sc, engine="ism"), sc.sample_rate)
        s = sc.sources[0]
        good = [e for e in res.events if abs(e.onset_s - s.onset_s) < 0.3 and
                angular_distance(e.azimuth_deg, e.elevation_deg, s.azimuth_deg,
                                 s.elevation_deg) < 30]
        if good:
            ev = max(good, key=lambda e: e.offset_s - e.onset_s)
            psis.append(ev.diffuseness)
            dists.append(s.distance_m)
    return np.asarray(psis), np.asarray(dists)


#: (seed, engine, sample rate, duration in s, RT60 range) of the dsp calibration's tuning corpora
TUNING = [(seed, engine, 16000 if seed % 2 == 0 else 24000, 20.0 if seed % 2 == 0 else 10.0,
           (0.2, 0.8))
          for seed in (100, 101, 102, 103, 105, 106, 107, 108)
          for engine in ("ism", "pyroomacoustics")] + [(104, "ism", 16000, 20.0, None)]


def tuning_answers(n_clips: int, tmp: str, task: str
                   ) -> Iterator[tuple[dict[str, Any], list[dict]]]:
    """Each tuning corpus written with questions of ``task`` and answered by the dsp
    baseline: yields (its items by ``qa_id``, the dsp's prediction rows)."""
    from pathlib import Path

    from foakit.bench.sobench.baselines import run_baseline
    from foakit.bench.sobench.format import load_qa
    from foakit.bench.sobench.synth import write_sobench_corpus

    for seed, engine, sr, dur, rt60 in TUNING:
        root = Path(tmp) / f"{seed}_{engine}"
        write_sobench_corpus(root, n_clips=n_clips, seed=seed, sample_rate=sr, duration_s=dur,
                             rt60_s=rt60, n_sources=(1, 3), allow_motion=True, engine=engine,
                             tasks=[task])
        items = {it.qa_id: it for it in load_qa(root, "test").items}
        yield items, run_baseline(root, "dsp", analysis_dir=root / "analysis",
                                  workers=1).predictions


def collect_dsp(n_clips: int, tmp: str) -> tuple[list[float], list[float], list[float]]:
    """Cue and truth of the events the dsp baseline answers estimate_distance from."""
    conf, truth, no_cue = [], [], []
    for items, rows in tuning_answers(n_clips, tmp, "estimate_distance"):
        for row in rows:
            ev, d = row["foakit"]["event"], items[row["qa_id"]].answer_meta.get("distance_m")
            if ev is None or d is None:
                continue
            if ev.get("distance_m") is None or ev.get("confidence") is None:
                no_cue.append(float(d))
            else:
                conf.append(float(ev["confidence"]))
                truth.append(float(d))
    return conf, truth, no_cue


def collect_motion(n_clips: int, tmp: str) -> list[tuple[dict | None, str | None]]:
    """The event the dsp baseline answers each ``classify_motion`` item from (None where it
    abstains) and the item's motion label, on the tuning corpora."""
    from foakit.bench.sobench.scoring import motion_label

    out = []
    for items, rows in tuning_answers(n_clips, tmp, "classify_motion"):
        for row in rows:
            item = items[row["qa_id"]]
            out.append(((row.get("foakit") or {}).get("event"),
                        motion_label(item.canonical_answer or item.answer)))
    return out


def main_motion_gate(n_clips: int) -> int:
    import tempfile

    from foakit.bench.sobench.calibration import MOTION_GATE, MotionGate, gated_motion
    from foakit.bench.sobench.dsp import _DSP_MOTION
    from foakit.bench.sobench.scoring import motion_label, motion_right

    with tempfile.TemporaryDirectory() as tmp:
        rows = collect_motion(n_clips, tmp)

    def right(gate: MotionGate) -> float:
        # as the official rule scores it: an abstention or an item without a label is wrong
        ok = []
        for ev, gold in rows:
            pred = None if ev is None else motion_label(  # the dsp's words for the label
                _DSP_MOTION.get(gated_motion(ev, gate)[0], "moving"))
            ok.append(gold is not None and pred is not None and motion_right(pred, gold))
        return float(np.mean(ok))

    moving = [info["change_deg"] for label, info in
              (gated_motion(ev, MotionGate(0.0, 0.0)) for ev, _ in rows if ev is not None)
              if label != "stationary"]
    print(f"{len(rows)} classify_motion items; {len(moving)} answered from events the "
          f"analysis calls moving (smallest change {min(moving, default=float('nan')):.1f} "
          "deg)")
    confs = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.08)
    print("least change \\ least confidence " + " ".join(f"{c:>6g}" for c in confs))
    for deg in (0.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0):
        print(f"{deg:>32g} " + " ".join(f"{right(MotionGate(deg, c)):6.1%}" for c in confs))
    print(f"in use ({MOTION_GATE.min_change_deg:g} deg, {MOTION_GATE.min_confidence:g}): "
          f"{right(MOTION_GATE):.1%}; no gate: {right(MotionGate(0.0, 0.0)):.1%}")
    return 0


def main_dsp(n_clips: int) -> int:
    import tempfile

    from foakit.bench.sobench.calibration import DISTANCE_CALIBRATION, fit_distance_calibration

    with tempfile.TemporaryDirectory() as tmp:
        conf, truth, no_cue = collect_dsp(n_clips, tmp)
    cal = fit_distance_calibration(conf, truth, no_cue_truth_m=no_cue)
    t, c = np.asarray(truth), np.asarray(conf)
    for name, k in (("fitted", cal), ("in use", DISTANCE_CALIBRATION)):
        ans = np.array([k.answer(x) for x in c])
        within = np.mean(np.abs(ans - t) <= 1.0)
        print(f"{name}: within 1 m {within:.1%} of {len(t)} events with a cue; constant "
              f"{k.constant_m:g} m on {len(no_cue)} without: "
              f"{np.mean(np.abs(k.constant_m - np.asarray(no_cue)) <= 1.0):.1%}")
    print(f"constant alone on the cue events: "
          f"{np.mean(np.abs(cal.constant_m - t) <= 1.0):.1%}; "
          f"corr(log r, log confidence) {np.corrcoef(np.log(t), np.log(c))[0, 1]:.2f}")
    print(cal)
    return 0


def main() -> int:
    from foakit.params import AnalysisParams

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dsp", action="store_true",
                    help="fit the SO-Bench dsp blind distance answer on the tuning corpora")
    ap.add_argument("--motion-gate", action="store_true",
                    help="the SO-Bench dsp motion gate's right answers on the tuning corpora")
    args = ap.parse_args()
    if args.dsp:
        return main_dsp(args.clips or 60)
    if args.motion_gate:
        return main_motion_gate(args.clips or 60)
    args.clips = args.clips or 80
    psi, dist = collect(args.clips, args.seed)
    g = np.sqrt(np.clip(psi, 1e-6, 1 - 1e-6) / np.clip(1 - psi, 1e-6, None))
    rc = float(np.median(dist / g))
    lo, hi = AnalysisParams().distance_range_m
    default = AnalysisParams().distance_rc_m

    def mae(r: float) -> tuple[float, float]:
        est = np.clip(r * g, lo, hi)
        return float(np.mean(np.abs(est - dist))), float(np.mean(np.abs(est - dist) <= 1.0))

    const = float(np.median(dist))
    print(f"{len(dist)} events from {args.clips} single-source reverberant clips; "
          f"psi median {np.median(psi):.2f}; corr(log r, log g) "
          f"{np.corrcoef(np.log(dist), np.log(g))[0, 1]:.2f}")
    for name, r in (("fitted", rc), ("default", default)):
        m, ok = mae(r)
        print(f"r_c {name} = {r:.2f} m: mean |error| {m:.2f} m, within 1 m {ok:.0%}")
    print(f"constant median distance {const:.2f} m: mean |error| "
          f"{np.mean(np.abs(const - dist)):.2f} m, within 1 m "
          f"{np.mean(np.abs(const - dist) <= 1.0):.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
