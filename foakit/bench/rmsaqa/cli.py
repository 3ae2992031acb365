"""The ``rmsaqa`` sub-commands of ``foakit baseline``, ``foakit score`` and ``foakit audit``.

Only the standard library is imported here; each ``RUN`` imports what it needs.
Exit status: 0 all well; 1 some inputs failed (record problems, missing or broken audio,
missing answers; reported on stderr, the rest done); 2 usage or format error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ...cli.common import add_shared_options, open_dask, print_capped, require_counts

__all__ = ["add_baseline", "add_score", "add_audit"]


def _qa(p: argparse.ArgumentParser) -> None:
    p.add_argument("qa", metavar="QA", help="RMS-AQA QA JSON file or per-sample directory")


def _audio_root(p: argparse.ArgumentParser) -> None:
    p.add_argument("--audio-root", metavar="DIR", default=None,
                   help="what audio_path is relative to; derived paths are dev_audio/... "
                   "and train_audio/... (default: the folder holding the QA file or "
                   "directory)")


def add_baseline(sub: argparse._SubParsersAction) -> None:
    """``foakit baseline rmsaqa QA --kind ... -o answers.jsonl``."""
    p = sub.add_parser(
        "rmsaqa", help="RMS-AQA: oracle / chance / prior / dsp answers",
        description="Answer every two-stage item of an RMS-AQA QA JSON and write answers "
        "JSONL (segment_id, item, stage1, stage2, and a foakit object saying what each "
        "answer rests on). oracle: the reference letters; chance: uniform letters from "
        "--seed; prior: per stage and category the letter most often right in the file "
        "(it reads the labels); dsp: blind (the answer fields are not read), from foakit's "
        "analysis of the audio (counts, directions, times); where the signal decides "
        "nothing it abstains (null answer, counted).")
    _qa(p)
    p.add_argument("--kind", choices=("oracle", "chance", "prior", "dsp"), required=True)
    add_shared_options(p, "out", out={"required": True, "metavar": "ANSWERS",
                                      "help": "answers JSONL"})
    _audio_root(p)
    p.add_argument("--analysis", metavar="DIR", default=None,
                   help="dsp: foakit analysis folder to reuse or fill (default: temporary)")
    p.add_argument("--seed", type=int, default=0, help="chance: random seed (default 0)")
    add_shared_options(p, "channel_order", "normalisation", "workers", "no_progress", "dask",
                       "dask_dashboard")
    p.set_defaults(func=run_baseline)


def run_baseline(args: argparse.Namespace) -> int:
    from collections import Counter

    from .answers import write_answers
    from .baselines import LABELLED
    from .baselines import run_baseline as run
    from .format import load_qa

    if (bad := require_counts(args, "foakit baseline rmsaqa")) is not None:
        return bad
    qa = load_qa(args.qa, audio_root=args.audio_root, labels=args.kind in LABELLED)
    with open_dask(args if args.kind == "dsp" else None, "foakit baseline") as cluster:
        res = run(qa, args.kind, seed=args.seed, analysis_dir=args.analysis,
                  channel_order=args.channel_order, normalisation=args.normalisation,
                  workers=args.workers,
                  progress=not args.no_progress, dask=cluster)
    path = write_answers(args.out, res.rows)
    msg = f"foakit baseline rmsaqa: {args.kind}: {len(res.rows)} items -> {path}"
    if args.kind == "dsp":
        ab = Counter()
        for r in res.rows:
            for s in ("stage1", "stage2"):
                ab[s] += r["foakit"][s]["abstained"]
        msg += (f"; abstained (null answer) stage 1 {ab['stage1']}, stage 2 {ab['stage2']} "
                f"of {len(res.rows)}")
        from .claims import coverage

        cov = coverage(t for it in qa for p in (it.stage1, it.stage2)
                       for t in p.options.values())
        if cov["n"]:
            msg += (f"; options with every cue read {cov['fully_read']}/{cov['n']} "
                    f"({cov['share']:.1%})")
    print(msg, file=sys.stderr)
    print_capped(res.problems, prefix="  problem: ")
    return 1 if res.problems else 0


def add_score(sub: argparse._SubParsersAction) -> None:
    """``foakit score rmsaqa QA ANSWERS [ANSWERS ...] [-o report.json] [--json]``."""
    p = sub.add_parser(
        "rmsaqa", help="RMS-AQA: A_S1 / A_S2 / A_GS2 overall and per category",
        description="Score answers against an RMS-AQA QA JSON file or per-sample "
        "directory: the option letter is read from each answer by the official rule "
        "(rmsaqa-code spatial_af3/mcq.py: last <answer> tag, last answer phrase, last "
        "letter opening a line, a lone letter only when all agree), then A_S1, A_S2 and "
        "A_GS2 (both stages right) overall and per category, with each answer's extraction "
        "status and how stage 2 was conditioned. Answers: foakit's JSONL (stage1, stage2) "
        "or the official evaluation log (stage*_generated_text, stage*_pred_option). Items "
        "without an answer count as wrong; answers for records dropped at load are listed "
        "and the rest scored; an answer for an id the QA file does not hold, or a file "
        "with no answer field, is an error.")
    _qa(p)
    p.add_argument("answers", metavar="ANSWERS", nargs="+",
                   help="answers JSONL or official log (JSONL or JSON list); several give a "
                   "side-by-side table (columns named by file stem)")
    add_shared_options(p, "out", out={"metavar": "REPORT", "help": "write the JSON report"})
    p.add_argument("--json", action="store_true", help="print the JSON report, not a table")
    p.add_argument("--stage2-conditioning", choices=("none", "predicted", "reference"),
                   default=None, help="what stage 2 was conditioned on, for rows that do "
                   "not say (default: the official log's rows are 'predicted', others "
                   "'unstated')")
    p.set_defaults(func=run_score)


def run_score(args: argparse.Namespace) -> int:
    from .answers import read_answers
    from .format import load_qa
    from .scoring import format_comparison, format_report, score_answers

    qa = load_qa(args.qa)
    reports, bad = {}, bool(qa.problems)
    print_capped(qa.problems, prefix="foakit score rmsaqa: QA problem: ")
    for path in args.answers:
        name = Path(path).name.removesuffix(".jsonl").removesuffix(".json")
        if name in reports:
            name = str(path)
        rows = read_answers(path)
        if args.stage2_conditioning:
            for row in rows:
                if row["stage2_conditioning"] == "unstated":
                    row["stage2_conditioning"] = args.stage2_conditioning
        rep = score_answers(qa, rows, answers_file=path)
        reports[name] = rep
        miss = rep["problems"]["missing"]
        if miss or rep["problems"]["duplicates"]:
            bad = True
            print(f"foakit score rmsaqa ({name}): {len(miss)} item(s) without an answer "
                  f"(counted wrong), {len(rep['problems']['duplicates'])} duplicate line(s) "
                  "ignored", file=sys.stderr)
    payload = next(iter(reports.values())) if len(reports) == 1 else reports
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        print(format_report(payload) if len(reports) == 1 else format_comparison(reports))
    return 1 if bad else 0


def add_audit(sub: argparse._SubParsersAction) -> None:
    """``foakit audit rmsaqa QA -o DIR [--audio-root DIR] [--channel-order ...]``."""
    p = sub.add_parser(
        "rmsaqa", help="RMS-AQA: decidable answers and the corpus' conventions",
        description="Check the stage-2 answers the signal can decide (counts, directions, "
        "times) against foakit's analysis, and audit the corpus' channel order (ambiX; "
        "W, X, Y, Z as FuMa or as the public baseline reads it) and azimuth convention "
        "(declared, mirrored, front-back) from the localization answers. Writes "
        "DIR/flags.jsonl, verdicts.jsonl, summary.json (the 'convention' block), index.md "
        "and figures/.")
    _qa(p)
    add_shared_options(p, "out", out={"required": True})
    _audio_root(p)
    p.add_argument("--analysis", metavar="DIR", default=None,
                   help="foakit analysis folder to reuse or fill (default: DIR/analysis)")
    add_shared_options(p, "channel_order", "normalisation", "workers", "no_figures", "max_figures",
                       "no_progress", "dask", "dask_dashboard")
    p.set_defaults(func=run_audit)


def run_audit(args: argparse.Namespace) -> int:
    import os

    from .audit import audit_rmsaqa, write_audit
    from .format import load_qa

    if (bad := require_counts(args, "foakit audit rmsaqa")) is not None:
        return bad
    qa = load_qa(args.qa, audio_root=args.audio_root)
    analysis = args.analysis or os.path.join(args.out, "analysis")
    with open_dask(args, "foakit audit") as cluster:
        res = audit_rmsaqa(qa, channel_order=args.channel_order, normalisation=args.normalisation,
                           analysis_dir=analysis,
                           workers=args.workers, progress=not args.no_progress, dask=cluster)
    paths = write_audit(res, args.out, figures=not args.no_figures,
                        max_figures=args.max_figures)
    c = res.summary["counts"]["by_verdict"]
    conv = res.summary["convention"]
    print(f"foakit audit rmsaqa: {res.summary['counts']['total']} stage-2 answers: "
          f"{c['consistent']} consistent, {c['suspicious']} suspicious, {c['unverifiable']} "
          f"unverifiable; convention: best {conv.get('best')}"
          f"{' (MISMATCH)' if conv.get('mismatch') else ''}: {conv.get('evidence')} "
          f"-> {paths['index']}", file=sys.stderr)
    if (nv := conv.get("normalisation")) is not None:
        print(f"  normalisation: {nv['supported']}"
              f"{' (MISMATCH)' if nv.get('mismatch') else ''}: {nv['evidence']}",
              file=sys.stderr)
    print_capped(qa.problems, prefix="  QA problem: ")
    print_capped((f"{p}: {e}" for p, e in res.failures), prefix="  error: ")
    return 1 if (res.failures or qa.problems) else 0
