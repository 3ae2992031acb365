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
import statistics
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import FoakitError, ParameterError
from .answers import (
    DISTANCE_FALLBACK_M,
    REL_KEY,
    REL_PHRASE,
    abstain_row,
    abstention,
    audio_key,
    fmt_number,
    phrase_answer,
    prediction_row,
)
from .dsp import (
    dsp_predictions,
    select_event,
    source_blocks,
)
from .format import (
    QAItem,
    load_qa,
    resolve_audio_path,
)
from .scoring import motion_label, question_options

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
            rows.append(prediction_row(item, "oracle", text, values=values, evidence="answer_meta"))
        elif task == "spatial_temporal" and meta.get("time_span") is not None:
            s, e = (fmt_number(x, 3) for x in meta["time_span"])
            rows.append(prediction_row(item, "oracle", f"{s} s to {e} s: {canonical}",
                                       values={"time_span": meta["time_span"]},
                                       evidence="answer_meta and canonical_answer"))
        elif canonical:
            rows.append(prediction_row(item, "oracle", canonical, evidence="canonical_answer"))
        else:
            rows.append(abstain_row(item, "oracle", "the QA record has no reference answer"))
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
                                                           DISTANCE_FALLBACK_M), 2)},
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
    durations: dict[str, tuple[float | None, str]] = {}
    rows = []
    for item in items:
        task = item.task_name
        if task in const:
            values, why = const[task]
            rows.append(prediction_row(item, "prior", phrase_answer(task, values), values=values,
                                       why=why, evidence="no signal used"))
        elif task in ("detect_time", "spatial_temporal"):
            if item.audio_path not in durations:
                durations[item.audio_path] = _duration(root, item.audio_path)
            known, why_not = durations[item.audio_path]
            dur = known or _median(ends, 10.0)
            span = [0.0, round(dur, 2)]
            text = phrase_answer("detect_time", {"time_span": span})
            row = prediction_row(item, "prior", text, values={"time_span": span},
                                 why="the whole clip" if known else
                                 "0 s to the median span end of this QA file's answers",
                                 evidence="no signal used" if known else
                                 f"no signal used; without its audio ({why_not})")
            if not known:
                row["foakit"]["without_audio"] = why_not
            rows.append(row)
        elif task in rel and rel[task] is not None:
            word = rel[task]
            rows.append(prediction_row(item, "prior",
                                       f"{word.capitalize()}: the first-named sound is "
                                       f"{REL_PHRASE[word]} the other one.",
                                       values={REL_KEY[task]: word}, evidence="no signal used",
                                       why="most common relation word of this QA file's answers"))
        elif task in rel and question_options(item.question):
            first = question_options(item.question)[0]
            rows.append(prediction_row(item, "prior", f"The {first}.", evidence="no signal used",
                                       why="names the first source the question names"))
        else:
            rows.append(abstain_row(item, "prior", "the prior baseline does not listen, so "
                                    "it cannot name sources or transcribe speech"))
    return rows


def _duration(root: str | os.PathLike | None, audio_path: str) -> tuple[float | None, str]:
    """The clip's duration from its file header, or None and why it could not be read."""
    if root is None:
        return None, "no SO-Bench root was given"
    from ...io import audio_info

    try:
        sr, _, frames = audio_info(resolve_audio_path(root, audio_path))
    except FoakitError as exc:
        return None, str(exc)
    return (frames / sr, "") if sr > 0 else (None, f"{audio_path}: sample rate 0")


def analyze_for_qa(root: str | os.PathLike, items: Sequence[QAItem],
                   analysis_dir: str | os.PathLike | None = None, *, channel_order: str = "ambix",
                   workers: int | None = None, progress: bool = False,
                   backend: str = "cpu", dask: Any = None, normalisation: str | None = None
                   ) -> tuple[dict[str, Any], list[str]]:
    """Analyse (or reuse the analysis of) the audio the QA items name (``channel_order``
    and ``normalisation`` as :func:`foakit.corpus.analyze_corpus`).

    Returns
    -------
    clips : dict
        Normalised audio path -> clips.jsonl record, or a string for a file that was
        refused (path escapes the root) or is missing.
    problems : list of str
        One line per refused, missing or broken file.
    """
    from ... import corpus

    clips: dict[str, Any] = {}
    problems: list[str] = []
    todo: list[str] = []
    for path in dict.fromkeys(item.audio_path for item in items):
        try:
            target = resolve_audio_path(root, path)
        except FoakitError as exc:
            clips[audio_key(path)] = str(exc)
            problems.append(str(exc))
            continue
        if not target.is_file():
            clips[audio_key(path)] = "audio file missing"
            problems.append(f"{path}: audio file missing")
            continue
        todo.append(audio_key(path))
    with contextlib.ExitStack() as stack:
        if analysis_dir is None:
            analysis_dir = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="foakit-sobench-"))
        have = corpus.load_clips(analysis_dir) \
            if Path(analysis_dir, "clips.jsonl").is_file() else {}
        if any(p not in have for p in todo):
            corpus.analyze_corpus(root, analysis_dir, channel_order=channel_order,
                                  normalisation=normalisation, workers=workers,
                                  progress=progress, backend=backend, files=todo, dask=dask)
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
                 backend: str = "cpu", dask: Any = None,
                 normalisation: str | None = None) -> BaselineRun:
    """Load an SO-Bench root and answer every QA item with baseline ``kind``.

    Parameters
    ----------
    root : str or PathLike
        SO-Bench folder (``qa/<split>.jsonl`` and the audio).
    kind : {"oracle", "prior", "dsp"}
    analysis_dir : str or PathLike, optional
        dsp only: where foakit's analysis is (or goes); a temporary folder when None.
    channel_order, normalisation, workers, progress, backend
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
                                    normalisation=normalisation, workers=workers,
                                    progress=progress, backend=backend, dask=dask)
        problems += bad
        rows = dsp_predictions(items, clips)
    if kind == "prior":  # answers that wanted the audio (the clip's duration) and lacked it
        problems += list(dict.fromkeys(
            f"{r['audio_path']}: answered without its audio ({r['foakit']['without_audio']})"
            for r in rows if r["foakit"].get("without_audio")))
    return BaselineRun(kind=kind, predictions=rows, problems=problems)
