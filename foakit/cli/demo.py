"""``foakit demo``: synthesise a small FOA corpus with known truth, analyse it, compare."""

from __future__ import annotations

import argparse
import os
import sys

from .common import add_shared_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="synthesise a small FOA corpus, analyse it, show "
                       "estimates against truth",
                       description="Writes a small synthetic SO-Bench-layout corpus (known "
                       "directions, timing, motion) to OUT/corpus, analyses it into "
                       "OUT/analysis and prints estimates against truth.")
    add_shared_options(p, "out", out={"default": "foakit-demo", "metavar": "OUT",
                                      "help": "demo folder (default: ./foakit-demo)"})
    p.add_argument("--clips", type=int, default=8, help="clips to synthesise (default: 8)")
    add_shared_options(p, "workers", "no_progress")
    p.add_argument("--sobench", action="store_true",
                   help="also answer the corpus' SO-Bench questions with the oracle, dsp and "
                   "prior baselines and print the per-task scores side by side")
    p.add_argument("--rmsaqa", action="store_true",
                   help="also write the RMS-AQA demo corpus (60 two-stage-QA clips) to "
                   "OUT/rmsaqa and print the oracle, chance, prior and dsp scores per category")
    p.set_defaults(func=run)


def sobench_table(corpus: str, analysis: str) -> str:
    """Per-task scores of the oracle / dsp / prior baselines on an SO-Bench-layout corpus."""
    from ..bench.sobench.baselines import run_baseline
    from ..bench.sobench.format import load_qa
    from ..bench.sobench.scoring import format_comparison, score_predictions

    items = load_qa(corpus, "test").items
    reports = {}
    for kind in ("oracle", "dsp", "prior"):
        run = run_baseline(corpus, kind, analysis_dir=analysis)
        reports[kind] = score_predictions(items, run.predictions)
    return format_comparison(reports)


def _fmt(v, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def _stale_analysis(analysis: str) -> bool:
    """True when ``analysis`` is a demo analysis made with other parameters (it holds only
    what ``foakit analyze`` writes, so it is safe to redo)."""
    import json

    from ..corpus import CLIPS_FILE, FRAMES_DIR, MANIFEST_FILE
    from ..params import AnalysisParams

    try:
        with open(os.path.join(analysis, MANIFEST_FILE), encoding="utf-8") as fh:
            old = json.load(fh).get("params")
        names = set(os.listdir(analysis))
    except (OSError, ValueError):
        return False
    current = json.loads(json.dumps(AnalysisParams().to_dict()))
    return old != current and names <= {CLIPS_FILE, FRAMES_DIR, MANIFEST_FILE}


def run(args: argparse.Namespace) -> int:
    from ..bench.sobench.synth import make_demo_corpus
    from ..corpus import analyze_corpus, load_clips
    from ..evaluate import load_truth, match_clip, summarise
    from .common import notice

    corpus = os.path.join(args.out, "corpus")
    if not os.path.exists(os.path.join(corpus, "truth", "scenes.jsonl")):
        print(f"foakit demo: synthesising {args.clips} clips into {corpus}", file=sys.stderr)
        make_demo_corpus(corpus, n_clips=args.clips)
    analysis = os.path.join(args.out, "analysis")
    if _stale_analysis(analysis):
        import shutil

        print(f"foakit demo: {analysis} was made with other analysis settings (an older "
              "foakit?); analysing again", file=sys.stderr)
        shutil.rmtree(analysis)
    summary = analyze_corpus(os.path.join(corpus, "audio"), analysis, workers=args.workers,
                             progress=not args.no_progress, notify=notice("foakit demo"))
    clips = load_clips(analysis)
    matches, counts = [], []
    print(f"{'clip':<26} {'truth az/el, onset-offset, motion':<40} "
          f"{'estimate az/el, onset-offset, motion':<40}")
    for row in load_truth(corpus):
        rel = os.path.relpath(row["audio_path"], "audio") if row["audio_path"].startswith(
            "audio") else row["audio_path"]
        rec = clips.get(rel) or clips.get(row["audio_path"])
        events = rec["events"] if rec else []
        ms = match_clip(rel, row["sources"], events)
        matches += ms
        counts.append((len(row["sources"]), rec["n_sources"] if rec else None))
        for k, m in enumerate(ms):
            s, e = m.truth, m.estimate
            t = (f"{s['azimuth_deg']:7.1f} {s['elevation_deg']:6.1f}  "
                 f"{s['onset_s']:4.1f}-{s['offset_s']:4.1f}  {s.get('motion', '')}")
            est = ("missed" if e is None else
                   f"{e['azimuth_deg']:7.1f} {e['elevation_deg']:6.1f}  "
                   f"{e['onset_s']:4.1f}-{e['offset_s']:4.1f}  {e['motion']}")
            name = row["audio_id"][:24] if k == 0 else ""
            print(f"{name:<26} {t:<40} {est:<40}")
        if rec:
            print(f"{'':<26} sources: truth {len(row['sources'])}, estimated "
                  f"{rec['n_sources']}")
    s = summarise(matches, counts)
    print(f"\n{s['detected']}/{s['true_events']} true events detected (onset within 0.2 s); "
          f"azimuth within 20 deg: {s['azimuth_within_tol']:.0%}, elevation within 10 deg: "
          f"{s['elevation_within_tol']:.0%}; median |az err| "
          f"{s['median_abs_azimuth_error_deg']:.1f} deg; exact source count "
          f"{s['exact_count_rate']:.0%} of clips")
    if args.sobench:
        print("\nSO-Bench baselines on this corpus (accuracy; mean IoU for detect_time):")
        print(sobench_table(corpus, analysis))
    if args.rmsaqa:
        from ..bench.rmsaqa import demo_table

        print()
        print(demo_table(os.path.join(args.out, "rmsaqa"), workers=args.workers))
    print(f"outputs: {analysis}/clips.jsonl, {analysis}/frames.parquet, "
          f"{analysis}/manifest.json", file=sys.stderr)
    return 0 if summary.n_error == 0 else 1
