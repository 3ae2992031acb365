"""The HalluAudio label audit: what the signal says about each audio's label.

Every audio (once, though it may be a row of both configs) is decoded from its embedded
bytes and measured with :mod:`foakit.signal` (speech activity, SNR, level, loudness, noise
floor, clipping, a fingerprint), in worker processes through
:func:`foakit.signal.run_items`, checkpointed in ``DIR/measures.jsonl`` so a re-run
resumes.  Rows stream one at a time: memory holds a batch of audio and a few numbers per
audio.  The labels are then held against the measures by :func:`judge_audio`, whose rules
(:data:`RULES`, thresholds in :data:`THRESHOLDS`) flag only clear contradictions: the
levels' acoustic ranges are not published, so the measured distribution per level is
reported (summary, figures) for a person to see the overlap.

Verdicts per label: ``consistent``, ``suspicious`` (with a confidence 0-1 and the reason) or
``unverifiable`` (and why).  The thresholds were set on the ``tune`` synthetic family
(seeds 0-2) and are reported on the ``report`` and ``wide`` families
(``benchmarks/halluaudio_audit.py``; figures in docs/halluaudio.md).
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .format import BrokenRow, iter_rows, row_audio_bytes, speech_presence, uncertain_spans

__all__ = ["THRESHOLDS", "RULES", "AuditResult", "measure_item", "judge_audio", "audit",
           "write_report", "MEASURES_FILE", "VERDICTS_FILE"]

MEASURES_FILE = "measures.jsonl"
VERDICTS_FILE = "verdicts.jsonl"

#: The audit's thresholds (dB, shares, seconds).
THRESHOLDS = {
    "l1_snr_suspicious_db": 20.0,   # L1 below this SNR: not clear speech
    "l1_snr_consistent_db": 25.0,   # L1 at or above: consistent; between: unverifiable
    "l3_snr_suspicious_db": 22.0,   # L3 at or above: no noise lowers the SNR
    "l2_snr_suspicious_db": 30.0,   # L2 at or above, and loud: neither weak nor degraded
    "l2_loudness_lufs": -26.0,
    "quiet_floor_dbfs": -50.0,      # a noise floor this low holds no audible noise
    "absent_speech_share": 0.10,    # labelled no speech: speech share and seconds for a flag
    "absent_speech_s": 0.5,
    "absent_consistent_share": 0.03,
    "present_speech_share": 0.05,   # labelled speech: share or seconds found to agree
    "present_speech_s": 0.3,
    "present_max_prob": 0.4,        # ... and no frame scoring this high for a flag
    "span_clear_db": 30.0,          # an uncertain span of clear speech this far above noise
    "span_weak_db": 20.0,
    "clipped_share": 0.005,
}

#: The rules in words, written into summary.json and index.md.
RULES = [
    "speech presence, labelled absent (or every case no_speech): suspicious when the "
    "detector finds speech in >= 10 % of the frames and >= 0.5 s; consistent below 3 %; "
    "unverifiable between.",
    "speech presence, labelled present: consistent when speech fills >= 5 % of the frames or "
    ">= 0.3 s; suspicious when no frame's speech score reaches 0.4 (on the development "
    "split of real recordings every speech clip's Silero score reaches 0.4, 171 of 195 "
    "non-speech clips' stay under it); otherwise "
    "unverifiable (speech-like frames under the detector's threshold: speech deep in "
    "noise).",
    "no_speech cases: suspicious when the audio holds speech by the first rule.",
    "L1 clear speech: suspicious below 20 dB SNR; consistent from 25 dB; unverifiable "
    "between, and when no frame is free of speech unless the floor is below -50 dBFS.",
    "L2 degraded / far: suspicious at >= 30 dB SNR with loudness >= -26 LUFS (a loud, clean "
    "signal); otherwise consistent.",
    "L3 speech + noise: suspicious at >= 22 dB SNR (no noise lowers it), or when speech fills "
    "every frame over a floor below -50 dBFS; otherwise consistent.",
    "L4 competing speech, L5 speaker tracking, L6 semantic evidence: unverifiable from these "
    "measures (no speaker separation or identity, no intelligibility); their measures are "
    "reported per level.",
    "uncertain spans: suspicious when a span lies beyond the audio's end, or holds speech in "
    ">= half its frames at >= 30 dB above the noise (clear speech); consistent when the span "
    "is weak (< 20 dB above the noise) or mostly not speech; unverifiable between.",
    "signal flags (no label): clipping (>= 0.5 % of the samples clipped), duplicate audio "
    "(the same fingerprint under other audio ids).",
]


def _sig(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def measure_item(item: dict) -> dict:
    """Decode and measure one audio (runs in a worker): the :class:`ClipMeasures` fields,
    the fingerprint and, per uncertain span, its speech share and level above the noise."""
    from ...signal import decode_bytes, fingerprint, measure_clip, speech_activity

    x, sr = decode_bytes(item["data"], name=item["name"])
    m = measure_clip(x, sr).to_dict()
    out = {"measures": m, "fingerprint": fingerprint(x, sr)}
    spans = item.get("spans") or []
    if spans or m["speech_share"] < THRESHOLDS["present_speech_share"]:
        sa = speech_activity(x.mean(axis=0), sr)
        out["speech_prob_max"] = round(float(sa.prob.max()), 4) if len(sa.prob) else 0.0
        lev = sa.level_db if sa.level_db is not None else np.zeros(len(sa.times))
        stats = []
        for s, e in spans:
            inside = (sa.times >= s) & (sa.times < e)
            sp = sa.active & inside
            stats.append({
                "start_s": s, "end_s": e, "in_audio": bool(s < m["duration_s"]),
                "frames": int(inside.sum()),
                "speech_share": round(float(sp.sum() / inside.sum()), 3) if inside.any()
                else None,
                "level_db": round(float(np.median(lev[sp])), 2) if sp.any() else None})
        out["spans"] = stats
    return out


def _verdict(label, value, verdict, reason, confidence=None, **kw):
    d = {"label": label, "value": value, "verdict": verdict, "reason": reason}
    if verdict == "suspicious":
        d["confidence"] = round(float(min(0.99, max(0.5, confidence or 0.5))), 2)
    d.update(kw)
    return d


def _speech_seconds(m: dict) -> float:
    return float(sum(b - a for a, b in m.get("speech_segments") or []))


def judge_audio(measures: dict, label: dict, *, spans: list | None = None,
                speech_prob_max: float | None = None, thresholds: dict | None = None
                ) -> list[dict]:
    """The verdicts on one audio's label.

    Parameters
    ----------
    measures : dict
        ``ClipMeasures.to_dict()``.
    label : dict
        ``level`` (L1-L6 or None), ``presence`` (True / False / None), ``no_speech_cases``
        (count) and ``cases`` (count): without a presence, an audio whose every case
        expects no_speech is taken as labelled no speech.
    spans : list of dict, optional
        :func:`measure_item`'s span statistics.
    speech_prob_max : float, optional
        The highest frame speech score (:func:`measure_item` gives it when little speech
        is found); without it a labelled-present audio without speech is unverifiable.
    thresholds : dict, optional
        Overrides of :data:`THRESHOLDS`.

    Returns
    -------
    list of dict
        One verdict per label checked: ``label``, ``value``, ``verdict``, ``reason``, and
        ``confidence`` when suspicious.
    """
    t = {**THRESHOLDS, **(thresholds or {})}
    out = []
    share = float(measures.get("speech_share") or 0.0)
    secs = _speech_seconds(measures)
    snr = measures.get("snr_db")
    floor = measures.get("noise_floor_dbfs")
    act = float(measures.get("active_share") or 0.0)
    lufs = measures.get("loudness_lufs")
    snr_txt = "no noise-only frame for an SNR" if snr is None else f"SNR {snr:.1f} dB"
    found = f"speech in {100 * share:.0f} % of the frames ({secs:.1f} s), {snr_txt}"
    holds_speech = share >= t["absent_speech_share"] and secs >= t["absent_speech_s"]

    presence = label.get("presence")
    if presence is None and label.get("no_speech_cases") and \
            label.get("no_speech_cases") == label.get("cases"):
        presence = False
    if presence is False:
        if holds_speech:
            out.append(_verdict("speech_presence", "absent", "suspicious",
                                f"labelled no speech, but the detector finds {found}",
                                0.5 + share))
        elif share < t["absent_consistent_share"]:
            out.append(_verdict("speech_presence", "absent", "consistent",
                                f"no speech found ({found})"))
        else:
            out.append(_verdict("speech_presence", "absent", "unverifiable",
                                f"a little speech-like activity: {found}"))
    elif presence is True:
        if share >= t["present_speech_share"] or secs >= t["present_speech_s"]:
            out.append(_verdict("speech_presence", "present", "consistent", found))
        elif speech_prob_max is not None and speech_prob_max < t["present_max_prob"]:
            out.append(_verdict("speech_presence", "present", "suspicious",
                                "labelled speech, but no frame scores as speech (highest "
                                f"speech score {speech_prob_max:.3f}; {snr_txt}, level above "
                                f"the floor in {100 * act:.0f} % of the frames)",
                                0.9 - speech_prob_max))
        else:
            out.append(_verdict("speech_presence", "present", "unverifiable",
                                "no speech segment, but speech-like frames (highest score "
                                f"{speech_prob_max}) under the detector's threshold: speech "
                                "deep in noise, or noise"))
    else:
        out.append(_verdict("speech_presence", None, "unverifiable",
                            "the label gives no speech_presence"))
    if label.get("no_speech_cases"):
        n = label["no_speech_cases"]
        if holds_speech:
            out.append(_verdict("no_speech_cases", n, "suspicious",
                                f"{n} case(s) expect no_speech, but the detector finds {found}",
                                0.5 + share))
        else:
            out.append(_verdict("no_speech_cases", n, "consistent", found))

    level = label.get("level")
    quiet = floor is not None and floor <= t["quiet_floor_dbfs"]
    if level == "L1":
        if snr is None:
            out.append(_verdict("level", level, "consistent" if quiet else "unverifiable",
                                f"speech fills the clip; noise floor {floor} dBFS"))
        elif snr < t["l1_snr_suspicious_db"]:
            out.append(_verdict("level", level, "suspicious",
                                f"L1 clear speech at SNR {snr:.1f} dB (below "
                                f"{t['l1_snr_suspicious_db']:.0f} dB: noisy, far or weak)",
                                0.6 + (t["l1_snr_suspicious_db"] - snr) / 40))
        elif snr < t["l1_snr_consistent_db"]:
            out.append(_verdict("level", level, "unverifiable",
                                f"SNR {snr:.1f} dB is in the overlap of clear and degraded"))
        else:
            out.append(_verdict("level", level, "consistent", f"SNR {snr:.1f} dB"))
    elif level == "L2":
        loud = lufs is not None and lufs >= t["l2_loudness_lufs"]
        if snr is not None and snr >= t["l2_snr_suspicious_db"] and loud:
            out.append(_verdict("level", level, "suspicious",
                                f"L2 degraded speech, but the signal is loud and clean (SNR "
                                f"{snr:.1f} dB, {lufs:.1f} LUFS)", 0.6))
        elif snr is None and lufs is None:
            out.append(_verdict("level", level, "unverifiable", "no SNR and no loudness"))
        else:
            out.append(_verdict("level", level, "consistent",
                                f"{snr_txt}, loudness {lufs} LUFS"))
    elif level == "L3":
        if snr is not None and snr >= t["l3_snr_suspicious_db"]:
            out.append(_verdict("level", level, "suspicious",
                                f"L3 speech + noise, but SNR {snr:.1f} dB: no noise lowers it",
                                0.6 + (snr - t["l3_snr_suspicious_db"]) / 40))
        elif snr is None and quiet and share > 0:
            out.append(_verdict("level", level, "suspicious",
                                f"L3 speech + noise, but speech fills the clip over a floor "
                                f"of {floor:.1f} dBFS", 0.6))
        elif snr is None:
            out.append(_verdict("level", level, "unverifiable", "no SNR measurable"))
        else:
            out.append(_verdict("level", level, "consistent", f"SNR {snr:.1f} dB"))
    elif level in ("L4", "L5", "L6"):
        why = {"L4": "competing speech is not separated from the main speaker here",
               "L5": "speaker identity across turns is not measured here",
               "L6": "semantic evidence (intelligibility) is not measured here"}[level]
        n_seg = len(measures.get("speech_segments") or [])
        out.append(_verdict("level", level, "unverifiable",
                            f"{why}; measured: {found}, {n_seg} speech segment(s)"))
    else:
        out.append(_verdict("level", level, "unverifiable", "no level L1-L6 in the label"))

    for i, s in enumerate(spans or []):
        name, val = f"uncertain_span[{i}]", [s["start_s"], s["end_s"]]
        if not s["in_audio"]:
            out.append(_verdict(name, val, "suspicious", f"the span starts at {s['start_s']} s,"
                                f" after the audio's end ({measures.get('duration_s')} s)",
                                0.9))
        elif s["speech_share"] is None or s["speech_share"] < 0.2 or (
                s["level_db"] is not None and s["level_db"] < t["span_weak_db"]):
            out.append(_verdict(name, val, "consistent",
                                f"weak or no speech in the span (speech share "
                                f"{s['speech_share']}, {s['level_db']} dB above the noise)"))
        elif s["speech_share"] >= 0.5 and s["level_db"] is not None and \
                s["level_db"] >= t["span_clear_db"]:
            out.append(_verdict(name, val, "suspicious",
                                f"clear speech in the span: {100 * s['speech_share']:.0f} % "
                                f"speech, {s['level_db']:.1f} dB above the noise", 0.6))
        else:
            out.append(_verdict(name, val, "unverifiable",
                                f"speech share {s['speech_share']}, {s['level_db']} dB above "
                                "the noise: between weak and clear"))
    return out


@dataclass
class AuditResult:
    """What :func:`audit` found: per audio its label, measures and verdicts."""

    root: str
    audios: dict = field(default_factory=dict)
    flags: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    summary: dict = field(default_factory=dict)


def _items(root, labels: dict, broken: list):
    """One work item per audio, streaming the rows; fills ``labels`` as it goes."""
    for r in iter_rows(root, audio=True, batch_rows=1):
        if isinstance(r, BrokenRow):
            broken.append(r)
            continue
        classes = Counter(c.expected_result_class for c in r.cases)
        lab = labels.get(r.audio_id)
        if lab is not None:
            lab["no_speech_cases"] += classes.get("no_speech", 0)
            lab["cases"] += len(r.cases)
            lab["configs"].append(r.config)
            if lab["level"] != r.level:
                lab["conflicts"].append(f"level {lab['level']} in {lab['configs'][0]}, "
                                        f"{r.level} in {r.config}")
            continue
        spans = uncertain_spans(r.ground_truth)
        labels[r.audio_id] = {
            "level": r.level, "presence": speech_presence(r.ground_truth),
            "no_speech_cases": classes.get("no_speech", 0),
            "cases": len(r.cases), "spans": spans,
            "configs": [r.config], "conflicts": [], "source": f"{r.file}:{r.row}"}
        try:
            data, name = row_audio_bytes(root, r.audio, audio_id=r.audio_id)
        except Exception as exc:  # FormatError / AudioError: recorded as this audio's failure
            labels[r.audio_id]["error"] = str(exc)
            continue
        yield {"key": r.audio_id, "sig": _sig(data), "data": data, "name": name,
               "spans": spans}


def audit(root: str | os.PathLike, out: str | os.PathLike, *, workers: int | None = None,
          progress: bool = False, retry_errors: bool = False,
          thresholds: dict | None = None, dask: Any = None) -> AuditResult:
    """Measure every audio of a HalluAudio root and judge its label.

    Parameters
    ----------
    root : str or PathLike
        The dataset root.
    out : str or PathLike
        Output folder; ``out/measures.jsonl`` is the checkpoint a re-run resumes from.
    workers : int, optional
        Processes (default: all cores).
    progress : bool
        A progress bar on stderr.
    retry_errors : bool
        Measure again the audios the checkpoint holds as failed.
    thresholds : dict, optional
        Overrides of :data:`THRESHOLDS`.

    Returns
    -------
    AuditResult
    """
    from ...signal import find_duplicates, run_items

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    labels: dict[str, dict] = {}
    broken: list[BrokenRow] = []
    run = run_items(_items(root, labels, broken), measure_item,
                    checkpoint=out / MEASURES_FILE, workers=workers, progress=progress,
                    retry_errors=retry_errors, desc="halluaudio audit", dask=dask)
    result = AuditResult(str(root))
    result.failures = [(b.audio_id or f"{b.file}:row {b.row}", b.problem) for b in broken]
    fps = {}
    for aid, lab in labels.items():
        rec = run.records.get(aid)
        entry = {"audio_id": aid, "level": lab["level"], "configs": lab["configs"],
                 "label": {k: lab[k] for k in ("presence", "no_speech_cases", "cases",
                                               "spans")},
                 "status": "ok", "measures": None, "verdicts": []}
        if rec is None or rec.get("status") != "ok":
            err = lab.get("error") or (rec or {}).get("error") or "not measured"
            entry.update(status="error", error=err)
            result.failures.append((aid, err))
            result.audios[aid] = entry
            continue
        entry["measures"] = rec["measures"]
        entry["verdicts"] = judge_audio(rec["measures"], lab, spans=rec.get("spans"),
                                        speech_prob_max=rec.get("speech_prob_max"),
                                        thresholds=thresholds)
        entry["speech_prob_max"] = rec.get("speech_prob_max")
        fps[aid] = rec.get("fingerprint") or ""
        for v in entry["verdicts"]:
            if v["verdict"] == "suspicious":
                result.flags.append({"key": aid, "audio_id": aid, "level": lab["level"],
                                     "kind": v["label"].split("[")[0], "value": v["value"],
                                     "confidence": v["confidence"], "reason": v["reason"]})
        m = rec["measures"]
        if (m.get("clipped_share") or 0) >= THRESHOLDS["clipped_share"]:
            result.flags.append({"key": aid, "audio_id": aid, "level": lab["level"],
                                 "kind": "clipping", "value": m["clipped_share"],
                                 "confidence": 0.9, "reason": f"{100 * m['clipped_share']:.1f}"
                                 " % of the samples clipped"})
        for c in lab["conflicts"]:
            result.flags.append({"key": aid, "audio_id": aid, "level": lab["level"],
                                 "kind": "label_conflict", "value": c, "confidence": 0.9,
                                 "reason": f"the configs disagree: {c}"})
        if lab["presence"] is True and lab["no_speech_cases"]:
            result.flags.append({"key": aid, "audio_id": aid, "level": lab["level"],
                                 "kind": "label_conflict", "value": lab["no_speech_cases"],
                                 "confidence": 0.9, "reason": "labelled speech present, but "
                                 f"{lab['no_speech_cases']} case(s) expect no_speech"})
        result.audios[aid] = entry
    for group in find_duplicates(fps):
        levels = sorted({str(labels[a]["level"]) for a in group})
        for aid in group:
            result.flags.append({"key": aid, "audio_id": aid, "level": labels[aid]["level"],
                                 "kind": "duplicate_audio", "value": [g for g in group
                                                                      if g != aid][:10],
                                 "confidence": 0.7 if len(levels) == 1 else 0.9,
                                 "reason": f"the same audio as {len(group) - 1} other id(s)"
                                 + (f"; levels differ: {', '.join(levels)}"
                                    if len(levels) > 1 else "")})
    result.flags.sort(key=lambda f: (f["kind"], -f["confidence"], f["audio_id"]))
    result.summary = _summary(result, run)
    return result


_MEASURES = ("snr_db", "speech_share", "loudness_lufs", "noise_floor_dbfs", "rms_dbfs",
             "active_share", "clipped_share", "duration_s")


def _quantiles(values):
    v = np.array([x for x in values if x is not None], float)
    if not len(v):
        return None
    q = np.percentile(v, [10, 50, 90])
    return {"n": int(len(v)), "p10": round(float(q[0]), 3), "median": round(float(q[1]), 3),
            "p90": round(float(q[2]), 3), "min": round(float(v.min()), 3),
            "max": round(float(v.max()), 3)}


def _summary(result: AuditResult, run) -> dict:
    from ...signal.report import count_flags

    verdicts = Counter()
    by_label: dict[str, Counter] = defaultdict(Counter)
    by_level: dict[str, dict] = {}
    for a in result.audios.values():
        lv = str(a["level"])
        g = by_level.setdefault(lv, {"audios": 0, "failed": 0, "verdicts": defaultdict(Counter),
                                     "_m": defaultdict(list)})
        g["audios"] += 1
        if a["status"] != "ok":
            g["failed"] += 1
            continue
        for v in a["verdicts"]:
            name = v["label"].split("[")[0]
            verdicts[v["verdict"]] += 1
            by_label[name][v["verdict"]] += 1
            g["verdicts"][name][v["verdict"]] += 1
        for k in _MEASURES:
            g["_m"][k].append(a["measures"].get(k))
    levels = {}
    for lv, g in sorted(by_level.items()):
        levels[lv] = {"audios": g["audios"], "failed": g["failed"],
                      "verdicts": {k: dict(v) for k, v in g["verdicts"].items()},
                      "measures": {k: _quantiles(v) for k, v in g["_m"].items()}}
    return {
        "root": result.root, "audios": len(result.audios),
        "counts": {"items": len(result.audios), "failed": len(result.failures),
                   "by_group": {lv: g["audios"] for lv, g in levels.items()}},
        "verdicts": {"total": sum(verdicts.values()),
                     **{k: verdicts.get(k, 0) for k in ("consistent", "suspicious",
                                                        "unverifiable")}},
        "by_label": {k: dict(v) for k, v in sorted(by_label.items())},
        "by_level": levels,
        "flags": count_flags(result.flags, group="level"),
        "failures": [list(f) for f in result.failures],
        "rules": RULES, "thresholds": THRESHOLDS,
        "speech_detector": dict(Counter(a["measures"].get("speech_detector")
                                        for a in result.audios.values() if a["measures"])),
        "checkpoint": {"file": run.checkpoint, "analysed": run.analysed,
                       "loaded": run.loaded},
    }


def write_report(result: AuditResult, out: str | os.PathLike, *, figures: bool = True,
                 max_figures: int = 50) -> dict:
    """Write ``items.jsonl``, ``verdicts.jsonl``, ``flags.jsonl``, ``summary.json``,
    ``figures/`` (measures per level; a spectrogram with the speech track per flagged
    audio, the ``max_figures`` most confident) and ``index.md``; returns their paths."""
    from ...signal.report import (
        FIGURES_DIR,
        FLAGS_FILE,
        INDEX_FILE,
        ITEMS_FILE,
        SUMMARY_FILE,
        safe_name,
        write_index,
        write_json,
        write_jsonl,
    )

    out = Path(out)
    paths = {"items": write_jsonl(out / ITEMS_FILE, result.audios.values())}
    paths["verdicts"] = write_jsonl(out / VERDICTS_FILE, (
        {"audio_id": a["audio_id"], "level": a["level"], **v}
        for a in result.audios.values() for v in a["verdicts"]))
    corpus_figs = []
    if figures:
        from ...signal.figures import plot_distributions

        values = {k: {lv: [a["measures"].get(k) for a in result.audios.values()
                           if str(a["level"]) == lv and a["measures"]]
                      for lv in sorted({str(a["level"]) for a in result.audios.values()})}
                  for k in ("snr_db", "speech_share", "loudness_lufs", "noise_floor_dbfs")}
        corpus_figs = [str(p.relative_to(out)) for p in
                       plot_distributions(values, out / FIGURES_DIR, prefix="level")]
        wanted = []
        for f in sorted(result.flags, key=lambda f: -f["confidence"]):
            if f["audio_id"] not in wanted and len(wanted) < max_figures:
                wanted.append(f["audio_id"])
        drawn = _spectrograms(result.root, wanted, out / FIGURES_DIR, result, safe_name)
        for f in result.flags:
            if f["audio_id"] in drawn:
                f["figure"] = drawn[f["audio_id"]]
    paths["flags"] = write_jsonl(out / FLAGS_FILE, result.flags)
    paths["summary"] = write_json(out / SUMMARY_FILE, result.summary)
    lv = result.summary["by_level"]
    notes = ["## Measures per level (median [p10, p90])", "",
             "| level | audios | SNR dB | speech share | loudness LUFS | noise floor dBFS |",
             "|---|---|---|---|---|---|"]
    for name, g in lv.items():
        cells = []
        for k in ("snr_db", "speech_share", "loudness_lufs", "noise_floor_dbfs"):
            q = g["measures"].get(k)
            cells.append("-" if not q else f"{q['median']} [{q['p10']}, {q['p90']}]")
        notes.append(f"| {name} | {g['audios']} | " + " | ".join(cells) + " |")
    notes += ["", "## Rules", ""] + [f"- {r}" for r in RULES]
    paths["index"] = write_index(out / INDEX_FILE, title="HalluAudio label audit",
                                 summary=result.summary, flags=result.flags, group="level",
                                 figures=corpus_figs, notes=notes)
    return {k: str(v) for k, v in paths.items()}


def _spectrograms(root, wanted, folder, result, safe_name) -> dict:
    """Draw the flagged audios (a second pass over the rows, stopping once all are drawn)."""
    if not wanted:
        return {}
    from ...signal import decode_bytes
    from ...signal.figures import plot_activity

    todo, drawn = set(wanted), {}
    reasons = defaultdict(list)
    for f in result.flags:
        reasons[f["audio_id"]].append(f"{f['kind']}: {f['reason']}")
    for r in iter_rows(root, audio=True, batch_rows=1):
        if isinstance(r, BrokenRow) or r.audio_id not in todo:
            continue
        todo.discard(r.audio_id)
        try:
            data, name = row_audio_bytes(root, r.audio, audio_id=r.audio_id)
            x, sr = decode_bytes(data, name=name)
        except Exception:  # drawn only when it decodes; the flag stands without a figure
            continue
        p = plot_activity(x, sr, Path(folder) / f"activity_{safe_name(r.audio_id)}.png",
                          title=f"{r.audio_id} ({r.level})",
                          note="; ".join(reasons[r.audio_id])[:200])
        drawn[r.audio_id] = str(Path(p).relative_to(Path(folder).parent))
        if not todo:
            break
    return drawn
