"""What an answer option claims: a count, a direction, a time or interval, a sound list.

Directions and times are read with the shared question parser
(:func:`foakit.bench.questions.parse_question`: sector words, "ahead and to the left", clock
positions, angles with left / right, "at 3.2 s", "between 2 and 4 s", "1.2-3.4 s"); this
module adds what only answer options state: counts in digits or words, intervals joined by
"and" / "until", and lists of sounds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..questions import AZIMUTH_HALFWIDTH_DEG, parse_question

__all__ = ["Claim", "read_claim", "count_of", "direction_of", "time_of", "list_length",
           "onset_question"]

_NUMBER_WORDS = {"no": 0, "zero": 0, "none": 0, "one": 1, "single": 1, "a single": 1,
                 "two": 2, "a pair of": 2, "both": 2, "three": 3, "four": 4, "five": 5,
                 "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_COUNT = re.compile(r"(?<![\d.])(\d+)(?![\d.]|\s*(?:s\b|sec|seconds?|o'?clock|°|degrees?|m\b))"
                    r"|\b(" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b",
                    re.I)
_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds)?\s*(?:-|–|to|and|until)\s*"
                   r"(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds)\b", re.I)
_ONSET_Q = re.compile(r"\b(start|starts|begin|begins|onset|first heard|first audible)\b", re.I)
_LIST_SPLIT = re.compile(r";|,|\band\b|\bplus\b|\bas well as\b", re.I)


@dataclass(frozen=True)
class Claim:
    """What one option states (fields it does not state are None).

    Attributes
    ----------
    count : int or None
    azimuth_deg : float or None
        Counter-clockwise from the front (+90 = left), relative to the listener.
    halfwidth_deg : float or None
        How precise the direction is: 22.5 for sector words, 15 for clock positions,
        7.5 for angles.
    onset_s : float or None
        A point in time (an onset).
    span : (float, float) or None
        An interval (s).
    n_listed : int
        Number of sounds the option lists (1 for a single phrase).
    """

    count: int | None = None
    azimuth_deg: float | None = None
    halfwidth_deg: float | None = None
    onset_s: float | None = None
    span: tuple[float, float] | None = None
    n_listed: int = 1


def count_of(text: str) -> int | None:
    """A count in digits or words ("3", "three sources", "only one"); None if none or
    several different ones."""
    found = set()
    for m in _COUNT.finditer(text):
        found.add(int(m.group(1)) if m.group(1) else _NUMBER_WORDS[m.group(2).lower()])
    return found.pop() if len(found) == 1 else None


def direction_of(text: str) -> tuple[float, float] | None:
    """(azimuth, half-width) in degrees of a direction claim, or None."""
    cues = parse_question(text)
    if cues.azimuth_deg is None:
        return None
    return float(cues.azimuth_deg), AZIMUTH_HALFWIDTH_DEG[cues.azimuth_kind]


def time_of(text: str) -> tuple[str, float | tuple[float, float]] | None:
    """``("span", (a, b))`` or ``("onset", t)`` of a time claim, or None."""
    m = _SPAN.search(text)
    if m:
        a, b = sorted((float(m.group(1)), float(m.group(2))))
        return "span", (a, b)
    cues = parse_question(text)
    if cues.window is not None and all(abs(v) < 1e6 for v in cues.window):
        return "span", cues.window
    if cues.time_s is not None:
        return "onset", float(cues.time_s)
    return None


def list_length(text: str) -> int:
    """How many sounds an option lists ("a dog barking, speech and a doorbell" -> 3)."""
    parts = [p for p in _LIST_SPLIT.split(text) if p.strip(" .")]
    return max(1, len(parts))


def onset_question(question: str) -> bool:
    """True when a question asks when something starts (its times are onsets)."""
    return bool(_ONSET_Q.search(question))


def read_claim(text: str) -> Claim:
    """Everything :class:`Claim` can hold, read from one option's text."""
    d = direction_of(text)
    t = time_of(text)
    return Claim(count=count_of(text) if d is None and t is None else None,
                 azimuth_deg=d[0] if d else None, halfwidth_deg=d[1] if d else None,
                 onset_s=t[1] if t and t[0] == "onset" else None,
                 span=t[1] if t and t[0] == "span" else None,
                 n_listed=list_length(text))
