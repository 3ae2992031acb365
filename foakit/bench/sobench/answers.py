"""How the SO-Bench baselines word their answers: value first with its unit (so that the
official scorer's no-API fallback, which reads the first number, reads it right), and the
prediction rows with their ``foakit`` object.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from ...errors import ParameterError
from .format import QAItem

__all__ = [
    "phrase_answer",
    "abstention",
]


DISTANCE_FALLBACK_M = 2.0


_MOTION_WORDS = {"stationary": "Stationary", "moving_left": "Moving left",
                 "moving_right": "Moving right", "moving_toward": "Moving toward the listener",
                 "moving_away": "Moving away from the listener", "moving": "Moving"}


def fmt_number(x: float, nd: int) -> str:
    text = f"{float(x):.{nd}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0"


SECTORS = ("the front", "the front-left", "the left", "the back-left", "behind",
            "the back-right", "the right", "the front-right")


def sector_index(az: float) -> int:
    return int(((az % 360.0) + 22.5) // 45.0) % 8


def region(az: float) -> str:
    return ("in front", "front-left", "to the left", "back-left", "behind", "back-right",
            "to the right", "front-right")[sector_index(az)]


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
        return f"{fmt_number(az, nd_angle)} degrees azimuth: the sound is {region(az)}."
    if task == "estimate_elevation":
        el = float(v["elevation_deg"])
        where = "at ear level" if abs(el) < 5 else ("above" if el > 0 else "below") + \
            " ear level"
        return f"{fmt_number(el, nd_angle)} degrees elevation: the sound is {where}."
    if task == "estimate_distance":
        d = float(v["distance_m"])
        band = "near" if d < 1.5 else ("at mid-range" if d <= 4.0 else "far")
        return f"{fmt_number(d, 2)} m: the sound is {band}, about {fmt_number(d, 1)} metres away."
    if task == "onset_from_location":
        t = fmt_number(v["onset_time_s"], nd_time)
        return f"{t} s: the sound starts at {t} seconds."
    if task == "count_sources":
        n = int(v["count"])
        return f"{n} source{'s are' if n != 1 else ' is'} active."
    if task in ("detect_time", "spatial_temporal"):
        s, e = (fmt_number(x, nd_time) for x in v["time_span"])
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


def prediction_row(item: QAItem, kind: str, prediction: str, *,
                   values: Mapping[str, Any] | None = None,
                   event: Mapping[str, Any] | None = None, evidence: str = "", why: str = "",
                   abstained: bool = False) -> dict:
    return {"qa_id": item.qa_id, "audio_path": item.audio_path, "task_name": item.task_name,
            "prediction": prediction,
            "foakit": {"kind": kind, "abstained": abstained, "values": dict(values or {}),
                       "event": dict(event) if event else None, "evidence": evidence,
                       "why": why}}


def abstain_row(item: QAItem, kind: str, reason: str, detail: str = "", **kw: Any) -> dict:
    return prediction_row(item, kind, abstention(item.task_name, reason), abstained=True,
                          evidence=f"{reason} ({detail})" if detail else reason, **kw)


REL_KEY = {"relative_left_right": "left_right", "compare_elevation": "height_relation",
            "compare_distance": "distance_relation"}


REL_PHRASE = {"left": "to the left of", "right": "to the right of", "higher": "higher than",
               "lower": "lower than", "closer": "closer than", "farther": "farther than",
               "same": "at the same level as"}


def audio_key(audio_path: str) -> str:
    return PurePosixPath(audio_path).as_posix()
