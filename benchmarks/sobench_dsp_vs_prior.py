"""SO-Bench dsp vs prior on held-out synthetic families: every numeric task and classify_motion.

The dsp baseline's calibrated distance answer and motion gate
(foakit/bench/sobench/calibration.py) are TUNED on ``write_sobench_corpus`` seeds 100-108
(seeds 100-103 and 105-108: engines ism and pyroomacoustics, RT60 0.2-0.8 s, 1-3 sources,
16 kHz / 20 s on even and 24 kHz / 10 s on odd seeds; seed 104: anechoic, ism; see
``benchmarks/distance_calibration.py --dsp`` and ``--motion-gate``).  This script MEASURES
on disjoint seeds:

* seed 200 / 201: 16 kHz, 20 s, RT60 0.2-0.8 s, 1-3 sources, engine ism / pyroomacoustics;
* seed 202 / 203: 24 kHz, 10 s, RT60 0.2-0.8 s, 1-3 sources, engine ism / pyroomacoustics;
* seed 204: anechoic, 16 kHz, 10 s, 1-3 sources (ism): moving sources must still be found;
* seed 205 "other design": 24 kHz, 10 s, pyroomacoustics, RT60 0.2-0.8 s, 1-3 sources,
  distances 1-3 m instead of 0.8-4.5 m, and classify_motion asked about a random source of
  each clip (foakit's generator asks about a moving source when there is one), so that the
  prior's label constants and the stationary share differ from the tuning corpora.

Tasks: estimate_azimuth, estimate_elevation, estimate_distance, onset_from_location,
count_sources, detect_time (mean IoU) and classify_motion.  Prints, per family and task, the
dsp and prior scores and dsp / prior.

    python benchmarks/sobench_dsp_vs_prior.py [--clips 36] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

TASKS = ["estimate_azimuth", "estimate_elevation", "estimate_distance", "onset_from_location",
         "count_sources", "detect_time", "classify_motion"]

_ROOM = dict(rt60_s=(0.2, 0.8), n_sources=(1, 3))
FAMILIES: dict[str, dict[str, Any]] = {
    "s200 ism 16k/20s": dict(seed=200, engine="ism", sample_rate=16000, duration_s=20.0, **_ROOM),
    "s201 pra 16k/20s": dict(seed=201, engine="pyroomacoustics", sample_rate=16000,
                             duration_s=20.0, **_ROOM),
    "s202 ism 24k/10s": dict(seed=202, engine="ism", sample_rate=24000, duration_s=10.0, **_ROOM),
    "s203 pra 24k/10s": dict(seed=203, engine="pyroomacoustics", sample_rate=24000,
                             duration_s=10.0, **_ROOM),
    "s204 anechoic 16k/10s": dict(seed=204, engine="ism", sample_rate=16000, duration_s=10.0,
                                  rt60_s=None, n_sources=(1, 3)),
    "s205 other design": dict(seed=205, engine="pyroomacoustics", sample_rate=24000,
                              duration_s=10.0, other_design=True, **_ROOM),
}


def write_family(root: Path, n_clips: int, kw: dict[str, Any]) -> None:
    from foakit.bench.sobench.synth import write_sobench_corpus

    kw = dict(kw)
    if not kw.pop("other_design", False):
        write_sobench_corpus(root, n_clips=n_clips, allow_motion=True, tasks=TASKS, **kw)
        return
    from foakit.bench.sobench import synth
    from foakit.synth.layouts import draw_scenes

    seed = kw.pop("seed")
    engine = kw.pop("engine")
    scenes = draw_scenes(n_clips, [seed, 1], allow_motion=True, snr_db=(15.0, 30.0),
                         distance_m=(1.0, 3.0), **kw)
    synth._write_sobench(root, scenes, seed=seed, channel_order="ambix", engine=engine,
                         tasks=TASKS, subtype="PCM_16")
    _motion_about_random_source(root, seed)


def _motion_about_random_source(root: Path, seed: int) -> None:
    """Re-ask each clip's classify_motion question about a random source of the clip."""
    truth = {}
    for line in (root / "truth" / "scenes.jsonl").read_text().splitlines():
        rec = json.loads(line)
        truth[rec["audio_path"]] = rec["sources"]
    rng = np.random.default_rng([seed, 99])
    words = {"stationary": "stationary", "right_to_left": "moving left",
             "left_to_right": "moving right"}
    rows = []
    for line in (root / "qa" / "test.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["task_name"] == "classify_motion":
            k = int(rng.integers(len(truth[rec["audio_path"]])))
            src = truth[rec["audio_path"]][k]
            lab = words[src.get("motion") or "stationary"]
            rec.update(question=f"Is the sound of the {src['label']} stationary or moving?",
                       answer=f"The sound of the {src['label']} is {lab}.",
                       canonical_answer=lab, source_refs=[k])
        rows.append(json.dumps(rec))
    (root / "qa" / "test.jsonl").write_text("\n".join(rows) + "\n")


def scores(root: Path, workers: int | None) -> dict[str, dict[str, tuple[float, int]]]:
    from foakit.bench.sobench.baselines import run_baseline
    from foakit.bench.sobench.format import load_qa
    from foakit.bench.sobench.scoring import score_predictions

    items = load_qa(root, "test").items
    out = {}
    for kind in ("dsp", "prior"):
        run = run_baseline(root, kind, analysis_dir=root / "analysis", workers=workers)
        per = score_predictions(items, run.predictions)["per_task"]
        out[kind] = {t: (per[t].get("mean_iou") if t == "detect_time" else per[t]["accuracy"],
                         per[t]["n"]) for t in TASKS if t in per}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=36)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--family", action="append", choices=list(FAMILIES),
                    help="only these families (repeatable)")
    args = ap.parse_args()
    below = []
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'family':24s} {'task':20s} {'n':>3s} {'dsp':>7s} {'prior':>7s} {'ratio':>6s}")
        for name in args.family or FAMILIES:
            root = Path(tmp) / name.replace(" ", "_").replace("/", "-")
            write_family(root, args.clips, FAMILIES[name])
            res = scores(root, args.workers)
            for task in TASKS:
                if task not in res["dsp"]:
                    continue
                (d, n), (p, _) = res["dsp"][task], res["prior"][task]
                ratio = d / p if p else float("inf")
                flag = "  <-- below the prior" if d < p else ""
                print(f"{name:24s} {task:20s} {n:3d} {d:7.1%} {p:7.1%} {ratio:6.2f}{flag}",
                      flush=True)
                if d < p:
                    below.append(f"{name} {task}")
    print("dsp below the prior: " + (", ".join(below) if below else "nowhere"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
