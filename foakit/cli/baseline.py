"""``foakit baseline <benchmark> ROOT --kind ... -o predictions.jsonl``: reference answers.

One sub-command per benchmark (only ``sobench`` now); each adds its own options in
``_BENCHMARKS``.  Exit status: 0 every item answered from its audio (or from the labels),
1 some items abstained because their audio was missing, broken or refused (listed on
stderr; the predictions file is still complete), 2 usage error.
"""

from __future__ import annotations

import argparse
import sys

from ..conventions import CHANNEL_ORDERS
from .common import add_benchmark_command, run_benchmark


def _add_sobench(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sobench", help="SO-Bench: oracle / prior / dsp predictions.jsonl",
        description="Answer every QA item of an SO-Bench root (qa/test.jsonl and the audio "
        "it names) and write predictions.jsonl in QA order: qa_id, audio_path, task_name, "
        "prediction (value first, with its unit) and a foakit object (values, evidence, "
        "event used, why). oracle: from answer_meta / canonical_answer (upper bound); "
        "prior: trivial constant answers (floor); dsp: blind, from foakit's analysis.")
    p.add_argument("root", metavar="ROOT", help="SO-Bench folder (holds qa/test.jsonl)")
    p.add_argument("--kind", choices=("dsp", "oracle", "prior"), required=True)
    p.add_argument("-o", "--out", required=True, metavar="PREDICTIONS",
                   help="predictions.jsonl to write")
    p.add_argument("--split", default="test", help="QA split (default: test)")
    p.add_argument("--analysis", metavar="DIR", default=None,
                   help="dsp: foakit analysis folder to reuse or fill (default: a "
                   "temporary folder)")
    p.add_argument("--channel-order", choices=CHANNEL_ORDERS, default="ambix",
                   help="dsp: channel order of the FOA files (SO-Bench: ambix, W,Y,Z,X)")
    p.add_argument("--workers", type=int, default=None, help="dsp: analysis processes")
    p.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="cpu",
                   help="dsp: compute backend (default: cpu)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_benchmark, benchmark_run=_run_sobench)


def _run_sobench(args: argparse.Namespace) -> int:
    from collections import Counter

    from ..baselines.sobench import run_baseline
    from ..bench.sobench import write_predictions

    if args.workers is not None and args.workers < 1:
        print(f"foakit baseline: error: --workers {args.workers} must be >= 1",
              file=sys.stderr)
        return 2
    result = run_baseline(args.root, args.kind, split=args.split,
                          analysis_dir=args.analysis, channel_order=args.channel_order,
                          workers=args.workers, progress=not args.no_progress,
                          backend=args.backend)
    path = write_predictions(args.out, result.predictions)
    rows = result.predictions
    abstained = Counter(r["task_name"] for r in rows if r["foakit"]["abstained"])
    print(f"foakit baseline sobench: {args.kind}: {len(rows)} predictions -> {path}; "
          f"{sum(abstained.values())} abstentions"
          + (" (" + ", ".join(f"{t} {n}" for t, n in sorted(abstained.items())) + ")"
             if abstained else ""), file=sys.stderr)
    for line in result.problems[:20]:
        print(f"  problem: {line}", file=sys.stderr)
    if len(result.problems) > 20:
        print(f"  ... {len(result.problems) - 20} more", file=sys.stderr)
    return 1 if result.problems else 0


def _add_halluaudio(sub: argparse._SubParsersAction) -> None:
    from ..bench.halluaudio.cli import add_baseline

    add_baseline(sub)


_BENCHMARKS = (_add_sobench, _add_halluaudio)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``baseline`` and its per-benchmark sub-commands to the ``foakit`` parser."""
    add_benchmark_command(sub, "baseline", help="reference predictions for a benchmark",
                          description="Write a benchmark's predictions file from a baseline: "
                       "oracle (labels), prior (trivial answers) or dsp (signal analysis).",
                          benchmarks=_BENCHMARKS)
