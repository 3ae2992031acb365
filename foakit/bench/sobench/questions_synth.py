"""SO-Bench style question-answer items about a synthetic scene (with exact truth).

Every question is ``PREAMBLE + " " + core + " " + ENDING`` where the preamble is one of
:data:`PREAMBLES`, the core one of :data:`TEMPLATES` ``[task]`` and the ending
:data:`ENDINGS` ``[task]`` (``detect_time`` adds the SO-Bench README example's middle sentence
:data:`DETECT_TIME_CONTEXT` before its ending).  Sources are named in three ways:

* by class: ``"the sound of the {label}"``;
* by order: ``"the first sound"`` (earliest onset, 0.5 s before any other) or
  ``"the last sound"`` (latest onset, 0.5 s after any other, and the last to end);
* by location: ``"the sound coming from {where}"`` with ``where`` one of the sector phrases
  of :data:`SECTOR_PHRASES` (``"the front"``, ``"the front-left"``, ``"your left"``,
  ``"behind"``, ...) or ``"about {az} degrees azimuth"``.

Moving sources are asked about only in ``classify_motion``, ``detect_time`` and
``count_sources``; they still block location phrases their path passes through.

This is the ``"house"`` style.  The ``"varied"`` style (``make_qa_items(...,
wording="varied")``) words the same facts as other benchmark authors write: other preambles
(:data:`VARIED_PREAMBLES`) and endings (:data:`VARIED_ENDINGS`); sources named by class with
a descriptive word or in the possessive (``"the barking dog"``, ``"the dog's barking"``;
:data:`LABEL_WORDS`), by location (:data:`SECTOR_WORDS`, a clock position, ``"about 40
degrees to your left"`` or, for the one source well above every other, ``"above you"``) or by
order (``"the earliest sound"``); answers name the class (``"The barking dog starts at 3.1
s."``).  Both styles are one builder: which source, pair or window a task asks about is
chosen by shared code (:class:`Style` holds only the words), so a phrasing added to a style
serves the tests, the demo and the benchmarks alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...conventions import azimuth_difference, wrap_azimuth
from ...errors import ParameterError
from ...synth.scene import Scene, Source

__all__ = [
    "GENERATED_TASKS",
    "TASK_QUESTION_CLASS",
    "TASK_ANSWER_FORMAT",
    "PREAMBLES",
    "TEMPLATES",
    "ENDINGS",
    "DETECT_TIME_CONTEXT",
    "SECTORS",
    "SECTOR_PHRASES",
    "MOTION_ANSWERS",
    "sector_of",
    "check_tasks",
    "make_qa_items",
    "WORDINGS",
    "check_wording",
    "Style",
    "STYLES",
    "VARIED_PREAMBLES",
    "VARIED_ENDINGS",
    "SECTOR_WORDS",
    "LABEL_WORDS",
]

TASK_QUESTION_CLASS = {
    "estimate_azimuth": "azimuth",
    "estimate_elevation": "elevation",
    "estimate_distance": "distance",
    "detect_time": "detect",
    "onset_from_location": "detect",
    "count_sources": "detect",
    "relative_left_right": "azimuth",
    "compare_elevation": "elevation",
    "compare_distance": "distance",
    "classify_motion": "motion",
    "detect_source": "detect",
    "identify_source_by_doa": "azimuth",
    "identify_source_by_location": "azimuth",
    "spatial_temporal": "reasoning",
    "multi_hop": "reasoning",
}
#: The SO-Bench tasks the generator writes questions for, in the order it writes them
#: (every task but ``speech_content``: the synthetic sources say no words).
GENERATED_TASKS: tuple[str, ...] = tuple(TASK_QUESTION_CLASS)
_NUM, _REL, _LAB, _ST = "numeric", "categorical", "label", "structured_text"
TASK_ANSWER_FORMAT = {
    "estimate_azimuth": _NUM, "estimate_elevation": _NUM, "estimate_distance": _NUM,
    "detect_time": _ST, "onset_from_location": _ST, "count_sources": _NUM,
    "relative_left_right": _REL, "compare_elevation": _REL, "compare_distance": _REL,
    "classify_motion": _REL, "detect_source": _LAB, "identify_source_by_doa": _LAB,
    "identify_source_by_location": _LAB, "spatial_temporal": _ST, "multi_hop": _LAB,
}
PREAMBLES = (
    "Listen to the audio clip and answer based only on what you hear.",
    "Listen carefully to this spatial audio recording.",
)
DETECT_TIME_CONTEXT = (
    "Based on the audio clip, state which sound sources are audible and when each one occurs."
)
TEMPLATES: dict[str, tuple[str, ...]] = {
    "estimate_azimuth": (
        "What is the azimuth of {ref}?",
        "From which azimuth angle does {ref} arrive?",
        "In which horizontal direction, as an azimuth angle, is {ref} located?",
    ),
    "estimate_elevation": (
        "What is the elevation of {ref}?",
        "At what elevation angle is {ref} located?",
        "How far above or below ear level is {ref}, as an elevation angle?",
    ),
    "estimate_distance": (
        "How far away is {ref}?",
        "What is the distance to {ref}?",
        "Estimate how far {ref} is from the listener.",
    ),
    "detect_time": (
        "During which time interval can {ref} be heard?",
        "When does {ref} start and stop?",
        "Between which times is {ref} audible?",
    ),
    "onset_from_location": (
        "When does {ref} begin?",
        "At what time does {ref} start?",
        "What is the onset time of {ref}?",
    ),
    "count_sources": (
        "How many distinct sound sources can be heard in the clip?",
        "How many different sounds occur in this recording?",
        "Count the sound sources you can hear.",
    ),
    "relative_left_right": (
        "Is {ref_a} to the left or to the right of {ref_b}?",
        "Relative to {ref_b}, is {ref_a} on the left or on the right?",
        "Compared with {ref_b}, does {ref_a} come from further left or further right?",
    ),
    "compare_elevation": (
        "Is {ref_a} higher or lower than {ref_b}?",
        "Compared with {ref_b}, is {ref_a} positioned higher or lower?",
        "Does {ref_a} come from higher or lower than {ref_b}?",
    ),
    "compare_distance": (
        "Is {ref_a} closer or farther than {ref_b}?",
        "Compared with {ref_b}, is {ref_a} closer to you or farther away?",
        "Relative to {ref_b}, is {ref_a} closer or farther from the listener?",
    ),
    "classify_motion": (
        "Is {ref} stationary or moving? If it moves, in which direction?",
        "Does {ref} stay in place, move to the left, or move to the right?",
        "How does the position of {ref} change over time?",
    ),
    "detect_source": (  # single-event clips
        "What sound can be heard in this clip?",
        "Which sound event occurs in the recording?",
        "What is making the sound in this clip?",
    ),
    "detect_source_window": (  # several events: a window where exactly one is active
        "What sound can be heard between {t0}s and {t1}s?",
        "Which sound event is audible from {t0}s to {t1}s?",
        "What sound is playing from {t0}s to {t1}s?",
    ),
    "identify_source_by_doa": (
        "Which sound comes from about {az} degrees azimuth?",
        "What sound arrives from an azimuth of about {az} degrees?",
        "What is the sound source located at about {az} degrees azimuth and {el} degrees "
        "elevation?",
    ),
    "identify_source_by_location": (
        "What sound is coming from {where}?",
        "Which sound do you hear from {where}?",
        "Identify the sound that comes from {where}.",
    ),
    "spatial_temporal": (
        "Where does {ref} come from, and during which time interval is it heard?",
        "Which sound comes from {where}, and when is it heard?",
        "What sound do you hear from {where}, and between which times?",
    ),
    "multi_hop": (
        "Which sound starts right after {ref} begins?",
        "Of {ref_a} and {ref_b}, which one is higher? Name the sound.",
        "Of {ref_a} and {ref_b}, which one is closer to you? Name the sound.",
    ),
}
_TIMES = "Answer in one natural sentence and report times in seconds."
_NAME = "Answer in one natural sentence and name the sound."
ENDINGS = {
    "estimate_azimuth": "Answer in one natural sentence and give the azimuth in degrees (0 is "
    "straight ahead and angles increase counter-clockwise, so 90 is to your left).",
    "estimate_elevation": "Answer in one natural sentence and give the elevation in degrees "
    "(positive is above ear level, negative below).",
    "estimate_distance": "Answer in one natural sentence and give the distance in meters (near "
    "is under 1.5 m, mid-range is 1.5 to 4.0 m, far is over 4.0 m).",
    "detect_time": _TIMES,
    "onset_from_location": "Answer in one natural sentence and report the time in seconds.",
    "count_sources": "Answer in one natural sentence and give the number.",
    "relative_left_right": "Answer in one natural sentence.",
    "compare_elevation": "Answer in one natural sentence.",
    "compare_distance": "Answer in one natural sentence.",
    "classify_motion": "Answer in one natural sentence and say whether it is stationary, "
    "moving left or moving right.",
    "detect_source": _NAME,
    "identify_source_by_doa": _NAME,
    "identify_source_by_location": _NAME,
    "spatial_temporal": _TIMES,
    "multi_hop": _NAME,
}
#: Sector centres (degrees azimuth) and names; each sector spans +-22.5 degrees.
SECTORS = (
    (0.0, "front"), (45.0, "front-left"), (90.0, "left"), (135.0, "back-left"),
    (-180.0, "back"), (-135.0, "back-right"), (-90.0, "right"), (-45.0, "front-right"),
)
#: How a sector is said after "coming from".
SECTOR_PHRASES = {
    "front": "the front", "front-left": "the front-left", "left": "your left",
    "back-left": "the back-left", "back": "behind", "back-right": "the back-right",
    "right": "your right", "front-right": "the front-right",
}
#: Source.motion -> SO-Bench motion answer (moving left = azimuth increasing).
MOTION_ANSWERS = {
    "stationary": "stationary", "right_to_left": "moving left", "left_to_right": "moving right",
}
VARIED_PREAMBLES = (
    "You will hear a first-order ambisonics (FOA) recording.",
    "The following question refers to a spatial audio clip.",
    "Imagine you are standing where the microphone was.",
    "Consider the spatial sound scene in this recording.",
)
_V_TIMES = "Please give the times in seconds."
_V_NAME = "Provide the name of the sound source."
_BRIEF = "Reply in a short sentence."
VARIED_ENDINGS = {
    "estimate_azimuth": "Give the angle in degrees (azimuth 0 = ahead, 90 = left, -90 = right).",
    "estimate_elevation": "Report the elevation in degrees, positive meaning up.",
    "estimate_distance": "State the distance in metres.",
    "detect_time": _V_TIMES,
    "onset_from_location": "Reply with the onset in seconds.",
    "count_sources": "Respond with a number.",
    "relative_left_right": _BRIEF,
    "compare_elevation": _BRIEF,
    "compare_distance": _BRIEF,
    "classify_motion": "State whether it is static, moving left or moving right.",
    "detect_source": _V_NAME,
    "identify_source_by_doa": _V_NAME,
    "identify_source_by_location": _V_NAME,
    "spatial_temporal": _V_TIMES,
    "multi_hop": _V_NAME,
}
#: Sector name -> ways to say "from there" (each reads back to the sector's centre).
SECTOR_WORDS = {
    "front": ("straight ahead", "in front of you"),
    "front-left": ("ahead and to the left", "at the front left"),
    "left": ("on your left", "to your left"),
    "back-left": ("behind you on the left", "at the rear left"),
    "back": ("directly behind you", "behind you"),
    "back-right": ("behind you on the right", "at the rear right"),
    "right": ("on your right", "to your right"),
    "front-right": ("ahead and to the right", "at the front right"),
}
#: Label -> (descriptive word, possessive phrase or "").
LABEL_WORDS = {
    "speech": ("ongoing", ""), "dog": ("barking", "the dog's barking"),
    "alarm": ("beeping", "the alarm's beeping"), "engine": ("idling", "the engine's hum"),
    "footsteps": ("shuffling", ""), "piano": ("tinkling", "the piano's melody"),
    "gong": ("struck", "the gong's ring"), "telephone": ("ringing", "the telephone's ring"),
    "knock": ("sharp", ""), "water": ("running", ""), "bird": ("chirping", "the bird's song"),
    "clapping": ("steady", ""), "music": ("background", ""),
}
_SECTOR_MARGIN = 5.0  # degrees a named source keeps from a sector boundary
_ORDER_GAP = 0.5  # seconds that make "first"/"last" unambiguous


def sector_of(azimuth_deg: float) -> tuple[str, float]:
    """Sector name of an azimuth and its distance (degrees) to the nearest sector boundary."""
    diffs = [abs(float(azimuth_difference(azimuth_deg, c))) for c, _ in SECTORS]
    k = int(np.argmin(diffs))
    return SECTORS[k][1], 22.5 - diffs[k]


def _deg(x: float) -> int:
    return int(wrap_azimuth(round(x)))


def _span(s: Source) -> list[float]:
    return [round(s.onset_s, 2), round(s.offset_s, 2)]


class _Ctx:
    """What a scene allows: which sources can be named and how."""

    def __init__(self, scene: Scene, rng: np.random.Generator) -> None:
        self.scene, self.rng = scene, rng
        self.src = scene.sources
        self.stat = [i for i, s in enumerate(self.src) if not s.is_moving]
        occupied: dict[str, list[int]] = {}
        for i, s in enumerate(self.src):
            azs = s.azimuth_at(np.linspace(s.onset_s, s.offset_s, 25)) if s.is_moving else [
                s.azimuth_deg]
            for name in {sector_of(a)[0] for a in azs}:
                occupied.setdefault(name, []).append(i)
        self.sector: dict[int, str] = {}
        for i in self.stat:
            name, margin = sector_of(self.src[i].azimuth_deg)
            if occupied[name] == [i] and margin >= _SECTOR_MARGIN:
                self.sector[i] = name
        self.doa_ok = [i for i in self.stat if all(
            np.min(np.abs(azimuth_difference(
                o.azimuth_at(np.linspace(o.onset_s, o.offset_s, 25)),
                self.src[i].azimuth_deg))) >= 30.0
            for j, o in enumerate(self.src) if j != i)]
        self.order: dict[int, str] = {}
        if len(self.src) >= 2:
            ons = sorted(range(len(self.src)), key=lambda j: self.src[j].onset_s)
            first, second = ons[0], ons[1]
            if self.src[second].onset_s - self.src[first].onset_s >= _ORDER_GAP:
                self.order[first] = "the first sound"
            last, prev = ons[-1], ons[-2]
            if (self.src[last].onset_s - self.src[prev].onset_s >= _ORDER_GAP
                    and self.src[last].offset_s >= max(s.offset_s for s in self.src)):
                self.order[last] = "the last sound"

    def pick(self, items: Sequence[Any]) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def by_class(self, i: int) -> str:
        return f"the sound of the {self.src[i].label}"

    def by_location(self, i: int, *, numeric: bool | None = None) -> str | None:
        if numeric is None:
            numeric = i not in self.sector or self.rng.random() < 0.25
        if numeric:
            return None if i not in self.doa_ok else (
                f"the sound coming from about {_deg(self.src[i].azimuth_deg)} degrees azimuth")
        return f"the sound coming from {SECTOR_PHRASES[self.sector[i]]}"

    def ref(self, i: int) -> str:
        """Class or order reference (order with probability 0.3 when unambiguous)."""
        if i in self.order and self.rng.random() < 0.3:
            return self.order[i]
        return self.by_class(i)


Item = tuple[str, str, str, dict[str, Any], list[int]]  # core, answer, canonical, meta, refs


# --- scene facts both styles ask about (they choose; the styles only word) ----------------

def _relation_pairs(c: _Ctx, task: str) -> list[tuple[int, int, str]]:
    """Ordered pairs of still sources a relation task can ask about, with the relation:
    left / right (sine of azimuth >= 0.25 apart), higher / lower (>= 10 deg), farther /
    closer (>= 0.75 m)."""
    pairs = []
    for a in c.stat:
        for b in c.stat:
            if a == b:
                continue
            sa, sb = c.src[a], c.src[b]
            if task == "relative_left_right":
                d = np.sin(np.deg2rad(sa.azimuth_deg)) - np.sin(np.deg2rad(sb.azimuth_deg))
                ok, rel = abs(d) >= 0.25, ("left" if d > 0 else "right")
            elif task == "compare_elevation":
                d = sa.elevation_deg - sb.elevation_deg
                ok, rel = abs(d) >= 10.0, ("higher" if d > 0 else "lower")
            else:
                d = sa.distance_m - sb.distance_m
                ok, rel = abs(d) >= 0.75, ("farther" if d > 0 else "closer")
            if ok:
                pairs.append((a, b, rel))
    return pairs


def _motion_source(c: _Ctx) -> int:
    """A moving source when there is one, else any source (drawn)."""
    moving = [i for i, s in enumerate(c.src) if s.is_moving]
    return c.pick(moving) if moving else c.pick(range(len(c.src)))


def _solo_window(c: _Ctx, i: int) -> tuple[float, float]:
    """The longest part of source ``i``'s activity that no other source covers."""
    s = c.src[i]
    t0, t1 = s.onset_s, s.offset_s
    for j, o in enumerate(c.src):
        if j == i or o.offset_s <= t0 or o.onset_s >= t1:
            continue
        left, right = (t0, min(t1, o.onset_s)), (max(t0, o.offset_s), t1)
        t0, t1 = max((left, right), key=lambda w: w[1] - w[0])
    return t0, t1


def _next_sound(c: _Ctx, i: int, ons: list[int]) -> int | None:
    """The source that starts next after ``i`` (``ons``: sources by onset), or None when
    there is none, it moves, or the one after it starts within 0.3 s of it."""
    k = ons.index(i)
    if k + 1 >= len(ons):
        return None
    nxt = ons[k + 1]
    gaps = [c.src[j].onset_s - c.src[i].onset_s for j in ons[k + 1:]]
    if c.src[nxt].is_moving or (len(gaps) > 1 and gaps[1] - gaps[0] < 0.3):
        return None
    return nxt


def _estimate(task: str) -> Callable[[_Ctx], Item | None]:
    def build(c: _Ctx) -> Item | None:
        if not c.stat:
            return None
        i = c.pick(c.stat)
        s = c.src[i]
        core = c.pick(TEMPLATES[task]).format(ref=c.ref(i))
        name = f"The sound of the {s.label}"
        if task == "estimate_azimuth":
            v = _deg(s.azimuth_deg)
            return (core, f"{name} is at about {v} degrees azimuth.", f"{v} degrees",
                    {"azimuth_deg": round(s.azimuth_deg, 1)}, [i])
        if task == "estimate_elevation":
            v = int(round(s.elevation_deg))
            return (core, f"{name} is at about {v} degrees elevation.", f"{v} degrees",
                    {"elevation_deg": round(s.elevation_deg, 1)}, [i])
        v = f"{s.distance_m:.1f}"
        return (core, f"{name} is about {v} m away.", f"{v} m",
                {"distance_m": round(s.distance_m, 2)}, [i])

    return build


def _detect_time(c: _Ctx) -> Item | None:
    if not c.src:
        return None
    i = c.pick(range(len(c.src)))
    s = c.src[i]
    k = int(c.rng.integers(3))
    core = TEMPLATES["detect_time"][k].format(ref=c.by_class(i))
    if k == 0:
        core = f"{core} {DETECT_TIME_CONTEXT}"
    t = f"{s.onset_s:.1f}s to {s.offset_s:.1f}s"
    return core, f"The sound of the {s.label} is audible from {t}.", t, {"time_span": _span(s)}, [i]


def _onset(c: _Ctx) -> Item | None:
    cands = [(i, r) for i in c.stat if (r := c.by_location(i)) is not None]
    if not cands:
        return None
    i, r = c.pick(cands)
    s = c.src[i]
    core = c.pick(TEMPLATES["onset_from_location"]).format(ref=r)
    return (core, f"The sound of the {s.label} starts at {s.onset_s:.1f}s.", f"{s.onset_s:.1f}s",
            {"onset_time": round(s.onset_s, 2)}, [i])


def _count(c: _Ctx) -> Item | None:
    k = len(c.src)
    ans = "There is 1 sound source." if k == 1 else f"There are {k} distinct sound sources."
    return c.pick(TEMPLATES["count_sources"]), ans, str(k), {"active_count": k}, list(range(k))


def _relation(task: str) -> Callable[[_Ctx], Item | None]:
    def build(c: _Ctx) -> Item | None:
        pairs = _relation_pairs(c, task)
        if not pairs:
            return None
        a, b, rel = c.pick(pairs)
        la, lb = c.src[a].label, c.src[b].label
        core = c.pick(TEMPLATES[task]).format(ref_a=c.by_class(a), ref_b=c.by_class(b))
        ans = {
            "left": f"The sound of the {la} is to the left of the sound of the {lb}.",
            "right": f"The sound of the {la} is to the right of the sound of the {lb}.",
            "higher": f"The sound of the {la} is higher than the sound of the {lb}.",
            "lower": f"The sound of the {la} is lower than the sound of the {lb}.",
            "closer": f"The sound of the {la} is closer than the sound of the {lb}.",
            "farther": f"The sound of the {la} is farther away than the sound of the {lb}.",
        }[rel]
        return core, ans, rel, {}, [a, b]

    return build


def _motion(c: _Ctx) -> Item | None:
    if not c.src:
        return None
    i = _motion_source(c)
    s = c.src[i]
    lab = MOTION_ANSWERS[s.motion]
    core = c.pick(TEMPLATES["classify_motion"]).format(ref=c.by_class(i))
    ans = f"The sound of the {s.label} is {lab}."
    return core, ans, lab, {}, [i]


def _detect_source(c: _Ctx) -> Item | None:
    if len(c.src) == 1 and c.stat:
        s = c.src[0]
        core = c.pick(TEMPLATES["detect_source"])
        return (core, f"The sound of the {s.label} can be heard from {s.onset_s:.1f}s to "
                f"{s.offset_s:.1f}s.", s.label, {"time_span": _span(s)}, [0])
    windows = []
    for i in c.stat:
        t0, t1 = _solo_window(c, i)
        if t1 - t0 >= 0.6:
            windows.append((i, round(t0 + 0.1, 1), round(t1 - 0.1, 1)))
    if not windows:
        return None
    i, t0, t1 = c.pick(windows)
    core = c.pick(TEMPLATES["detect_source_window"]).format(t0=f"{t0:.1f}", t1=f"{t1:.1f}")
    return core, f"The sound of the {c.src[i].label} can be heard.", c.src[i].label, {}, [i]


def _by_doa(c: _Ctx) -> Item | None:
    if not c.doa_ok:
        return None
    i = c.pick(c.doa_ok)
    s = c.src[i]
    core = c.pick(TEMPLATES["identify_source_by_doa"]).format(
        az=_deg(s.azimuth_deg), el=int(round(s.elevation_deg)))
    return core, f"The sound from that direction is the sound of the {s.label}.", s.label, {}, [i]


def _by_location(c: _Ctx) -> Item | None:
    if not c.sector:
        return None
    i = c.pick(sorted(c.sector))
    where = SECTOR_PHRASES[c.sector[i]]
    core = c.pick(TEMPLATES["identify_source_by_location"]).format(where=where)
    lab = c.src[i].label
    return core, f"The sound coming from {where} is the sound of the {lab}.", lab, {}, [i]


def _spatial_temporal(c: _Ctx) -> Item | None:
    if not c.sector:
        return None
    i = c.pick(sorted(c.sector))
    s, where = c.src[i], SECTOR_PHRASES[c.sector[i]]
    core = c.pick(TEMPLATES["spatial_temporal"]).format(ref=c.by_class(i), where=where)
    t = f"{s.onset_s:.1f}s to {s.offset_s:.1f}s"
    return (core, f"The sound of the {s.label} comes from {where} and is heard from {t}.",
            f"{s.label}, {c.sector[i]}, {t}", {"time_span": _span(s)}, [i])


def _multi_hop(c: _Ctx) -> Item | None:
    options: list[Item] = []
    named = sorted(c.sector)
    ons = sorted(range(len(c.src)), key=lambda j: c.src[j].onset_s)
    for i in named:  # template 0: the sound that starts next
        nxt = _next_sound(c, i, ons)
        if nxt is not None:
            core = TEMPLATES["multi_hop"][0].format(ref=c.by_location(i, numeric=False))
            lab = c.src[nxt].label
            options.append((core, f"It is the sound of the {lab}.", lab, {}, [i, nxt]))
    for a in named:
        for b in named:
            if a >= b:
                continue
            sa, sb = c.src[a], c.src[b]
            refs = {"ref_a": c.by_location(a, numeric=False),
                    "ref_b": c.by_location(b, numeric=False)}
            if abs(sa.elevation_deg - sb.elevation_deg) >= 10.0:
                win = a if sa.elevation_deg > sb.elevation_deg else b
                lab = c.src[win].label
                options.append((TEMPLATES["multi_hop"][1].format(**refs),
                                f"It is the sound of the {lab}.", lab, {}, [a, b]))
            if abs(sa.distance_m - sb.distance_m) >= 0.75:
                win = a if sa.distance_m < sb.distance_m else b
                lab = c.src[win].label
                options.append((TEMPLATES["multi_hop"][2].format(**refs),
                                f"It is the sound of the {lab}.", lab, {}, [a, b]))
    return c.pick(options) if options else None


_BUILDERS: dict[str, Callable[[_Ctx], Item | None]] = {
    "estimate_azimuth": _estimate("estimate_azimuth"),
    "estimate_elevation": _estimate("estimate_elevation"),
    "estimate_distance": _estimate("estimate_distance"),
    "detect_time": _detect_time,
    "onset_from_location": _onset,
    "count_sources": _count,
    "relative_left_right": _relation("relative_left_right"),
    "compare_elevation": _relation("compare_elevation"),
    "compare_distance": _relation("compare_distance"),
    "classify_motion": _motion,
    "detect_source": _detect_source,
    "identify_source_by_doa": _by_doa,
    "identify_source_by_location": _by_location,
    "spatial_temporal": _spatial_temporal,
    "multi_hop": _multi_hop,
}


# --- the varied style's words -----------------------------------------------------

def _v_desc(label: str) -> str:
    """"barking dog": the class with its descriptive word."""
    return f"{LABEL_WORDS.get(label, ('distinct', ''))[0]} {label}"


def _v_by_class(c: _Ctx, i: int) -> str:
    label = c.src[i].label
    poss = LABEL_WORDS.get(label, ("", ""))[1]
    if poss and c.rng.random() < 0.4:
        return poss
    return f"the {_v_desc(label)}"


def _v_clock(az: float) -> str:
    hour = int(round(-az / 30.0)) % 12
    return f"{hour or 12} o'clock"


def _v_above(c: _Ctx, i: int) -> bool:
    """Whether ``i`` is the one source well above every other."""
    el = c.src[i].elevation_deg
    return el >= 15.0 and all(o.elevation_deg <= el - 20.0 for j, o in enumerate(c.src) if j != i)


def _v_where(c: _Ctx, i: int) -> str | None:
    """Where source ``i`` is, in one of the varied ways (None when it cannot be named)."""
    ways = []
    if i in c.sector:
        ways.append(c.pick(SECTOR_WORDS[c.sector[i]]))
    if i in c.doa_ok:
        az = _deg(c.src[i].azimuth_deg)
        ways.append(f"at {_v_clock(az)}")
        if 3 <= abs(az) <= 177:
            ways.append(f"about {abs(az)} degrees to your {'left' if az > 0 else 'right'}")
    if _v_above(c, i):
        ways.append("above you")
    return c.pick(ways) if ways else None


def _v_located(c: _Ctx, i: int) -> str | None:
    where = _v_where(c, i)
    return None if where is None else c.pick(("the sound", "the source", "the one")) + " " + where


def _v_ref(c: _Ctx, i: int, *, allow_location: bool = True) -> str:
    """Order (when unambiguous), location or class reference to source ``i``."""
    roll = c.rng.random()
    if i in c.order and roll < 0.25:
        return {"the first sound": c.pick(("the earliest sound", "the sound heard first")),
                "the last sound": c.pick(("the final sound", "the sound heard last"))}[c.order[i]]
    if allow_location and roll < 0.6:
        loc = _v_located(c, i)
        if loc is not None:
            return loc
    return _v_by_class(c, i)


_V_EST = {
    "estimate_azimuth": ("Which azimuth does {ref} come from?",
                         "Estimate the direction of arrival of {ref}.",
                         "Which angle, in azimuth, does {ref} arrive from?"),
    "estimate_elevation": ("How high is {ref}?", "Estimate the elevation angle of {ref}.",
                           "By how many degrees is {ref} raised or lowered?"),
    "estimate_distance": ("How many metres away is {ref}?", "Estimate how distant {ref} is.",
                          "At what distance from you is {ref}?"),
}


def _v_estimate(task: str) -> Callable[[_Ctx], Item | None]:
    def build(c: _Ctx) -> Item | None:
        if not c.stat:
            return None
        i = c.pick(c.stat)
        s = c.src[i]
        core = c.pick(_V_EST[task]).format(ref=_v_ref(c, i))
        name = f"The {_v_desc(s.label)}"
        if task == "estimate_azimuth":
            v = _deg(s.azimuth_deg)
            return (core, f"{name} arrives from about {v} degrees azimuth.", f"{v} degrees",
                    {"azimuth_deg": round(s.azimuth_deg, 1)}, [i])
        if task == "estimate_elevation":
            v = int(round(s.elevation_deg))
            return (core, f"{name} is at an elevation of about {v} degrees.", f"{v} degrees",
                    {"elevation_deg": round(s.elevation_deg, 1)}, [i])
        v = f"{s.distance_m:.1f}"
        return (core, f"{name} is roughly {v} m from you.", f"{v} m",
                {"distance_m": round(s.distance_m, 2)}, [i])

    return build


def _v_detect_time(c: _Ctx) -> Item | None:
    if not c.src:
        return None
    i = c.pick(range(len(c.src)))
    s = c.src[i]
    ref = _v_ref(c, i, allow_location=not s.is_moving)
    core = c.pick(("When is {ref} audible?", "From when to when do you hear {ref}?",
                   "What is the time span of {ref}?", "At what times does {ref} start and end?"))
    t = f"{s.onset_s:.1f}s to {s.offset_s:.1f}s"
    return (core.format(ref=ref), f"The {_v_desc(s.label)} is heard from {t}.", t,
            {"time_span": _span(s)}, [i])


def _v_onset(c: _Ctx) -> Item | None:
    cands = [(i, w) for i in c.stat if (w := _v_where(c, i)) is not None]
    if not cands:
        return None
    i, where = c.pick(cands)
    s = c.src[i]
    az = _deg(s.azimuth_deg)
    if i in c.sector and i in c.doa_ok and c.rng.random() < 0.4:
        core = (f"A sound comes from {c.pick(SECTOR_WORDS[c.sector[i]])} (about {az} degrees "
                "azimuth). When does it start?")
    else:
        core = c.pick(("Something is heard {w}. When does it begin?",
                       "At what time does the sound {w} become audible?",
                       "What is the onset time of the source {w}?")).format(w=where)
    return (core, f"The {_v_desc(s.label)} starts at {s.onset_s:.1f} s.", f"{s.onset_s:.1f}s",
            {"onset_time": round(s.onset_s, 2)}, [i])


def _v_count(c: _Ctx) -> Item | None:
    k = len(c.src)
    dur = c.scene.duration_s
    core = c.pick((f"In this {dur:g}-second clip, how many sound sources are there?",
                   "How many separate things make a sound in this recording?",
                   "What is the number of distinct sound events you hear?"))
    ans = "One sound source can be heard." if k == 1 else f"{k} different sound sources can " \
        "be heard."
    return core, ans, str(k), {"active_count": k}, list(range(k))


_V_REL = {
    "relative_left_right": ("Is {a} left or right of {b}?",
                            "Relative to {b}, is {a} further left or further right?"),
    "compare_elevation": ("Is {a} above or below {b}?",
                          "Compared to {b}, is {a} higher up or lower down?"),
    "compare_distance": ("Is {a} nearer or further away than {b}?",
                         "Relative to {b}, is {a} nearer to you or further away?"),
}
_V_REL_ANSWER = {"left": "to the left of", "right": "to the right of", "higher": "above",
               "lower": "below", "closer": "nearer than", "farther": "further away than"}


def _v_relation(task: str) -> Callable[[_Ctx], Item | None]:
    def build(c: _Ctx) -> Item | None:
        pairs = _relation_pairs(c, task)
        if not pairs:
            return None
        a, b, rel = c.pick(pairs)
        core = c.pick(_V_REL[task]).format(a=_v_by_class(c, a), b=_v_by_class(c, b))
        la, lb = _v_desc(c.src[a].label), _v_desc(c.src[b].label)
        return core, f"The {la} is {_V_REL_ANSWER[rel]} the {lb}.", rel, {}, [a, b]

    return build


def _v_motion(c: _Ctx) -> Item | None:
    if not c.src:
        return None
    i = _motion_source(c)
    s = c.src[i]
    lab = {"stationary": "stationary", "right_to_left": "moving left",
           "left_to_right": "moving right"}[s.motion]
    core = c.pick(("Does {r} move, and if so, which way?", "Is {r} static or travelling?",
                   "Describe how {r} moves, if it does.")).format(r=_v_by_class(c, i))
    return core, f"The {_v_desc(s.label)} is {lab}.", lab, {}, [i]


_V_FRACTIONS = (("the first half", 0.0, 0.5), ("the second half", 0.5, 1.0),
              ("the first third", 0.0, 1 / 3), ("the last third", 2 / 3, 1.0))


def _v_detect_source(c: _Ctx) -> Item | None:
    if len(c.src) == 1 and c.stat:
        s = c.src[0]
        core = c.pick(("Which sound source do you hear?", "Name the sound in this clip."))
        return (core, f"The {_v_desc(s.label)} is heard from {s.onset_s:.1f}s to "
                f"{s.offset_s:.1f}s.", s.label, {"time_span": _span(s)}, [0])
    dur = c.scene.duration_s
    opts = []
    for i in c.stat:  # a part of the clip in which only source i sounds (0.5 s of it at least)
        for phrase, a, b in _V_FRACTIONS:
            lo, hi = a * dur, b * dur
            near = [j for j, o in enumerate(c.src) if o.onset_s < hi + 0.3 and o.offset_s >
                    lo - 0.3]
            s = c.src[i]
            if near == [i] and min(s.offset_s, hi) - max(s.onset_s, lo) >= 0.5:
                opts.append((i, f"in {phrase} of the clip"))
        t0, t1 = _solo_window(c, i)
        if t1 - t0 >= 0.6:
            opts.append((i, f"from {t0 + 0.1:.1f} s until {t1 - 0.1:.1f} s"))
    if not opts:
        return None
    i, when = c.pick(opts)
    core = c.pick(("Which sound is playing {w}?", "Name the sound source heard {w}.")).format(
        w=when)
    return core, f"The {_v_desc(c.src[i].label)} can be heard.", c.src[i].label, {}, [i]


def _v_by_doa(c: _Ctx) -> Item | None:
    if not c.doa_ok:
        return None
    i = c.pick(c.doa_ok)
    s = c.src[i]
    az = _deg(s.azimuth_deg)
    opts = [f"Name the source at azimuth {az}°.", f"What do you hear at {_v_clock(az)}?"]
    if 3 <= abs(az) <= 177:
        opts.append(f"Which sound is about {abs(az)} degrees to your "
                    f"{'left' if az > 0 else 'right'}?")
    return (c.pick(opts), f"That direction holds the {_v_desc(s.label)}.", s.label, {}, [i])


def _v_by_location(c: _Ctx) -> Item | None:
    cands = sorted(c.sector) + [i for i in c.stat if _v_above(c, i) and i not in c.sector]
    if not cands:
        return None
    i = c.pick(cands)
    where = c.pick(SECTOR_WORDS[c.sector[i]]) if i in c.sector else "above you"
    core = c.pick(("What is the sound {w}?", "Which source do you hear {w}?",
                   "Identify what is making the sound {w}.")).format(w=where)
    lab = c.src[i].label
    return core, f"The sound {where} is the {_v_desc(lab)}.", lab, {}, [i]


def _v_spatial_temporal(c: _Ctx) -> Item | None:
    if not c.sector:
        return None
    i = c.pick(sorted(c.sector))
    s, where = c.src[i], c.pick(SECTOR_WORDS[c.sector[i]])
    core = c.pick((f"Where is {_v_by_class(c, i)}, and when is it heard?",
                   f"What do you hear {where}, and when?"))
    t = f"{s.onset_s:.1f}s to {s.offset_s:.1f}s"
    return (core, f"The {_v_desc(s.label)} is {where}, from {t}.",
            f"{s.label}, {c.sector[i]}, {t}", {"time_span": _span(s)}, [i])


def _v_multi_hop(c: _Ctx) -> Item | None:
    options: list[Item] = []
    named = sorted(c.sector)
    ons = sorted(range(len(c.src)), key=lambda j: c.src[j].onset_s)
    for i in named:  # the sound that starts next
        nxt = _next_sound(c, i, ons)
        if nxt is not None:
            where = c.pick(SECTOR_WORDS[c.sector[i]])
            core = c.pick((f"What sound follows the one {where}?",
                           f"Which sound begins just after the sound {where} starts?"))
            lab = c.src[nxt].label
            options.append((core, f"The {_v_desc(lab)} comes next.", lab, {}, [i, nxt]))
    for a in named:
        for b in named:
            if a >= b:
                continue
            sa, sb = c.src[a], c.src[b]
            wa = c.pick(SECTOR_WORDS[c.sector[a]])
            wb = c.pick(SECTOR_WORDS[c.sector[b]])
            if abs(sa.elevation_deg - sb.elevation_deg) >= 10.0:
                win = a if sa.elevation_deg > sb.elevation_deg else b
                lab = c.src[win].label
                options.append((f"Between the sound {wa} and the sound {wb}, which is higher "
                                "up?", f"The {_v_desc(lab)} is higher.", lab, {}, [a, b]))
            if abs(sa.distance_m - sb.distance_m) >= 0.75:
                win = a if sa.distance_m < sb.distance_m else b
                lab = c.src[win].label
                options.append((f"Between the sound {wa} and the sound {wb}, which is nearer "
                                "to you?", f"The {_v_desc(lab)} is nearer.", lab, {}, [a, b]))
    return c.pick(options) if options else None


_V_BUILDERS: dict[str, Callable[[_Ctx], Item | None]] = {
    "estimate_azimuth": _v_estimate("estimate_azimuth"),
    "estimate_elevation": _v_estimate("estimate_elevation"),
    "estimate_distance": _v_estimate("estimate_distance"),
    "detect_time": _v_detect_time,
    "onset_from_location": _v_onset,
    "count_sources": _v_count,
    "relative_left_right": _v_relation("relative_left_right"),
    "compare_elevation": _v_relation("compare_elevation"),
    "compare_distance": _v_relation("compare_distance"),
    "classify_motion": _v_motion,
    "detect_source": _v_detect_source,
    "identify_source_by_doa": _v_by_doa,
    "identify_source_by_location": _v_by_location,
    "spatial_temporal": _v_spatial_temporal,
    "multi_hop": _v_multi_hop,
}


@dataclass(frozen=True)
class Style:
    """The words of one question style: preambles, task endings and, per task, the
    function that writes an item (``(core, answer, canonical, meta, source_refs)`` or None)
    from the scene context."""

    preambles: tuple[str, ...]
    endings: dict[str, str]
    builders: dict[str, Callable[[_Ctx], Item | None]]


#: The question styles: ``"house"`` (:data:`TEMPLATES`, :data:`PREAMBLES`, :data:`ENDINGS`)
#: and ``"varied"`` (:data:`VARIED_PREAMBLES`, :data:`VARIED_ENDINGS`, other templates).
STYLES = {"house": Style(PREAMBLES, ENDINGS, _BUILDERS),
          "varied": Style(VARIED_PREAMBLES, VARIED_ENDINGS, _V_BUILDERS)}
WORDINGS = tuple(STYLES)


def check_wording(wording: str) -> str:
    """``wording`` validated."""
    if wording not in WORDINGS:
        raise ParameterError(f"{wording=!r} is not one of {WORDINGS}")
    return wording


def check_tasks(tasks: Sequence[str] | None) -> tuple[str, ...]:
    """``tasks`` validated (None = all of :data:`GENERATED_TASKS`)."""
    if tasks is None:
        return GENERATED_TASKS
    if isinstance(tasks, str):
        tasks = (tasks,)
    bad = [t for t in tasks if t not in GENERATED_TASKS]
    if bad:
        raise ParameterError(f"tasks={list(tasks)!r}: unknown {bad}; known: {GENERATED_TASKS}")
    return tuple(tasks)


def make_qa_items(
    scene: Scene,
    rng: np.random.Generator,
    *,
    tasks: Sequence[str] | None = None,
    wording: str = "house",
) -> list[dict[str, Any]]:
    """At most one QA item per task that the scene supports.

    Parameters
    ----------
    scene : Scene
        The truth.
    rng : numpy.random.Generator
        Chooses sources, templates and phrasing.
    tasks : sequence of str or None
        Subset of :data:`GENERATED_TASKS` (None = all).
    wording : {"house", "varied"}
        The question wording (:data:`WORDINGS`); the truth is the same either way.

    Returns
    -------
    list of dict
        Keys ``task_name``, ``question_class``, ``answer_format``, ``question``, ``answer``,
        ``canonical_answer``, ``answer_meta`` and ``source_refs`` (indices into
        ``scene.sources`` the item is about).
    """
    style = STYLES[check_wording(wording)]
    builders, preambles, endings = style.builders, style.preambles, style.endings
    ctx = _Ctx(scene, rng)
    items = []
    for task in check_tasks(tasks):
        built = builders[task](ctx)
        if built is None:
            continue
        core, answer, canonical, meta, refs = built
        question = f"{ctx.pick(preambles)} {core} {endings[task]}"
        items.append({
            "task_name": task,
            "question_class": TASK_QUESTION_CLASS[task],
            "answer_format": TASK_ANSWER_FORMAT[task],
            "question": question,
            "answer": answer,
            "canonical_answer": canonical,
            "answer_meta": meta,
            "source_refs": [int(r) for r in refs],
        })
    return items
