"""The "varied" wording of the synthetic SO-Bench questions: other preambles, endings and
templates than the house wording of :mod:`foakit.bench.sobench.questions_synth`, as other
benchmark authors write.

Sources are named

* by class with a descriptive word or in the possessive (``"the barking dog"``, ``"the
  dog's barking"``; :data:`LABEL_WORDS`);
* by location: a sector phrase of :data:`SECTOR_WORDS` (``"ahead and to the left"``,
  ``"behind you on the right"``), a clock position (``"at 10 o'clock"``), ``"about 40
  degrees to your left"`` or, for the one source well above every other, ``"above you"``;
* by order: ``"the earliest sound"``, ``"the sound heard last"`` (when unambiguous, as in
  the house wording).

Answers name the class (``"The barking dog starts at 3.1 s."``); canonical answers and
``answer_meta`` are those of the house wording.  The builders take the generator's scene
context (``questions_synth._Ctx``: sources, which can be named by sector or direction, and
which by order) and return ``(core, answer, canonical, meta, source_refs)`` or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["VARIED_PREAMBLES", "VARIED_ENDINGS", "SECTOR_WORDS", "LABEL_WORDS", "BUILDERS"]

VARIED_PREAMBLES = (
    "You will hear a first-order ambisonics (FOA) recording.",
    "The following question refers to a spatial audio clip.",
    "Imagine you are standing where the microphone was.",
    "Consider the spatial sound scene in this recording.",
)
_TIMES = "Please give the times in seconds."
_NAME = "Provide the name of the sound source."
_BRIEF = "Reply in a short sentence."
VARIED_ENDINGS = {
    "estimate_azimuth": "Give the angle in degrees (azimuth 0 = ahead, 90 = left, -90 = right).",
    "estimate_elevation": "Report the elevation in degrees, positive meaning up.",
    "estimate_distance": "State the distance in metres.",
    "detect_time": _TIMES,
    "onset_from_location": "Reply with the onset in seconds.",
    "count_sources": "Respond with a number.",
    "relative_left_right": _BRIEF,
    "compare_elevation": _BRIEF,
    "compare_distance": _BRIEF,
    "classify_motion": "State whether it is static, moving left or moving right.",
    "detect_source": _NAME,
    "identify_source_by_doa": _NAME,
    "identify_source_by_location": _NAME,
    "spatial_temporal": _TIMES,
    "multi_hop": _NAME,
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
_SECTOR_CENTRE = {"front": 0.0, "front-left": 45.0, "left": 90.0, "back-left": 135.0,
                  "back": 180.0, "back-right": -135.0, "right": -90.0, "front-right": -45.0}

Item = tuple[str, str, str, dict[str, Any], list[int]]


def _deg(x: float) -> int:
    return int((round(x) + 180) % 360 - 180)


def _span(s: Any) -> list[float]:
    return [round(s.onset_s, 2), round(s.offset_s, 2)]


def _desc(label: str) -> str:
    """"barking dog": the class with its descriptive word."""
    return f"{LABEL_WORDS.get(label, ('distinct', ''))[0]} {label}"


def _by_class(c: Any, i: int) -> str:
    label = c.src[i].label
    poss = LABEL_WORDS.get(label, ("", ""))[1]
    if poss and c.rng.random() < 0.4:
        return poss
    return f"the {_desc(label)}"


def _clock(az: float) -> str:
    hour = int(round(-az / 30.0)) % 12
    return f"{hour or 12} o'clock"


def _above(c: Any, i: int) -> bool:
    """Whether ``i`` is the one source well above every other."""
    el = c.src[i].elevation_deg
    return el >= 15.0 and all(o.elevation_deg <= el - 20.0 for j, o in enumerate(c.src) if j != i)


def _where(c: Any, i: int) -> str | None:
    """Where source ``i`` is, in one of the varied ways (None when it cannot be named)."""
    ways = []
    if i in c.sector:
        ways.append(c.pick(SECTOR_WORDS[c.sector[i]]))
    if i in c.doa_ok:
        az = _deg(c.src[i].azimuth_deg)
        ways.append(f"at {_clock(az)}")
        if 3 <= abs(az) <= 177:
            ways.append(f"about {abs(az)} degrees to your {'left' if az > 0 else 'right'}")
    if _above(c, i):
        ways.append("above you")
    return c.pick(ways) if ways else None


def _located(c: Any, i: int) -> str | None:
    where = _where(c, i)
    return None if where is None else c.pick(("the sound", "the source", "the one")) + " " + where


def _ref(c: Any, i: int, *, allow_location: bool = True) -> str:
    """Order (when unambiguous), location or class reference to source ``i``."""
    roll = c.rng.random()
    if i in c.order and roll < 0.25:
        return {"the first sound": c.pick(("the earliest sound", "the sound heard first")),
                "the last sound": c.pick(("the final sound", "the sound heard last"))}[c.order[i]]
    if allow_location and roll < 0.6:
        loc = _located(c, i)
        if loc is not None:
            return loc
    return _by_class(c, i)


_EST = {
    "estimate_azimuth": ("Which azimuth does {ref} come from?",
                         "Estimate the direction of arrival of {ref}.",
                         "Which angle, in azimuth, does {ref} arrive from?"),
    "estimate_elevation": ("How high is {ref}?", "Estimate the elevation angle of {ref}.",
                           "By how many degrees is {ref} raised or lowered?"),
    "estimate_distance": ("How many metres away is {ref}?", "Estimate how distant {ref} is.",
                          "At what distance from you is {ref}?"),
}


def _estimate(task: str) -> Callable[[Any], Item | None]:
    def build(c: Any) -> Item | None:
        if not c.stat:
            return None
        i = c.pick(c.stat)
        s = c.src[i]
        core = c.pick(_EST[task]).format(ref=_ref(c, i))
        name = f"The {_desc(s.label)}"
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


def _detect_time(c: Any) -> Item | None:
    if not c.src:
        return None
    i = c.pick(range(len(c.src)))
    s = c.src[i]
    ref = _ref(c, i, allow_location=not s.is_moving)
    core = c.pick(("When is {ref} audible?", "From when to when do you hear {ref}?",
                   "What is the time span of {ref}?", "At what times does {ref} start and end?"))
    t = f"{s.onset_s:.1f}s to {s.offset_s:.1f}s"
    return (core.format(ref=ref), f"The {_desc(s.label)} is heard from {t}.", t,
            {"time_span": _span(s)}, [i])


def _onset(c: Any) -> Item | None:
    cands = [(i, w) for i in c.stat if (w := _where(c, i)) is not None]
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
    return (core, f"The {_desc(s.label)} starts at {s.onset_s:.1f} s.", f"{s.onset_s:.1f}s",
            {"onset_time": round(s.onset_s, 2)}, [i])


def _count(c: Any) -> Item | None:
    k = len(c.src)
    dur = c.scene.duration_s
    core = c.pick((f"In this {dur:g}-second clip, how many sound sources are there?",
                   "How many separate things make a sound in this recording?",
                   "What is the number of distinct sound events you hear?"))
    ans = "One sound source can be heard." if k == 1 else f"{k} different sound sources can " \
        "be heard."
    return core, ans, str(k), {"active_count": k}, list(range(k))


_REL = {
    "relative_left_right": ("Is {a} left or right of {b}?",
                            "Relative to {b}, is {a} further left or further right?"),
    "compare_elevation": ("Is {a} above or below {b}?",
                          "Compared to {b}, is {a} higher up or lower down?"),
    "compare_distance": ("Is {a} nearer or further away than {b}?",
                         "Relative to {b}, is {a} nearer to you or further away?"),
}
_REL_ANSWER = {"left": "to the left of", "right": "to the right of", "higher": "above",
               "lower": "below", "closer": "nearer than", "farther": "further away than"}


def _relation(task: str) -> Callable[[Any], Item | None]:
    def build(c: Any) -> Item | None:
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
        if not pairs:
            return None
        a, b, rel = c.pick(pairs)
        core = c.pick(_REL[task]).format(a=_by_class(c, a), b=_by_class(c, b))
        la, lb = _desc(c.src[a].label), _desc(c.src[b].label)
        return core, f"The {la} is {_REL_ANSWER[rel]} the {lb}.", rel, {}, [a, b]

    return build


def _motion(c: Any) -> Item | None:
    if not c.src:
        return None
    moving = [i for i, s in enumerate(c.src) if s.is_moving]
    i = c.pick(moving) if moving else c.pick(range(len(c.src)))
    s = c.src[i]
    lab = {"stationary": "stationary", "right_to_left": "moving left",
           "left_to_right": "moving right"}[s.motion]
    core = c.pick(("Does {r} move, and if so, which way?", "Is {r} static or travelling?",
                   "Describe how {r} moves, if it does.")).format(r=_by_class(c, i))
    return core, f"The {_desc(s.label)} is {lab}.", lab, {}, [i]


_FRACTIONS = (("the first half", 0.0, 0.5), ("the second half", 0.5, 1.0),
              ("the first third", 0.0, 1 / 3), ("the last third", 2 / 3, 1.0))


def _detect_source(c: Any) -> Item | None:
    if len(c.src) == 1 and c.stat:
        s = c.src[0]
        core = c.pick(("Which sound source do you hear?", "Name the sound in this clip."))
        return (core, f"The {_desc(s.label)} is heard from {s.onset_s:.1f}s to "
                f"{s.offset_s:.1f}s.", s.label, {"time_span": _span(s)}, [0])
    dur = c.scene.duration_s
    opts = []
    for i in c.stat:  # a part of the clip in which only source i sounds (0.5 s of it at least)
        for phrase, a, b in _FRACTIONS:
            lo, hi = a * dur, b * dur
            near = [j for j, o in enumerate(c.src) if o.onset_s < hi + 0.3 and o.offset_s >
                    lo - 0.3]
            s = c.src[i]
            if near == [i] and min(s.offset_s, hi) - max(s.onset_s, lo) >= 0.5:
                opts.append((i, f"in {phrase} of the clip"))
        s = c.src[i]
        t0, t1 = s.onset_s, s.offset_s
        for j, o in enumerate(c.src):
            if j == i or o.offset_s <= t0 or o.onset_s >= t1:
                continue
            left, right = (t0, min(t1, o.onset_s)), (max(t0, o.offset_s), t1)
            t0, t1 = max((left, right), key=lambda w: w[1] - w[0])
        if t1 - t0 >= 0.6:
            opts.append((i, f"from {t0 + 0.1:.1f} s until {t1 - 0.1:.1f} s"))
    if not opts:
        return None
    i, when = c.pick(opts)
    core = c.pick(("Which sound is playing {w}?", "Name the sound source heard {w}.")).format(
        w=when)
    return core, f"The {_desc(c.src[i].label)} can be heard.", c.src[i].label, {}, [i]


def _by_doa(c: Any) -> Item | None:
    if not c.doa_ok:
        return None
    i = c.pick(c.doa_ok)
    s = c.src[i]
    az = _deg(s.azimuth_deg)
    opts = [f"Name the source at azimuth {az}°.", f"What do you hear at {_clock(az)}?"]
    if 3 <= abs(az) <= 177:
        opts.append(f"Which sound is about {abs(az)} degrees to your "
                    f"{'left' if az > 0 else 'right'}?")
    return (c.pick(opts), f"That direction holds the {_desc(s.label)}.", s.label, {}, [i])


def _by_location(c: Any) -> Item | None:
    cands = sorted(c.sector) + [i for i in c.stat if _above(c, i) and i not in c.sector]
    if not cands:
        return None
    i = c.pick(cands)
    where = c.pick(SECTOR_WORDS[c.sector[i]]) if i in c.sector else "above you"
    core = c.pick(("What is the sound {w}?", "Which source do you hear {w}?",
                   "Identify what is making the sound {w}.")).format(w=where)
    lab = c.src[i].label
    return core, f"The sound {where} is the {_desc(lab)}.", lab, {}, [i]


def _spatial_temporal(c: Any) -> Item | None:
    if not c.sector:
        return None
    i = c.pick(sorted(c.sector))
    s, where = c.src[i], c.pick(SECTOR_WORDS[c.sector[i]])
    core = c.pick((f"Where is {_by_class(c, i)}, and when is it heard?",
                   f"What do you hear {where}, and when?"))
    t = f"{s.onset_s:.1f}s to {s.offset_s:.1f}s"
    return (core, f"The {_desc(s.label)} is {where}, from {t}.",
            f"{s.label}, {c.sector[i]}, {t}", {"time_span": _span(s)}, [i])


def _multi_hop(c: Any) -> Item | None:
    options: list[Item] = []
    named = sorted(c.sector)
    ons = sorted(range(len(c.src)), key=lambda j: c.src[j].onset_s)
    for i in named:  # the sound that starts next
        k = ons.index(i)
        if k + 1 < len(ons):
            nxt = ons[k + 1]
            gaps = [c.src[j].onset_s - c.src[i].onset_s for j in ons[k + 1:]]
            if c.src[nxt].is_moving or (len(gaps) > 1 and gaps[1] - gaps[0] < 0.3):
                continue
            where = c.pick(SECTOR_WORDS[c.sector[i]])
            core = c.pick((f"What sound follows the one {where}?",
                           f"Which sound begins just after the sound {where} starts?"))
            lab = c.src[nxt].label
            options.append((core, f"The {_desc(lab)} comes next.", lab, {}, [i, nxt]))
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
                                "up?", f"The {_desc(lab)} is higher.", lab, {}, [a, b]))
            if abs(sa.distance_m - sb.distance_m) >= 0.75:
                win = a if sa.distance_m < sb.distance_m else b
                lab = c.src[win].label
                options.append((f"Between the sound {wa} and the sound {wb}, which is nearer "
                                "to you?", f"The {_desc(lab)} is nearer.", lab, {}, [a, b]))
    return c.pick(options) if options else None


BUILDERS: dict[str, Callable[[Any], Item | None]] = {
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
