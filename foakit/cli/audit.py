"""``foakit audit sobench ROOT -o DIR`` / ``foakit audit starss --audio A --metadata M -o DIR``.

Label audits (see :mod:`foakit.audit`).  Each clip's analysis is checkpointed in
``DIR/estimates/`` (:mod:`foakit.audit.checkpoint`), so re-running with the same ``DIR``
resumes.  Exit status: 0 every file audited, 1 some files failed (listed in
``DIR/summary.json`` and on stderr), 2 usage error.
"""

from __future__ import annotations

import argparse
import os
import sys

from .common import add_common


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="audit benchmark labels against the corpus and the signal",
                       description="Check every azimuth, elevation, onset and time-span label "
                       "against what the rest of the corpus and the audio say; write "
                       "DIR/flags.jsonl (suspicious labels), DIR/verdicts.jsonl, "
                       "DIR/summary.json (counts, convention audit), figures and DIR/index.md. "
                       "Each clip's analysis is checkpointed in DIR/estimates/: re-running with "
                       "the same -o DIR resumes (a run killed at any moment loses only the "
                       "clips in flight); a clip is analysed again when its audio file, the "
                       "channel order or the analysis parameters change.")
    kinds = p.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    s = kinds.add_parser("sobench", help="SO-Bench: qa/test.jsonl and its FOA audio",
                         description="Audit the labels of an SO-Bench root.")
    s.add_argument("root", metavar="ROOT", help="SO-Bench folder (holds qa/test.jsonl)")
    s.add_argument("--split", default="test", help="QA split (default: test)")
    _common(s)
    s.set_defaults(func=run)
    t = kinds.add_parser("starss", help="STARSS / DCASE: label CSVs and FOA audio",
                         description="Audit STARSS / DCASE label CSVs against their audio.")
    t.add_argument("--audio", required=True, metavar="DIR", help="FOA audio folder")
    t.add_argument("--metadata", required=True, metavar="DIR", help="label CSV folder")
    _common(t)
    t.set_defaults(func=run)
    from ..bench.airbench.cli import add_audit as add_airbench
    from ..bench.halluaudio.cli import add_audit as add_halluaudio

    add_airbench(kinds)
    add_halluaudio(kinds)
    p.set_defaults(func=_usage(p))


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--out", required=True, metavar="DIR",
                   help="output folder; an earlier run there is resumed")
    add_common(p)
    p.add_argument("--workers", type=int, default=None,
                   help="analysis processes (default: all cores)")
    p.add_argument("--retry-errors", action="store_true",
                   help="analyse again the clips an earlier run in DIR recorded as failed")
    p.add_argument("--no-figures", action="store_true", help="write no figures")
    p.add_argument("--max-figures", type=int, default=None, metavar="N",
                   help="figures for at most N flags, the most confident (default: all)")


def _usage(p: argparse.ArgumentParser):
    def show(args: argparse.Namespace) -> int:
        p.print_help(sys.stderr)
        return 2

    return show


def run(args: argparse.Namespace) -> int:
    from ..audit import audit_sobench, audit_starss, write_report
    from ..audit.checkpoint import ESTIMATES_DIR

    if args.workers is not None and args.workers < 1:
        print(f"foakit audit: error: --workers {args.workers} must be >= 1", file=sys.stderr)
        return 2
    if args.max_figures is not None and args.max_figures < 0:
        print(f"foakit audit: error: --max-figures {args.max_figures} must be >= 0",
              file=sys.stderr)
        return 2
    progress = not args.no_progress
    resume = dict(estimates_dir=os.path.join(args.out, ESTIMATES_DIR),
                  retry_errors=args.retry_errors)
    if args.benchmark == "sobench":
        if not os.path.exists(args.root):
            print(f"foakit audit: error: {args.root}: no such folder", file=sys.stderr)
            return 2
        result = audit_sobench(args.root, split=args.split, channel_order=args.channel_order,
                               workers=args.workers, progress=progress, **resume)
    else:
        for name in ("audio", "metadata"):
            if not os.path.isdir(getattr(args, name)):
                print(f"foakit audit: error: --{name} {getattr(args, name)}: no such folder",
                      file=sys.stderr)
                return 2
        result = audit_starss(args.audio, args.metadata, channel_order=args.channel_order,
                              workers=args.workers, progress=progress, **resume)
    paths = write_report(result, args.out, figures=not args.no_figures,
                         max_figures=args.max_figures)
    c = result.summary["counts"]["by_verdict"]
    conv = result.summary["convention"]
    print(f"foakit audit {args.benchmark}: {result.summary['counts']['total']} labels: "
          f"{c['consistent']} consistent, {c['suspicious']} suspicious, "
          f"{c['unverifiable']} unverifiable; convention: best {conv.get('best')}"
          f"{' (MISMATCH)' if conv.get('mismatch') else ''}; "
          f"{len(result.failures)} file(s) failed -> {paths['index']}", file=sys.stderr)
    ck = result.checkpoints
    print(f"  clips: {ck['analysed']} analysed, {ck['loaded']} already done (read from "
          f"{ck['dir']})", file=sys.stderr)
    for path, err in result.failures[:20]:
        print(f"  error: {path}: {err}", file=sys.stderr)
    if len(result.failures) > 20:
        print(f"  ... {len(result.failures) - 20} more in summary.json", file=sys.stderr)
    return 1 if result.failures else 0
