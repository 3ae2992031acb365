"""``foakit score|baseline|audit|judge-requests halluaudio ...``: the HalluAudio commands.

Each ``add_*`` adds one parser named ``halluaudio`` to a command's sub-parsers.  Only the
standard library is imported here; the work is imported inside each ``run_*``.  Exit status:
0 all ok, 1 some inputs failed or were unmatched (reported, the rest done), 2 usage or format
error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ...cli.common import add_shared_options, open_dask, print_capped, require_counts

NAME = "halluaudio"

__all__ = ["add_score", "add_baseline", "add_audit", "add_judge_requests"]


def _say(command: str, text: str) -> None:
    print(f"foakit {command} {NAME}: {text}", file=sys.stderr)


def _problems(command: str, lines: list[str]) -> None:
    print_capped(lines, prefix=f"foakit {command} {NAME}: ")


def _root(p: argparse.ArgumentParser) -> None:
    p.add_argument("root", metavar="ROOT", help="HalluAudio dataset root (the parquet "
                   "configs multiple_choice / open_freeform, a folder each or files named "
                   "after them)")


# ---------------------------------------------------------------- score

def add_score(sub: argparse._SubParsersAction) -> None:
    """``foakit score halluaudio ROOT RESPONSES.jsonl [-o report.json] [--judge-labels L]``."""
    p = sub.add_parser(NAME, help="HalluAudio: closed cases by the dataset card's rules, "
                       "open cases from judge labels",
                       description="Score RESPONSES.jsonl (audio_id, config, case_id or "
                       "case_index, response) against a HalluAudio root. Closed cases "
                       "(exact_match, normalized_match, multiple_choice) are scored here; a "
                       "forbidden claim the response makes (not a negated mention or an "
                       "abstention) fails a case; a closed case without expected_result, or "
                       "whose expected key is not among its options, is counted incomplete; "
                       "what the local scorer cannot decide is counted as needing the judge, "
                       "never failed. Open cases, those closed cases and requested reasons "
                       "take --judge-labels (only 'correct' passes, 'partial' where the rubric "
                       "allows it) or are reported as awaiting the judge. Closed, open and "
                       "reasons are reported apart, each per prompt mode (natural and "
                       "constrained are never merged) and by level.")
    _root(p)
    p.add_argument("responses", metavar="RESPONSES", help="responses JSONL")
    add_shared_options(p, "out", out={"metavar": "REPORT", "help": "write the JSON report "
                                      "(with one record per case)"})
    p.add_argument("--judge-labels", metavar="LABELS", default=None,
                   help="judge labels JSONL (audio_id, config, case_id, score_label, "
                   "judge_rationale, violated_forbidden_claims)")
    p.add_argument("--json", action="store_true", help="print the JSON report, not a table")
    p.set_defaults(func=run_score, benchmark_run=run_score)


def run_score(args: argparse.Namespace) -> int:
    from .format import load_corpus
    from .scoring import format_report, read_judge_labels, read_responses, score

    corpus = load_corpus(args.root)
    responses, problems = read_responses(args.responses, corpus)
    judge = {}
    if args.judge_labels:
        judge, more = read_judge_labels(args.judge_labels, corpus)
        problems += more
    report = score(corpus, responses, judge=judge)
    report["responses_file"] = str(args.responses)
    report["problems"]["responses"] = problems
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=2, ensure_ascii=False,
                                             default=str) + "\n", encoding="utf-8")
    if args.json:
        shown = {k: v for k, v in report.items() if k != "records"}
        print(json.dumps(shown, indent=2, ensure_ascii=False, default=str))
    else:
        print(format_report(report))
    broken = [b.line() for b in corpus.broken]
    _problems("score", broken + problems)
    missing = report["case_counts"].get("no_response", 0)
    if missing:
        _say("score", f"{missing} case(s) have no response (counted failed)")
    return 1 if (broken or problems or missing) else 0


# ---------------------------------------------------------------- baseline

def add_baseline(sub: argparse._SubParsersAction) -> None:
    """``foakit baseline halluaudio ROOT --kind oracle|abstain|prior -o responses.jsonl``."""
    p = sub.add_parser(NAME, help="HalluAudio: oracle / abstain / prior responses.jsonl",
                       description="Write one response per eval case of a HalluAudio root. "
                       "oracle: the expected results (a scorer check); abstain: an "
                       "evidence-based 'cannot be determined from the audio' for every case; "
                       "prior: the most common correct option key per config and prompt mode.")
    _root(p)
    p.add_argument("--kind", choices=("oracle", "abstain", "prior"), required=True)
    add_shared_options(p, "out", out={"required": True, "metavar": "RESPONSES",
                                      "help": "responses.jsonl to write"})
    p.set_defaults(func=run_baseline, benchmark_run=run_baseline)


def run_baseline(args: argparse.Namespace) -> int:
    from .baselines import baseline_responses, write_responses
    from .format import load_corpus

    corpus = load_corpus(args.root)
    rows = baseline_responses(corpus, args.kind)
    path = write_responses(args.out, rows)
    _say("baseline", f"{args.kind}: {len(rows)} responses ({len(corpus.audios)} audios) -> "
         f"{path}")
    broken = [b.line() for b in corpus.broken]
    _problems("baseline", broken)
    return 1 if broken else 0


# ---------------------------------------------------------------- judge-requests

def add_judge_requests(sub: argparse._SubParsersAction) -> None:
    """``foakit judge-requests halluaudio ROOT RESPONSES.jsonl -o requests.jsonl``."""
    p = sub.add_parser(NAME, help="HalluAudio: one judge request per open case",
                       description="Write one judge request per open (llm_judge) case with a "
                       "response, per closed case the local scorer cannot decide, and per "
                       "reason a multiple-choice case asks for (part: reason): prompt, "
                       "response, ground_truth, expected result and class, intent, rubric, "
                       "forbidden claims, hallucination_if, and the label set. "
                       "These are scorer-side: none of it is part of the model's input.")
    _root(p)
    p.add_argument("responses", metavar="RESPONSES", help="responses JSONL")
    add_shared_options(p, "out", out={"required": True, "metavar": "REQUESTS",
                                      "help": "requests.jsonl to write"})
    p.set_defaults(func=run_judge_requests, benchmark_run=run_judge_requests)


def run_judge_requests(args: argparse.Namespace) -> int:
    from .baselines import write_responses
    from .format import load_corpus
    from .judge import judge_requests, leaks
    from .scoring import read_responses

    corpus = load_corpus(args.root)
    responses, problems = read_responses(args.responses, corpus)
    requests, missing = judge_requests(corpus, responses)
    path = write_responses(args.out, requests)
    _say("judge-requests", f"{len(requests)} request(s) -> {path}; {len(missing)} open "
         "case(s) without a response")
    leaked = leaks(corpus)
    _problems("judge-requests", [b.line() for b in corpus.broken] + problems
              + [f"missing response: {m}" for m in missing]
              + [f"prompt leak: {x}" for x in leaked])
    return 1 if (corpus.broken or problems or missing) else 0


# ---------------------------------------------------------------- audit

def add_audit(sub: argparse._SubParsersAction) -> None:
    """``foakit audit halluaudio ROOT -o DIR [--workers N] [--no-progress]``."""
    p = sub.add_parser(NAME, help="HalluAudio: speech activity / SNR audit of the labels",
                       description="Measure every audio (speech activity, SNR, level, noise, "
                       "clipping) with foakit.signal and hold the labels against it: speech "
                       "presence and no_speech cases, L1 clear / L2 degraded / L3 noisy "
                       "levels, uncertain spans. Writes DIR/verdicts.jsonl, DIR/flags.jsonl, "
                       "DIR/summary.json (by level), figures and DIR/index.md. Each audio's "
                       "measures are checkpointed in DIR: re-running resumes.")
    _root(p)
    add_shared_options(p, "out", "workers", "no_progress", "retry_errors", "no_figures",
                       "max_figures", "dask", "dask_dashboard",
                       out={"required": True,
                            "help": "output folder; an earlier run there is resumed"},
                       max_figures={"default": 50, "help": "figures for at most N flags, "
                                    "the most confident (default 50)"})
    p.set_defaults(func=run_audit, benchmark_run=run_audit)


def run_audit(args: argparse.Namespace) -> int:
    from .audit import audit, write_report

    if (bad := require_counts(args, f"foakit audit {NAME}")) is not None:
        return bad
    with open_dask(args, "foakit audit") as cluster:
        result = audit(args.root, args.out, workers=args.workers,
                       progress=not args.no_progress, retry_errors=args.retry_errors,
                       dask=cluster)
    paths = write_report(result, args.out, figures=not args.no_figures,
                         max_figures=args.max_figures)
    c = result.summary["verdicts"]
    _say("audit", f"{result.summary['audios']} audios, {c['total']} label checks: "
         f"{c['consistent']} consistent, {c['suspicious']} suspicious, {c['unverifiable']} "
         f"unverifiable; {len(result.failures)} failed -> {paths['index']}")
    _problems("audit", [f"{a}: {e}" for a, e in result.failures])
    return 1 if result.failures else 0
