"""``foakit analyze AUDIO_DIR -o OUT``: corpus analysis."""

from __future__ import annotations

import argparse
import os
import sys

from .common import (
    add_shared_options,
    notice,
    open_dask,
    prestart_dask,
    print_capped,
    require_counts,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyze", help="analyse a folder of FOA / mono / stereo clips",
                       description="Analyse every .wav / .flac under AUDIO_DIR (recursively) "
                       "into OUT: clips.jsonl, frames.parquet/, manifest.json. Re-running "
                       "with the same OUT resumes.")
    p.add_argument("audio_dir", metavar="AUDIO_DIR")
    add_shared_options(p, "out", "channel_order", "normalisation", "no_progress", "workers",
                       out={"required": True, "metavar": "OUT"})
    p.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="cpu",
                   help="compute backend (default: cpu)")
    p.add_argument("--batch-size", type=int, default=16,
                   help="clips per batch, i.e. per Parquet part (default: 16); a task on "
                   "Dask holds one batch or more")
    add_shared_options(p, "retry_errors", "dask", "dask_dashboard")
    p.set_defaults(func=run)


def report(summary, out=sys.stderr) -> int:
    """Print a run summary; 0 if every file was analysed, 1 if some failed."""
    rate = summary.audio_seconds / summary.seconds if summary.seconds > 0 else 0.0
    print(f"foakit analyze: {summary.n_ok} ok, {summary.n_error} failed, "
          f"{summary.n_skipped} already done ({summary.n_error_earlier} of them failed), "
          f"{summary.audio_seconds:.1f} s of audio in "
          f"{summary.seconds:.1f} s ({rate:.0f}x real time) -> {summary.out_dir}", file=out)
    print_capped((f"{path}: {err}" for path, err in summary.errors), prefix="  error: ",
                 more_prefix="  ", where="clips.jsonl", file=out)
    return 1 if summary.n_error or summary.n_error_earlier else 0


def run(args: argparse.Namespace) -> int:
    if (bad := require_counts(args, "foakit analyze")) is not None:
        return bad
    if not os.path.isdir(args.audio_dir):
        print(f"foakit analyze: error: {args.audio_dir}: no such folder", file=sys.stderr)
        return 2
    # the workers' fork server loads foakit on another core while this process imports it
    prestart_dask(args)
    from ..corpus import analyze_corpus, keep_freed_memory

    keep_freed_memory()  # this process is ours (workers=1 analyses in it)
    with open_dask(args, "foakit analyze") as cluster:
        summary = analyze_corpus(args.audio_dir, args.out, channel_order=args.channel_order,
                                 normalisation=args.normalisation,
                                 workers=args.workers, progress=not args.no_progress,
                                 backend=args.backend, retry_errors=args.retry_errors,
                                 batch_size=args.batch_size, dask=cluster,
                                 notify=notice("foakit analyze"))
    return report(summary)
