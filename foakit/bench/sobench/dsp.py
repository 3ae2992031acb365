"""The blind SO-Bench baseline: answers from foakit's analysis of each clip, never from the
labels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .answers import (
    REL_KEY,
    REL_PHRASE,
    SECTORS,
    abstain_row,
    audio_key,
    phrase_answer,
    prediction_row,
    sector_index,
)
from .calibration import calibrated_distance, gated_motion
from .format import (
    SOURCE_TASKS,
    Cues,
    QAItem,
    parse_question,
    referents,
)

__all__ = [
    "source_blocks",
    "select_event",
    "dsp_predictions",
]


_DSP_MOTION = {"stationary": "stationary", "left_to_right": "moving_right",
               "right_to_left": "moving_left"}


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


def _dsp_relation(item: QAItem, blocks: list[dict], duration_s: float | None = None) -> dict:
    refs = referents(item.question)
    picked = [select_event(blocks, c.with_duration(duration_s)) for c in refs[:2]] \
        if len(refs) >= 2 else []
    if len(picked) < 2 or picked[0][0] is None or picked[1][0] is None or \
            picked[0][0].get("source") == picked[1][0].get("source"):
        return abstain_row(item, "dsp", "the two sounds are named by their sound class, "
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
            return abstain_row(item, "dsp", "the analysis gave no distance estimate")
        diff = float(da) - float(db)
        word = "same" if abs(diff) < 0.1 else ("closer" if diff < 0 else "farther")
        detail = f"distance {float(da):.1f} vs {float(db):.1f} m"
    refs_text = [r.text for r in refs[:2]]
    asked = _asked_comparative(item.question) if task != "relative_left_right" else None
    if asked is not None and word != "same":
        winner = refs_text[0] if asked == word else refs_text[1]
        text = f"The sound {winner} is {asked}."
    else:
        text = f"{word.capitalize()}: the first-named sound is {REL_PHRASE[word]} the " \
               "second-named one."
    return prediction_row(item, "dsp", text, values={REL_KEY[task]: word},
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


def _dsp_one(item: QAItem, clip: Mapping[str, Any], cues: Cues) -> dict:
    task = item.task_name
    if task in SOURCE_TASKS:
        return abstain_row(item, "dsp", "foakit's signal analysis does not recognise sound "
                           "classes, so it cannot say which source this is")
    if task == "speech_content":
        return abstain_row(item, "dsp", "foakit does not transcribe speech")
    if clip.get("channels") not in (None, 4):
        return abstain_row(item, "dsp", "the audio is not a four-channel FOA file",
                           detail=f"{clip.get('channels')} channels")
    blocks = source_blocks([e for e in clip.get("events") or []
                            if e.get("azimuth_deg") is not None
                            and e.get("elevation_deg") is not None])
    # "in the first half", "the last 3 seconds": windows in seconds for this clip's duration
    cues = cues.with_duration(clip.get("duration_s"))
    if task == "count_sources":
        n, why = _count(clip, blocks, cues)
        n_dirs = len({b["source"] for b in blocks})
        return prediction_row(item, "dsp", phrase_answer(task, {"count": n}), values={"count": n},
                              evidence=f"{len(blocks)} event(s) from {n_dirs} direction "
                              "cluster(s)", why=why)
    if not blocks:
        return abstain_row(item, "dsp", "the analysis found no sound event in this clip")
    if task in ("relative_left_right", "compare_elevation", "compare_distance"):
        return _dsp_relation(item, blocks, clip.get("duration_s"))
    # classify_motion takes the event as every task does: a question that names its sound
    # by class does not say it is the moving one, so a moving event is not preferred
    ev, why = select_event(blocks, cues)
    brief, desc = _event_brief(ev), _describe(ev)
    calib: dict | None = None
    if task == "estimate_azimuth":
        values = {"angle_deg": round(float(ev["azimuth_deg"])) + 0.0}  # as the text says
    elif task == "estimate_elevation":
        values = {"elevation_deg": round(float(ev["elevation_deg"])) + 0.0}
    elif task == "estimate_distance":
        d, calib = calibrated_distance(ev)
        values = {"distance_m": d}
        desc += f"; distance answer: {calib['text']}"
    elif task == "onset_from_location":
        values = {"onset_time_s": round(float(ev["onset_s"]), 2)}
    elif task in ("detect_time", "spatial_temporal"):
        values = {"time_span": [round(float(ev["onset_s"]), 2), round(float(ev["offset_s"]), 2)]}
    elif task == "classify_motion":
        motion, calib = gated_motion(ev)
        values = {"motion_label": _DSP_MOTION.get(motion, "moving")}
        desc += f"; motion gate: {calib['text']}"
    else:
        return abstain_row(item, "dsp", f"foakit has no answer for task {task!r}")
    text = phrase_answer(task, values)
    if task == "spatial_temporal":
        text = text[:-1] + f", coming from {SECTORS[sector_index(float(ev['azimuth_deg']))]} " \
            "(the sound class is not recognised)."
    if task == "classify_motion" and values["motion_label"] != "stationary":
        text = text[:-1] + (f": its azimuth goes from {float(ev['azimuth_start_deg']):.0f} to "
                            f"{float(ev['azimuth_end_deg']):.0f} degrees."
                            if ev.get("azimuth_start_deg") is not None else ".")
    row = prediction_row(item, "dsp", text, values=values, event=brief, evidence=desc, why=why)
    if calib is not None:  # the calibrated / gated answer's structured evidence
        row["foakit"]["calibration"] = {k: v for k, v in calib.items() if k != "text"}
    return row


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
        clip = clips.get(audio_key(item.audio_path), "the audio was not analysed")
        if isinstance(clip, str):
            reason = "the audio path was refused" if "refused" in clip else \
                "the audio file is missing" if "missing" in clip else "the audio was not analysed"
            rows.append(abstain_row(item, "dsp", reason, detail=clip))
        elif clip.get("status") != "ok":
            rows.append(abstain_row(item, "dsp", "the audio could not be read or analysed",
                                    detail=str(clip.get("error") or "unknown error")))
        else:
            cues = parse_question(item.question)
            rows.append(_dsp_one(item, clip, cues))
            unread = cues.unparsed
            if unread:  # cue-like words the parser could not read: said, never guessed
                rows[-1]["foakit"]["evidence"] += "; not read from the question: " + \
                    ", ".join(repr(u) for u in unread)
    return rows
