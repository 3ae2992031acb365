"""The option letter a model's answer text gives, by the benchmark's own rule.

The rule is the one ``extract_mcq_option`` applies in the official evaluation
(``rmsaqachallenge/rmsaqa-code``, ``spatial_af3/mcq.py``, commit ``bd0b89d3``; see
``docs/rmsaqa.md``).  Only the item's option letters count as candidates, in either case
(a candidate is upper-cased), and whitespace runs are read as one space except where a
rule needs line breaks.  In order:

1. ``answer_tag``: the LAST ``<answer>X`` tag whose letter is an option (``X`` may be
   bracketed and is followed by a space, ``)``, ``.``, ``:``, ``,``, ``;`` or
   ``</answer>``).
2. ``regex_match``, answer phrases: every "<final answer>", "final answer", "the answer",
   "answer", "selected option" or "option" followed by an optional ``>``, an optional
   "is" / ``:`` / ``-`` and a letter standing as a word, then every "therefore ...
   answer X" within one sentence; the LAST of that list (phrases first, "therefore"
   matches after them) is the answer.  The baseline's own target
   ``<Final answer>: (C) text`` reads as C.
3. ``regex_match``, line openings: a letter opening the text or a line (after optional
   white space and ``(``), followed by ``)``, ``.``, ``:`` or the end of the text; the
   LAST one.
4. ``regex_match``, lone letters: every ``(X)``, every ``X)`` / ``X.`` and every
   one-letter word; a letter only when all of them are the same letter ("either A or D"
   gives nothing).

Otherwise ``no_option_found``; an empty or blank text is ``empty_generation``.  A
lower-case one-letter word counts, so "answer is a dog" reads as A, as the official rule
reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["STATUSES", "extract_letter"]

#: The extraction statuses, as the official answer log writes them.
STATUSES = ("answer_tag", "regex_match", "no_option_found", "empty_generation")

_SPACE = re.compile(r"\s+")
_TAG = re.compile(r"<answer>\s*\(?([a-z])\)?(?:\s|[).:,;]|</answer>)", re.I)
_PHRASE = re.compile(
    r"(?:<\s*final\s+answer\s*>|final\s+answer|the\s+answer|answer|selected\s+option|option)"
    r"\s*>?\s*(?:is|:|-)?\s*\(?([a-z])\)?\b", re.I)
_THEREFORE = re.compile(r"therefore[^.?!]*?\banswer\s*>?\s*(?:is|:|-)?\s*\(?([a-z])\)?\b",
                        re.I)
_LINE = re.compile(r"(?:^|[\n\r])\s*\(?([a-z])\)?\s*(?:[).:]|$)", re.I)  # no MULTILINE
_BRACKETED = re.compile(r"\(([a-z])\)", re.I)
_CLOSED = re.compile(r"\b([a-z])\s*[).]", re.I)
_WORD = re.compile(r"\b([a-z])\b", re.I)


def _valid(found: Iterable[str], letters: frozenset[str]) -> list[str]:
    """The candidates that are option letters, upper case, in order."""
    return [u for u in (x.upper() for x in found) if u in letters]


def extract_letter(text: object, letters: Iterable[str] = ("A", "B", "C", "D")
                   ) -> tuple[str | None, str]:
    """The option letter an answer text gives, and the extraction status.

    Parameters
    ----------
    text : object
        The answer as the model wrote it (None and non-strings are read as ``str``;
        None as the empty text).
    letters : iterable of str
        The item's option keys (compared stripped and upper-cased).

    Returns
    -------
    letter : str or None
        Upper case; None when nothing decides.
    status : str
        One of :data:`STATUSES`.
    """
    valid = frozenset(str(k).strip().upper() for k in letters if str(k).strip())
    raw = "" if text is None else str(text)
    flat = _SPACE.sub(" ", raw.strip())
    if not flat:
        return None, "empty_generation"
    tags = _valid(_TAG.findall(flat), valid)
    if tags:
        return tags[-1], "answer_tag"
    phrases = _valid(_PHRASE.findall(flat), valid) + _valid(_THEREFORE.findall(flat), valid)
    if phrases:
        return phrases[-1], "regex_match"
    lines = _valid(_LINE.findall(raw), valid)  # line breaks matter here: the raw text
    if lines:
        return lines[-1], "regex_match"
    lone = (_valid(_BRACKETED.findall(flat), valid) + _valid(_CLOSED.findall(flat), valid)
            + _valid(_WORD.findall(flat), valid))
    if lone and len(set(lone)) == 1:
        return lone[-1], "regex_match"
    return None, "no_option_found"
