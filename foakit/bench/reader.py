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
  ends later) and what a question asks (a time, a count, a direction).

Every reading keeps its character span, kind and text.  Cue words left over (a number, a
unit, a direction, time or distance word no rule read) are reported in
:attr:`Reading.unread`, never guessed; a text with readings and unread cues is
:attr:`Reading.partial`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Expr", "Reading", "Token", "read", "resolve_window", "tokenize"]

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


# --- the parser -----------------------------------------------------------------------------

class _Parser:
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

    # rules: each tries to read an expression at token i and returns True when it did
    def r_interval(self, i: int) -> bool:
        k = i
        lead = self.w(i) in ("between", "from", "spans", "spanning", "span")
        if lead:
            k = i + 1
        k = self.hedge(k)
        t1 = self.time(k, unit=False)
        if t1 is None:
            return False
        a, k, unit1 = t1
        if self.w(k) in ("-", "to", "and", "until", "till", "through", "thru", "up") and \
                not (self.w(k) == "and" and not lead):
            if self.w(k) == "up":
                if self.w(k + 1) != "to":
                    return False
                k += 1
            k2 = self.hedge(k + 1)
            if lead and self.lit(k2, "the end") is not None or \
                    self.lit(k2, "the very end") is not None:
                if not unit1:
                    return False
                e = self.opt(k2, "the very end", "the end")
                e = self.opt(e, "of the clip", "of the recording", "of the audio")
                self.add("open_interval", i, e, window=(a, None))
                return True
            t2 = self.time(k2, unit=True)
            if t2 is None:
                return False
            b, e, _ = t2
            self.add("interval", i, e, window=self.span(a, b))
            return True
        if lead and self.w(i) == "from" and unit1:
            e = self.opt(k, "onward", "onwards", "on", "and later", "or later", "forward")
            if e > k:
                self.add("open_interval", i, e, window=(a, None))
                return True
        return False

    def r_start_end(self, i: int) -> bool:
        """"starting at 0.7 s and ending at 4.5 s", "it begins at 2 s and ends at 5 s"."""
        k = self.opt(i, "starting at", "starting from", "starts at", "begins at",
                     "beginning at", "start at", "begin at", "onset at", "it starts at",
                     "it begins at")
        if k == i:
            return False
        t1 = self.time(self.hedge(k), unit=False)
        if t1 is None:
            return False
        a, j, _ = t1
        j = self.opt(j, ",", "and")
        j = self.opt(j, "ending at", "ends at", "stopping at", "stops at", "finishing at",
                     "finishes at", "end at", "offset at", "it ends at", "it stops at")
        if not self.w(j - 1) == "at":
            return False
        t2 = self.time(self.hedge(j))
        if t2 is None:
            return False
        b, e, _ = t2
        self.add("interval", i, e, window=self.span(a, b))
        return True

    def r_open(self, i: int) -> bool:
        after = ("after", "later than", "not until", "past", "beyond", "not before",
                 "only after", "following")
        before = ("before", "by", "earlier than", "until", "till", "up until", "up to",
                  "prior to", "no later than", "within")
        for side, words in (("after", after), ("before", before)):
            k = self.opt(i, *words)
            if k == i:
                continue
            k = self.hedge(k)
            t = self.time(k)
            if t is None:
                continue
            v, e, _ = t
            e = self.opt(e, "or later", "onward", "onwards")
            self.add("open_interval", i, e, window=(v, None) if side == "after" else (0.0, v))
            return True
        t = self.time(i)
        if t is not None:
            v, e, _ = t
            k = self.opt(e, "onward", "onwards", "and later", "or later", "and after")
            if k > e:
                self.add("open_interval", i, k, window=(v, None))
                return True
        return False

    def r_part(self, i: int) -> bool:
        w = self.w(i)
        k = i + (self.w(i) == "the")
        first = self.w(k)
        # "the opening three seconds", "the last 3 s"
        if first in ("first", "opening", "initial", "last", "closing", "final", "beginning",
                     "starting", "ending"):
            t = self.time(k + 1)
            if t is not None and t[2]:
                v, e, _ = t
                e = self.opt(e, "of the clip", "of the recording", "of the audio",
                             "of the file")
                if first in ("last", "closing", "final", "ending"):
                    self.add("clip_part", i, e, window_last_s=v)
                else:
                    self.add("clip_part", i, e, window=(0.0, v))
                return True
        if first in _PART_INDEX and self.w(k + 1) in _PARTS:
            n, idx = _PARTS[self.w(k + 1)], _PART_INDEX[first]
            if idx is None:
                frac = (1 / 3, 2 / 3) if n == 3 else (0.25, 0.75)
            elif idx < n:
                idx %= n
                frac = (idx / n, (idx + 1) / n)
            else:
                return False
            e = self.opt(k + 2, "of the clip", "of the recording", "of the audio",
                         "of the file")
            self.add("clip_part", i, e, window_frac=(round(frac[0], 4), round(frac[1], 4)))
            return True
        whole = (0.0, 1.0)
        for p in ("throughout the entire", "throughout the whole", "throughout the",
                  "throughout", "the entire", "the whole", "the full", "the complete",
                  "all of the", "entire", "whole", "from start to finish",
                  "from beginning to end", "from start to end", "start to finish",
                  "all the way through", "all along", "the whole time", "continuously"):
            e = self.lit(i, p)
            if e is None:
                continue
            if p.startswith(("throughout", "from", "start", "all the", "all along",
                             "the whole time", "continuously")):
                e = self.opt(e, "clip", "recording", "audio", "file", "scene", "duration")
                self.add("clip_part", i, e, window_frac=whole)
                return True
            if self.w(e) in _CLIP:
                self.add("clip_part", i, e + 1, window_frac=whole)
                return True
        k = self.opt(i, "at the very", "at the", "near the very", "near the", "towards the",
                     "toward the", "by the", "in the very", "in the", "around the", "the very")
        if k == i and w != "the":
            if w in ("midway", "halfway"):
                e = self.opt(i + 1, "through the clip", "through the recording", "through")
                self.add("clip_part", i, e, window_frac=(0.4, 0.6))
                return True
            if w in ("early", "late") and self.w(i + 1) in ("on", "in"):
                e = self.opt(i + 1, "on", "in the clip", "in the recording", "in the audio")
                self.add("clip_part", i, e,
                         window_frac=(0.0, 1 / 3) if w == "early" else (2 / 3, 1.0))
                return True
            return False
        k = max(k, i + (w == "the"))
        where = self.w(k)
        fracs = {"beginning": (0.0, 0.2), "start": (0.0, 0.2), "outset": (0.0, 0.2),
                 "middle": (0.4, 0.6), "end": (0.8, 1.0), "close": (0.8, 1.0)}
        # "the start and end times", "the end of the dog": no part of the clip
        if self.w(k + 1) in ("and", "or", "/", "time", "times", "point", "points") or \
                (self.w(k + 1) == "of" and self.w(self.opt(k + 2, "the", "this")) not in _CLIP):
            return False
        if where in fracs and (where != "close" or self.w(k + 1) == "of"):
            e = self.opt(k + 1, "of the clip", "of the recording", "of the audio",
                         "of the file", "of the scene")
            if where == "close" and e == k + 1:
                return False
            self.add("clip_part", i, e, window_frac=fracs[where])
            return True
        return False

    def r_duration(self, i: int) -> bool:
        k = self.opt(i, "lasts", "lasting", "last", "lasted", "for", "duration of",
                     "duration is", "duration", "persists for", "goes on for", "continues for",
                     "heard for", "length of", "lasts for", "runs for", "plays for")
        if k > i:
            k = self.hedge(k)
            t = self.time(k)
            if t is not None:
                v, e, _ = t
                e = self.opt(e, "in total", "long", "overall")
                self.add("duration", i, e, duration_s=v)
                return True
        # "a 3-second sound", "a 500 ms beep": a length before a noun
        if self.w(i) in ("a", "an"):
            n = self.number(i + 1)
            if n is not None:
                v, j = n
                j += self.w(j) == "-"
                if (self.w(j) in _SEC or self.w(j) in _MS) and \
                        self.w(j + 1) not in ("mark", "marks", "point", "in", "into"):
                    scale = 0.001 if self.w(j) in _MS else 1.0
                    e = self.opt(j + 1, "long")
                    self.add("duration", i, e, duration_s=v * scale)
                    return True
        # "500 ms" on its own: milliseconds say how long, not when
        n = self.number(i)
        if n is not None and self.w(n[1]) in _MS:
            self.add("duration", i, n[1] + 1, duration_s=n[0] / 1000.0)
            return True
        short = {"brief", "short", "momentary", "quick", "transient", "short-lived", "burst",
                 "instantaneous", "fleeting"}
        long = {"long", "sustained", "extended", "lengthy", "prolonged", "continuous",
                "long-lasting", "steady", "ongoing"}
        if self.w(i) in short | long and self.w(i - 1) not in ("how", "as", "so"):
            self.add("duration", i, i + 1,
                     duration_class="short" if self.w(i) in short else "long")
            return True
        return False

    def r_point(self, i: int) -> bool:
        k = self.opt(i, "at", "around", "about", "near", "roughly", "approximately",
                     "starting at", "starting near", "starting around", "beginning at",
                     "onset at", "t =", "t=", "by about")
        k = self.hedge(k)
        t = self.time(k)
        if t is None:
            return False
        v, e, _ = t
        self.add("time_point", i, e, time_s=v)
        return True

    def r_clock(self, i: int) -> bool:
        k = self.opt(i, "at your", "at the", "at", "around", "your", "about", "roughly")
        k = self.hedge(k)
        n = self.number(k)
        if n is None:
            return False
        h, j = n
        half = 0.0
        if self.w(j) == ":" and self.w(j + 1) in ("00", "30"):
            half = 0.5 if self.w(j + 1) == "30" else 0.0
            j += 2
        if self.w(j) not in ("o'clock", "oclock") and self.lit(j, "o ' clock") is None:
            return False
        e = self.opt(j, "o ' clock") if self.w(j) not in ("o'clock", "oclock") else j + 1
        if not (1 <= h <= 12 and float(h).is_integer()):
            return False
        hours = h % 12 + half
        az = (-30.0 * hours + 180.0) % 360.0 - 180.0
        self.add("direction", i, e, azimuth_deg=az + 0.0,
                 azimuth_kind="clock")
        return True

    def r_angle(self, i: int) -> bool:
        k = i
        axis = None
        if self.w(i) in ("azimuth", "elevation", "az", "el"):
            axis = "elevation" if self.w(i) in ("elevation", "el") else "azimuth"
            k = self.opt(i + 1, "angle of", "angle is", "angle", "of", "is", "at", "=", ":")
        k = self.hedge(k)
        n = self.number(k)
        if n is None:
            return False
        v, j = n
        has_unit = self.w(j) in _DEG
        if not has_unit and axis is None:
            return False
        e = j + has_unit
        e2 = self.opt(e, "off to the", "off to your", "to the", "to your", "off the",
                      "off", "of", "on the", "on your", "toward the", "towards the")
        side = self.w(e2)
        if side in ("left", "right"):
            e = e2 + 1
            e = self.opt(e, "of center", "of centre", "of the front", "of straight ahead",
                         "side", "hand side", "- hand side")
            self.add("direction", i, e, azimuth_deg=v if side == "left" or v < 0 else -v,
                     azimuth_kind="angle")
            return True
        if side in ("above", "below", "up", "down", "elevation", "upward", "downward"):
            e = self.opt(e2 + 1, "the horizon", "the horizontal", "horizontal", "ear level")
            neg = side in ("below", "down", "downward")
            self.add("height", i, e, elevation_deg=-abs(v) if neg else v)
            return True
        if axis == "elevation":
            self.add("height", i, e, elevation_deg=v)
        else:
            self.add("direction", i, e, azimuth_deg=v, azimuth_kind="angle")
        return True

    def _atom(self, i: int) -> tuple[str, int] | None:
        """One direction word at ``i``: (F, B, L or R, index after)."""
        w = self.w(i)
        if w == "in" and self.w(i + 1) == "front":
            return "F", i + 2
        if w in ("front", "ahead", "forward", "forwards", "fore", "frontal"):
            return "F", i + 1
        if w in ("behind", "rear", "back", "backward", "backwards", "aft"):
            return "B", i + 1
        if w in ("left", "lefthand"):
            return "L", i + 1
        if w in ("right", "righthand") and not (self.w(i + 1) in _RIGHT_ADVERB and
                                                 self.w(i + 1) not in ("of",)):
            return "R", i + 1
        return None

    def r_direction(self, i: int) -> bool:
        if self.w(i) == "right" and self.w(i + 1) in _RIGHT_ADVERB:
            return False
        a = self._atom(i)
        if a is None:
            return False
        atoms = [a[0]]
        k = a[1]
        rel = False
        e = k
        glue = {"-", "and", ",", "to", "the", "your", "on", "over", "off", "you", "side",
                "hand", "slightly", "a", "bit", "little", "somewhat", "sector", "area",
                "region", "quadrant", "direction", "of", "just", "then", "but", "toward",
                "towards", "in", "more"}
        while True:
            j = k
            while self.w(j) in glue and j - k < 6:
                if self.w(j) == "of":
                    nxt = self.opt(j + 1, "the", "a", "an", "your", "my")
                    if self.w(nxt) in _FRAME:
                        j = nxt + 1
                        e = j
                        continue
                    if self._atom(nxt) is None:
                        rel = True
                        if self.w(nxt) not in ("and",):
                            break
                j += 1
            nxt = self._atom(j)
            if nxt is None or not self.free(j, nxt[1]):
                break
            if nxt[0] in atoms:
                break
            atoms.append(nxt[0])
            k = e = nxt[1]
        # the glue words read after the last direction word ("side", "area", "region")
        e = self.opt(e, "side", "- hand side", "hand side", "area", "region", "sector",
                     "quadrant", "direction", "of you", "of the listener", "of the room",
                     "of the microphone", "of me")
        # "behind the sofa", "in front of the door": a relation to another thing
        nxt = self.opt(e, "of")
        det = self.opt(nxt, "the", "a", "an", "and")
        if not rel and atoms[0] in ("F", "B") and len(atoms) == 1 and det > nxt and \
                self.w(det) not in _FRAME and self.w(det) and (
                    nxt > e or self.w(e - 1) == "behind" or self.w(i) == "in"):
            rel = True
        if rel or self._relative_frame():
            names = {"F": "in_front_of", "B": "behind", "L": "left_of", "R": "right_of"}
            self.add("spatial_relation", i, e,
                     spatial_relations=[names[x] for x in atoms])
            return True
        s = set(atoms)
        if s == {"F", "B"} or s == {"L", "R"} or len(s) > 2:
            return False
        vec = {"F": 0.0, "B": 180.0, "L": 90.0, "R": -90.0}
        if len(s) == 1:
            az = vec[atoms[0]]
        else:
            lr = 90.0 if "L" in s else -90.0
            az = lr / 2 if "F" in s else math.copysign(135.0, lr)
        self.add("direction", i, e, azimuth_deg=az, azimuth_kind="word")
        return True

    def _relative_frame(self) -> bool:
        """The text places things relative to another sound ("Relative to the robot,
        ...", "... relative to the dog"), not to the listener."""
        for k in range(len(self.toks)):
            if self.lit(k, "relative to") or self.lit(k, "compared to") or \
                    self.lit(k, "compared with") or self.lit(k, "with respect to"):
                j = self.opt(k + 2 + (self.w(k) == "with"), "the", "a", "an")
                if self.w(j) not in _FRAME:
                    return True
        return False

    def r_height(self, i: int) -> bool:
        for p in ("at ear level", "ear level", "ear - level", "at head height",
                  "head height", "at head level", "head level", "eye level",
                  "at eye level", "at the listener's height", "at listener height",
                  "level with the listener", "level with you"):
            e = self.lit(i, p)
            if e is not None:
                self.add("height", i, e, elevation_deg=0.0)
                return True
        up = ("overhead", "from above", "high up", "up high", "up above", "elevated",
              "near the ceiling", "close to the ceiling", "by the ceiling",
              "on the ceiling", "upper", "above", "up")
        down = ("near the floor", "on the floor", "close to the floor", "by the floor",
                "from below", "down low", "low down", "low", "below", "beneath",
                "underneath", "lower", "down")
        for sign, words in ((1, up), (-1, down)):
            e = self.opt(i, *words)
            if e == i:
                continue
            w = self.w(i)
            if w in ("up", "down") and e == i + 1:
                return False
            if w in ("above", "below", "beneath", "underneath", "under"):
                det = self.opt(e, "the", "a", "an", "your", "my")
                if det > e and self.w(det) not in _FRAME and self.w(det) not in (
                        "horizon", "horizontal", "ear", "head"):
                    e2 = det + 1
                    self.add("spatial_relation", i, e2,
                             spatial_relations=["above" if sign > 0 else "below"])
                    return True
                e = self.opt(e, "the listener", "you", "the microphone", "the horizon",
                             "ear level", "your head")
            self.add("height", i, e, elevation_sign=sign)
            return True
        return False

    def r_distance(self, i: int) -> bool:
        for key, words in (("distance_max_m", ("within", "less than", "under", "no more than",
                                               "at most", "closer than", "nearer than")),
                           ("distance_min_m", ("more than", "over", "beyond", "at least",
                                               "farther than", "further than"))):
            k = self.opt(i, *words)
            if k == i:
                continue
            k = self.hedge(k)
            n = self.number(k)
            if n is not None and self.w(n[1]) in _METRE:
                e = self.opt(n[1] + 1, "away", "from the listener", "from you",
                             "from the microphone")
                self.add("distance", i, e, **{key: n[0]})
                return True
        k = self.hedge(i)
        n = self.number(k)
        if n is not None and self.w(n[1]) in _METRE:
            e = self.opt(n[1] + 1, "away", "from the listener", "from you",
                         "from the microphone", "from the mic")
            self.add("distance", i, e, distance_m=n[0])
            return True
        for cls, words in (("far", ("far away", "far off", "a long way off", "a long way away",
                                    "in the distance", "distant", "far")),
                           ("near", ("very close to the listener", "close to the listener",
                                     "close to you", "close to me", "very close", "close by",
                                     "nearby", "near the listener", "near you", "near me",
                                     "close", "near"))):
            e = self.opt(i, *words)
            if e > i:
                if self.w(i) in ("close", "near", "far") and e == i + 1 and \
                        self.w(e) in ("to", "the", "from", "than"):
                    return False
                self.add("distance", i, e, distance_class=cls)
                return True
        for rel, words in (("closer", ("closer", "nearer")),
                           ("farther", ("farther", "further", "more distant"))):
            e = self.opt(i, *words)
            if e > i:
                if self.w(i) == "further" and self.w(e) not in ("from", "away", "than"):
                    return False
                e = self.opt(e, "away", "to me", "to you", "to the listener",
                             "from the listener", "from you", "from me")
                e = self.opt(e, "than")
                self.add("spatial_relation", i, e, spatial_relations=[rel])
                return True
        return False

    def r_count(self, i: int) -> bool:
        k = self.opt(i, "there is", "there are", "there's")
        k = self.opt(k, "only", "just", "exactly", "at most", "a total of", "up to",
                     "precisely", "at least", "a maximum of")
        if self.lit(k, "no") is not None:
            j = k + 1
            while self.w(j) in _COUNT_ADJ and self.w(j + 1) in _COUNT_ADJ | _COUNT_NOUN:
                j += 1
            if self.w(j) in _COUNT_NOUN:
                e = self.opt(j + 1, "at all")
                self.add("count", i, e, count=0)
                return True
            return False
        j = self.opt(k, "a single", "one single", "a lone", "a sole", "a solitary")
        if j > k:
            v = 1.0
        else:
            n = self.number(k)
            if n is None:
                return False
            v, j = n
        if not float(v).is_integer() or v < 0:
            return False
        e = j
        while self.w(e) in _COUNT_ADJ and self.w(e + 1) in _COUNT_ADJ | _COUNT_NOUN and \
                e - j < 3:
            e += 1
        if self.w(e) in _COUNT_NOUN and not (self.w(e) == "one" and e == j):
            self.add("count", i, e + 1, count=int(v))
            return True
        # a bare number option: "3", "Five", "Just one.", "I count 4."
        rest = [t for t in self.toks[e:] if t.text not in (".", "!", ",")]
        frame = {"there", "is", "are", "only", "just", "exactly", "i", "we", "count",
                 "counted", "hear", "heard", "can", "make", "out", "detect", "total", "in",
                 "the", "answer", "number", ":", "it's", "it", "sources", "sounds"}
        if not rest and all(t.text in frame for t in self.toks[:i]):
            self.add("count", i, e, count=int(v))
            return True
        return False

    def r_temporal(self, i: int) -> bool:
        rels = (("contained_within", ("contained within", "contained in", "within the duration of",
                                      "fully inside", "entirely inside", "entirely within",
                                      "fully within", "inside", "nested within")),
                ("starts_earlier", ("starts earlier", "start earlier", "begins earlier",
                                    "begin earlier", "begins sooner", "begin sooner",
                                    "starts sooner", "start sooner", "starts first")),
                ("ends_later", ("ends later", "end later", "stops later", "stop later",
                                "finishes later", "finish later", "ends after",
                                "lasts longer")),
                ("starts_later", ("starts later", "start later", "begins later",
                                  "begin later")),
                ("ends_earlier", ("ends earlier", "end earlier", "stops earlier",
                                  "finishes earlier", "ends sooner")),
                ("overlaps", ("overlaps with", "overlap with", "overlapping with", "overlaps",
                              "overlap", "at the same time as", "simultaneously with",
                              "at the same time", "simultaneously", "concurrently with",
                              "coincides with")),
                ("during", ("during", "while", "whilst", "in the course of")),
                ("before", ("before", "preceding", "precedes", "precede", "preceded",
                            "prior to", "earlier than", "sooner than", "ahead of")),
                ("after", ("after", "following", "follows", "follow", "followed",
                           "later than", "once")))
        for name, words in rels:
            e = self.opt(i, *words)
            if e > i:
                if name == "before" and self.w(i) == "ahead" and not self.w(e):
                    return False
                if name == "during" and self.w(e) in ("which", "what"):
                    return False
                e = self.opt(e, "than")
                self.add("temporal_relation", i, e, temporal_relation=name)
                return True
        return False

    def r_asks(self, i: int) -> bool:
        for name, words in (("count", ("how many", "number of", "count the", "count")),
                            ("time", ("what time span", "what time", "time span",
                                      "time interval", "at what point", "over what period",
                                      "what period", "when", "how long", "interval",
                                      "period")),
                            ("direction", ("which direction", "what direction",
                                           "which way", "which side", "where", "direction"))):
            e = self.opt(i, *words)
            if e > i:
                self.add("asks", i, e, asks=name)
                return True
        return False


_NOT_LIST = {"time_point", "interval", "open_interval", "clip_part", "duration", "direction",
             "height", "distance", "spatial_relation"}
_RULES = ("r_interval", "r_start_end", "r_part", "r_open", "r_duration", "r_point", "r_clock",
          "r_angle", "r_height", "r_distance", "r_direction", "r_count", "r_temporal")

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
        from .questions import class_mentions
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
        names it mentions (:func:`foakit.bench.questions.class_mentions`) instead of by
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
