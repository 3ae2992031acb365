"""``foakit score <benchmark> ROOT predictions.jsonl``: local scoring by the official rules.

One sub-command per benchmark (only ``sobench`` now).  Prints a per-task table; ``-o``
writes the JSON report.  Exit status: 0 every QA item had exactly one prediction, 1 some
were missing, duplicated or matched no QA item (reported; the missing count as wrong),
2 usage or format error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .common import add_benchmark_command, run_benchmark


def _add_sobench(sub: argparse._SubParsersAction) -> None:
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
    p.add_argument("-o", "--out", metavar="REPORT", default=None, help="write the JSON report")
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
    p.add_argument("--source-match", choices=("judge", "exact"), default="judge",
                   help="source-identity tasks: leave to the LLM judge (default), or count "
                   "correct when the canonical label appears in the prediction (exact)")
    p.set_defaults(func=run_benchmark, benchmark_run=_run_sobench)


def _run_sobench(args: argparse.Namespace) -> int:
    from ..bench.sobench import load_qa, read_predictions
    from ..scoring.sobench import (
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
        source_match=args.source_match)
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


def _add_airbench(sub: argparse._SubParsersAction) -> None:
    from ..bench.airbench.cli import add_score

    add_score(sub)


def _add_halluaudio(sub: argparse._SubParsersAction) -> None:
    from ..bench.halluaudio.cli import add_score

    add_score(sub)


_BENCHMARKS = (_add_sobench, _add_airbench, _add_halluaudio)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``score`` and its per-benchmark sub-commands to the ``foakit`` parser."""
    add_benchmark_command(sub, "score", help="score a benchmark's predictions locally",
                          description="Score a predictions file by a benchmark's official rules.",
                          benchmarks=_BENCHMARKS)
