"""HalluAudio scoring by the benchmark's published rules (``docs/halluaudio.md``).

Closed cases (``exact_match``, ``normalized_match``, ``multiple_choice``) are scored here,
deterministically; open cases (``llm_judge``) take the judge's labels from a file and are
otherwise reported as awaiting the judge.  The rules:

* ``exact_match``: the response, stripped of surrounding whitespace, equals the expected
  result literally.
* ``normalized_match``: after Unicode NFKC, case folding, punctuation to spaces and runs of
  whitespace collapsed, the response equals the expected result or one of its approved
  aliases.
* ``multiple_choice``: the option key the response selects (:func:`extract_choice`) equals
  the expected key.  A case that also asks for a reason scores the option only.
* A forbidden claim found in the response (:func:`violated_claims`) fails a closed case even
  when the option is right; the violated claims are kept.
* A closed case without ``expected_result`` is incomplete: counted, never scored.
* Open cases: only the judge's ``correct`` passes (``partial`` too when the case's rubric
  allows it); ``partial`` is also reported apart; a violated forbidden claim fails the case
  whatever the label.
* Closed accuracy and open pass rate, natural and constrained prompts and the levels are
  reported apart, never merged.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable

from ... import __version__
from ...errors import FormatError
from .format import Case, Corpus

__all__ = [
    "SCORER_VERSION",
    "JUDGE_LABELS",
    "normalize",
    "extract_choice",
    "violated_claims",
    "read_responses",
    "read_judge_labels",
    "score_case",
    "score",
    "format_report",
]

SCORER_VERSION = f"foakit-halluaudio/{__version__}"
#: The judge's labels; only ``correct`` passes.
JUDGE_LABELS = ("correct", "partial", "hallucinated", "overconfident", "unrelated", "refusal")

_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


def normalize(text: str) -> str:
    """NFKC, case-folded, punctuation to spaces, whitespace collapsed."""
    t = unicodedata.normalize("NFKC", str(text)).casefold()
    return " ".join(_PUNCT.sub(" ", t).split())


def extract_choice(response: str, keys: Iterable[str], options: dict[str, str] | None = None
                   ) -> str | None:
    """The option key a response selects, or None.

    In order: an ``<answer>X</answer>`` tag; "answer / option / choice (is) X" phrases (the
    last one, so "not A, the answer is B" gives B); "X is correct / right / the answer"; a
    line starting with the key ("B.", "(B)", "B)", "B:", "**B**"); a response that is one
    key alone; the one key standing alone as a word when exactly one does and no two are
    listed ("A or B"); the one option whose whole text the response contains when exactly
    one does.  "A" and "I" followed by a lower-case word read as the article and the
    pronoun, not as keys.  Keys match case-sensitively in free text, insensitively in the
    tag, the phrases and a response that is a key alone.
    """
    keys = [str(k) for k in keys]
    if not keys or response is None:
        return None
    text = unicodedata.normalize("NFKC", str(response)).strip()
    alt = "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))
    by_upper = {k.upper(): k for k in keys}

    def canon(s):
        return by_upper.get(s.upper())

    m = re.findall(rf"<answer>\s*\(?\s*({alt})\s*\)?\s*[.):]?\s*(?:</answer>|\s)",
                   text + " ", flags=re.IGNORECASE)
    if m:
        return canon(m[-1])
    phrase = (rf"(?:answer|option|choice|đáp án|chọn|lựa chọn)\s*(?:is|:|=|là)?\s*"
              rf"[\"'*(\[]*\s*({alt})(?![\w])(.?)")
    # a lower-case key counts only before punctuation or the end ("answer is a dog" is no A)
    m = [k for k, nxt in re.findall(phrase, text, flags=re.IGNORECASE)
         if k in keys or nxt in ("", ".", ")", "]", ":", ",", ";", "*", "\"", "'")]
    if m:
        return canon(m[-1])
    m = re.findall(rf"(?<![\w'])\(?({alt})\)?\s+is\s+(?:the\s+)?(?:correct|right|best|answer)",
                   text)
    if len(set(m)) == 1:
        return canon(m[0])
    for line in text.splitlines():
        m = re.match(rf"^\s*[*_#>\-\s]*[(\[]?\s*({alt})\s*(?:[.):\]]|\*\*|\s*$|\s+-)",
                     line)
        if m:
            return canon(m.group(1))
    bare = text.strip(" \t\n.()[]*\"'")
    if canon(bare):
        return canon(bare)
    # "A" / "I" before a lower-case word are the article and the pronoun, not keys
    lone = {k for k in re.findall(rf"(?<![\w'])({alt})(?![\w'])(?!\s+[a-z])", text)} | {
        k for k in re.findall(rf"(?<![\w'])({alt})(?![\w'])", text) if k not in ("A", "I")}
    listed = re.search(rf"(?<![\w'])({alt})\s*(?:,|/|\bor\b|\band\b|hoặc|và)\s*({alt})(?![\w'])",
                       text)
    if len(lone) == 1 and not listed:
        return canon(lone.pop())
    if options:
        low = normalize(text)
        hits = [k for k, v in options.items() if normalize(v) and
                re.search(rf"(?<!\w){re.escape(normalize(v))}(?!\w)", low)]
        if len(hits) == 1:
            return hits[0]
    return None


def _claim_text(claim) -> tuple[str, str | None]:
    if isinstance(claim, dict):
        return (str(claim.get("text", claim.get("claim", json.dumps(claim)))),
                claim.get("pattern", claim.get("regex")))
    return str(claim), None


def violated_claims(response: str, claims: list) -> list:
    """The forbidden claims a response states: a claim given as text is found when its
    normalized text occurs, as whole words, in the normalized response; a claim given as
    ``{"text": ..., "pattern": REGEX}`` when the regex matches the raw response."""
    out = []
    low = normalize(response or "")
    for claim in claims or []:
        text, pattern = _claim_text(claim)
        if pattern:
            try:
                hit = re.search(pattern, response or "", flags=re.IGNORECASE) is not None
            except re.error:
                hit = False
        else:
            n = normalize(text)
            hit = bool(n) and re.search(rf"(?<!\w){re.escape(n)}(?!\w)", low) is not None
        if hit:
            out.append(claim)
    return out


def _jsonl(path: str | os.PathLike):
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise FormatError(path, f"cannot read ({exc.strerror})") from None
    with fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                yield i, None, f"not JSON ({exc.msg})"
                continue
            if not isinstance(rec, dict):
                yield i, None, "not a JSON object"
                continue
            yield i, rec, None


def _case_key(rec: dict, corpus_index: dict, by_position: dict) -> tuple | None:
    aid, config = rec.get("audio_id"), rec.get("config")
    if aid is None:
        return None
    cid = rec.get("case_id")
    if cid is not None and (str(aid), str(config), str(cid)) in corpus_index:
        return (str(aid), str(config), str(cid))
    idx = rec.get("case_index", cid if isinstance(cid, int) else None)
    if idx is not None:
        try:
            return by_position.get((str(aid), str(config), int(idx)))
        except (TypeError, ValueError):
            return None
    return None


def _indexes(corpus: Corpus):
    index = corpus.case_index()
    by_pos = {(c.audio_id, c.config, c.index): c.key for c in index.values()}
    return index, by_pos


def read_responses(path: str | os.PathLike, corpus: Corpus) -> tuple[dict, list[str]]:
    """``{case key: response text}`` and the problems (bad lines, unknown cases,
    duplicates: the first response is kept)."""
    index, by_pos = _indexes(corpus)
    out, problems = {}, []
    for line, rec, err in _jsonl(path):
        if err:
            problems.append(f"{path}:{line}: {err}")
            continue
        key = _case_key(rec, index, by_pos)
        if key is None:
            problems.append(f"{path}:{line}: no case {rec.get('audio_id')!r} / "
                            f"{rec.get('config')!r} / {rec.get('case_id', rec.get('case_index'))!r}"
                            " in the corpus")
            continue
        if not isinstance(rec.get("response"), str):
            problems.append(f"{path}:{line}: {key}: response is not a string")
            continue
        if key in out:
            problems.append(f"{path}:{line}: duplicate response for {key} (the first is kept)")
            continue
        out[key] = rec["response"]
    return out, problems


def read_judge_labels(path: str | os.PathLike, corpus: Corpus) -> tuple[dict, list[str]]:
    """``{case key: label record}`` from a judge-labels JSONL and the problems."""
    index, by_pos = _indexes(corpus)
    out, problems = {}, []
    for line, rec, err in _jsonl(path):
        if err:
            problems.append(f"{path}:{line}: {err}")
            continue
        key = _case_key(rec, index, by_pos)
        label = str(rec.get("score_label", "")).strip().lower()
        if key is None:
            problems.append(f"{path}:{line}: judge label for no case of the corpus")
        elif label not in JUDGE_LABELS:
            problems.append(f"{path}:{line}: {key}: score_label {rec.get('score_label')!r} is "
                            f"not one of {', '.join(JUDGE_LABELS)} (the case awaits the judge)")
        elif key in out:
            problems.append(f"{path}:{line}: duplicate judge label for {key} (first kept)")
        else:
            v = rec.get("violated_forbidden_claims") or []
            out[key] = {"score_label": label, "judge_rationale": rec.get("judge_rationale"),
                        "violated_forbidden_claims": v if isinstance(v, list) else [v]}
    return out, problems


def _record(case: Case, **kw) -> dict:
    base = {"audio_id": case.audio_id, "config": case.config, "case_id": case.case_id,
            "case_index": case.index, "level": case.level, "prompt_mode": case.prompt_mode,
            "scoring": case.rule, "kind": "closed" if case.closed else "open",
            "expected_result_class": case.expected_result_class, "status": "scored",
            "score_label": None, "pass": None, "score": None, "judge_rationale": None,
            "violated_forbidden_claims": [], "scorer_version": SCORER_VERSION}
    base.update(kw)
    return base


def score_case(case: Case, response: str | None, judge: dict | None = None) -> dict:
    """The scored record of one case (see the module's rules).

    ``status`` is ``scored``, ``incomplete`` (closed, no expected result), ``no_response``,
    ``awaiting_judge`` (open, no label) or ``unknown_rule``.
    """
    if case.rule is None:
        return _record(case, status="unknown_rule",
                       judge_rationale=f"scoring rule {case.scoring!r} is not one of the "
                                       "dataset card's")
    if case.closed and not case.complete:
        return _record(case, status="incomplete",
                       judge_rationale="no expected_result: review before scoring")
    if response is None:
        return _record(case, status="no_response", score_label="no_response",
                       **{"pass": False, "score": 0.0})
    if not case.closed:
        if judge is None:
            return _record(case, status="awaiting_judge")
        label = judge["score_label"]
        violated = list(judge["violated_forbidden_claims"])
        ok = (label == "correct" or (label == "partial" and case.partial_passes)) \
            and not violated
        return _record(case, score_label=label, judge_rationale=judge["judge_rationale"],
                       violated_forbidden_claims=violated, **{"pass": ok,
                                                              "score": float(ok)})
    expected = case.expected_result
    extracted = None
    if case.rule == "exact_match":
        match = response.strip() == str(expected).strip()
        why = "literal match" if match else "differs from the expected result"
    elif case.rule == "normalized_match":
        refs = [str(expected), *case.aliases]
        match = normalize(response) in {normalize(r) for r in refs}
        why = "normalized match" if match else "no normalized match with the expected " \
            "result or an approved alias"
    else:
        keys = list(case.choice_options or {}) or sorted({str(expected), "A", "B", "C", "D"})
        extracted = extract_choice(response, keys, case.choice_options)
        match = extracted is not None and extracted == str(expected).strip()
        why = (f"selected {extracted}, expected {expected}" if extracted is not None
               else "no option key found in the response")
    violated = violated_claims(response, case.forbidden_claims)
    if violated:
        label, ok = "forbidden_claim", False
        why += f"; states {len(violated)} forbidden claim(s)"
    else:
        label, ok = ("correct" if match else "no_answer" if case.rule == "multiple_choice"
                     and extracted is None else "incorrect"), match
    rec = _record(case, score_label=label, judge_rationale=why,
                  violated_forbidden_claims=violated, **{"pass": ok, "score": float(ok)})
    if extracted is not None:
        rec["selected"] = extracted
    return rec


def _tally(records: list[dict]) -> dict:
    n = len(records)
    scored = [r for r in records if r["status"] in ("scored", "no_response")]
    passed = sum(1 for r in scored if r["pass"])
    labels = Counter(r["score_label"] for r in scored)
    return {"cases": n, "scored": len(scored), "passed": passed,
            "rate": (passed / len(scored)) if scored else None,
            "incomplete": sum(r["status"] == "incomplete" for r in records),
            "no_response": sum(r["status"] == "no_response" for r in records),
            "awaiting_judge": sum(r["status"] == "awaiting_judge" for r in records),
            "unknown_rule": sum(r["status"] == "unknown_rule" for r in records),
            "labels": dict(sorted(labels.items())),
            "partial": labels.get("partial", 0),
            "violated_forbidden": sum(1 for r in scored if r["violated_forbidden_claims"])}


def _breakdown(records: list[dict]) -> dict:
    out = {"all": _tally(records)}
    for field, name in (("prompt_mode", "by_prompt_mode"), ("level", "by_level"),
                        ("scoring", "by_rule"), ("config", "by_config")):
        groups = defaultdict(list)
        for r in records:
            groups[str(r[field])].append(r)
        out[name] = {k: _tally(v) for k, v in sorted(groups.items())}
    lm = defaultdict(list)
    for r in records:
        lm[f"{r['level']}/{r['prompt_mode']}"].append(r)
    out["by_level_and_mode"] = {k: _tally(v) for k, v in sorted(lm.items())}
    return out


def score(corpus: Corpus, responses: dict, *, judge: dict | None = None) -> dict:
    """Score every case of ``corpus``; returns the report with ``records``.

    ``closed`` (accuracy) and ``open`` (judge pass rate) are separate blocks, each broken
    down by prompt mode, level, level x mode, rule and config.
    """
    judge = judge or {}
    records = [score_case(c, responses.get(c.key), judge.get(c.key))
               for c in corpus.cases()]
    closed = [r for r in records if r["kind"] == "closed"]
    open_ = [r for r in records if r["kind"] == "open"]
    known = set(corpus.case_index())
    return {
        "scorer_version": SCORER_VERSION,
        "root": corpus.root,
        "audios": len(corpus.audios),
        "cases": len(records),
        "closed": _breakdown(closed),
        "open": _breakdown(open_),
        "problems": {
            "broken_rows": [b.line() for b in corpus.broken],
            "corpus": list(corpus.problems),
            "missing_case_fields": list(corpus.missing_fields),
            "unknown_case_fields": corpus.unknown_fields,
            "responses_for_unknown_cases": sum(1 for k in responses if k not in known),
        },
        "records": records,
    }


def _pct(t: dict) -> str:
    return "-" if t["rate"] is None else f"{100 * t['rate']:.1f} %"


def format_report(report: dict) -> str:
    """A plain-text summary: closed accuracy and open pass rate, by mode and by level."""
    lines = [f"HalluAudio: {report['audios']} audios, {report['cases']} cases "
             f"({report['scorer_version']})"]
    for kind, title in (("closed", "closed accuracy"), ("open", "open pass rate (judge)")):
        b = report[kind]
        a = b["all"]
        lines.append(f"\n{title}: {_pct(a)} of {a['scored']} scored ({a['passed']} pass); "
                     f"{a['incomplete']} incomplete, {a['no_response']} without response, "
                     f"{a['awaiting_judge']} awaiting the judge, {a['violated_forbidden']} "
                     "with a forbidden claim")
        if not a["scored"]:
            continue
        lines.append(f"  {'group':<16}{'scored':>8}{'pass':>8}{'rate':>10}{'partial':>9}")
        for name in ("by_prompt_mode", "by_level"):
            for k, t in b[name].items():
                lines.append(f"  {k:<16}{t['scored']:>8}{t['passed']:>8}{_pct(t):>10}"
                             f"{t['partial']:>9}")
    p = report["problems"]
    if p["broken_rows"]:
        lines.append(f"\n{len(p['broken_rows'])} broken row(s) not loaded")
    if p["missing_case_fields"]:
        lines.append("case fields the dataset card names that no case has: "
                     + ", ".join(p["missing_case_fields"]))
    return "\n".join(lines)
