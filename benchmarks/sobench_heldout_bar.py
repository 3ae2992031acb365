"""SO-Bench audit and baselines measured on held-out wording and held-out corpus families.

MEASUREMENT ONLY.  The wording (``benchmarks/heldout_wording.py``) is written apart from
foakit's templates and parser, and a measurement set is used once: once its figures have been
read to change foakit, it is a development set, and the figures to report come from a fresh
one (``--seed-offset N`` adds N to every family's seed).  The sets read so far are listed in
``docs/sobench.md#measured``.  Tuning happens on foakit's own corpora
(``benchmarks/audit_bar.py``, ``benchmarks/sobench_bar.py``, seeds below 500).

Per family (``foakit.bench.sobench.synth.write_sobench_corpus``, 1-3 stationary sources unless
``--motion``, SNR 15-30 dB):

* ``pra24k_10s``: pyroomacoustics, 24 kHz, 10 s clips, RT60 0.2-0.8 s, seed 500;
* ``pra16k_20s``: pyroomacoustics, 16 kHz, 20 s, RT60 0.2-0.8 s, seed 510;
* ``ism16k_20s``: built-in ISM, 16 kHz, 20 s, RT60 0.2-0.8 s, seed 520;
* ``ism24k_10s``: built-in ISM, 24 kHz, 10 s, RT60 0.2-0.8 s, seed 530;

it writes the clean corpus, injects errors in 20 % of the eligible labels
(``inject_sobench_errors``, seed + 1), rewords BOTH with the held-out wording (one wording seed,
so both get the same questions; audio through a symlinked folder, or ``--layout hf`` for a
Hugging Face-cache-like tree) and prints

* the audit's precision / recall of its flags against the injected labels, overall and by
  field (azimuth, elevation, onset, span), and the fraction of clean labels flagged;
* the fraction of ``onset_from_location`` onset labels whose verdict on the clean corpus is
  not ``unverifiable`` (how often the audit could read the held-out location references);
* dsp and prior baselines per numeric task on the clean reworded corpus, scored by the
  official rules (``scoring.score_predictions``): accuracy, parse rate, median error,
  detect_time mean IoU.

The audit runs twice on each family: on the records with their ``source_refs`` (which
source each item is about, a field SO-Bench files carry only sometimes) and on the same
records without them (``audit_without_refs``); ``--refs keep`` or ``drop`` runs one.

``--compare-original`` also audits and scores the same corpora in foakit's own wording, so
the effect of the wording alone can be read off.

    python benchmarks/sobench_heldout_bar.py [--clips 25] [--families NAME ...] [--workers N]
        [--layout symlink|hardlink|hf] [--refs both|keep|drop] [--motion]
        [--compare-original] [--json OUT]
        [--keep DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FAMILIES: dict[str, dict] = {
    "pra24k_10s": {"engine": "pyroomacoustics", "sample_rate": 24000, "duration_s": 10.0,
                   "rt60_s": (0.2, 0.8), "seed": 500},
    "pra16k_20s": {"engine": "pyroomacoustics", "sample_rate": 16000, "duration_s": 20.0,
                   "rt60_s": (0.2, 0.8), "seed": 510},
    "ism16k_20s": {"engine": "ism", "sample_rate": 16000, "duration_s": 20.0,
                   "rt60_s": (0.2, 0.8), "seed": 520},
    "ism24k_10s": {"engine": "ism", "sample_rate": 24000, "duration_s": 10.0,
                   "rt60_s": (0.2, 0.8), "seed": 530},
}
NUMERIC_TASKS = ("estimate_azimuth", "estimate_elevation", "estimate_distance",
                 "onset_from_location", "count_sources", "detect_time")
FIELD_NAMES = {"azimuth": "azimuth", "elevation": "elevation", "onset": "onset",
               "time_span": "span"}


def _load(name: str):
    """A sibling benchmark script as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _suspicious(result) -> dict[str, set[str]]:
    """qa_id -> the fields the audit called suspicious."""
    out: dict[str, set[str]] = {}
    for v in result.verdicts:
        if v.verdict == "suspicious":
            out.setdefault(v.key["qa_id"], set()).add(v.field)
    return out


def audit_numbers(clean_root: Path, bad_root: Path, changes: list[dict], workers) -> dict:
    """Counts behind precision, recall and the clean flag rate of one family."""
    from foakit.bench.sobench.audit import audit_sobench
    from foakit.bench.sobench.format import load_qa

    tasks = {it.record["qa_id"]: it.task_name for it in load_qa(clean_root, "test").items}
    res_clean = audit_sobench(clean_root, workers=workers)
    res_bad = audit_sobench(bad_root, workers=workers)
    sus_clean, sus_bad = _suspicious(res_clean), _suspicious(res_bad)
    injected = {c["qa_id"]: FIELD_NAMES.get(c["field"], c["field"]) for c in changes}
    by_field: dict[str, dict[str, int]] = {}
    for f in FIELD_NAMES.values():
        flagged_f = {q for q, fs in sus_bad.items()
                     if any(FIELD_NAMES.get(x) == f for x in fs)}
        inj_f = {q for q, g in injected.items() if g == f}
        by_field[f] = {"flags": len(flagged_f), "true_flags": len(flagged_f & inj_f),
                       "injected": len(inj_f), "found": len(set(sus_bad) & inj_f)}
    onset = [v for v in res_clean.verdicts if v.field == "onset"
             and tasks.get(v.key.get("qa_id")) == "onset_from_location"]
    return {
        "labels": int(res_clean.summary["counts"]["total"]),
        "clean_flags": len(sus_clean),
        "flags": len(sus_bad),
        "true_flags": len(set(sus_bad) & set(injected)),
        "injected": len(injected),
        "by_field": by_field,
        "by_kind": _by_kind(changes, set(sus_bad)),
        "onset_from_location": len(onset),
        "onset_from_location_verifiable": sum(v.verdict != "unverifiable" for v in onset),
        "false_flag_fields": _count([f for q, fs in sus_bad.items() if q not in injected
                                     for f in sorted(fs)]),
    }


def _by_kind(changes: list[dict], flagged: set[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for c in changes:
        out.setdefault(c["kind"], [0, 0])
        out[c["kind"]][0] += c["qa_id"] in flagged
        out[c["kind"]][1] += 1
    return out


def _count(xs: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return out


def baseline_records(root: Path, workers, analysis_dir: Path) -> dict[str, list[dict]]:
    """Judge records of the dsp and prior baselines on ``root``, per kind."""
    from foakit.bench.sobench.baselines import run_baseline
    from foakit.bench.sobench.format import load_qa
    from foakit.bench.sobench.scoring import score_predictions

    items = load_qa(root, "test").items
    out = {}
    for kind in ("dsp", "prior"):
        run = run_baseline(root, kind, analysis_dir=analysis_dir, workers=workers)
        out[kind] = score_predictions(items, run.predictions)["records"]
    return out


def task_scores(records: list[dict]) -> dict[str, dict]:
    """Per numeric task: n, accuracy over judged records, parse rate, median error, IoU."""
    out = {}
    for task in NUMERIC_TASKS:
        rs = [r for r in records if r["task_name"] == task]
        if not rs:
            continue
        judged = [r["correct"] for r in rs if r["status"] != "needs_judge"
                  and r["correct"] is not None]
        errs = [r["error"] for r in rs if r["error"] is not None]
        ious = [r["iou"] for r in rs if r["iou"] is not None]
        out[task] = {
            "n": len(rs),
            "accuracy": sum(judged) / len(judged) if judged else None,
            "parse_rate": sum(bool(r["parsed"]) for r in rs) / len(rs),
            "median_error": statistics.median(errs) if errs else None,
        }
        if task == "detect_time":
            out[task]["mean_iou"] = sum(ious) / len(ious) if ious else None
    return out


def rates(a: dict) -> dict:
    """Precision, recall and rates from the counts of :func:`audit_numbers` (or their sum)."""
    r = {
        "precision": a["true_flags"] / a["flags"] if a["flags"] else 1.0,
        "recall": a["true_flags"] / a["injected"] if a["injected"] else 1.0,
        "clean_flag_rate": a["clean_flags"] / a["labels"] if a["labels"] else 0.0,
        "onset_from_location_not_unverifiable": (
            a["onset_from_location_verifiable"] / a["onset_from_location"]
            if a["onset_from_location"] else None),
        "by_field": {},
    }
    for f, c in a["by_field"].items():
        r["by_field"][f] = {
            "precision": c["true_flags"] / c["flags"] if c["flags"] else None,
            "recall": c["found"] / c["injected"] if c["injected"] else None,
            "counts": c}
    return r


def _sum(blocks: list[dict]) -> dict:
    tot = {k: sum(b[k] for b in blocks) for k in ("labels", "clean_flags", "flags",
                                                  "true_flags", "injected",
                                                  "onset_from_location",
                                                  "onset_from_location_verifiable")}
    tot["by_field"] = {f: {k: sum(b["by_field"][f][k] for b in blocks)
                           for k in ("flags", "true_flags", "injected", "found")}
                       for f in FIELD_NAMES.values()}
    return tot


def run_family(name: str, fam: dict, tmp: Path, args, wording) -> dict:
    from foakit.bench.sobench.inject import inject_sobench_errors
    from foakit.bench.sobench.synth import write_sobench_corpus

    seed = int(fam["seed"]) + int(args.seed_offset)
    base = tmp / name
    clean, bad = base / "clean", base / "injected"
    write_sobench_corpus(clean, n_clips=args.clips, seed=seed, engine=fam["engine"],
                         sample_rate=fam["sample_rate"], duration_s=fam["duration_s"],
                         rt60_s=fam["rt60_s"], snr_db=(15.0, 30.0), n_sources=(1, 3),
                         allow_motion=bool(args.motion))
    changes = inject_sobench_errors(clean, bad, rate=0.2, seed=seed + 1)
    out = {"corpus": {k: v for k, v in fam.items()}, "clips": args.clips,
           "layout": args.layout}
    variants = {"keep": [True], "drop": [False], "both": [True, False]}[args.refs]
    for refs in variants:
        tag = "" if refs else "_norefs"
        clean_h = wording.rewrite_corpus(clean, base / f"clean_heldout{tag}", seed=seed,
                                         audio=args.layout, refs=refs)
        bad_h = wording.rewrite_corpus(bad, base / f"injected_heldout{tag}", seed=seed,
                                       audio=args.layout, refs=refs)
        # "audit" is the first variant run; the second of "both" is the one without refs
        key = "audit" if "audit" not in out else "audit_without_refs"
        out[key] = audit_numbers(clean_h, bad_h, changes, args.workers)
        if "records" not in out:
            out["records"] = baseline_records(clean_h, args.workers, base / "analysis")
    if args.compare_original:
        out["audit_original"] = audit_numbers(clean, bad, changes, args.workers)
        out["records_original"] = baseline_records(clean, args.workers, base / "analysis")
    return out


def _fmt(x, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.1f}%" if pct else f"{x:.3g}"


def report(name: str, audit: dict, records: dict[str, list[dict]]) -> list[str]:
    r = rates(audit)
    lines = [f"== {name} ==",
             f"audit: precision {_fmt(r['precision'])} ({audit['true_flags']}/{audit['flags']}), "
             f"recall {_fmt(r['recall'])} ({audit['true_flags']}/{audit['injected']}), "
             f"clean flagged {_fmt(r['clean_flag_rate'], True)} "
             f"({audit['clean_flags']}/{audit['labels']}), onset_from_location not "
             f"unverifiable {_fmt(r['onset_from_location_not_unverifiable'], True)} "
             f"({audit['onset_from_location_verifiable']}/{audit['onset_from_location']})"]
    for f, c in r["by_field"].items():
        k = c["counts"]
        lines.append(f"  {f:9s} precision {_fmt(c['precision'])} ({k['true_flags']}/"
                     f"{k['flags']}), recall {_fmt(c['recall'])} ({k['found']}/{k['injected']})")
    if not records:
        return lines
    sc = {kind: task_scores(rs) for kind, rs in records.items()}
    lines.append(f"  {'task':22s} {'n':>4s} {'dsp acc':>8s} {'prior acc':>9s} "
                 f"{'dsp parse':>9s} {'dsp med err':>11s} {'prior med err':>13s} {'IoU dsp/prior'}")
    for task in NUMERIC_TASKS:
        d, p = sc["dsp"].get(task), sc["prior"].get(task)
        if d is None:
            continue
        iou = (f"{_fmt(d.get('mean_iou'))}/{_fmt(p.get('mean_iou'))}"
               if task == "detect_time" else "")
        lines.append(f"  {task:22s} {d['n']:4d} {_fmt(d['accuracy']):>8s} "
                     f"{_fmt(p['accuracy']):>9s} {_fmt(d['parse_rate']):>9s} "
                     f"{_fmt(d['median_error']):>11s} {_fmt(p['median_error']):>13s} {iou}")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clips", type=int, default=25, help="clips per family (default 25)")
    p.add_argument("--families", nargs="+", choices=sorted(FAMILIES), default=list(FAMILIES))
    p.add_argument("--layout", choices=("symlink", "hardlink", "hf"), default="symlink")
    p.add_argument("--refs", choices=("both", "keep", "drop"), default="both",
                   help="audit the records with their source_refs, without them, or both "
                        "(default both; without them: audit_without_refs)")
    p.add_argument("--motion", action="store_true", help="let sources move")
    p.add_argument("--compare-original", action="store_true",
                   help="also audit and score the corpora in foakit's own wording")
    p.add_argument("--seed-offset", type=int, default=0,
                   help="added to every family's seed: a fresh measurement set (default 0)")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--json", default=None, help="write the numbers here")
    p.add_argument("--keep", default=None, help="write the corpora here and keep them")
    args = p.parse_args(argv)
    wording = _load("heldout_wording")
    tmp = Path(args.keep or tempfile.mkdtemp(prefix="foakit_heldout_bar_"))
    tmp.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results: dict[str, dict] = {}
    try:
        for name in args.families:
            results[name] = run_family(name, FAMILIES[name], tmp, args, wording)
            for line in report(name, results[name]["audit"], results[name]["records"]):
                print(line, flush=True)
            if "audit_without_refs" in results[name]:
                print(report(f"{name} without source_refs", results[name]["audit_without_refs"],
                             {})[1], flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    overall = _sum([r["audit"] for r in results.values()])
    recs = {k: [x for r in results.values() for x in r["records"][k]] for k in ("dsp", "prior")}
    for line in report("overall (held-out wording)", overall, recs):
        print(line)
    out = {"families": {}, "overall": {"audit": overall, "rates": rates(overall),
                                       "scores": {k: task_scores(v) for k, v in recs.items()}}}
    if all("audit_without_refs" in r for r in results.values()) and results:
        nr = _sum([r["audit_without_refs"] for r in results.values()])
        for line in report("overall without source_refs", nr, {}):
            print(line)
        out["overall"]["audit_without_refs"] = nr
        out["overall"]["rates_without_refs"] = rates(nr)
    if args.compare_original:
        o_aud = _sum([r["audit_original"] for r in results.values()])
        o_rec = {k: [x for r in results.values() for x in r["records_original"][k]]
                 for k in ("dsp", "prior")}
        for line in report("overall (foakit's own wording, same corpora)", o_aud, o_rec):
            print(line)
        out["overall_original"] = {"audit": o_aud, "rates": rates(o_aud),
                                   "scores": {k: task_scores(v) for k, v in o_rec.items()}}
    for name, r in results.items():
        fam = {"corpus": r["corpus"], "clips": r["clips"], "layout": r["layout"],
               "audit": r["audit"], "rates": rates(r["audit"]),
               "scores": {k: task_scores(v) for k, v in r["records"].items()}}
        if "audit_without_refs" in r:
            fam["audit_without_refs"] = r["audit_without_refs"]
            fam["rates_without_refs"] = rates(r["audit_without_refs"])
        if args.compare_original:
            fam["audit_original"] = r["audit_original"]
            fam["rates_original"] = rates(r["audit_original"])
            fam["scores_original"] = {k: task_scores(v)
                                      for k, v in r["records_original"].items()}
        out["families"][name] = fam
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(f"seconds: {out['seconds']}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
