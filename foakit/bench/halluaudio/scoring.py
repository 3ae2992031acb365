"""HalluAudio scoring by the dataset card's rules (``docs/halluaudio.md``).

Closed cases (``exact_match``, ``normalized_match``, ``multiple_choice``) are scored here,
deterministically; open cases (``llm_judge``) take the judge's labels from a file and are
otherwise reported as awaiting the judge.  Which rule a case follows is
:attr:`~foakit.bench.halluaudio.format.Case.rule` (authoring ``binary`` /
``open_constrained`` with options are multiple-choice; ``normalized_match`` only with a
reliable transcript, else the judge; ``not_applicable`` cases keep a closed rule).  The
rules:

* ``exact_match``: the response, stripped of surrounding whitespace, equals the expected
  result literally.
* ``normalized_match``: after Unicode NFKC, case folding, punctuation to spaces and runs of
  whitespace collapsed, the response equals the expected result or one of its approved
  aliases.
* ``multiple_choice``: the option key the response selects (:func:`extract_choice`) equals
  the expected key.  A case that also asks for a reason scores the option here and sends
  the reason to the judge; the reason's verdict is reported apart (``reason``).
* A forbidden claim the response makes (:func:`claim_matches`: negated mentions and
  calibrated abstentions are no claim) fails a closed case even when the option is right;
  the violated claims are kept.  A claim only hedged, questioned or ambiguously negated,
  or a response naming several options, is not decided here: the case ``needs_judge``
  (never failed) and goes into the judge requests with its rubric.
* A closed case without ``expected_result``, or a multiple-choice case without options or
  whose expected key is not among its options, is incomplete: counted, never scored.
* Open cases: only the judge's ``correct`` passes (``partial`` too when the case's rubric
  explicitly allows it); ``partial`` is also reported apart; a violated forbidden claim
  fails the case whatever the label.
* Closed accuracy, open pass rate and reasons are reported apart, and each per prompt
  mode: natural and constrained are never merged into one figure.
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
from .claims import claim_matches, normalize, violated_claims
from .format import CONFIGS, Case, Corpus

__all__ = [
    "SCORER_VERSION",
    "JUDGE_LABELS",
    "normalize",
    "extract_choice",
    "violated_claims",
    "claim_matches",
    "read_responses",
    "read_judge_labels",
    "score_case",
    "score",
    "format_report",
]

SCORER_VERSION = f"foakit-halluaudio/{__version__}"
#: The judge's labels; only ``correct`` passes.
JUDGE_LABELS = ("correct", "partial", "hallucinated", "overconfident", "unrelated", "refusal")

def extract_choice(response: str, keys: Iterable[str], options: dict[str, str] | None = None
                   ) -> str | None:
    """The option key a response selects, or None.

    In order: an ``<answer>X</answer>`` tag; "answer / option / choice (is) X" phrases (the
    last one, so "not A, the answer is B" gives B); "X is correct / right / the answer"; a
    line starting with the key ("B.", "(B)", "B)", "B:", "**B**"); a response that is one
    key alone; the one key standing alone as a word when exactly one does and no two are
    listed ("A or B"); the one option whose whole text the response contains when exactly
    one does.  "A" and "I" followed by a lower-case word read as the article and the
    pronoun, not as keys, unless the word is one an article never precedes ("A or B",
    "A and B", "A is").  Keys match case-sensitively in free text, insensitively in the
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
    lone = _standing_keys(text, alt)
    listed = re.search(rf"(?<![\w'])({alt})\s*{_LIST}\s*({alt})(?![\w'])", text)
    if len(lone) == 1 and not listed:
        return canon(lone.pop())
    if options:
        low = normalize(text)
        hits = [k for k, v in options.items() if normalize(v) and
                re.search(rf"(?<!\w){re.escape(normalize(v))}(?!\w)", low)]
        if len(hits) == 1:
            return hits[0]
    return None


# What joins keys listed together: "A or B", "A and B", "neither A nor B", "A, B", "A/B".
_LIST = r"(?:,|/|\bor\b|\band\b|\bnor\b|hoặc|và)"
# Words an article never precedes: "A or B", "A and B", "A is right" name option A.
_NO_NOUN = r"(?:or|and|nor|is|was|but|because|since|then|hoặc|và)(?![\w'])"


def _standing_keys(text: str, alt: str) -> set[str]:
    """The keys standing alone as words in ``text`` (``alt``: the keys as a regex
    alternation).  "A" and "I" before a lower-case word are the article and the pronoun,
    not keys, unless that word is one an article never precedes ("A or B")."""
    return {k for k in re.findall(
        rf"(?<![\w'])({alt})(?![\w'])(?!\s+(?!{_NO_NOUN})[a-z])", text)} | {
        k for k in re.findall(rf"(?<![\w'])({alt})(?![\w'])", text) if k not in ("A", "I")}


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


def _split_request_id(rid: str) -> tuple[str, str, str] | None:
    """``audio_id/config/case_id[#reason]`` (as ``judge-requests`` writes it) split at the
    config's name, so ids holding slashes still split right."""
    rid = rid[:-len("#reason")] if rid.endswith("#reason") else rid
    for config in CONFIGS:
        aid, sep, cid = rid.partition(f"/{config}/")
        if sep and aid and cid:
            return aid, config, cid
    return None


def _case_key(rec: dict, corpus_index: dict, by_position: dict) -> tuple | None:
    aid, config = rec.get("audio_id"), rec.get("config")
    if aid is None and isinstance(rec.get("request_id"), str):
        # a judge output that echoes only the request id
        got = _split_request_id(rec["request_id"])
        return got if got in corpus_index else None
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
    """``{case key: label record}`` from a judge-labels JSONL and the problems.

    A label with ``"part": "reason"`` (or a ``request_id`` ending in ``#reason``) judges
    the reason a case asked for and is keyed ``(*case key, "reason")``; any other label
    judges the answer.
    """
    index, by_pos = _indexes(corpus)
    out, problems = {}, []
    for line, rec, err in _jsonl(path):
        if err:
            problems.append(f"{path}:{line}: {err}")
            continue
        key = _case_key(rec, index, by_pos)
        label = str(rec.get("score_label", "")).strip().lower()
        part = "reason" if (rec.get("part") == "reason" or str(rec.get("request_id", ""))
                            .endswith("#reason")) else "answer"
        if key is None:
            problems.append(f"{path}:{line}: judge label for no case of the corpus")
            continue
        if part == "reason":
            key = (*key, "reason")
        if label not in JUDGE_LABELS:
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
            "scoring": case.rule, "authored_scoring": case.scoring,
            "kind": "closed" if case.closed else "open",
            "expected_result_class": case.expected_result_class, "status": "scored",
            "score_label": None, "pass": None, "score": None, "judge_rationale": None,
            "violated_forbidden_claims": [], "scorer_version": SCORER_VERSION}
    base.update(kw)
    return base


def _keys_named(response: str, keys: list[str], options: dict[str, str] | None) -> set[str]:
    """The option keys a response names standing alone (:func:`_standing_keys`), listed
    together ("A or B", "B and A", in any order), or whose option text it holds."""
    text = unicodedata.normalize("NFKC", str(response))
    alt = "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))
    named = _standing_keys(text, alt)
    # every overlapping pair "K1 <or|and|nor|,|/> K2": "A or B" names A as much as "B or A"
    named |= {k for pair in re.findall(
        rf"(?<![\w'])(?=({alt})(?![\w'])\s*{_LIST}\s*({alt})(?![\w']))", text)
        for k in pair}
    low = normalize(text)
    named |= {k for k, v in (options or {}).items() if normalize(v) and re.search(
        rf"(?<!\w){re.escape(normalize(v))}(?!\w)", low)}
    return named


def _judged(label: dict, case: Case) -> tuple[bool, list]:
    violated = list(label["violated_forbidden_claims"])
    ok = (label["score_label"] == "correct" or (label["score_label"] == "partial"
                                                and case.partial_passes)) and not violated
    return ok, violated


def _reason(case: Case, response: str | None, label: dict | None) -> dict | None:
    """The reason part of a multiple-choice case that asks for one, judged apart."""
    if not (case.asks_reason and case.rule == "multiple_choice" and case.complete):
        return None
    if response is None:
        return {"status": "no_response", "score_label": "no_response", "pass": False,
                "score": 0.0, "judge_rationale": None, "violated_forbidden_claims": []}
    if label is None:
        return {"status": "needs_judge", "score_label": None, "pass": None, "score": None,
                "judge_rationale": "the reason is judged apart from the option",
                "violated_forbidden_claims": []}
    ok, violated = _judged(label, case)
    return {"status": "scored", "score_label": label["score_label"], "pass": ok,
            "score": float(ok), "judge_rationale": label["judge_rationale"],
            "violated_forbidden_claims": violated}


def score_case(case: Case, response: str | None, judge: dict | None = None,
               reason_judge: dict | None = None) -> dict:
    """The scored record of one case (see the module's rules).

    ``status`` is ``scored``, ``incomplete`` (closed, not scorable before review: no
    expected result, or a multiple-choice case without options or whose key is not among
    them), ``no_response``,
    ``awaiting_judge`` (open, no label), ``needs_judge`` (closed, but the local scorer
    cannot decide: a forbidden claim only hedged, questioned or ambiguously negated, or a
    response naming several options; never failed) or ``unknown_rule``.  ``judge`` is the
    judge's label of the answer (an open case, or a closed one that needs the judge);
    ``reason_judge`` the label of the reason a multiple-choice case asks for, reported in
    ``reason`` and never mixed into the option's score.
    """
    if case.rule is None:
        return _record(case, status="unknown_rule",
                       judge_rationale=f"scoring rule {case.scoring!r} is not one of the "
                                       "dataset card's (or has no options to choose from)")
    if not case.complete:
        return _record(case, status="incomplete",
                       judge_rationale=f"{case.incomplete_reason}: review before scoring")
    reason = _reason(case, response, reason_judge)
    extra = {} if reason is None else {"reason": reason}
    if response is None:
        return _record(case, status="no_response", score_label="no_response",
                       **{"pass": False, "score": 0.0}, **extra)
    if not case.closed:
        if judge is None:
            return _record(case, status="awaiting_judge")
        ok, violated = _judged(judge, case)
        return _record(case, score_label=judge["score_label"],
                       judge_rationale=judge["judge_rationale"],
                       violated_forbidden_claims=violated, **{"pass": ok, "score": float(ok)})
    expected = case.expected_result
    extracted = None
    undecided = None
    if case.rule == "exact_match":
        match = response.strip() == str(expected).strip()
        why = "literal match" if match else "differs from the expected result"
    elif case.rule == "normalized_match":
        refs = [str(expected), *case.aliases]
        match = normalize(response) in {normalize(r) for r in refs}
        why = "normalized match" if match else "no normalized match with the expected " \
            "result or an approved alias"
    else:
        keys = list(case.choice_options)  # a complete multiple-choice case has options
        extracted = extract_choice(response, keys, case.choice_options)
        match = extracted is not None and extracted == str(expected).strip()
        if extracted is not None:
            why = f"selected {extracted}, expected {expected}"
        elif len(_keys_named(response, keys, case.choice_options)) > 1:
            undecided = "the response names several options and selects none the local " \
                "scorer can tell"
            why = undecided
        else:
            why = "no option key found in the response"
    violated, uncertain = claim_matches(response, case.forbidden_claims)
    if violated:
        label, ok = "forbidden_claim", False
        why += f"; states {len(violated)} forbidden claim(s)"
    elif undecided is None and not match and (extracted is not None
                                              or case.rule != "multiple_choice"):
        label, ok = "incorrect", False  # a wrong answer fails whatever the claims say
    elif undecided is not None or uncertain:
        if uncertain:
            undecided = (f"{undecided}; " if undecided else "") + \
                f"{len(uncertain)} forbidden claim(s) mentioned hedged, questioned or " \
                "ambiguously negated"
        if judge is None:
            rec = _record(case, status="needs_judge", judge_rationale=undecided,
                          uncertain_forbidden_claims=uncertain, **extra)
            if extracted is not None:
                rec["selected"] = extracted
            return rec
        ok, violated = _judged(judge, case)
        # the judge reads the claims, or the option a response names among several; an
        # option the local scorer read is still the one scored
        ok = ok and (match or extracted is None)
        label = "forbidden_claim" if violated else judge["score_label"]
        why = f"{why}; judged: {judge['judge_rationale']}"
    else:
        label, ok = ("correct" if match else "no_answer" if case.rule == "multiple_choice"
                     and extracted is None else "incorrect"), match
    rec = _record(case, score_label=label, judge_rationale=why,
                  violated_forbidden_claims=violated, **{"pass": ok, "score": float(ok)},
                  **extra)
    if extracted is not None:
        rec["selected"] = extracted
    return rec


#: How a case without a prompt mode is reported (never merged into a mode).
NO_MODE = "unspecified"


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
            "needs_judge": sum(r["status"] == "needs_judge" for r in records),
            "unknown_rule": sum(r["status"] == "unknown_rule" for r in records),
            "labels": dict(sorted(labels.items())),
            "partial": labels.get("partial", 0),
            "violated_forbidden": sum(1 for r in scored if r["violated_forbidden_claims"])}


def _breakdown(records: list[dict]) -> dict:
    """Per prompt mode (never merged): the mode's tally and its levels, rules, configs."""
    modes = defaultdict(list)
    for r in records:
        modes[r["prompt_mode"] or NO_MODE].append(r)
    out = {}
    for mode, recs in sorted(modes.items()):
        b = {"all": _tally(recs)}
        for field, name in (("level", "by_level"), ("scoring", "by_rule"),
                            ("config", "by_config")):
            groups = defaultdict(list)
            for r in recs:
                groups[str(r[field])].append(r)
            b[name] = {k: _tally(v) for k, v in sorted(groups.items())}
        out[mode] = b
    return out


def score(corpus: Corpus, responses: dict, *, judge: dict | None = None) -> dict:
    """Score every case of ``corpus``; returns the report with ``records``.

    ``closed`` (accuracy), ``open`` (judge pass rate) and ``reason`` (the judged reasons
    of multiple-choice cases that ask for one) are separate blocks; each is keyed by
    prompt mode (``natural``, ``constrained``; ``unspecified`` for cases without one),
    and within a mode holds ``all`` and the figures by level, rule and config.  No figure
    merges prompt modes.  ``case_counts`` counts the records by status (no rate).
    """
    judge = judge or {}
    records = [score_case(c, responses.get(c.key), judge.get(c.key),
                          judge.get((*c.key, "reason"))) for c in corpus.cases()]
    closed = [r for r in records if r["kind"] == "closed"]
    open_ = [r for r in records if r["kind"] == "open"]
    reasons = [dict(r, **r["reason"]) for r in records if r.get("reason")]
    known = set(corpus.case_index())
    return {
        "scorer_version": SCORER_VERSION,
        "root": corpus.root,
        "audios": len(corpus.audios),
        "cases": len(records),
        "case_counts": dict(sorted(Counter(r["status"] for r in records).items())),
        "closed": _breakdown(closed),
        "open": _breakdown(open_),
        "reason": _breakdown(reasons),
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
    """A plain-text summary per prompt mode: closed accuracy, open pass rate and judged
    reasons, each by level."""
    lines = [f"HalluAudio: {report['audios']} audios, {report['cases']} cases "
             f"({report['scorer_version']}); prompt modes are reported apart, never merged"]
    for kind, title in (("closed", "closed accuracy"), ("open", "open pass rate (judge)"),
                        ("reason", "reason pass rate (judge)")):
        for mode, b in report[kind].items():
            a = b["all"]
            lines.append(f"\n{title}, {mode}: {_pct(a)} of {a['scored']} scored "
                         f"({a['passed']} pass); {a['incomplete']} incomplete, "
                         f"{a['no_response']} without response, {a['needs_judge']} need "
                         f"the judge, {a['awaiting_judge']} awaiting the judge, "
                         f"{a['violated_forbidden']} with a forbidden claim")
            if not a["scored"]:
                continue
            lines.append(f"  {'level':<16}{'scored':>8}{'pass':>8}{'rate':>10}{'partial':>9}")
            for k, t in b["by_level"].items():
                lines.append(f"  {k:<16}{t['scored']:>8}{t['passed']:>8}{_pct(t):>10}"
                             f"{t['partial']:>9}")
    p = report["problems"]
    if p["broken_rows"]:
        lines.append(f"\n{len(p['broken_rows'])} broken row(s) not loaded")
    if p["missing_case_fields"]:
        lines.append("case fields the dataset card names that no case has: "
                     + ", ".join(p["missing_case_fields"]))
    return "\n".join(lines)
