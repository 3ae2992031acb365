"""Reference responses for HalluAudio: ``oracle``, ``abstain`` and ``prior``.

* ``oracle``: each case's expected result (the option key, the canonical text); an open case
  without one gets the evidence-based statement its ``expected_result_class`` calls for.  A
  scorer check: it scores 100 % of the complete closed cases.
* ``abstain``: an evidence-based "cannot be determined from the audio" for every case; a
  multiple-choice case whose options hold such a declining option gets its key too.  What
  always declining scores, closed and open.
* ``prior``: per config and prompt mode, the option key most often correct in the corpus
  (ties to the first key); other closed cases get the abstain answer.
"""

from __future__ import annotations

import os
import re
from collections import Counter

from ...errors import ParameterError
from .format import Case, Corpus

__all__ = ["KINDS", "ABSTAIN_TEXT", "NO_SPEECH_TEXT", "baseline_responses", "write_responses"]

KINDS = ("oracle", "abstain", "prior")
ABSTAIN_TEXT = ("The content cannot be determined from the audio: the acoustic evidence is "
                "not sufficient to say what was said or intended.")
NO_SPEECH_TEXT = "There is no human speech in this audio, so nothing was said."
_DECLINES = re.compile(r"cannot be determined|can ?not be determined|not (?:be )?determin|"
                       r"unclear|not enough|insufficient|unknown|không (?:xác định|rõ)|"
                       r"cannot tell|can't tell|not possible to tell", re.IGNORECASE)


def _declining_key(case: Case) -> str | None:
    hits = [k for k, v in (case.choice_options or {}).items() if _DECLINES.search(v)]
    return hits[0] if len(hits) == 1 else None


def _abstain(case: Case) -> str:
    key = _declining_key(case) if case.rule == "multiple_choice" else None
    return f"{key}. {ABSTAIN_TEXT}" if key else ABSTAIN_TEXT


def _oracle(case: Case) -> str:
    exp = case.expected_result
    if exp not in (None, ""):
        return str(exp)
    if case.expected_result_class == "no_speech":
        return NO_SPEECH_TEXT
    return ABSTAIN_TEXT


def baseline_responses(corpus: Corpus, kind: str) -> list[dict]:
    """One response record per case of ``corpus`` (``audio_id, config, case_id,
    case_index, response, baseline``), in corpus order."""
    if kind not in KINDS:
        raise ParameterError(f"{kind=} is not one of {KINDS}")
    prior: dict[tuple, str] = {}
    if kind == "prior":
        counts: dict[tuple, Counter] = {}
        for c in corpus.cases():
            if c.rule == "multiple_choice" and c.complete:
                counts.setdefault((c.config, c.prompt_mode), Counter())[
                    str(c.expected_result).strip()] += 1
        prior = {k: sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
                 for k, v in counts.items()}
    out = []
    for c in corpus.cases():
        if kind == "oracle":
            text = _oracle(c)
        elif kind == "abstain":
            text = _abstain(c)
        else:
            key = prior.get((c.config, c.prompt_mode))
            text = key if c.rule == "multiple_choice" and key else _abstain(c)
        out.append({"audio_id": c.audio_id, "config": c.config, "case_id": c.case_id,
                    "case_index": c.index, "response": text, "baseline": kind})
    return out


def write_responses(path: str | os.PathLike, records: list[dict]) -> str:
    """Write response records as JSONL (atomically); returns the path."""
    import json
    import tempfile

    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
    return path
