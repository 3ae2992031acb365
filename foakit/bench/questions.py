"""What a question says about the event it asks about: direction, elevation, time, order.

Benchmark-neutral: the SO-Bench baselines and audit read their questions with it, and any
benchmark whose questions or answer options name directions, times or orders can.
:func:`class_mentions` finds the sound classes a text names.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from .mentions import class_mentions
from .reader import read

__all__ = ["AZIMUTH_HALFWIDTH_DEG", "Cues", "class_mentions", "parse_question", "referents",
           "resolve_window"]

_NUM = r"[-+]?\d+(?:\.\d+)?"
_SEC = r"(?:s|sec|secs|seconds?)\b"
# a hedge before a time: "from about 2 until 3.5 s"
_ABOUT = r"(?:(?:about|around|approximately|approx\.|roughly|circa|~)\s*)?"
_INSTRUCTION = re.compile(r"^\s*(?:listen|answer|respond|reply|report|give|provide|use|please|"
                          r"state|express|based on|note|assume|format|round)\b", re.I)
# an imperative that asks about a sound is the question, not an instruction: "Give the
# direction of the last event", "State the onset of a sound from the left", "Report the
# time at which the dog starts"; so is a sentence that ends in a question mark ("Based on
# the events you recognised, which sound is on the left?")
_ASKS = re.compile(r"\b(?:of|for)\s+(?:the|a|an|each|every|this|that|any|whatever|whichever)"
                   r"\b|\bat which\b", re.I)
# an angle convention stated in passing: "(0 degrees is straight ahead and positive angles
# turn to the left)", "positive is above ear level", "azimuth increases to the left"
_CONVENTION = re.compile(r"clockwise|convention|=|\bmeans\b|\branges?\s+(?:from|between|over)\b|"
                         r"\bin the range\b|\bmid-range\b|\bbuckets?\b|"
                         r"\bmeasured\b|\b0\s*(?:°|º|degrees?\b|deg\b)\s*(?:is|are|points?|"
                         r"lies|faces|corresponds)\b|\bpositive\s+(?:values?\s+|angles?\s+|"
                         r"numbers?\s+)?(?:is|are|mean|turn|go|point|increase)|\bincreas\w*\s+"
                         r"(?:to(?:wards?)?|counter)", re.I)
# "how far round from straight ahead", "the angle relative to the front": the frame an angle
# is measured in, not where the sound is
_REFERENCE = re.compile(r"\b(?:far|angle|degrees?|away|off|round|around|turned|measured)\s+"
                        r"(?:\w+\s+)?(?:from|relative to)\s+(?:straight\s+)?(?:ahead|the front|"
                        r"forward|your nose)\b|\brelative to (?:straight\s+)?(?:ahead|the front|"
                        r"forward)\b")
# "a 10-second clip", "this 20 s recording": the clip's length, not a time in it
_CLIP_LENGTH = re.compile(rf"\b{_NUM}[\s-]*(?:s|sec|secs|seconds?)[\s-]+(?:long\s+)?(?:clip|"
                          r"recording|audio|scene|excerpt|file|segment)\b")
_OPPOSITES = (("left", "right"), ("front", "back|behind"), ("higher", "lower"),
              ("above", "below"), ("closer|nearer", "farther|further|away"),
              ("toward|towards", "away"), ("up", "down"))
# "X or Y" / "X, Y" answer options (opposite words, at most a few words apart, no noun between;
# the "left" of "front-left" is no option)
_OPTIONS = re.compile("|".join(
    rf"(?<![-_])\b(?:{a})\b(?:(?!sound|source|\bone\b|[.?!]).){{0,30}}?(?:\bor\b|,|/)"
    rf"(?:(?!sound|source|\bone\b|[.?!]).){{0,30}}?\b(?:{b})\b"
    for x, y in _OPPOSITES for a, b in ((x, y), (y, x))), re.I)
# "ahead and to the left", "ahead to the right", "in front of you on your left"
_DIAGONAL = (r"(?:ahead|in front(?:\s+of\s+you)?|front|forward),?\s+(?:and\s+)?"
             r"(?:(?:to|on)\s+(?:the|your)\s+)?")
_DIRECTIONS = (
    # "slightly to the right" of straight ahead: the middle of front and front-right, read as
    # a sector word (its +-22.5 deg reach spans front to front-right)
    (22.5, r"(?:slightly|a (?:little|bit)|just)\s+(?:to\s+(?:the|your)\s+)?left"),
    (-22.5, r"(?:slightly|a (?:little|bit)|just)\s+(?:to\s+(?:the|your)\s+)?right"),
    (45.0, rf"{_DIAGONAL}left(?!\s+of\b)|front[\s_-]*left|left[\s_-]*front|forward[\s_-]*left"
           r"|upper[\s_-]+left"),
    (-45.0, rf"{_DIAGONAL}right(?!\s+of\b)|front[\s_-]*right|right[\s_-]*front|forward[\s_-]*right"
            r"|upper[\s_-]+right"),
    (135.0, r"(?:back|rear|behind)(?:\s+you)?[\s,_-]*(?:and\s+)?(?:(?:to|on)\s+(?:the|your)\s+)?"
            r"left|left[\s_-]*(?:rear|back)"),
    (-135.0, r"(?:back|rear|behind)(?:\s+you)?[\s,_-]*(?:and\s+)?(?:(?:to|on)\s+(?:the|your)\s+)?"
             r"right"
             r"|right[\s_-]*(?:rear|back)"),
    (0.0, r"in front|front|ahead|forward"),
    (180.0, r"behind|back|rear"),
    (90.0, r"left(?![\s-]+(?:over|behind))"),
    (-90.0, r"right(?![\s-]+(?:after|before|now|away|at the (?:start|end|beginning)))"),
)
# clock positions: 12 o'clock ahead, 3 o'clock to the right, 9 o'clock to the left
_HOUR_WORDS = {w: i + 1 for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split())}
_CLOCK = re.compile(r"\b(1[0-2]|[1-9]|" + "|".join(_HOUR_WORDS) +
                    r")(?::(00|30))?\s*o'?\s*clock\b")
_EAR_LEVEL = re.compile(r"\bat (?:ear|head)[\s-]level\b|\bat the listener's height\b")
#: How precise each kind of azimuth cue is (half-width, degrees): an angle, a clock hour, a
#: sector word.
AZIMUTH_HALFWIDTH_DEG = {"angle": 7.5, "clock": 15.0, "word": 22.5}
_UP = re.compile(r"\b(?:above|overhead|upper|high up|up high|elevated|from above)\b")
_DOWN = re.compile(r"\b(?:below|beneath|underneath|under|lower|from below)\b")
_ORDER = {"first": 0, "earliest": 0, "initial": 0, "second": 1, "third": 2, "fourth": 3,
          "fifth": 4, "last": -1, "final": -1, "latest": -1, "1st": 0, "2nd": 1, "3rd": 2,
          "4th": 3, "5th": 4}
# verbs after which "first" (or "last") says when, not which: "when does it first become
# audible", "the dog last barks at"
_FIRST_VERBS = (r"become|becomes|became|appear|appears|appeared|start|starts|started|begin|"
                r"begins|began|emerge|emerges|enter|enters|come|comes|"
                r"came|get|gets|make|makes|heard|hear|play|plays|ring|rings|occur|occurs|"
                r"show|shows|turn|turns|can|could|is|was")
_ADVERB_AFTER = re.compile(r"\s+(?:" + _FIRST_VERBS + r")\b")
# a participle before "first" makes it the sound's rank again: "the sound heard first"
_RANK_BEFORE = re.compile(r"\b(?:heard|played|playing|sounding|starting|beginning|appearing|"
                          r"coming|arriving|one|sound|source|event|noise)\s+$")


def _adverb_of_time(t: str, m: re.Match) -> bool:
    """"first" of "when does it first appear" / "at first": when, not which sound."""
    before = t[: m.start()]
    if re.search(r"\bat\s+$", before):
        return True
    return bool(_ADVERB_AFTER.match(t, m.end())) and not _RANK_BEFORE.search(before)


# "in the first half", "the last third", "the second quarter": (start, end) as fractions of
# the clip; "last" / "final" count from the end
_PARTS = {"half": 2, "third": 3, "quarter": 4}
_PART_INDEX = {"first": 0, "opening": 0, "second": 1, "middle": None, "third": 2, "fourth": 3,
               "last": -1, "final": -1, "closing": -1}
_FRACTION = re.compile(r"\b(?:(?:in|during|within|over|throughout)\s+)?the\s+(" +
                       "|".join(_PART_INDEX) + r")\s+(half|third|quarter)\b"
                       r"(?:\s+of\s+the\s+(?:clip|recording|audio|file|excerpt))?")
# "after the dog", "right before the sound from the left begins": the other sound's words
# end at punctuation or at its verb
_RELATION = re.compile(
    r"\b(?:(?:right|just|immediately|shortly|soon)\s+)?(after|before|following|follows?|"
    r"preceding|precedes?)\s+((?:the|a|an|that)\s+(?:(?![,;?!]|\.(?!\d)).)+?)(?=\s+(?:begins?|"
    r"starts?|ends?|stops?|finish(?:es)?|is|was|does|did|has|can|occurs?|plays?)\b|[,;?!]|"
    r"\.(?!\d)|$)")
_NUMBER_WORDS = (r"(?:a few|several|some|one|two|three|four|five|six|seven|eight|nine|ten|"
                 r"fifteen|twenty|thirty|forty|forty-five|fifty|sixty|seventy|eighty|ninety|"
                 r"hundred|a hundred)")
# Cue-like phrases the parser does not read: reported in Cues.unparsed, never guessed.
_UNREAD = (
    rf"{_NUM}\s*(?:ms|msecs?|milliseconds?|mins?|minutes?|hrs?|hours?|rad|rads|radians?|"
    r"grads?|gons?|m|meters?|metres?|cm|centimet(?:er|re)s?|km|ft|feet|foot|inch(?:es)?|"
    r"yards?|steps?)\b",
    r"\b(?:north|south|east|west)(?:[\s-]*(?:north|south|east|west))*(?:ward|wards|ern)?\b",
    r"\b(?:port|starboard)(?:\s+side)?\b",
    r"\b(?:to|on|at|from)\s+(?:the|one|either)\s+side\b|\bsideways\b|\bdiagonal(?:ly)?\b",
    r"\b(?:early|late)\s+(?:on|in\s+the\s+(?:clip|recording|audio))\b|"
    r"\b(?:at|near|towards?|by|around|before|after)\s+the\s+(?:very\s+)?"
    r"(?:start|beginning|end|middle)"
    r"(?:\s+of\s+the\s+(?:clip|recording|audio))?\b|\bin\s+the\s+middle\b"
    r"(?:\s+of\s+the\s+(?:clip|recording|audio))?|\bhalfway\s+through\b|\bmidway\b",
    rf"\b{_NUMBER_WORDS}\s+(?:seconds?|secs?)\b",
    r"\b\d+\s*o'?\s*clock\b|\bo'?clock\b",
    r"\b(?:floor|ceiling|ground)[\s-]level\b|\bnear\s+the\s+(?:floor|ceiling|ground)\b",
    r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w.])",
)
_UNREAD_RE = re.compile("|".join(f"(?:{p})" for p in _UNREAD))
# an angle in words, with the side it names: unread as a whole, so that its side word is not
# taken for a sector
_WORD_ANGLE = re.compile(rf"\b{_NUMBER_WORDS}\s+(?:degrees?\b|°)(?:\s*(?:of\s+)?(?:off\s+)?"
                         r"(?:to\s+(?:the|your)\s+)?(?:left|right|above|below|up|down|"
                         r"elevation|azimuth)\b)?")
# "after the first 3 seconds", "before the end": times, not other sounds
_TIME_ANCHOR = re.compile(r"the\s+(?:(?:first|last|final|opening|closing|second|middle)\s+"
                          r"(?:\d|half|third|quarter|few)|(?:very\s+)?(?:start|beginning|end|"
                          r"middle)\b)")
_SUPERLATIVES = (("closest", r"closest|nearest"), ("farthest", r"farthest|furthest|most distant"),
                 ("loudest", r"loudest|strongest"), ("quietest", r"quietest|softest|faintest"),
                 ("highest", r"highest"), ("lowest", r"lowest"), ("longest", r"longest"),
                 ("shortest", r"shortest|briefest"))


@dataclass
class Cues:
    """What a question says about the event it asks about.

    Attributes
    ----------
    azimuth_deg : float or None
        From an explicit angle ("60 degrees", "azimuth of -30") or a direction word
        (front 0, front-left 45, left 90, back-left 135, behind 180, right -90, ...).
    azimuth_explicit : bool
        The azimuth was a number, not a word.
    azimuth_kind : {"angle", "clock", "word"} or None
        What gave the azimuth: an angle, a clock position ("at 2 o'clock", -60) or a sector
        word; :data:`AZIMUTH_HALFWIDTH_DEG` says how precise each is.
    elevation_deg : float or None
        From an explicit elevation angle, or 0 for "at ear level".
    elevation_sign : int
        +1 for above / overhead, -1 for below, 0 when not said.
    time_s : float or None
        A time the event is active at ("at 3.2 s").
    window : (float, float) or None
        A time range ("between 2 and 4 s", "1.2-3.4 s", "after 5 s", "in the first 3
        seconds").
    window_frac : (float, float) or None
        A part of the clip as fractions of its duration ("in the first half" (0, 0.5), "the
        last third" (2/3, 1), "the second quarter" (0.25, 0.5)); :func:`resolve_window`
        turns it into seconds.
    window_last_s : float or None
        "in the last 3 seconds": a window that ends with the clip (:func:`resolve_window`).
    order : int or None
        0-based order of onset ("first", "second", ...), -1 for "last".
    superlative : str or None
        closest, farthest, loudest, quietest, highest, lowest, longest, shortest.
    relation : {"before", "after"} or None
        The event is said to come before or after another sound ("the sound that starts
        after the dog", "right after the sound from the left begins"; "following" and
        "preceding" too).
    anchor : Cues or None
        What the question says about that other sound (its own direction, time, order
        cues); they are not cues of the event asked about.
    anchor_text : str
        The words naming the other sound ("the dog", "the sound from the left").
    text : str
        The question text the cues came from.
    matched : list of str
        The phrases read about the event itself, for the evidence (the relation and its
        anchor are kept apart).
    unparsed : list of str
        Cue-like phrases seen but not read, in order: a number with a unit the parser
        does not know ("300 ms", "2 m"), a bare number, compass or ship words ("northeast",
        "port side"), a vague time ("early in the clip", "near the end", "in the middle"),
        an angle or time in words ("thirty degrees"), an hour that is no clock position
        ("13 o'clock").  They are reported, never turned into a guess.
    """

    azimuth_deg: float | None = None
    azimuth_explicit: bool = False
    azimuth_kind: str | None = None
    elevation_deg: float | None = None
    elevation_sign: int = 0
    time_s: float | None = None
    window: tuple[float, float] | None = None
    order: int | None = None
    superlative: str | None = None
    window_frac: tuple[float, float] | None = None
    window_last_s: float | None = None
    relation: str | None = None
    anchor: Cues | None = None
    anchor_text: str = ""
    text: str = ""
    matched: list[str] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when the question says nothing that singles out an event."""
        return not self.matched

    def kinds(self) -> set[str]:
        """The kinds of cue present (azimuth, elevation, time, order, superlative,
        relation)."""
        out = set()
        if self.azimuth_deg is not None:
            out.add("azimuth")
        if self.elevation_deg is not None or self.elevation_sign:
            out.add("elevation")
        if self.time_s is not None or self.window is not None or \
                self.window_frac is not None or self.window_last_s is not None:
            out.add("time")
        if self.order is not None:
            out.add("order")
        if self.superlative:
            out.add("superlative")
        if self.relation:
            out.add("relation")
        return out

    def with_duration(self, duration_s: float | None) -> Cues:
        """These cues with a fractional or from-the-end window turned into ``window``
        (seconds) for a clip of ``duration_s`` seconds; unchanged when there is none, when
        ``window`` is already set, or when the duration is unknown (None or not > 0)."""
        win = resolve_window(self, duration_s)
        if win is None or self.window is not None:
            return self
        return replace(self, window=win)


def resolve_window(cues: Cues, duration_s: float | None) -> tuple[float, float] | None:
    """The time window (seconds) a question's cues give for a clip of ``duration_s`` s.

    ``cues.window`` when set; else ``cues.window_frac`` times the duration, or the last
    ``cues.window_last_s`` seconds (from 0 when the clip is shorter); None when the cues
    give no window, or give only a relative one and the duration is unknown (None, not
    finite or not > 0).
    """
    if cues.window is not None:
        return cues.window
    ok = isinstance(duration_s, int | float) and math.isfinite(duration_s) and duration_s > 0
    if not ok:
        return None
    dur = float(duration_s)
    if cues.window_frac is not None:
        a, b = cues.window_frac
        return (round(a * dur, 6), round(b * dur, 6))
    if cues.window_last_s is not None:
        return (max(0.0, dur - cues.window_last_s), dur)
    return None


def _core_text(question: str) -> str:
    """The question without instruction sentences or angle-convention explanations."""
    text = re.sub(r"\([^)]*\)", lambda m: " " if _CONVENTION.search(m.group(0))
                  else m.group(0), str(question))
    sentences = re.split(r"(?<=[.?!])\s+", text)
    kept = [s for s in sentences if (not _INSTRUCTION.match(s) or _ASKS.search(s)
                                     or s.rstrip().endswith("?"))
            and not _CONVENTION.search(s)]
    return " ".join(kept) if kept else text


def _mask(text: str, m: re.Match) -> str:
    return text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]


def _cues(text: str, *, reader: bool = True) -> Cues:
    c = Cues(text=" ".join(text.split()))
    t = _OPTIONS.sub(lambda m: " " * len(m.group(0)), text.lower())
    t = _CLIP_LENGTH.sub(lambda m: " " * len(m.group(0)), t)
    t = _REFERENCE.sub(lambda m: " " * len(m.group(0)), t)
    if reader:
        t = _reader_times(c, t)
    m = _RELATION.search(t)
    if m and not _TIME_ANCHOR.match(m.group(2)):
        c.relation = "before" if m.group(1).startswith(("before", "preced")) else "after"
        c.anchor_text = " ".join(m.group(2).split())
        c.anchor = _cues(m.group(2))
        t = _mask(t, m)
    for m in re.finditer(rf"(?:between|from)\s+{_ABOUT}({_NUM})\s*(?:{_SEC})?\s*(?:and|to|-|"
                         rf"until|till)\s*{_ABOUT}({_NUM})\s*{_SEC}", t):
        a, b = sorted((float(m.group(1)), float(m.group(2))))
        c.window = (a, b)
        c.matched.append(m.group(0).strip())
        t = _mask(t, m)
    for m in re.finditer(rf"(?<![\d.])({_NUM})\s*(?:{_SEC})?\s*(?:-|–|to)\s*({_NUM})\s*{_SEC}",
                         t):
        a, b = sorted((float(m.group(1)), float(m.group(2))))
        c.window = (a, b)
        c.matched.append(m.group(0).strip())
        t = _mask(t, m)
    for m in _FRACTION.finditer(t):
        k, idx = _PARTS[m.group(2)], _PART_INDEX[m.group(1)]
        if idx is None:  # "the middle third"; "the middle half" is the second and third quarter
            idx = 1 if k == 3 else None
            frac = (0.25, 0.75) if k != 3 else None
        if idx is not None and idx < k:
            idx %= k
            frac = (idx / k, (idx + 1) / k)
        if frac is not None:
            c.window_frac = frac
            c.matched.append(m.group(0).strip())
            t = _mask(t, m)
    for m in re.finditer(rf"\b(first|last|final)\s+({_NUM})\s*{_SEC}", t):
        if m.group(1) == "first":
            c.window = (0.0, float(m.group(2)))
        else:
            c.window_last_s = float(m.group(2))
        c.matched.append(m.group(0))
        t = _mask(t, m)
    for m in re.finditer(rf"(?:\b(at|around|about|near|after|before|by|until)\s+)?(?:around\s+|"
                         rf"about\s+|roughly\s+|approximately\s+)?(?:t\s*=\s*)?({_NUM})\s*{_SEC}",
                         t):
        x, prep = float(m.group(2)), m.group(1)
        if prep == "after":
            c.window = (x, math.inf)
        elif prep in ("before", "by", "until"):
            c.window = (0.0, x)
        else:
            c.time_s = x
        c.matched.append(m.group(0).strip())
        t = _mask(t, m)
    for m in re.finditer(rf"({_NUM})\s*(?:°|º|degrees?\b|degs?\b)(\s*(?:of\s+)?"
                         r"(?:off\s+)?(?:to (?:the|your)\s+)?"
                         r"(?:elevation|azimuth|left|right|above|below|up|down)?)", t):
        x, after = float(m.group(1)), m.group(2).strip()
        before = t[max(0, m.start() - 40):m.start()]
        kw = [(before.rfind(k), k) for k in ("elevation", "azimuth", "height")]
        near = max(kw)[1] if max(kw)[0] >= 0 else "azimuth"
        is_el = any(w in after for w in ("elevation", "above", "below", "up", "down")) or \
            (not after and near in ("elevation", "height"))
        signed = m.group(1)[0] in "+-"
        if is_el:
            c.elevation_deg = -abs(x) if not signed and ("below" in after or "down" in after) \
                else x
        else:
            c.azimuth_deg = -abs(x) if not signed and "right" in after else x
            c.azimuth_explicit, c.azimuth_kind = True, "angle"
        c.matched.append(m.group(0).strip())
        t = _mask(t, m)
    for m in re.finditer(rf"\b(azimuth|elevation)(?:\s+angle)?(?:\s+of|\s+is|\s+at|\s*=|\s*:)?"
                         rf"\s*(?:about|around|approximately|roughly)?\s*({_NUM})\b", t):
        if m.group(1) == "azimuth":
            c.azimuth_deg, c.azimuth_explicit = float(m.group(2)), True
            c.azimuth_kind = "angle"
        else:
            c.elevation_deg = float(m.group(2))
        c.matched.append(m.group(0).strip())
        t = _mask(t, m)
    for m in _WORD_ANGLE.finditer(t):
        c.unparsed.append(" ".join(m.group(0).split()))
        t = _mask(t, m)
    m = _CLOCK.search(t)
    if m:
        if c.azimuth_deg is None:
            hour = _HOUR_WORDS.get(m.group(1)) or int(m.group(1))
            hours = hour % 12 + (0.5 if m.group(2) == "30" else 0.0)
            c.azimuth_deg = (-30.0 * hours + 180.0) % 360.0 - 180.0
            c.azimuth_kind = "clock"
            c.matched.append(m.group(0))
        t = _mask(t, m)
    for az, pat in _DIRECTIONS:
        m = re.search(rf"\b(?:{pat})\b", t)
        if m:
            if c.azimuth_deg is None:
                c.azimuth_deg, c.azimuth_kind = az, "word"
                c.matched.append(m.group(0))
            t = _mask(t, m)
    m = _EAR_LEVEL.search(t)
    if m and c.elevation_deg is None:
        c.elevation_deg = 0.0
        c.matched.append(m.group(0))
        t = _mask(t, m)
    for sign, pat in ((1, _UP), (-1, _DOWN)):
        m = pat.search(t)
        if m and not c.elevation_sign and c.elevation_deg is None:
            c.elevation_sign = sign
            c.matched.append(m.group(0))
    for name, pat in _SUPERLATIVES:
        m = re.search(rf"\b(?:{pat})\b", t)
        if m and c.superlative is None:
            c.superlative = name
            c.matched.append(m.group(0))
    t = re.sub(r"\bper second\b|\bfirst[\s-]+order\b", " ", t)
    m = next((m for m in re.finditer(r"\b(" + "|".join(_ORDER) + r")\b", t)
              if not _adverb_of_time(t, m)), None)
    if m:
        c.order = _ORDER[m.group(1)]
        c.matched.append(m.group(0))
        t = _mask(t, m)
    c.unparsed += [" ".join(u.group(0).split()) for u in _UNREAD_RE.finditer(t)]
    return c


def _reader_times(c: Cues, t: str) -> str:
    """Times read by the expression reader (:func:`foakit.bench.reader.read`) into ``c``:
    intervals ("between the 6- and 8-second marks"), open intervals ("after the 7-second
    mark", "from 9 s until the end"), parts of the clip ("during the opening three
    seconds", "near the end", "the entire recording") and time points, numbers in digits
    or words; ``t`` is returned with them blanked out, so that no other rule reads them
    again (the "second" of "7-second" is no order word)."""
    r = read(t)
    for k, e in enumerate(r.exprs):
        if e.kind not in _READER_TIME:
            continue
        if k and r.exprs[k - 1].value.get("temporal_relation") in ("before", "after") and \
                not t[r.exprs[k - 1].end:e.start].strip():
            continue  # "300 ms after the start": the start is an anchor, not the window
        v = e.value
        if v.get("window_frac") == (0.0, 1.0):  # the whole clip singles nothing out
            t = t[:e.start] + " " * (e.end - e.start) + t[e.end:]
            continue
        own = _cues(e.text, reader=False)
        if not own.unparsed and own.order is None and own.relation is None and \
                _agrees(own, v):
            continue  # the rules below read it as it is
        if "window" in v and c.window is None:
            a, b = v["window"]
            c.window = (float(a), math.inf if b is None else float(b))
        elif "window_frac" in v and c.window_frac is None:
            c.window_frac = tuple(float(x) for x in v["window_frac"])
        elif "window_last_s" in v and c.window_last_s is None:
            c.window_last_s = float(v["window_last_s"])
        elif "time_s" in v and c.time_s is None:
            c.time_s = float(v["time_s"])
        c.matched.append(" ".join(e.text.split()))
        t = t[:e.start] + " " * (e.end - e.start) + t[e.end:]
    return t


_READER_TIME = {"time_point", "interval", "open_interval", "clip_part"}


def _agrees(c: Cues, v: dict) -> bool:
    """The rules' reading ``c`` of a phrase says what the reader's value ``v`` says."""
    def close(a, b) -> bool:
        a = [math.inf if x is None else float(x) for x in (a if isinstance(a, tuple) else [a])]
        b = [math.inf if x is None else float(x) for x in (b if isinstance(b, tuple) else [b])]
        return len(a) == len(b) and all(x == y or abs(x - y) < 1e-3
                                        for x, y in zip(a, b, strict=False))

    for key in ("window", "window_frac", "window_last_s", "time_s"):
        if key in v:
            got = getattr(c, key)
            return got is not None and close(got, v[key])
    return False


def parse_question(question: str) -> Cues:
    """Read what a question says about the event it means.

    Direction words (front, front-left, "ahead and to the left", left, "behind you on the
    right", ..., "slightly to the right" (-22.5, a sector word), above, below, "at ear
    level"), clock positions ("at 2 o'clock", "at two o'clock"), explicit angles ("60
    degrees", "azimuth -45°", "30° left", "30 degrees to your left", "20 degrees above"),
    times ("at 3.2 s", "between 2 and 4 s", "1.2-3.4 s", "after 5 s", "in the first 3
    seconds"), parts of the clip ("in the second half", "the last third", "in the last 3
    seconds": :attr:`Cues.window_frac`, :attr:`Cues.window_last_s`, seconds once the
    duration is known, :func:`resolve_window`), order words (first, second, 3rd, last),
    superlatives (closest, loudest, ...) and "before" / "after" another sound
    (:attr:`Cues.relation`, with that sound's own cues in :attr:`Cues.anchor`).
    Instruction sentences ("Answer in one sentence ...") and angle convention explanations
    are ignored, and so are answer options ("left or right") and the clip's length ("this
    10-second clip").  Cue-like phrases it cannot read go to :attr:`Cues.unparsed`.
    Sound class names are not cues here (:func:`class_mentions` finds them).
    """
    return _cues(_core_text(question))


_FILLER = re.compile(r"^(?:\s*\b(?:is|are|was|which|what|does|do|the|a|an|sound|source|one|"
                     r"event|that|heard|coming|located|positioned|it|between)\b)+\s*", re.I)


_TRAIL = re.compile(r"(?:\s+\b(?:to|on|of|the|is|are|closer|nearer|farther|further|higher|"
                    r"lower|away)\b)+\s*$", re.I)


_REFERENCE_FIRST = re.compile(r"(?:^|[.?!]\s+)\s*(?:relative to|compared (?:to|with)|in "
                              r"comparison (?:to|with))\b", re.I)


def referents(question: str) -> list[Cues]:
    """The sounds a relation question names, in order, each with its cues.

    The question (options such as "left or right" removed) is split at "or", "than",
    "relative to", "compared to", "versus", "of the", ",", ";", ":" and "and" (not the "and"
    of "between 2 and 4 s" or of "ahead and to the left"); parts without a cue are dropped,
    and a part adding only new kinds of cue after a comma or "and" joins the previous one
    (not at the comma that ends a "Relative to X," clause).  ``Cues.text`` is the part without
    leading filler words ("the sound", "is", ...).  A question that names the reference
    first ("Relative to X, is Y ...?", "Compared with X, does Y ...?") has its first two
    referents swapped, so that the subject comes first.
    """
    core = _OPTIONS.sub(" ", _core_text(question))
    seps = r"\bor\b|\bthan\b|\brelative to\b|\bcompared (?:to|with)\b|\bversus\b|\bvs\.?|" \
           r"\bof the\b|[,;:]|\band\b(?!\s*[-+]?\d+(?:\.\d+)?\s*(?:s|sec|secs|seconds?)\b)" \
           r"(?!\s+(?:to|on)\s+(?:the|your)\s+(?:left|right)\b)"
    pieces = re.split(rf"({seps})", core, flags=re.I)
    out: list[Cues] = []
    intro: list[str] = []  # the separator before each referent's first part
    prev_sep = ""
    between = "between" in core.lower()
    for i in range(0, len(pieces), 2):
        seg, sep = pieces[i], (pieces[i + 1].lower().strip() if i + 1 < len(pieces) else "")
        cues = _cues(seg)
        if not cues.empty:
            lead = prev_sep
            if out and prev_sep in (",", "and") and not (prev_sep == "and" and between) and \
                    not (cues.kinds() & out[-1].kinds()) and \
                    not intro[-1].startswith(("relative", "compared")):
                cues = _cues(out[-1].text + " " + seg)
                out.pop()
                lead = intro.pop()
            cues.text = _TRAIL.sub("", _FILLER.sub("", cues.text).strip(" ?.!,"))
            out.append(cues)
            intro.append(lead)
        prev_sep = sep
    if len(out) >= 2 and _REFERENCE_FIRST.search(core):
        out[0], out[1] = out[1], out[0]
    return out
