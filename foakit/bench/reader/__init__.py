"""A reader for what benchmark questions and answer options say: a small grammar of expressions.

The text is cut into tokens (numbers, words, punctuation, each with its character span),
numbers are read in digits or words ("3", "3.5", "three", "twenty-five", "a couple of",
"a pair of", "half a") with their units (s, sec, seconds, "the 7-second mark", ms, m,
metres, degrees, deg, °, o'clock), and expression rules are tried in a fixed priority
order, each taking the tokens it reads:

* time: intervals ("between 3 and 6 seconds", "from 4.3 s to 4.8 s", "2-5 s", "between the
  6- and 8-second marks"), open intervals ("after 9 s", "from 9 s until the end", "before
  the 4-second mark", "not until 6 s"), parts of the clip ("during the opening three
  seconds", "in the last 3 seconds", "the first half", "throughout", "the entire
  recording", "near the end"), time points ("at about 3.2 s", "around the 6-second mark")
  and durations ("lasts about 2 s", "for half a second", "a brief sound");
* space: eight sectors and their synonyms ("dead ahead", "toward the rear-left", "behind
  you, over on the right"), clock positions, angles with side words, heights ("overhead",
  "at ear level", "20 degrees above"), distances ("within 2 m", "far away", "nearby") and
  relations to another sound ("to the right of and behind the television", "closer to me
  than X", "above the doorbell");
* counts ("3 simultaneous sounds", "a pair of sounds", "no sound", "Just one.") and lists
  of sounds (counted as sounds: "In the audio, you can hear dishwasher." is one);
* temporal relations (before, after, during, overlaps, contained within, starts earlier,
  ends later) and what a question asks (a time, a count, a direction); what a counting
  question counts, the distinct sounds of the clip or the most sounds at one moment, is
  :func:`count_kind` (:mod:`foakit.bench.reader.counting`).

Every reading keeps its character span, kind and text.  Cue words left over (a number, a
unit, a direction, time or distance word no rule read) are reported in
:attr:`Reading.unread`, never guessed; a text with readings and unread cues is
:attr:`Reading.partial`.
"""

from __future__ import annotations

import math
import re

from ..mentions import class_mentions
from .counting import COUNT_KINDS, count_kind, overlap_cue
from .rules import _NOT_LIST, _RULES, _Parser
from .tokens import _CUE_WORDS, _RIGHT_ADVERB, Expr, Reading, Token, tokenize

__all__ = ["COUNT_KINDS", "Expr", "Reading", "Token", "count_kind", "overlap_cue", "read",
           "resolve_window", "tokenize"]

# a sound list's frame: "In the audio, you can hear X.", "The clip features X."
_LIST_FRAME = re.compile(
    r"^(?:(?:in|within|throughout) (?:the|this) (?:audio|clip|recording|scene|excerpt)"
    r"(?: there (?:is|are))?,?\s*|(?:there (?:is|are))\s+|(?:you|we|i|one) (?:can )?(?:hear|"
    r"make out|notice)\s+|the (?:sounds?|events?|sources?)(?: (?:present|heard|audible|"
    r"active))? (?:are|is|include)\s*:?\s*|the (?:recording|clip|audio|scene) (?:contains|"
    r"features|includes|has)\s+|audible(?: (?:events|sounds|sources))?\s*:\s*|sounds? of\s+|"
    r"(?:a single|one|the only) (?:sound|source|event)(?: is)?\s*:?\s*|only\s+|just\s+|"
    r"both\s+|either\s+|(?:it is|it's)\s+)", re.I)
_LIST_TAIL = re.compile(r"(?:\s+(?:in|throughout) (?:the|this) (?:audio|clip|recording|scene)"
                        r"|\s+(?:can be )?(?:heard|audible|present))?\s*[.!]*\s*$", re.I)
_LIST_SPLIT = re.compile(r"\s*(?:;|,|&|\+|\band\b|\bplus\b|\bas well as\b|\balong with\b|"
                         r"\btogether with\b)\s*", re.I)


def _sound_list(text: str, vocab: list[str] | None) -> tuple[int, int, int] | None:
    """(number of sounds, start, end) of a text that only lists sounds, or None."""
    if vocab:
        names = class_mentions(text, vocab)
        if names:
            return len(names), 0, len(text)
    body = text
    start = 0
    while True:
        m = _LIST_FRAME.match(body)
        if not m or not m.group(0):
            break
        body, start = body[m.end():], start + m.end()
    tail = _LIST_TAIL.search(body)
    core = body[:tail.start()] if tail else body
    items = [p for p in _LIST_SPLIT.split(core) if p.strip(" .")]
    if not items:
        return None
    return len(items), start, start + len(core)


def _is_cue(p: _Parser, k: int) -> bool:
    """Token ``k`` is a cue word (a number, a unit, a direction, time or distance word)."""
    w = p.w(k)
    if w in ("before", "after", "during", "while") or \
            (w == "right" and p.w(k + 1) in _RIGHT_ADVERB) or \
            (w == "back" and p.w(k - 1) in ("come", "comes", "came", "coming", "go", "goes",
                                             "went")):
        return False
    return w in _CUE_WORDS or re.fullmatch(r"\d+(?:\.\d+)?", w) is not None


def read(text: str, *, vocab: list[str] | None = None) -> Reading:
    """Read what ``text`` (a question, an answer or an option) says.

    Parameters
    ----------
    text : str
    vocab : list of str, optional
        Sound-class names; when given, a text that only lists sounds is counted by the
        names it mentions (:func:`foakit.bench.mentions.class_mentions`) instead of by
        its list separators.

    Returns
    -------
    Reading
        Readings in text order with spans and kinds, and the cue words left unread.
    """
    p = _Parser(text)
    asks_text = str(text).rstrip().endswith("?") or bool(
        re.match(r"\s*(?:how|when|where|what|which|at what|from which|in which|over what|"
                 r"during which|count)\b", str(text), re.I))
    for rule in _RULES:
        fn = getattr(p, rule)
        for i in range(len(p.toks)):
            if not p.taken[i]:
                fn(i)
    if asks_text:
        for i in range(len(p.toks)):
            if not p.taken[i]:
                p.r_asks(i)
    got = None if asks_text or any(e.kind in _NOT_LIST for e in p.exprs) else \
        _sound_list(p.text, vocab)
    # a count in the list's frame ("a single sound: running water") is the list's own
    if got is not None and all(e.kind == "temporal_relation" or e.end <= got[1]
                               for e in p.exprs) and \
            not any(got[1] <= t.start < got[2] and not p.taken[k] and _is_cue(p, k)
                    for k, t in enumerate(p.toks)):
        n, a, b = got
        p.exprs.append(Expr("sound_list", a, b, p.text[a:b], {"n_sounds": n}))
        for k, t in enumerate(p.toks):
            if a <= t.start < b:
                p.taken[k] = True
    unread = [(t.start, t.end, p.text[t.start:t.end]) for k, t in enumerate(p.toks)
              if not p.taken[k] and _is_cue(p, k)]
    p.exprs.sort(key=lambda e: e.start)
    return Reading(text=p.text, exprs=p.exprs, unread=unread)


def resolve_window(reading: Reading | dict, duration_s: float | None
                   ) -> tuple[float, float] | None:
    """The time window (s) a reading gives for a clip of ``duration_s`` seconds.

    An interval as it is (an open end closes at the clip's end), a part of the clip as
    fractions of the duration or its last seconds; None when the reading gives no window,
    or an open or relative one and the duration is unknown (None, not finite, not > 0).
    """
    s = reading.summary() if isinstance(reading, Reading) else reading
    ok = isinstance(duration_s, int | float) and math.isfinite(duration_s) and duration_s > 0
    if s.get("window") is not None:
        a, b = s["window"]
        if b is None:
            return (float(a), float(duration_s)) if ok else None
        return (float(a), float(b))
    if not ok:
        return None
    dur = float(duration_s)
    if s.get("window_frac") is not None:
        a, b = s["window_frac"]
        return (round(a * dur, 6), round(b * dur, 6))
    if s.get("window_last_s") is not None:
        return (max(0.0, dur - float(s["window_last_s"])), dur)
    return None
