"""Tokens, numbers and units of the expression reader, and what a reading holds.

:class:`Token`, :func:`tokenize`, the vocabulary of numbers, units and cue words, and
:class:`_Scanner`: token access and the readers of numbers and times that every expression
rule (:mod:`foakit.bench.reader.rules`) builds on.  :class:`Expr` and :class:`Reading` are
what a reading gives back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_TOKEN = re.compile(r"o'?clock\b|\d+(?:\.\d+)?|[a-z]+(?:'[a-z]+)?|[^\sa-z\d]")


@dataclass(frozen=True)
class Token:
    """One token: its lower-case text and character span in the source text."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Expr:
    """One reading.

    Attributes
    ----------
    kind : str
        time_point, interval, open_interval, clip_part, duration, direction, height,
        distance, spatial_relation, count, sound_list, temporal_relation or asks.
    start, end : int
        Character span in the text read.
    text : str
        The words read.
    value : dict
        What they say, in the fields of :meth:`Reading.summary`.
    """

    kind: str
    start: int
    end: int
    text: str
    value: dict


@dataclass
class Reading:
    """What one text says.

    Attributes
    ----------
    text : str
    exprs : list of Expr
        In text order.
    unread : list of (int, int, str)
        Cue words no rule read: character span and text.
    """

    text: str
    exprs: list[Expr] = field(default_factory=list)
    unread: list[tuple[int, int, str]] = field(default_factory=list)

    @property
    def fully_read(self) -> bool:
        """True when no cue word is left unread."""
        return not self.unread

    @property
    def partial(self) -> bool:
        """True when some cues were read and others were not."""
        return bool(self.exprs) and bool(self.unread)

    def kinds(self) -> set[str]:
        """The kinds of expression read."""
        return {e.kind for e in self.exprs}

    def summary(self) -> dict[str, Any]:
        """All readings as one dict (the first reading of a field wins; spatial relations
        are collected in order).  Fields: time_s, window ((start, end) s, end None for the
        end of the clip), window_frac, window_last_s, duration_s, duration_class,
        azimuth_deg, azimuth_kind, elevation_deg, elevation_sign, distance_m,
        distance_max_m, distance_min_m, distance_class, count, n_sounds,
        temporal_relation, spatial_relations, asks."""
        out: dict[str, Any] = {}
        for e in self.exprs:
            for k, v in e.value.items():
                if k == "spatial_relations":
                    out.setdefault(k, [])
                    out[k] += [r for r in v if r not in out[k]]
                else:
                    out.setdefault(k, v)
        return out


def tokenize(text: str) -> list[Token]:
    """Lower-case tokens of ``text`` with their character spans (curly quotes and dashes
    are read as plain ones)."""
    norm = str(text).lower().replace("’", "'").replace("–", "-").replace("—", "-")
    return [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(norm)]


# --- vocabulary ---------------------------------------------------------------------------

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
          "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_WORD_NUM = {w: float(i) for i, w in enumerate(_UNITS)}
_TENS = {w: float(10 * (i + 2)) for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SEC = {"s", "sec", "secs", "second", "seconds"}
_MS = {"ms", "msec", "msecs", "millisecond", "milliseconds"}
_METRE = {"m", "metre", "metres", "meter", "meters"}
_DEG = {"degree", "degrees", "deg", "degs", "°", "º"}
_HEDGE = {"about", "around", "approximately", "approx", "roughly", "circa", "~", "some",
          "nearly", "almost", "somewhere", "maybe", "perhaps", "exactly",
          "precisely", "just"}
_FRAME = {"you", "me", "us", "listener", "microphone", "mic", "room", "scene", "recording",
          "head", "yourself", "center", "centre"}
_COUNT_NOUN = {"sound", "sounds", "source", "sources", "event", "events", "emitter",
               "emitters", "thing", "things", "noise", "noises", "one", "ones", "voice",
               "voices", "speaker", "speakers", "object", "objects", "class", "classes"}
_COUNT_ADJ = {"distinct", "different", "separate", "simultaneous", "overlapping", "active",
              "unique", "individual", "sound", "audible", "concurrent", "other", "total",
              "discrete", "independent", "identifiable", "recognisable", "recognizable"}
_PART_INDEX = {"first": 0, "opening": 0, "initial": 0, "second": 1, "middle": None,
               "third": 2, "fourth": 3, "last": -1, "final": -1, "closing": -1}
_PARTS = {"half": 2, "third": 3, "quarter": 4}
_CLIP = {"recording", "clip", "audio", "file", "excerpt", "scene", "segment", "track",
         "sample", "duration", "time", "sequence", "soundscape"}
# cue words reported when no rule read them
_CUE_WORDS = (set(_WORD_NUM) - {"zero", "one"}) | set(_TENS) | _SEC - {"second"} | _MS | \
    _DEG | {"metre", "metres", "meter", "meters", "o'clock", "oclock", "half", "quarter",
            "midway", "halfway", "throughout", "beginning", "middle", "early", "late",
            "earlier", "later", "sooner", "far", "distant", "nearby", "closer", "nearer",
            "farther", "further", "left", "right", "front", "ahead", "behind", "rear",
            "back", "above", "below", "beneath", "overhead", "underneath", "upward",
            "downward", "north", "south", "east", "west", "northeast", "northwest",
            "southeast", "southwest", "port", "starboard", "clockwise", "several", "few",
            "multiple", "numerous", "couple", "pair", "overlap", "overlaps", "during",
            "before", "after", "while"}
# "right" as an adverb ("right at", "right after") says nothing about a side
_RIGHT_ADVERB = {"at", "around", "after", "before", "away", "now", "behind", "in", "when",
                 "then", "there", "here", "next", "from", "until", "up", "as", "on", "near",
                 "about", "to"}


# --- token access, numbers and times --------------------------------------------------------

class _Scanner:
    """Tokens of one text, which of them a rule has taken, and the readings so far."""

    def __init__(self, text: str):
        self.text = str(text)
        self.toks = tokenize(self.text)
        self.taken = [False] * len(self.toks)
        self.exprs: list[Expr] = []

    # token access
    def w(self, i: int) -> str:
        return self.toks[i].text if 0 <= i < len(self.toks) else ""

    def free(self, i: int, j: int) -> bool:
        return all(not self.taken[k] for k in range(i, j))

    def glued(self, i: int) -> bool:
        """No space between token i-1 and token i."""
        return 0 < i < len(self.toks) and self.toks[i - 1].end == self.toks[i].start

    def lit(self, i: int, phrase: str) -> int | None:
        """The index after ``phrase`` (space-separated tokens) matched at ``i``."""
        for p in phrase.split():
            if self.w(i) != p:
                return None
            i += 1
        return i

    def opt(self, i: int, *phrases: str) -> int:
        """``i`` after the longest of ``phrases`` that matches there (or ``i``)."""
        best = i
        for p in phrases:
            j = self.lit(i, p)
            if j is not None and j > best:
                best = j
        return best

    def hedge(self, i: int) -> int:
        while True:
            j = self.opt(i, "close to", "right around", "right at", "at around", "at about",
                         "somewhere near", "somewhere around", "some time around",
                         "in the vicinity of", "on the order of", "more or less", "roughly",
                         "approx .", "~", "near", "nearly") if self.w(i) not in _HEDGE \
                else i + 1 + (self.w(i) == "approx" and self.w(i + 1) == ".")
            if j == i:
                return i
            i = j

    def add(self, kind: str, i: int, j: int, **value) -> None:
        # "during the opening three seconds": the preposition belongs to the time
        if kind in ("clip_part", "interval", "open_interval") and i > 0 and \
                not self.taken[i - 1] and self.w(i - 1) in ("during", "in", "within", "over",
                                                             "across", "throughout"):
            i -= 1
        for k in range(i, j):
            self.taken[k] = True
        a, b = self.toks[i].start, self.toks[j - 1].end
        self.exprs.append(Expr(kind, a, b, self.text[a:b], value))

    # numbers and quantities
    def number(self, i: int) -> tuple[float, int] | None:
        """A number in digits or words at ``i``: (value, index after)."""
        t = self.w(i)
        if t in ("-", "+") and re.fullmatch(r"\d+(?:\.\d+)?", self.w(i + 1)) and \
                self.glued(i + 1) and not self.glued(i):
            v = float(self.w(i + 1))
            return (-v if t == "-" else v), i + 2
        if re.fullmatch(r"\d+(?:\.\d+)?", t):
            v = float(t)
            # a sign glued to the number, with a space (or nothing) before it: "-45"
            if self.w(i - 1) in ("-", "+") and self.glued(i) and \
                    (i - 1 == 0 or not self.glued(i - 1)):
                v = -v if self.w(i - 1) == "-" else v
            return v, i + 1
        j = self.lit(i, "a couple of") or self.lit(i, "a pair of") or self.lit(i, "a couple")
        if j is not None:
            return 2.0, j
        j = self.lit(i, "half a") or self.lit(i, "half an") or self.lit(i, "a half")
        if j is not None:
            return 0.5, j
        if t in _TENS:
            v = _TENS[t]
            k = i + 1 + (self.w(i + 1) == "-")
            if self.w(k) in _WORD_NUM and 0 < _WORD_NUM[self.w(k)] < 10:
                return v + _WORD_NUM[self.w(k)], k + 1
            return v, i + 1
        if t in _WORD_NUM:
            v = _WORD_NUM[t]
            j = self.lit(i + 1, "and a half")
            return (v + 0.5, j) if j is not None else (v, i + 1)
        if t == "hundred" or self.lit(i, "a hundred"):
            return 100.0, self.opt(i, "a hundred", "hundred")
        return None

    def time(self, i: int, *, unit: bool = True) -> tuple[float, int, bool] | None:
        """A time at ``i`` (an optional "the", a number, a unit): (seconds, index after,
        whether a unit was read).  Without ``unit`` a bare number is a time too; a number
        followed by a dangling hyphen ("the 6- and 8-second marks") is one."""
        i = self.opt(i, "the")
        n = self.number(i)
        if n is None:
            return None
        v, j = n
        k = j + (self.w(j) == "-")
        if self.w(k) in _SEC or self.w(k) in _MS:
            scale = 0.001 if self.w(k) in _MS else 1.0
            k += 1
            if self.w(k) in ("mark", "marks", "point", "timestamp"):
                k += 1
            k = self.opt(k, "into the recording", "into the clip", "into the audio", "in")
            return v * scale, k, True
        if not unit:
            return v, j + (self.w(j) == "-" and self.w(j + 1) in ("and", "to")), False
        return None

    def span(self, a: float, b: float) -> tuple[float, float]:
        return (min(a, b), max(a, b))
