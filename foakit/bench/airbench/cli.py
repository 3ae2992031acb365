"""``foakit audit airbench``, ``foakit score airbench``, ``foakit judge-requests airbench``.

Only the standard library is imported here; each command imports its pieces when it runs.
Exit status: 0 all inputs fine, 1 some failed (reported, the rest done), 2 usage or format
error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ...cli.common import add_shared_options, open_dask, print_capped, require_counts

__all__ = ["add_audit", "add_score", "add_judge_requests"]


def _err(cmd: str, msg: str) -> int:
    print(f"foakit {cmd} airbench: error: {msg}", file=sys.stderr)
    return 2


def add_audit(sub: argparse._SubParsersAction) -> None:
    """Add ``airbench`` to ``foakit audit``."""
    p = sub.add_parser(
        "airbench", help="AIR-Bench Chat: is every clip sound, and does it fit its item",
        description="Decode and measure every AIR-Bench Chat clip (levels, clipping, DC, "
        "stereo faults, speech activity, SNR, BS.1770 loudness, duplicates) and hold it "
        "against its item (missing files, meta_info, transcriptions without speech, speech "
        "tasks without speech, task duration and loudness ranges). Writes DIR/items.jsonl, "
        "flags.jsonl, summary.json, index.md and figures/; DIR/measures.jsonl is the "
        "checkpoint, so a rerun with the same -o resumes.")
    p.add_argument("root", metavar="ROOT", help="folder holding Chat/Chat_meta.json")
    p.add_argument("--records", metavar="FILE", default=None,
                   help="read the items from an evalscope record file instead")
    add_shared_options(p, "out", "workers", "no_progress", "retry_errors", "no_figures",
                       "max_figures", "dask", "dask_dashboard", out={"required": True})
    p.set_defaults(func=run_audit)


def run_audit(args: argparse.Namespace) -> int:
    from .audit import audit_airbench

    if (bad := require_counts(args, "foakit audit airbench")) is not None:
        return bad
    if not os.path.isdir(args.root):
        return _err("audit", f"{args.root}: no such folder")
    with open_dask(args, "foakit audit") as cluster:
        res = audit_airbench(args.root, args.out, records=args.records, workers=args.workers,
                             progress=not args.no_progress, retry_errors=args.retry_errors,
                             figures=not args.no_figures, max_figures=args.max_figures,
                             dask=cluster)
    c, f = res.summary["counts"], res.summary["flags"]
    ck = res.summary["checkpoint"]
    print(f"foakit audit airbench: {c['items']} items, {c['measured']} measured "
          f"({ck['analysed']} now, {ck['loaded']} from the checkpoint), {c['failed']} "
          f"failed; {f['items_flagged']} flagged: "
          + ", ".join(f"{k} {n}" for k, n in f["by_kind"].items())
          + f" -> {res.paths['index']}", file=sys.stderr)
    print_capped((f"{path}: {err}" for path, err in res.failures), prefix="  error: ",
                 more_prefix="  ", where="summary.json")
    return 1 if res.failures else 0


def add_score(sub: argparse._SubParsersAction) -> None:
    """Add ``airbench`` to ``foakit score``."""
    p = sub.add_parser(
        "airbench", help="AIR-Bench Chat: the official cal_score.py table from judge outputs",
        description="Aggregate LLM-judge outputs (gen as score_chat.py writes it, or "
        "gpt-score as cal_score.py reads it; JSON lines or a JSON list) per category and "
        "Mixed and per task, parsing each judge line exactly as cal_score.py does. Records "
        "are split by their order field (a file from foakit judge-requests holds both "
        "orders), never pooled. With both orders: per-order tables, the per-item mean over "
        "the orders and the agreement between them.")
    p.add_argument("judged", metavar="JUDGED", help="judge outputs, reference first "
                   "(Assistant 1 = answer_gt), unless --order says otherwise")
    p.add_argument("swapped", metavar="JUDGED_SWAPPED", nargs="?", default=None,
                   help="the same items judged in the other order")
    p.add_argument("--order", choices=("reference-first", "model-first"),
                   default="reference-first", help="the order of JUDGED's records that "
                   "name none (records written from foakit judge-requests carry their own)")
    add_shared_options(p, "out", out={"metavar": "REPORT", "help": "write the JSON report"})
    p.add_argument("--json", action="store_true", help="print the JSON report, not a table")
    p.set_defaults(func=run_score)


def run_score(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .scoring import format_report, read_judged, score_judged

    for f in (args.judged, args.swapped):
        if f is not None and not os.path.isfile(f):
            return _err("score", f"{f}: no such file")
    judged = read_judged(args.judged)
    swapped = read_judged(args.swapped) if args.swapped else None
    report = score_judged(judged, swapped, order=args.order)
    report["files"] = {"judged": args.judged, "swapped": args.swapped}
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=2, allow_nan=False) + "\n",
                                  encoding="utf-8")
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    failed = sum(o["failed"] for o in report["orders"].values())
    unpaired = len(report.get("combined", {}).get("unpaired", []))
    if failed or unpaired:
        print(f"foakit score airbench: {failed} judge line(s) failed the official parse"
              + (f", {unpaired} item(s) judged in one order only" if unpaired else ""),
              file=sys.stderr)
    return 1 if failed or unpaired else 0


def add_judge_requests(sub: argparse._SubParsersAction) -> None:
    """Add ``airbench`` to ``foakit judge-requests``."""
    p = sub.add_parser(
        "airbench", help="AIR-Bench Chat: the official pairwise judge prompt per item",
        description="Write one judge request per item and order with the official "
        "score_chat.py prompt (audio description, question, the two answers). Nothing is "
        "sent anywhere: feed requests.jsonl to your judge and score its outputs with "
        "foakit score airbench.")
    p.add_argument("responses", metavar="RESPONSES",
                   help="the model run (Chat_result_modelx.jsonl fields)")
    add_shared_options(p, "out", out={"required": True, "metavar": "REQUESTS",
                                      "help": "requests.jsonl"})
    p.add_argument("--order", choices=("both", "reference-first", "model-first"),
                   default="both", help="which orders to write (default: both)")
    p.set_defaults(func=run_judge_requests)


def run_judge_requests(args: argparse.Namespace) -> int:
    from ...signal.report import write_jsonl
    from .format import read_json_records
    from .judge import build_requests

    if not os.path.isfile(args.responses):
        return _err("judge-requests", f"{args.responses}: no such file")
    reqs, skipped = build_requests(read_json_records(args.responses), order=args.order)
    write_jsonl(args.out, reqs)
    print(f"foakit judge-requests airbench: {len(reqs)} request(s) -> {args.out}; "
          f"{len(skipped)} record(s) skipped", file=sys.stderr)
    for s in skipped[:20]:
        print(f"  skipped: {args.responses}:{s['line']}: {s['key']}: {s['reason']}",
              file=sys.stderr)
    return 1 if skipped else 0
