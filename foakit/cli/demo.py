"""``foakit demo``: synthesise a small FOA corpus with known truth, analyse it, compare."""

from __future__ import annotations

import argparse
import math
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


#: A true source's own direct sound this little above the noise (dB) is called quiet
QUIET_DIRECT_SNR_DB = 8.0
#: Rooms this reverberant (RT60, s) are named in an explanation
LIVE_RT60_S = 0.5


def _direct_level_db(s: dict) -> float:
    """A true source's direct-sound level at the microphone (dB; 0 for level 0 at 1 m)."""
    return float(s.get("level_db", 0.0)) - 20.0 * math.log10(max(float(s["distance_m"]), 1e-3))


def _path(s: dict) -> list[float]:
    """Azimuths along a true source's path (start, middle, end; one for a fixed source)."""
    from ..conventions import azimuth_difference

    a0, a1 = float(s["azimuth_deg"]), s.get("azimuth_end_deg")
    if a1 is None:
        return [a0]
    half = float(azimuth_difference(a1, a0)) / 2.0
    return [a0, a0 + half, a0 + 2 * half]


def _angle_to(s: dict, az: float, el: float) -> float:
    from ..conventions import angular_distance

    return min(float(angular_distance(a, s["elevation_deg"], az, el)) for a in _path(s))


def explain_miss(truth: dict, sources: list[dict], events: list[dict], pairs: dict[int, int],
                 *, direct_snr_db: float | None = None, rt60_s: float | None = None,
                 onset_tol_s: float = 0.2, near_deg: float = 20.0) -> str:
    """Why a true source was not detected: what the estimates show about it and what in the
    scene makes it hard.

    Parameters
    ----------
    truth : dict
        The missed source (``foakit.synth.Source.to_dict()``); one of ``sources``.
    sources : list of dict
        Every true source of the clip.
    events : list of dict
        The clip's estimated events (``Event.to_dict()``).
    pairs : dict of int to int
        Event index -> index in ``sources`` of the true source it was matched to.
    direct_snr_db : float, optional
        The source's own direct-sound SNR (:func:`foakit.synth.direct_snr_db`).
    rt60_s : float, optional
        The room's reverberation time (None: anechoic).
    onset_tol_s, near_deg : float
        What counts as the right onset and the right direction.

    Returns
    -------
    str
        One line of clauses separated by ``; ``.
    """
    on = float(truth["onset_s"])
    what: list[str] = []
    from_dir = [(j, e) for j, e in enumerate(events) if e.get("azimuth_deg") is not None
                and _angle_to(truth, e["azimuth_deg"], e["elevation_deg"]) <= near_deg]
    fits = [(j, e) for j, e in from_dir if abs(e["onset_s"] - on) <= onset_tol_s]
    if fits:
        j, e = fits[0]
        other = sources[pairs[j]] if j in pairs else None
        what.append(f"the event from {e['azimuth_deg']:.1f} deg at {e['onset_s']:.2f} s fits "
                    "it" + (f" but is paired with the source at {other['azimuth_deg']:.1f} "
                            "deg (the pairing weighs onset and direction errors together)"
                            if other is not None and other is not truth else ""))
    elif from_dir:
        e = min((e for _, e in from_dir), key=lambda e: abs(e["onset_s"] - on))
        what.append(f"found from its direction ({e['azimuth_deg']:.1f} deg) only from "
                    f"{e['onset_s']:.2f} s, {e['onset_s'] - on:+.2f} s off")
    else:
        what.append(f"no event from within {near_deg:g} deg of its direction")
    playing = [o for o in sources if o is not truth and o["onset_s"] < on - 1e-9
               and o["offset_s"] > on]
    for o in sorted(playing, key=_direct_level_db, reverse=True)[:2]:
        db = _direct_level_db(truth) - _direct_level_db(o)
        what.append(f"it starts {on - o['onset_s']:.1f} s after the source at "
                    f"{o['azimuth_deg']:.1f} deg began, while that one plays, "
                    f"{abs(db):.1f} dB {'below' if db < 0 else 'above'} it at the microphone "
                    "(a masked onset)")
    for o in sources:
        if o is truth:
            continue
        ang = min(_angle_to(truth, a, o["elevation_deg"]) for a in _path(o))
        if ang < 2 * near_deg:
            what.append(f"it lies {ang:.0f} deg from the source at {o['azimuth_deg']:.1f} deg")
    if direct_snr_db is not None and direct_snr_db < QUIET_DIRECT_SNR_DB:
        what.append(f"its own direct sound is only {direct_snr_db:.1f} dB above the noise")
    if truth.get("azimuth_end_deg") is not None:
        what.append(f"it moves ({truth.get('motion', 'moving')})")
    if rt60_s is not None and rt60_s >= LIVE_RT60_S:
        what.append(f"in a room with RT60 {rt60_s:.2f} s")
    return "; ".join(what)


def explain_extra(event: dict, sources: list[dict], *, onset_tol_s: float = 0.2,
                  near_deg: float = 20.0) -> str:
    """What an estimated event that detects no true source lines up with in the scene.

    Parameters
    ----------
    event : dict
        The unmatched event (``Event.to_dict()``).
    sources : list of dict
        Every true source of the clip (``foakit.synth.Source.to_dict()``).
    onset_tol_s, near_deg : float
        What counts as the same onset and the same direction.

    Returns
    -------
    str
        One line of clauses separated by ``; ``.
    """
    on = float(event["onset_s"])
    what: list[str] = []
    if event.get("azimuth_deg") is None:
        return "an event without a direction"
    az, el = float(event["azimuth_deg"]), float(event["elevation_deg"])
    near = sorted(((_angle_to(o, az, el), o) for o in sources), key=lambda p: p[0])
    if near and near[0][0] <= near_deg:
        ang, o = near[0]
        rel = on - float(o["onset_s"])
        what.append(f"from the direction of the source at {o['azimuth_deg']:.1f} deg "
                    f"({ang:.0f} deg off), starting {rel:+.2f} s from its onset "
                    + ("(the same sound found twice)" if o["onset_s"] <= on <= o["offset_s"]
                       else "(outside its span)"))
    else:
        what.append("no true source within "
                    f"{near_deg:g} deg of its direction" + (
                        f" (nearest: {near[0][1]['azimuth_deg']:.1f} deg, {near[0][0]:.0f} "
                        "deg off)" if near else ""))
    same_onset = [o for o in sources if abs(float(o["onset_s"]) - on) <= onset_tol_s
                  and _angle_to(o, az, el) > near_deg]
    for o in same_onset:
        what.append(f"it starts with the source at {o['azimuth_deg']:.1f} deg "
                    f"({on - float(o['onset_s']):+.2f} s): a reflection of its onset")
    if not any(o["onset_s"] - onset_tol_s <= on <= o["offset_s"] for o in sources):
        what.append("no true source plays then")
    return "; ".join(what)


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
    from ..synth import Scene, direct_snr_db
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
    missed = explained = extra = 0
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
            # an event the pairing gave it outside the onset tolerance is an extra, below
            est = ("missed" if not m.detected else
                   f"{e['azimuth_deg']:7.1f} {e['elevation_deg']:6.1f}  "
                   f"{e['onset_s']:4.1f}-{e['offset_s']:4.1f}  {e['motion']}")
            name = row["audio_id"][:24] if k == 0 else ""
            print(f"{name:<26} {t:<40} {est:<40}")
            if not m.detected:
                missed += 1
                pairs = {next(j for j, e in enumerate(events) if e is mm.estimate): i
                         for i, mm in enumerate(ms) if mm.estimate is not None}
                snr = direct_snr_db(Scene.from_dict(row))[k]
                why = explain_miss(s, row["sources"], events, pairs, direct_snr_db=snr,
                                   rt60_s=row.get("rt60_s"))
                explained += bool(why)
                print(f"{'':<28}why missed: {why}")
        hits = [m.estimate for m in ms if m.detected]
        for e in events:
            if e.get("azimuth_deg") is None or any(e is h for h in hits):
                continue
            extra += 1
            est = (f"{e['azimuth_deg']:7.1f} {e['elevation_deg']:6.1f}  "
                   f"{e['onset_s']:4.1f}-{e['offset_s']:4.1f}  {e['motion']}")
            print(f"{'':<26} {'extra event (no true source)':<40} {est:<40}")
            print(f"{'':<28}why extra: {explain_extra(e, row['sources'])}")
        if rec:
            print(f"{'':<26} sources: truth {len(row['sources'])}, estimated "
                  f"{rec['n_sources']}")
            for b in rec.get("background") or []:
                print(f"{'':<26} background (steady, not an event): "
                      f"{b['azimuth_deg']:.1f} / {b['elevation_deg']:.1f} deg, "
                      f"{b['level_db']:.1f} dB")
    s = summarise(matches, counts)
    print(f"\n{s['detected']}/{s['true_events']} true events detected (onset within 0.2 s); "
          f"azimuth within 20 deg: {s['azimuth_within_tol']:.0%}, elevation within 10 deg: "
          f"{s['elevation_within_tol']:.0%}; median |az err| "
          f"{s['median_abs_azimuth_error_deg']:.1f} deg; exact source count "
          f"{s['exact_count_rate']:.0%} of clips")
    if missed:
        print(f"{missed} missed, {explained} of them explained above (why missed)")
    if extra:
        print(f"{extra} extra event(s) matching no true source (why extra, above)")
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
