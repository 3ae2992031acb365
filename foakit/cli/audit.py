"""``foakit audit <benchmark> ... -o DIR``: label and corpus audits.

One sub-command per registered benchmark (:data:`foakit.bench.BENCHMARKS`), added by its
``cli.add_audit``; the options and the report every FOA audit shares are here.  Each clip's
analysis is checkpointed under ``DIR``, so re-running with the same ``DIR`` resumes.  Exit
status: 0 every file audited, 1 some files failed (listed in ``DIR/summary.json`` and on
stderr), 2 usage error.
"""

from __future__ import annotations

import argparse
import sys

from .common import add_registered_command, add_shared_options, print_capped


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``audit`` and its per-benchmark sub-commands to the ``foakit`` parser."""
    add_registered_command(
        sub, "audit", "add_audit", help="audit benchmark labels against the corpus and the signal",
        description="Check a benchmark's labels against what the rest of the corpus and the "
        "audio say; write DIR/flags.jsonl (suspicious labels), DIR/summary.json, figures and "
        "DIR/index.md.  Each clip's analysis is checkpointed in DIR: re-running with the same "
        "-o DIR resumes (a run killed at any moment loses only the clips in flight).")


def add_audit_options(p: argparse.ArgumentParser) -> None:
    """Options every FOA label audit takes (``-o``, workers, resume, figures)."""
    add_shared_options(p, "out", "channel_order", "normalisation", "no_progress", "workers",
                       "retry_errors",
                       out={"required": True,
                            "help": "output folder; an earlier run there is resumed"})
    add_shared_options(p, "no_figures", "max_figures", "dask", "dask_dashboard")


def report_audit(args: argparse.Namespace, result) -> int:
    """Write an FOA audit's report into ``args.out`` and say what it found on stderr."""
    from ..audit import write_report

    paths = write_report(result, args.out, figures=not args.no_figures,
                         max_figures=args.max_figures)
    c = result.summary["counts"]["by_verdict"]
    conv = result.summary["convention"]
    print(f"foakit audit {args.benchmark}: {result.summary['counts']['total']} labels: "
          f"{c['consistent']} consistent, {c['suspicious']} suspicious, "
          f"{c['unverifiable']} unverifiable; convention: best {conv.get('best')}"
          f"{' (MISMATCH)' if conv.get('mismatch') else ''}; "
          f"{len(result.failures)} file(s) failed -> {paths['index']}", file=sys.stderr)
    if (nv := conv.get("normalisation")) is not None:
        print(f"  normalisation: {nv['supported']}"
              f"{' (MISMATCH)' if nv.get('mismatch') else ''}: {nv['evidence']}",
              file=sys.stderr)
    ck = result.checkpoints
    failed = f" ({ck['failed']} of them failed)" if ck.get("failed") else ""
    print(f"  clips: {ck['analysed']} analysed{failed}, {ck['loaded']} already done (read "
          f"from {ck['dir']})", file=sys.stderr)
    print_capped((f"{path}: {err}" for path, err in result.failures), prefix="  error: ",
                 more_prefix="  ", where="summary.json")
    return 1 if result.failures else 0
