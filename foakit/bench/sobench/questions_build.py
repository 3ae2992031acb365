"""The question builders of both styles: per task, a function that writes one item
(``(core, answer, canonical, meta, source_refs)`` or None) from the scene context.

The ``"house"`` builders (:data:`_BUILDERS`) word with :data:`TEMPLATES`; the ``"varied"``
builders (:data:`_V_BUILDERS`) with other authors' words.  Which source, pair or window an
item is about is chosen in :mod:`foakit.bench.sobench.questions_scene`.
"""

from __future__ import annotations

from collections.abc import Callable

from .questions_scene import (
    Item,
    _Ctx,
    _deg,
    _motion_source,
    _next_sound,
    _relation_pairs,
    _solo_window,
    _span,
)
from .questions_words import (
    DETECT_TIME_CONTEXT,
    LABEL_WORDS,
    MOTION_ANSWERS,
    SECTOR_PHRASES,
    SECTOR_WORDS,
    TEMPLATES,
)

#: The answer sentences of the house style's estimates (``{name}`` the source, ``{v}``).
_ESTIMATE_SAYS = {"estimate_azimuth": "{name} is at about {v} degrees azimuth.",
                  "estimate_elevation": "{name} is at about {v} degrees elevation.",
                  "estimate_distance": "{name} is about {v} m away."}


def _estimate(task: str, *, templates: dict[str, tuple[str, ...]] = TEMPLATES,
              ref: Callable[[_Ctx, int], str] = lambda c, i: c.ref(i),
              name: Callable[[str], str] = lambda label: f"The sound of the {label}",
              says: dict[str, str] = _ESTIMATE_SAYS) -> Callable[[_Ctx], Item | None]:
    """The builder of an estimate task in one style: its question ``templates`` per task,
    how it refers to the source in the question (``ref``) and names it in the answer
    (``name``, from the class label), and its answer sentences (``says``)."""
    def build(c: _Ctx) -> Item | None:
        if not c.stat:
            return None
        i = c.pick(c.stat)
        s = c.src[i]
        core = c.pick(templates[task]).format(ref=ref(c, i))
        who = name(s.label)
        if task == "estimate_azimuth":
            v = _deg(s.azimuth_deg)
            return (core, says[task].format(name=who, v=v), f"{v} degrees",
                    {"azimuth_deg": round(s.azimuth_deg, 1)}, [i])
        if task == "estimate_elevation":
            v = int(round(s.elevation_deg))
            return (core, says[task].format(name=who, v=v), f"{v} degrees",
                    {"elevation_deg": round(s.elevation_deg, 1)}, [i])
        v = f"{s.distance_m:.1f}"
        return (core, says[task].format(name=who, v=v), f"{v} m",
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
_V_SAYS = {"estimate_azimuth": "{name} arrives from about {v} degrees azimuth.",
           "estimate_elevation": "{name} is at an elevation of about {v} degrees.",
           "estimate_distance": "{name} is roughly {v} m from you."}


def _v_estimate(task: str) -> Callable[[_Ctx], Item | None]:
    return _estimate(task, templates=_V_EST, ref=_v_ref,
                     name=lambda label: f"The {_v_desc(label)}", says=_V_SAYS)


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
