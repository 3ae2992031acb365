"""SO-Bench baselines: ``oracle`` (upper bound), ``prior`` (floor) and ``dsp`` (blind).

Every QA item gets one prediction row ``{qa_id, audio_path, task_name, prediction, foakit}``
in QA order.  The sentence puts the value the scorer needs first, with its unit, in the
benchmark's conventions (azimuth degrees counter-clockwise from the front, +90 = left), so
the official LLM judge and its no-API regex fallback (first number; first two numbers for a
span; left/right, higher/lower/same, closer/farther/same words) read it alike::

    67 degrees azimuth: the sound is front-left.
    2.30 s to 4.10 s: the sound is audible from 2.30 s to 4.10 s.
    3 sources are active.

The ``foakit`` object holds ``kind``, ``abstained``, ``values`` (field names of the official
judge's JSON: ``angle_deg``, ``elevation_deg``, ``distance_m``, ``onset_time_s``, ``count``,
``time_span``, ``motion_label``, ``left_right``, ``height_relation``,
``distance_relation``), ``event`` (the analysed event used, or None), ``evidence`` (what
was measured) and ``why`` (how the event was chosen).  An abstention sentence has no digit
and no relation word, so no scorer reads a value from it.

Kinds
-----
oracle
    The answer from ``answer_meta`` (numeric and time tasks) or ``canonical_answer``.
prior
    Trivial answers that never look at the signal: azimuth 0 deg (front), elevation 0 deg;
    distance, onset: the median of this QA file's own ``answer_meta`` values; count: the
    most common ``active_count``; motion and left/right: the most common canonical label;
    ``detect_time`` / ``spatial_temporal``: the whole clip (duration from the file header);
    comparisons: the most common canonical relation word, else the first-named source.
    Source-identity and speech tasks abstain.
dsp
    Blind: from foakit's analysis of the audio (``foakit.corpus`` clips records).  The
    event a question means is chosen from what the question says (see
    :func:`parse_question`); when it cannot be told, the most salient event (loudest x
    longest) is used and the evidence says so.  Sound classes cannot be recognised, so
    source-identity tasks, speech, and relations between sources named only by class
    abstain.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import statistics
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..bench.sobench import (
    SOURCE_TASKS,
    Cues,
    QAItem,
    load_qa,
    parse_question,
    referents,
    resolve_audio_path,
)
from ..errors import FoakitError, ParameterError
from ..scoring.sobench import motion_label, question_options

__all__ = [
    "KINDS",
    "BaselineRun",
    "select_event",
    "source_blocks",
    "phrase_answer",
    "abstention",
    "oracle_predictions",
    "prior_predictions",
    "dsp_predictions",
    "analyze_for_qa",
    "run_baseline",
]

KINDS = ("oracle", "prior", "dsp")
_DISTANCE_FALLBACK_M = 2.0
_MOTION_WORDS = {"stationary": "Stationary", "moving_left": "Moving left",
                 "moving_right": "Moving right", "moving_toward": "Moving toward the listener",
                 "moving_away": "Moving away from the listener", "moving": "Moving"}
_DSP_MOTION = {"stationary": "stationary", "left_to_right": "moving_right",
               "right_to_left": "moving_left"}


@dataclass
class BaselineRun:
    """Predictions of one baseline run.

    Attributes
    ----------
    kind : str
    predictions : list of dict
        One row per QA item, in QA order.
    problems : list of str
        Per-item problems (missing, broken or refused audio), one line each.
    """

    kind: str
    predictions: list[dict]
    problems: list[str] = field(default_factory=list)


def source_blocks(events: Sequence[Mapping[str, Any]], gap_s: float = 1.2) -> list[dict]:
    """Events with consecutive events of one source closer than ``gap_s`` merged.

    A merged block keeps the direction, distance and motion of its strongest event, the
    earliest onset and the latest offset; ``source`` is kept (events without one get a
    unique negative id).  Sorted by onset.
    """
    evs = sorted((dict(e) for e in events), key=lambda e: float(e["onset_s"]))
    for i, e in enumerate(evs):
        if e.get("source") is None:
            e["source"] = -1 - i
    blocks: list[dict] = []
    for e in evs:
        prev = next((b for b in reversed(blocks) if b["source"] == e["source"]), None)
        if prev is not None and float(e["onset_s"]) - float(prev["offset_s"]) < gap_s:
            onset = min(float(prev["onset_s"]), float(e["onset_s"]))
            offset = max(float(prev["offset_s"]), float(e["offset_s"]))
            if _energy(e) > _energy(prev):
                prev.clear()
                prev.update(e)
            prev["onset_s"], prev["offset_s"] = onset, offset
        else:
            blocks.append(e)
    return blocks


def _energy(ev: Mapping[str, Any]) -> float:
    x = ev.get("energy_db")
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else 0.0


def _salience(ev: Mapping[str, Any]) -> float:
    dur = max(float(ev["offset_s"]) - float(ev["onset_s"]), 0.05)
    return _energy(ev) + 10.0 * math.log10(dur)


def select_event(blocks: Sequence[Mapping[str, Any]], cues: Cues
                 ) -> tuple[dict | None, str]:
    """The event (block) a question means, and why it was chosen.

    Each candidate gets a cost from the cues (azimuth: wrapped difference over 45 deg, or
    over 20 deg for an explicit angle; elevation: difference over 10 deg, or a wrong side of
    the horizon; time: distance from the event in 0.5 s units; order and superlatives: 3 when
    not the one named); the cheapest wins, the more salient (loudest x longest) on ties.
    Without cues the most salient source is taken.  Without a time cue the first block of
    the chosen source is returned (its first occurrence).
    """
    if not blocks:
        return None, "no event"
    blocks = list(blocks)
    sources: list[Any] = []
    for b in sorted(blocks, key=lambda b: float(b["onset_s"])):
        if b["source"] not in sources:
            sources.append(b["source"])

    def cost(b: Mapping[str, Any]) -> float:
        c = 0.0
        if cues.azimuth_deg is not None:
            d = abs((float(b["azimuth_deg"]) - cues.azimuth_deg + 180.0) % 360.0 - 180.0)
            c += d / (20.0 if cues.azimuth_explicit else 45.0)
        if cues.elevation_deg is not None:
            c += abs(float(b["elevation_deg"]) - cues.elevation_deg) / 10.0
        elif cues.elevation_sign:
            c += max(0.0, 5.0 - cues.elevation_sign * float(b["elevation_deg"])) / 10.0
        on, off = float(b["onset_s"]), float(b["offset_s"])
        if cues.time_s is not None:
            c += max(on - cues.time_s, cues.time_s - off, 0.0) / 0.5
        if cues.window is not None:
            lo, hi = cues.window
            c += max(on - hi, lo - off, 0.0) / 0.5
        if cues.order is not None:
            want = sources[cues.order] if -len(sources) <= cues.order < len(sources) else None
            c += 0.0 if b["source"] == want else 3.0
        if cues.superlative:
            c += 0.0 if b is _extreme(blocks, cues.superlative) else 3.0
        return c

    if cues.empty:
        best = max(blocks, key=_salience)
        why = (f"the question does not say which sound it means (it names it by class, "
               f"which signal analysis cannot recognise); took the most salient of "
               f"{len(sources)} source(s)" if len(sources) > 1 else "the only source")
    else:
        best = min(blocks, key=lambda b: (cost(b), -_salience(b)))
        why = f"matches the question's {', '.join(repr(m) for m in cues.matched)}" + \
            (f", best of {len(sources)} sources" if len(sources) > 1 else " (only source)")
    if cues.azimuth_deg is not None:
        off = abs((float(best["azimuth_deg"]) - cues.azimuth_deg + 180.0) % 360.0 - 180.0)
        why += f"; {off:.0f} deg from the direction asked about"
    if cues.time_s is None and cues.window is None:
        best = next(b for b in sorted(blocks, key=lambda b: float(b["onset_s"]))
                    if b["source"] == best["source"])
    return dict(best), why


def _extreme(blocks: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any] | None:
    key = {"closest": lambda b: -float(b.get("distance_m") or math.inf),
           "farthest": lambda b: float(b.get("distance_m") or -math.inf),
           "loudest": _energy, "quietest": lambda b: -_energy(b),
           "highest": lambda b: float(b["elevation_deg"]),
           "lowest": lambda b: -float(b["elevation_deg"]),
           "longest": lambda b: float(b["offset_s"]) - float(b["onset_s"]),
           "shortest": lambda b: float(b["onset_s"]) - float(b["offset_s"])}[name]
    return max(blocks, key=key) if blocks else None


def _fmt(x: float, nd: int) -> str:
    text = f"{float(x):.{nd}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0"


_SECTORS = ("the front", "the front-left", "the left", "the back-left", "behind",
            "the back-right", "the right", "the front-right")


def _sector(az: float) -> int:
    return int(((az % 360.0) + 22.5) // 45.0) % 8


def _region(az: float) -> str:
    return ("in front", "front-left", "to the left", "back-left", "behind", "back-right",
            "to the right", "front-right")[_sector(az)]


def phrase_answer(task: str, values: Mapping[str, Any], *, nd_time: int = 2,
                  nd_angle: int = 0) -> str:
    """The prediction sentence of a numeric / time / motion answer, value first.

    Parameters
    ----------
    task : str
        SO-Bench task name.
    values : mapping
        Official field names (``angle_deg``, ``elevation_deg``, ``distance_m``,
        ``onset_time_s``, ``count``, ``time_span``, ``motion_label``).
    nd_time, nd_angle : int
        Decimals for times and angles.
    """
    v = values
    if task == "estimate_azimuth":
        az = float(v["angle_deg"])
        return f"{_fmt(az, nd_angle)} degrees azimuth: the sound is {_region(az)}."
    if task == "estimate_elevation":
        el = float(v["elevation_deg"])
        where = "at ear level" if abs(el) < 5 else ("above" if el > 0 else "below") + \
            " ear level"
        return f"{_fmt(el, nd_angle)} degrees elevation: the sound is {where}."
    if task == "estimate_distance":
        d = float(v["distance_m"])
        band = "near" if d < 1.5 else ("at mid-range" if d <= 4.0 else "far")
        return f"{_fmt(d, 2)} m: the sound is {band}, about {_fmt(d, 1)} metres away."
    if task == "onset_from_location":
        t = _fmt(v["onset_time_s"], nd_time)
        return f"{t} s: the sound starts at {t} seconds."
    if task == "count_sources":
        n = int(v["count"])
        return f"{n} source{'s are' if n != 1 else ' is'} active."
    if task in ("detect_time", "spatial_temporal"):
        s, e = (_fmt(x, nd_time) for x in v["time_span"])
        return f"{s} s to {e} s: the sound is audible from {s} s to {e} s."
    if task == "classify_motion":
        return f"{_MOTION_WORDS[v['motion_label']]}."
    raise ParameterError(f"no numeric phrasing for task {task!r}")


def abstention(task: str, reason: str) -> str:
    """An abstention sentence ending with ``reason``; words holding a digit are dropped from
    it, so that no scorer reads a value from an abstention."""
    what = {"speech_content": "No transcript", "count_sources": "No count"}.get(task,
                                                                             "No answer")
    reason = " ".join(w for w in reason.split() if not re.search(r"\d", w))
    return f"{what}: {reason.rstrip('. ')}."


def _row(item: QAItem, kind: str, prediction: str, *, values: Mapping[str, Any] | None = None,
         event: Mapping[str, Any] | None = None, evidence: str = "", why: str = "",
         abstained: bool = False) -> dict:
    return {"qa_id": item.qa_id, "audio_path": item.audio_path, "task_name": item.task_name,
            "prediction": prediction,
            "foakit": {"kind": kind, "abstained": abstained, "values": dict(values or {}),
                       "event": dict(event) if event else None, "evidence": evidence,
                       "why": why}}


def _abstain_row(item: QAItem, kind: str, reason: str, detail: str = "", **kw: Any) -> dict:
    return _row(item, kind, abstention(item.task_name, reason), abstained=True,
                evidence=f"{reason} ({detail})" if detail else reason, **kw)


_NUMERIC = {"estimate_azimuth": ("angle_deg", "azimuth_deg"),
            "estimate_elevation": ("elevation_deg", "elevation_deg"),
            "estimate_distance": ("distance_m", "distance_m"),
            "onset_from_location": ("onset_time_s", "onset_time"),
            "count_sources": ("count", "active_count"),
            "detect_time": ("time_span", "time_span")}


def oracle_predictions(items: Sequence[QAItem]) -> list[dict]:
    """Answers from ``answer_meta`` (numeric and time tasks) or ``canonical_answer``."""
    rows = []
    for item in items:
        meta, task = item.answer_meta or {}, item.task_name
        canonical = item.canonical_answer or item.answer
        key = _NUMERIC.get(task)
        if key and meta.get(key[1]) is not None:
            values = {key[0]: meta[key[1]]}
            text = phrase_answer(task, values, nd_time=3, nd_angle=2)
            rows.append(_row(item, "oracle", text, values=values, evidence="answer_meta"))
        elif task == "spatial_temporal" and meta.get("time_span") is not None:
            s, e = (_fmt(x, 3) for x in meta["time_span"])
            rows.append(_row(item, "oracle", f"{s} s to {e} s: {canonical}",
                             values={"time_span": meta["time_span"]},
                             evidence="answer_meta and canonical_answer"))
        elif canonical:
            rows.append(_row(item, "oracle", canonical, evidence="canonical_answer"))
        else:
            rows.append(_abstain_row(item, "oracle", "the QA record has no reference answer"))
    return rows


def _median(xs: list[float], default: float) -> float:
    return float(statistics.median(xs)) if xs else default


def _mode(xs: list, default: Any) -> Any:
    return Counter(xs).most_common(1)[0][0] if xs else default


def _relation_word(task: str, text: str) -> str | None:
    norm = " ".join(text.lower().split())
    words = {"relative_left_right": ("left", "right"),
             "compare_elevation": ("higher", "lower", "same"),
             "compare_distance": ("closer", "farther", "same")}[task]
    return next((w for w in words if w in norm), None)


def prior_predictions(items: Sequence[QAItem], root: str | os.PathLike | None = None) -> list[dict]:
    """Trivial answers (the floor); see the module docstring for each task's constant."""
    def metas(key: str) -> list[float]:
        out = []
        for it in items:
            v = (it.answer_meta or {}).get(key)
            if isinstance(v, (int, float)) and math.isfinite(v):
                out.append(float(v))
        return out

    ends = [float(it.answer_meta["time_span"][1]) for it in items
            if isinstance((it.answer_meta or {}).get("time_span"), (list, tuple))
            and len(it.answer_meta["time_span"]) == 2]
    const = {
        "estimate_azimuth": ({"angle_deg": 0.0}, "constant 0 degrees (front)"),
        "estimate_elevation": ({"elevation_deg": 0.0}, "constant 0 degrees (ear level)"),
        "estimate_distance": ({"distance_m": round(_median(metas("distance_m"),
                                                           _DISTANCE_FALLBACK_M), 2)},
                              "median distance of this QA file's answers"),
        "onset_from_location": ({"onset_time_s": round(_median(metas("onset_time"), 0.0), 2)},
                                "median onset of this QA file's answers"),
        "count_sources": ({"count": int(_mode([int(c) for c in metas("active_count")], 1))},
                          "most common count of this QA file's answers"),
        "classify_motion": ({"motion_label": _mode(
            [m for it in items if it.task_name == "classify_motion"
             for m in [motion_label(it.canonical_answer or it.answer)] if m], "stationary")},
            "most common motion label of this QA file's answers"),
    }
    rel = {t: _mode([w for it in items if it.task_name == t
                     for w in [_relation_word(t, it.canonical_answer or it.answer)] if w], None)
           for t in ("relative_left_right", "compare_elevation", "compare_distance")}
    durations: dict[str, float | None] = {}
    rows = []
    for item in items:
        task = item.task_name
        if task in const:
            values, why = const[task]
            rows.append(_row(item, "prior", phrase_answer(task, values), values=values,
                             why=why, evidence="no signal used"))
        elif task in ("detect_time", "spatial_temporal"):
            if item.audio_path not in durations:
                durations[item.audio_path] = _duration(root, item.audio_path)
            dur = durations[item.audio_path] or _median(ends, 10.0)
            span = [0.0, round(dur, 2)]
            text = phrase_answer("detect_time", {"time_span": span})
            rows.append(_row(item, "prior", text, values={"time_span": span},
                             why="the whole clip" if durations[item.audio_path] else
                             "0 s to the median span end of this QA file's answers",
                             evidence="no signal used"))
        elif task in rel and rel[task] is not None:
            word = rel[task]
            rows.append(_row(item, "prior", f"{word.capitalize()}: the first-named sound is "
                             f"{_REL_PHRASE[word]} the other one.",
                             values={_REL_KEY[task]: word}, evidence="no signal used",
                             why="most common relation word of this QA file's answers"))
        elif task in rel and question_options(item.question):
            first = question_options(item.question)[0]
            rows.append(_row(item, "prior", f"The {first}.", evidence="no signal used",
                             why="names the first source the question names"))
        else:
            rows.append(_abstain_row(item, "prior", "the prior baseline does not listen, so "
                                     "it cannot name sources or transcribe speech"))
    return rows


_REL_KEY = {"relative_left_right": "left_right", "compare_elevation": "height_relation",
            "compare_distance": "distance_relation"}
_REL_PHRASE = {"left": "to the left of", "right": "to the right of", "higher": "higher than",
               "lower": "lower than", "closer": "closer than", "farther": "farther than",
               "same": "at the same level as"}


def _duration(root: str | os.PathLike | None, audio_path: str) -> float | None:
    if root is None:
        return None
    from ..io import audio_info

    try:
        sr, _, frames = audio_info(resolve_audio_path(root, audio_path))
    except FoakitError:
        return None
    return frames / sr if sr > 0 else None


def _event_brief(ev: Mapping[str, Any]) -> dict:
    keys = ("onset_s", "offset_s", "azimuth_deg", "elevation_deg", "distance_m", "motion",
            "azimuth_start_deg", "azimuth_end_deg", "confidence", "energy_db", "source")
    return {k: ev.get(k) for k in keys if k in ev}


def _describe(ev: Mapping[str, Any]) -> str:
    dist = ev.get("distance_m")
    return (f"event {float(ev['onset_s']):.2f}-{float(ev['offset_s']):.2f} s at azimuth "
            f"{float(ev['azimuth_deg']):.0f} deg, elevation {float(ev['elevation_deg']):.0f}"
            f" deg" + (f", {float(dist):.1f} m" if dist is not None else "")
            + f", motion {ev.get('motion', 'stationary')}")


def _dsp_relation(item: QAItem, blocks: list[dict]) -> dict:
    refs = referents(item.question)
    picked = [select_event(blocks, c) for c in refs[:2]] if len(refs) >= 2 else []
    if len(picked) < 2 or picked[0][0] is None or picked[1][0] is None or \
            picked[0][0].get("source") == picked[1][0].get("source"):
        return _abstain_row(item, "dsp", "the two sounds are named by their sound class, "
                            "which foakit's signal analysis cannot recognise, so they cannot "
                            "be told apart")
    (a, why_a), (b, why_b) = picked
    task = item.task_name
    if task == "relative_left_right":
        diff = (float(a["azimuth_deg"]) - float(b["azimuth_deg"]) + 180.0) % 360.0 - 180.0
        word, detail = ("left" if diff > 0 else "right"), \
            f"azimuth {a['azimuth_deg']:.0f} vs {b['azimuth_deg']:.0f} degrees"
    elif task == "compare_elevation":
        diff = float(a["elevation_deg"]) - float(b["elevation_deg"])
        word = "same" if abs(diff) < 2.0 else ("higher" if diff > 0 else "lower")
        detail = f"elevation {a['elevation_deg']:.0f} vs {b['elevation_deg']:.0f} degrees"
    else:
        da, db = a.get("distance_m"), b.get("distance_m")
        if da is None or db is None:
            return _abstain_row(item, "dsp", "the analysis gave no distance estimate")
        diff = float(da) - float(db)
        word = "same" if abs(diff) < 0.1 else ("closer" if diff < 0 else "farther")
        detail = f"distance {float(da):.1f} vs {float(db):.1f} m"
    refs_text = [r.text for r in refs[:2]]
    asked = _asked_comparative(item.question) if task != "relative_left_right" else None
    if asked is not None and word != "same":
        winner = refs_text[0] if asked == word else refs_text[1]
        text = f"The sound {winner} is {asked}."
    else:
        text = f"{word.capitalize()}: the first-named sound is {_REL_PHRASE[word]} the " \
               "second-named one."
    return _row(item, "dsp", text, values={_REL_KEY[task]: word},
                event=_event_brief(a), evidence=f"{detail}; first: {_describe(a)}; "
                f"second: {_describe(b)}", why=f"first: {why_a}; second: {why_b}")


def _asked_comparative(question: str) -> str | None:
    """For "which ... is closer / higher ...?" questions, the comparative asked about."""
    q = question.lower()
    if not re.search(r"\bwhich\b", q):
        return None
    m = re.search(r"\b(higher|lower|above|below|closer|nearer|farther|further)\b", q)
    if m is None:
        return None
    return {"above": "higher", "below": "lower", "nearer": "closer",
            "further": "farther"}.get(m.group(1), m.group(1))


def _dsp_one(item: QAItem, clip: Mapping[str, Any]) -> dict:
    task = item.task_name
    if task in SOURCE_TASKS:
        return _abstain_row(item, "dsp", "foakit's signal analysis does not recognise sound "
                            "classes, so it cannot say which source this is")
    if task == "speech_content":
        return _abstain_row(item, "dsp", "foakit does not transcribe speech")
    if clip.get("channels") not in (None, 4):
        return _abstain_row(item, "dsp", "the audio is not a four-channel FOA file",
                            detail=f"{clip.get('channels')} channels")
    blocks = source_blocks([e for e in clip.get("events") or []
                            if e.get("azimuth_deg") is not None
                            and e.get("elevation_deg") is not None])
    cues = parse_question(item.question)
    if task == "count_sources":
        n, why = _count(clip, blocks, cues)
        return _row(item, "dsp", phrase_answer(task, {"count": n}), values={"count": n},
                    evidence=f"{len(blocks)} event(s) from {len({b['source'] for b in blocks})}"
                    " direction cluster(s)", why=why)
    if not blocks:
        return _abstain_row(item, "dsp", "the analysis found no sound event in this clip")
    if task in ("relative_left_right", "compare_elevation", "compare_distance"):
        return _dsp_relation(item, blocks)
    ev, why = select_event(blocks, cues)
    moving = [b for b in blocks if str(b.get("motion", "stationary")) != "stationary"]
    if task == "classify_motion" and cues.empty and moving and len(blocks) > 1:
        ev = dict(max(moving, key=_salience))
        why = ("the question asks about motion without saying which sound (it names it by "
               f"class); took the most salient of the {len(moving)} moving event(s)")
    brief, desc = _event_brief(ev), _describe(ev)
    if task == "estimate_azimuth":
        values = {"angle_deg": round(float(ev["azimuth_deg"])) + 0.0}  # as the text says
    elif task == "estimate_elevation":
        values = {"elevation_deg": round(float(ev["elevation_deg"])) + 0.0}
    elif task == "estimate_distance":
        d = ev.get("distance_m")
        if d is None:
            proxy = ev.get("distance_proxy") or "no proxy"
            d, why = _DISTANCE_FALLBACK_M, why + f"; no distance estimate ({proxy}), " \
                f"answered {_DISTANCE_FALLBACK_M:g} m, a typical indoor distance"
        values = {"distance_m": round(float(d), 2)}
    elif task == "onset_from_location":
        values = {"onset_time_s": round(float(ev["onset_s"]), 2)}
    elif task in ("detect_time", "spatial_temporal"):
        values = {"time_span": [round(float(ev["onset_s"]), 2), round(float(ev["offset_s"]), 2)]}
    elif task == "classify_motion":
        values = {"motion_label": _DSP_MOTION.get(str(ev.get("motion")), "moving")}
    else:
        return _abstain_row(item, "dsp", f"foakit has no answer for task {task!r}")
    text = phrase_answer(task, values)
    if task == "spatial_temporal":
        text = text[:-1] + f", coming from {_SECTORS[_sector(float(ev['azimuth_deg']))]} " \
            "(the sound class is not recognised)."
    if task == "classify_motion" and values["motion_label"] != "stationary":
        text = text[:-1] + (f": its azimuth goes from {float(ev['azimuth_start_deg']):.0f} to "
                            f"{float(ev['azimuth_end_deg']):.0f} degrees."
                            if ev.get("azimuth_start_deg") is not None else ".")
    return _row(item, "dsp", text, values=values, event=brief, evidence=desc, why=why)


def _count(clip: Mapping[str, Any], blocks: list[dict], cues: Cues) -> tuple[int, str]:
    if cues.time_s is not None or cues.window is not None:
        lo, hi = cues.window or (cues.time_s, cues.time_s)
        active = {b["source"] for b in blocks
                  if float(b["onset_s"]) <= hi + 0.1 and float(b["offset_s"]) >= lo - 0.1}
        return len(active), f"distinct sources active in {lo:g}-{hi:g} s (from the question)"
    n = clip.get("n_sources")
    if n is None:
        n = len({b["source"] for b in blocks})
    return int(n), "distinct direction clusters in the clip"


def dsp_predictions(items: Sequence[QAItem], clips: Mapping[str, Mapping[str, Any] | str]
                    ) -> list[dict]:
    """DSP answers from analysed clips.

    Parameters
    ----------
    items : sequence of QAItem
    clips : mapping
        Normalised ``audio_path`` (POSIX, relative to the root) -> the clips.jsonl record
        of that file, or a string saying why there is none (missing, refused, broken);
        an absent key is treated as "not analysed".
    """
    rows = []
    for item in items:
        clip = clips.get(_key(item.audio_path), "the audio was not analysed")
        if isinstance(clip, str):
            reason = "the audio path was refused" if "refused" in clip else \
                "the audio file is missing" if "missing" in clip else "the audio was not analysed"
            rows.append(_abstain_row(item, "dsp", reason, detail=clip))
        elif clip.get("status") != "ok":
            rows.append(_abstain_row(item, "dsp", "the audio could not be read or analysed",
                                     detail=str(clip.get("error") or "unknown error")))
        else:
            rows.append(_dsp_one(item, clip))
    return rows


def _key(audio_path: str) -> str:
    return PurePosixPath(audio_path).as_posix()


def analyze_for_qa(root: str | os.PathLike, items: Sequence[QAItem],
                   analysis_dir: str | os.PathLike | None = None, *, channel_order: str = "ambix",
                   workers: int | None = None, progress: bool = False,
                   backend: str = "cpu") -> tuple[dict[str, Any], list[str]]:
    """Analyse (or reuse the analysis of) the audio the QA items name.

    Returns
    -------
    clips : dict
        Normalised audio path -> clips.jsonl record, or a string for a file that was
        refused (path escapes the root) or is missing.
    problems : list of str
        One line per refused, missing or broken file.
    """
    from .. import corpus

    clips: dict[str, Any] = {}
    problems: list[str] = []
    todo: list[str] = []
    for path in dict.fromkeys(item.audio_path for item in items):
        try:
            target = resolve_audio_path(root, path)
        except FoakitError as exc:
            clips[_key(path)] = str(exc)
            problems.append(str(exc))
            continue
        if not target.is_file():
            clips[_key(path)] = "audio file missing"
            problems.append(f"{path}: audio file missing")
            continue
        todo.append(_key(path))
    with contextlib.ExitStack() as stack:
        if analysis_dir is None:
            analysis_dir = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="foakit-sobench-"))
        have = corpus.load_clips(analysis_dir) \
            if Path(analysis_dir, "clips.jsonl").is_file() else {}
        if any(p not in have for p in todo):
            corpus.analyze_corpus(root, analysis_dir, channel_order=channel_order,
                                  workers=workers, progress=progress, backend=backend,
                                  files=todo)
            have = corpus.load_clips(analysis_dir)
    for p in todo:
        rec = have.get(p)
        clips[p] = rec if rec is not None else "the analysis produced no record"
        if rec is None or rec.get("status") != "ok":
            problems.append(f"{p}: " + (str(rec.get("error")) if rec else
                                        "the analysis produced no record"))
    return clips, problems


def run_baseline(root: str | os.PathLike, kind: str, *, split: str = "test",
                 analysis_dir: str | os.PathLike | None = None, channel_order: str = "ambix",
                 workers: int | None = None, progress: bool = False,
                 backend: str = "cpu") -> BaselineRun:
    """Load an SO-Bench root and answer every QA item with baseline ``kind``.

    Parameters
    ----------
    root : str or PathLike
        SO-Bench folder (``qa/<split>.jsonl`` and the audio).
    kind : {"oracle", "prior", "dsp"}
    analysis_dir : str or PathLike, optional
        dsp only: where foakit's analysis is (or goes); a temporary folder when None.
    channel_order, workers, progress, backend
        dsp only: passed to :func:`foakit.corpus.analyze_corpus`.
    """
    if kind not in KINDS:
        raise ParameterError(f"kind={kind!r} must be one of {KINDS}")
    qa = load_qa(root, split)
    items = qa.items
    problems = [f"duplicate qa_id {k!r} on lines {v}" for k, v in qa.duplicates.items()]
    if kind == "oracle":
        rows = oracle_predictions(items)
    elif kind == "prior":
        rows = prior_predictions(items, root)
    else:
        clips, bad = analyze_for_qa(root, items, analysis_dir, channel_order=channel_order,
                                    workers=workers, progress=progress, backend=backend)
        problems += bad
        rows = dsp_predictions(items, clips)
    return BaselineRun(kind=kind, predictions=rows, problems=problems)
