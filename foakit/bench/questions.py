"""What a question says about the event it asks about: direction, elevation, time, order.

Benchmark-neutral: the SO-Bench baselines and audit read their questions with it, and any
benchmark whose questions or answer options name directions, times or orders can.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

__all__ = ["AZIMUTH_HALFWIDTH_DEG", "Cues", "parse_question", "referents"]

_NUM = r"[-+]?\d+(?:\.\d+)?"
_SEC = r"(?:s|sec|secs|seconds?)\b"
_INSTRUCTION = re.compile(r"^\s*(?:listen|answer|respond|reply|report|give|provide|use|please|"
                          r"state|express|based on|note|assume|format|round)\b", re.I)
_CONVENTION = re.compile(r"clockwise|convention|=|\bmeans\b|\branges?\b|\bbuckets?\b", re.I)
_OPPOSITES = (("left", "right"), ("front", "back|behind"), ("higher", "lower"),
              ("above", "below"), ("closer|nearer", "farther|further|away"),
              ("toward|towards", "away"), ("up", "down"))
# "X or Y" / "X, Y" answer options (opposite words, at most a few words apart, no noun between)
_OPTIONS = re.compile("|".join(
    rf"\b(?:{a})\b(?:(?!sound|source|\bone\b|[.?!]).){{0,30}}?(?:\bor\b|,|/)"
    rf"(?:(?!sound|source|\bone\b|[.?!]).){{0,30}}?\b(?:{b})\b"
    for x, y in _OPPOSITES for a, b in ((x, y), (y, x))), re.I)
_DIAGONAL = r"(?:ahead|in front|front|forward)\s+and\s+(?:to\s+(?:the|your)\s+)?"
_DIRECTIONS = (
    (45.0, rf"{_DIAGONAL}left|front[\s_-]*left|left[\s_-]*front|forward[\s_-]*left"
           r"|upper[\s_-]+left"),
    (-45.0, rf"{_DIAGONAL}right|front[\s_-]*right|right[\s_-]*front|forward[\s_-]*right"
            r"|upper[\s_-]+right"),
    (135.0, r"(?:back|rear|behind)[\s_-]*(?:and\s+)?(?:to\s+the\s+)?left|left[\s_-]*(?:rear|back)"),
    (-135.0, r"(?:back|rear|behind)[\s_-]*(?:and\s+)?(?:to\s+the\s+)?right"
             r"|right[\s_-]*(?:rear|back)"),
    (0.0, r"in front|front|ahead|forward"),
    (180.0, r"behind|back|rear"),
    (90.0, r"left(?![\s-]+(?:over|behind))"),
    (-90.0, r"right(?![\s-]+(?:after|before|now|away|at the (?:start|end|beginning)))"),
)
# clock positions: 12 o'clock ahead, 3 o'clock to the right, 9 o'clock to the left
_CLOCK = re.compile(r"\b(1[0-2]|[1-9])(?::(00|30))?\s*o'?\s*clock\b")
_EAR_LEVEL = re.compile(r"\bat (?:ear|head)[\s-]level\b|\bat the listener's height\b")
#: How precise each kind of azimuth cue is (half-width, degrees): an angle, a clock hour, a
#: sector word.
AZIMUTH_HALFWIDTH_DEG = {"angle": 7.5, "clock": 15.0, "word": 22.5}
_UP = re.compile(r"\b(?:above|overhead|upper|high up|up high|elevated|from above)\b")
_DOWN = re.compile(r"\b(?:below|beneath|underneath|under|lower|from below)\b")
_ORDER = {"first": 0, "earliest": 0, "initial": 0, "second": 1, "third": 2, "fourth": 3,
          "fifth": 4, "last": -1, "final": -1, "latest": -1}
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
    order : int or None
        0-based order of onset ("first", "second", ...), -1 for "last".
    superlative : str or None
        closest, farthest, loudest, quietest, highest, lowest, longest, shortest.
    text : str
        The question text the cues came from.
    matched : list of str
        The phrases read, for the evidence.
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
    text: str = ""
    matched: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when the question says nothing that singles out an event."""
        return not self.matched

    def kinds(self) -> set[str]:
        """The kinds of cue present (azimuth, elevation, time, order, superlative)."""
        out = set()
        if self.azimuth_deg is not None:
            out.add("azimuth")
        if self.elevation_deg is not None or self.elevation_sign:
            out.add("elevation")
        if self.time_s is not None or self.window is not None:
            out.add("time")
        if self.order is not None:
            out.add("order")
        if self.superlative:
            out.add("superlative")
        return out


def _core_text(question: str) -> str:
    """The question without instruction sentences or angle-convention explanations."""
    text = re.sub(r"\([^)]*\)", lambda m: " " if _CONVENTION.search(m.group(0))
                  else m.group(0), str(question))
    sentences = re.split(r"(?<=[.?!])\s+", text)
    kept = [s for s in sentences if not _INSTRUCTION.match(s) and not _CONVENTION.search(s)]
    return " ".join(kept) if kept else text


def _mask(text: str, m: re.Match) -> str:
    return text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]


def _cues(text: str) -> Cues:
    c = Cues(text=" ".join(text.split()))
    t = _OPTIONS.sub(lambda m: " " * len(m.group(0)), text.lower())
    for m in re.finditer(rf"(?:between|from)\s+({_NUM})\s*(?:{_SEC})?\s*(?:and|to|-|until)\s*"
                         rf"({_NUM})\s*{_SEC}", t):
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
    for m in re.finditer(rf"\b(first|last|final)\s+({_NUM})\s*{_SEC}", t):
        if m.group(1) == "first":
            c.window = (0.0, float(m.group(2)))
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
                         r"(?:to (?:the|your)\s+)?"
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
    m = _CLOCK.search(t)
    if m:
        if c.azimuth_deg is None:
            hours = int(m.group(1)) % 12 + (0.5 if m.group(2) == "30" else 0.0)
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
    m = re.search(r"\b(" + "|".join(_ORDER) + r")\b", t)
    if m:
        c.order = _ORDER[m.group(1)]
        c.matched.append(m.group(0))
    return c


def parse_question(question: str) -> Cues:
    """Read what a question says about the event it means.

    Direction words (front, front-left, "ahead and to the left", left, behind, ...,
    above, below, "at ear level"), clock positions ("at 2 o'clock"), explicit angles ("60
    degrees", "azimuth -30", "30 degrees to your left", "20 degrees above"), times ("at
    3.2 s", "between 2 and 4 s", "1.2-3.4 s", "after 5 s"), order words (first, second,
    last) and superlatives (closest, loudest, ...).  Instruction sentences ("Answer in one
    sentence ...") and angle convention explanations are ignored, and so are answer options
    ("left or right").
    Sound class names are not cues: signal analysis cannot recognise them.
    """
    return _cues(_core_text(question))


_FILLER = re.compile(r"^(?:\s*\b(?:is|are|was|which|what|does|do|the|a|an|sound|source|one|"
                     r"event|that|heard|coming|located|positioned|it|between)\b)+\s*", re.I)


_TRAIL = re.compile(r"(?:\s+\b(?:to|on|of|the|is|are|closer|nearer|farther|further|higher|"
                    r"lower|away)\b)+\s*$", re.I)


def referents(question: str) -> list[Cues]:
    """The sounds a relation question names, in order, each with its cues.

    The question (options such as "left or right" removed) is split at "or", "than",
    "relative to", "compared to", "versus", "of the", ",", ";" and ":" (and "and" after
    "between"); parts without a cue are dropped, and a part adding only new kinds of cue
    after a comma or "and" joins the previous one.  ``Cues.text`` is the part without
    leading filler words ("the sound", "is", ...).
    """
    core = _OPTIONS.sub(" ", _core_text(question))
    seps = r"\bor\b|\bthan\b|\brelative to\b|\bcompared (?:to|with)\b|\bversus\b|\bvs\.?|" \
           r"\bof the\b|[,;:]|\band\b"
    pieces = re.split(rf"({seps})", core, flags=re.I)
    out: list[Cues] = []
    prev_sep = ""
    between = "between" in core.lower()
    for i in range(0, len(pieces), 2):
        seg, sep = pieces[i], (pieces[i + 1].lower().strip() if i + 1 < len(pieces) else "")
        cues = _cues(seg)
        if not cues.empty:
            if out and prev_sep in (",", "and") and not (prev_sep == "and" and between) and \
                    not (cues.kinds() & out[-1].kinds()):
                cues = _cues(out[-1].text + " " + seg)
                out.pop()
            cues.text = _TRAIL.sub("", _FILLER.sub("", cues.text).strip(" ?.!,"))
            out.append(cues)
        prev_sep = sep
    return out
