"""The ``sobench`` sub-commands: ``foakit baseline``, ``score`` and ``audit sobench``.

Exit status: 0 every item (or file) done, 1 some inputs failed (reported; the outputs are
still complete), 2 usage or format error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ...cli.audit import add_audit_options, report_audit
from ...cli.common import (
    add_shared_options,
    open_dask,
    print_capped,
    require_counts,
    run_benchmark,
)


def add_baseline(sub: argparse._SubParsersAction) -> None:
    """``foakit baseline sobench``."""
    p = sub.add_parser(
        "sobench", help="SO-Bench: oracle / prior / dsp predictions.jsonl",
        description="Answer every QA item of an SO-Bench root (qa/test.jsonl and the audio "
        "it names) and write predictions.jsonl in QA order: qa_id, audio_path, task_name, "
        "prediction (value first, with its unit) and a foakit object (values, evidence, "
        "event used, why). oracle: from answer_meta / canonical_answer (upper bound); "
        "prior: trivial constant answers (floor); dsp: blind, from foakit's analysis.")
    p.add_argument("root", metavar="ROOT", help="SO-Bench folder (holds qa/test.jsonl)")
    p.add_argument("--kind", choices=("dsp", "oracle", "prior"), required=True)
    add_shared_options(p, "out", out={"required": True, "metavar": "PREDICTIONS",
                                      "help": "predictions.jsonl to write"})
    p.add_argument("--split", default="test", help="QA split (default: test)")
    p.add_argument("--analysis", metavar="DIR", default=None,
                   help="dsp: foakit analysis folder to reuse or fill (default: a "
                   "temporary folder)")
    add_shared_options(p, "channel_order", "normalisation", "workers")
    p.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="cpu",
                   help="dsp: compute backend (default: cpu)")
    add_shared_options(p, "no_progress", "dask", "dask_dashboard")
    p.set_defaults(func=run_benchmark, benchmark_run=_run_baseline)


def _read_share(args: argparse.Namespace) -> str:
    """"; questions with every cue read N/M (P %)" for a dsp run, else ""."""
    if args.kind != "dsp":
        return ""
    from ...errors import FoakitError
    from .format import load_qa, parse_question

    try:
        items = load_qa(args.root, args.split).items
    except (FoakitError, OSError):  # the run itself reported why the QA file cannot be read
        return ""
    ok = sum(not parse_question(it.question).unparsed for it in items)
    return f"; questions with every cue read {ok}/{len(items)}" + (
        f" ({ok / len(items):.1%})" if items else "")


def _run_baseline(args: argparse.Namespace) -> int:
    from collections import Counter

    from .baselines import run_baseline
    from .format import write_predictions

    if (bad := require_counts(args, "foakit baseline")) is not None:
        return bad
    with open_dask(args if args.kind == "dsp" else None, "foakit baseline") as cluster:
        result = run_baseline(args.root, args.kind, split=args.split,
                              analysis_dir=args.analysis, channel_order=args.channel_order,
                              normalisation=args.normalisation,
                              workers=args.workers, progress=not args.no_progress,
                              backend=args.backend, dask=cluster)
    path = write_predictions(args.out, result.predictions)
    rows = result.predictions
    abstained = Counter(r["task_name"] for r in rows if r["foakit"]["abstained"])
    print(f"foakit baseline sobench: {args.kind}: {len(rows)} predictions -> {path}; "
          f"{sum(abstained.values())} abstentions"
          + (" (" + ", ".join(f"{t} {n}" for t, n in sorted(abstained.items())) + ")"
             if abstained else "") + _read_share(args), file=sys.stderr)
    print_capped(result.problems, prefix="  problem: ", more_prefix="  ")
    return 1 if result.problems else 0


def add_score(sub: argparse._SubParsersAction) -> None:
    """``foakit score sobench``."""
    p = sub.add_parser(
        "sobench", help="SO-Bench: task-aware accuracy by the official rules",
        description="Score predictions.jsonl against ROOT/qa/test.jsonl by the official "
        "SO-Bench rules (scripts/score_sobench.py), reading values from each prediction's "
        "foakit object when present, else from the text like the official no-API fallback "
        "(first number; first two for a span). Relations and motion are judged locally; "
        "source-identity tasks need the LLM judge and are reported apart.")
    p.add_argument("root", metavar="ROOT", help="SO-Bench folder (holds qa/test.jsonl)")
    p.add_argument("predictions", metavar="PREDICTIONS", nargs="+",
                   help="predictions.jsonl; several files give a side-by-side table (columns "
                   "named by file stem) and a JSON report per file name")
    add_shared_options(p, "out", out={"metavar": "REPORT", "help": "write the JSON report"})
    p.add_argument("--records", metavar="JSONL", default=None,
                   help="write one judged record per QA item (one predictions file only)")
    p.add_argument("--json", action="store_true", help="print the JSON report, not a table")
    p.add_argument("--split", default="test", help="QA split (default: test)")
    p.add_argument("--angle-threshold-deg", type=float, default=20.0,
                   help="azimuth: correct when the wrapped error is <= this (default 20)")
    p.add_argument("--elevation-threshold-deg", type=float, default=10.0,
                   help="elevation: |error| limit in degrees (default 10)")
    p.add_argument("--distance-threshold-m", type=float, default=1.0,
                   help="distance: |error| limit in metres (default 1.0)")
    p.add_argument("--time-threshold-s", type=float, default=0.2,
                   help="onset_from_location: |error| limit in seconds (default 0.2)")
    p.add_argument("--wer-threshold", type=float, default=0.5,
                   help="speech_content: correct when WER <= this (default 0.5)")
    p.add_argument("--values", choices=("auto", "text", "foakit"), default="auto",
                   help="read values from the foakit object when present (auto), from the "
                   "text only like the official no-API fallback (text), or the object only")
    p.add_argument("--spatial-temporal-time-policy", default="semantic_times_iou",
                   choices=("semantic_times_iou", "semantic_only"))
    p.add_argument("--text-order", choices=("code", "readme"), default="code",
                   help="which text field of a prediction is read: the official scorer's code "
                   "order, prediction_cleaned, then prediction, then prediction_raw (default; "
                   "its published numbers come from it), or the order its README documents, "
                   "prediction first (readme)")
    p.add_argument("--source-match", choices=("judge", "exact"), default="judge",
                   help="source-identity tasks: leave to the LLM judge (default), or count "
                   "correct when the canonical label appears in the prediction (exact)")
    p.set_defaults(func=run_benchmark, benchmark_run=_run_score)


def _run_score(args: argparse.Namespace) -> int:
    from .format import load_qa, read_predictions
    from .scoring import (
        ScoreConfig,
        format_comparison,
        format_report,
        score_predictions,
    )

    config = ScoreConfig(
        angle_threshold_deg=args.angle_threshold_deg,
        elevation_threshold_deg=args.elevation_threshold_deg,
        distance_threshold_m=args.distance_threshold_m,
        time_threshold_s=args.time_threshold_s, wer_threshold=args.wer_threshold,
        values=args.values, spatial_temporal_time_policy=args.spatial_temporal_time_policy,
        source_match=args.source_match, text_order=args.text_order)
    qa = load_qa(args.root, args.split)
    reports, bad = {}, False
    for path in args.predictions:
        name = Path(path).name.removesuffix(".jsonl").removesuffix(".predictions")
        if name in reports:
            name = str(path)
        report = score_predictions(qa.items, read_predictions(path), config)
        records = report.pop("records")
        report["qa_file"], report["predictions_file"] = str(qa.path), str(path)
        reports[name] = report
        bad |= _complain(report, name if len(args.predictions) > 1 else "")
        if args.records and len(args.predictions) == 1:
            with open(args.records, "w", encoding="utf-8") as fh:
                for rec in records:
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    single = len(reports) == 1
    payload = next(iter(reports.values())) if single else reports
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(payload, indent=2, allow_nan=False) + "\n",
                                  encoding="utf-8")
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        print(format_report(payload) if single else format_comparison(reports))
    return 1 if bad else 0


def _complain(report: dict, name: str) -> bool:
    """Print a report's matching problems on stderr; True when there are any."""
    p = report["problems"]
    where = f" ({name})" if name else ""
    for key in ("duplicate_prediction_ids", "unmatched_predictions"):
        for line in list(p[key])[:10]:
            print(f"foakit score sobench{where}: {key.replace('_', ' ')}: {line}",
                  file=sys.stderr)
    if p["missing_predictions"]:
        print(f"foakit score sobench{where}: {len(p['missing_predictions'])} QA item(s) have "
              "no prediction (counted wrong)", file=sys.stderr)
    return bool(p["missing_predictions"] or p["duplicate_prediction_ids"]
                or p["unmatched_predictions"])


def add_audit(sub: argparse._SubParsersAction) -> None:
    """``foakit audit sobench``."""
    s = sub.add_parser("sobench", help="SO-Bench: qa/test.jsonl and its FOA audio",
                       description="Audit the labels of an SO-Bench root.")
    s.add_argument("root", metavar="ROOT", help="SO-Bench folder (holds qa/test.jsonl)")
    s.add_argument("--split", default="test", help="QA split (default: test)")
    add_audit_options(s)
    s.set_defaults(func=_run_audit)


def _run_audit(args: argparse.Namespace) -> int:
    import os

    from ...audit.checkpoint import ESTIMATES_DIR
    from .audit import audit_sobench

    if (bad := require_counts(args, "foakit audit")) is not None:
        return bad
    if not os.path.exists(args.root):
        print(f"foakit audit: error: {args.root}: no such folder", file=sys.stderr)
        return 2
    with open_dask(args, "foakit audit") as cluster:
        result = audit_sobench(args.root, split=args.split, channel_order=args.channel_order,
                               normalisation=args.normalisation,
                               workers=args.workers, progress=not args.no_progress,
                               estimates_dir=os.path.join(args.out, ESTIMATES_DIR),
                               retry_errors=args.retry_errors, dask=cluster)
    return report_audit(args, result)
