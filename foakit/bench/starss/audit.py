"""Audit STARSS / DCASE label CSVs against the DOA estimate of their audio.

Method
------
1. Every clip is analysed (:func:`foakit.audit.common.estimate_clips`); its DOA peaks come per
   DOA window (``AnalysisParams.window_s``, 0.4 s = 4 label frames by default).
2. **References per window**: a labelled ``(class, source)`` track is present in a window when
   at least half the window's label frames carry it; its direction is the mean of its unit
   vectors there.
3. **Matching**: per window, references and peaks are matched with the Hungarian algorithm
   (:func:`scipy.optimize.linear_sum_assignment`) on angular distance.
4. **Metrics** (DCASE style, class-agnostic since the DSP estimate has no classes): TP = matched
   pairs within ``match_deg`` (20 deg), FP_spatial = matched pairs beyond it, FN / FP =
   unmatched references / peaks; ``F = TP / (TP + FP_spatial + 0.5 (FP + FN))``, ``LE`` =
   mean error of matched pairs, ``LR`` = matched references / references.
5. **Per-source verdicts** (from the clip's :class:`~foakit.audit.doamap.DoaMap`, 0.1 s x
   10 deg): a track whose labelled direction sounds clearly earlier or later than its frames
   (IoU of its frames with the presence of its direction, shifted up to ``max_shift_s``),
   with an onset from that direction (:mod:`foakit.audit.onsets`, within
   ``event_support_onset_s``) where the moved frames start, is suspicious in ``time``: a
   sound that only dominates once louder ones stop, or another source's floor reflection,
   sounds from the label late without starting there.  Otherwise its directions are
   scored by their *prominence* over its frames (share of the directional energy near the
   label over that of the strongest direction, with the cones of the other tracks labelled
   at the same time removed):
   prominent -> consistent; not prominent and the Hungarian-matched peaks disagree too ->
   suspicious in ``azimuth`` (the reason names a hypothesis under which the labels fit, if
   one does); the mirrored elevation much more prominent -> suspicious in ``elevation``;
   silence, a diffuse field or too few frames -> unverifiable.
   The analysis's events (onset-based, reflections pruned: :mod:`foakit.events`) come
   first and outrank the map, whose reflections and modal fields read as sources in a
   room: an event starting with a labelled span near its direction vouches for it
   (:func:`_event_support`); an event from its direction spanning the frames moved in
   time flags ``time`` (:func:`_event_shift`); an unexplained event starting with it where
   a convention error would put the label flags the direction
   (:func:`_onset_contradiction`); an event from the label during the span, or an onset
   event at its azimuth, vetoes the map's direction, elevation-flip or time verdicts.
6. **Convention audit**: the same window matching under each hypothesis (angle maps on every
   label; the other channel order by decoding the audio again, on up to
   ``convention_clips`` clips), decided by :func:`foakit.audit.conventions.decide`.

Modules: this one matches, scores the energy map and runs the audit; the thresholds are in
:mod:`~foakit.audit.starss_config`, the event evidence in :mod:`~foakit.audit.starss_events`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...audit.conventions import CandidateScore, decide, normalisation_verdict
from ...audit.estimates import (
    ClipEstimate,
)
from ...audit.hypotheses import (
    ANGLE_HYPOTHESES,
    best_hypothesis,
    redecode_hypothesis,
)
from ...audit.run import run_audit
from ...audit.verdicts import AuditResult, LabelVerdict, count_verdicts
from ...conventions import check_channel_order, resolve_normalisation
from ...errors import FoakitError, ParameterError
from ...io import iter_audio_files
from ...params import AnalysisParams
from .audit_config import StarssAuditConfig
from .audit_match import (
    _ClipMatch,
    _match_clip,
    _metrics,
    match_window,
    window_references,
)
from .audit_tracks import (
    audit_tracks,
)
from .format import LABEL_HOP_S, SourceTrack, metadata_files, read_label_csv, rows_to_tracks

__all__ = [
    "StarssAuditConfig",
    "window_references",
    "match_window",
    "audit_tracks",
    "audit_starss",
]


def _pairs(audio_dir: str, metadata_dir: str) -> tuple[list[tuple[str, str, Path]], list, int]:
    if not os.path.isdir(audio_dir):
        raise ParameterError(f"audio folder {audio_dir!r} does not exist")
    labels = metadata_files(metadata_dir)
    audio = {}
    for rel in iter_audio_files(audio_dir):
        audio.setdefault(Path(rel).stem, rel)
    pairs, failures = [], []
    for stem, csv in labels.items():
        if stem in audio:
            pairs.append((stem, os.path.join(audio_dir, audio[stem]), csv))
        else:
            failures.append((str(csv), "no audio file with this name under the audio folder"))
    unlabelled = len(set(audio) - set(labels))
    return pairs, failures, unlabelled


@dataclass
class _Counts:
    """What the corpus totals need from a :class:`_ClipMatch` (the per-window detail is
    dropped, so a clip's matching costs memory in proportion to its matched pairs only)."""

    tp: int
    fp_spatial: int
    fp: int
    fn: int
    n_ref: int
    errors: np.ndarray

    @classmethod
    def of(cls, m: _ClipMatch) -> _Counts:
        return cls(m.tp, m.fp_spatial, m.fp, m.fn, m.n_ref, np.asarray(m.errors, dtype=float))


def _clip_counts(tracks: dict[tuple[int, int], SourceTrack], clip: ClipEstimate,
                 cfg: StarssAuditConfig) -> dict[str, _Counts]:
    """A clip's window matching under each angle hypothesis and, when the clip was decoded
    in the other channel order too, under that (``"alt"``)."""
    out = {h: _Counts.of(_match_clip(tracks, clip.doa, cfg, hypothesis=h))
           for h in ANGLE_HYPOTHESES}
    if clip.alt is not None:
        out["alt"] = _Counts.of(_match_clip(tracks, clip.alt, cfg))
    return out


def _convention(counts: dict[str, dict[str, _Counts]], cfg: StarssAuditConfig,
                order: str) -> dict:
    """The convention block from the per-clip :func:`_clip_counts` (clips in sorted order)."""
    scores: dict[str, CandidateScore] = {}
    per_clip: dict[str, dict[str, float]] = {}
    for h in ANGLE_HYPOTHESES:
        tp = n = 0
        errs: list[np.ndarray] = []
        n_clips = 0
        for aid, c in counts.items():
            m = c[h]
            if m.n_ref == 0:
                continue
            n_clips += 1
            tp += m.tp
            n += m.n_ref
            errs.append(m.errors)
            per_clip.setdefault(aid, {})[h] = m.tp / m.n_ref
        e = np.concatenate(errs) if errs else np.zeros(0)
        scores[h] = CandidateScore(h, tp / n if n else 0.0,
                                   float(np.median(e)) if len(e) else None, n, n_clips)
    redecode = redecode_hypothesis(order)
    tp = n = tp0 = 0
    errs = []
    alt_clips = [a for a, c in counts.items() if "alt" in c]
    for aid in alt_clips:
        m, m0 = counts[aid]["alt"], counts[aid]["declared"]
        if m.n_ref == 0:
            continue
        tp += m.tp
        tp0 += m0.tp
        n += m.n_ref
        errs.append(m.errors)
        per_clip.setdefault(aid, {})[redecode] = m.tp / m.n_ref
    if alt_clips:
        e = np.concatenate(errs) if errs else np.zeros(0)
        scores[redecode] = CandidateScore(redecode, tp / n if n else 0.0,
                                          float(np.median(e)) if len(e) else None, n,
                                          len(alt_clips),
                                          declared_agreement_same_clips=tp0 / n if n else None)
    for vals in per_clip.values():
        scores[best_hypothesis(vals)].clips_best += 1
    return decide(order, scores)


def audit_starss(
    audio_dir: str | os.PathLike,
    metadata_dir: str | os.PathLike,
    *,
    channel_order: str = "ambix",
    normalisation: str | None = None,
    workers: int | None = None,
    progress: bool = False,
    params: AnalysisParams | None = None,
    config: StarssAuditConfig | None = None,
    keep_maps: bool = False,
    estimates_dir: str | os.PathLike | None = None,
    retry_errors: bool = False,
    dask: Any = None,
) -> AuditResult:
    """Audit a STARSS-shaped corpus: label CSVs against their audio.

    Parameters
    ----------
    audio_dir : str or PathLike
        FOA files (searched recursively); a CSV and an audio file pair by file stem.
    metadata_dir : str or PathLike
        Label CSVs (searched recursively).
    channel_order : {"ambix", "fuma"}
        Declared order of the audio.
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        Declared normalisation of the audio (None: the order's own, SN3D for ambiX); the
        clips are converted to SN3D when read, and the convention block's
        ``"normalisation"`` says which normalisation the signal supports
        (:func:`foakit.audit.conventions.normalisation_verdict`).
    workers : int, optional
        Analysis processes (default: all cores).
    progress : bool
        Progress bar on stderr.
    params : AnalysisParams, optional
        Default :data:`foakit.audit.preset.AUDIT_PARAMS` (what the audits are calibrated on).
    config : StarssAuditConfig, optional
    keep_maps : bool
        Keep each clip's :class:`~foakit.audit.doamap.DoaMap` in the result (memory grows
        with the corpus); by default maps are dropped once the clip is audited.
    estimates_dir : str or PathLike, optional
        Checkpoint folder (:mod:`foakit.audit.checkpoint`): clips analysed by an earlier run
        with the same audio, channel order and parameters are read back instead of analysed,
        the others are saved there as they finish, and the result's ``clips`` are read from
        it on access, so memory does not grow with the corpus.  None: nothing is written and
        the result holds every analysed clip.
    retry_errors : bool
        Analyse again the clips whose checkpoint records a failure.
    dask : str, DaskCluster or distributed.Client, optional
        Analyse the clips on this Dask cluster (:func:`foakit.audit.run.run_audit`).

    Returns
    -------
    AuditResult
        ``summary`` holds ``counts`` (by verdict and by field), ``metrics`` (corpus and per
        clip), ``convention``, ``clips`` (per-clip verdicts) and the numbers of files.
    """
    cfg = config or StarssAuditConfig()
    order = check_channel_order(channel_order)
    norm = resolve_normalisation(order, normalisation)
    audio_dir, metadata_dir = os.fspath(audio_dir), os.fspath(metadata_dir)
    pairs, failures, unlabelled = _pairs(audio_dir, metadata_dir)
    tracks_by_clip: dict[str, dict] = {}
    jobs = []
    for i, (aid, path, csv) in enumerate(sorted(pairs)):
        try:
            tracks_by_clip[aid] = rows_to_tracks(read_label_csv(csv))
        except FoakitError as exc:
            failures.append((str(csv), str(exc)))
            continue
        jobs.append((aid, path, i < cfg.convention_clips))
    per_clip_verdicts: dict[str, list[LabelVerdict]] = {}
    per_clip: dict[str, dict] = {}
    counts: dict[str, dict[str, _Counts]] = {}
    window_s: dict[str, float] = {}
    norm_stats: dict[str, Any] = {}

    # everything the audit needs from a clip is taken here, so the clip can be let go
    def consume(clip: ClipEstimate) -> None:
        aid = clip.audio_id
        if clip.ok:
            tracks = tracks_by_clip[aid]
            per_clip_verdicts[aid], per_clip[aid] = audit_tracks(aid, tracks, clip, cfg)
            counts[aid] = _clip_counts(tracks, clip, cfg)
            window_s[aid] = clip.doa.window_s
            norm_stats[aid] = clip.norm_stats

    run = run_audit(jobs, consume, kind="starss", base_dir=audio_dir, channel_order=order,
                    normalisation=norm, workers=workers, progress=progress, params=params,
                    estimates_dir=estimates_dir, retry_errors=retry_errors, keep_maps=keep_maps,
                    dask=dask)
    paths, broken = run.paths, run.broken
    # clips finish in any order (and resumed ones first): everything below goes by sorted
    # ids, so a resumed run writes what an uninterrupted one does
    verdicts: list[LabelVerdict] = []
    draw: dict[int, dict] = {}
    total = _ClipMatch(err={}, support={}, has_peak={})
    for aid in sorted(tracks_by_clip):
        if aid in broken:
            failures.append(broken[aid])
            tracks_by_clip.pop(aid)
            continue
        if aid not in counts:
            continue
        m = counts[aid]["declared"]
        for name in ("tp", "fp_spatial", "fp", "fn", "n_ref"):
            setattr(total, name, getattr(total, name) + getattr(m, name))
        total.errors += m.errors.tolist()
        for v in per_clip_verdicts.get(aid, []):
            tr = tracks_by_clip[aid][(v.key["class"], v.key["source"])]
            draw[len(verdicts)] = {
                "audio_id": aid, "path": paths[aid],
                "label_track": {"time_s": (tr.frames * LABEL_HOP_S + LABEL_HOP_S / 2).tolist(),
                                "azimuth_deg": tr.azimuth_deg.tolist(),
                                "elevation_deg": tr.elevation_deg.tolist()},
            }
            verdicts.append(v)
    ok_ids = [a for a in sorted(tracks_by_clip) if a in counts]
    convention = _convention({a: counts[a] for a in ok_ids}, cfg, order) if ok_ids else \
        decide(order, {})
    convention["normalisation"] = normalisation_verdict(norm, [norm_stats.get(a)
                                                              for a in ok_ids])
    summary = {
        "kind": "starss",
        "audio_dir": os.path.abspath(audio_dir),
        "metadata_dir": os.path.abspath(metadata_dir),
        "channel_order": order,
        "normalisation": norm,
        "n_label_files": len(pairs) + sum(1 for f in failures if f[0].endswith(".csv")
                                          and not any(f[0] == str(p[2]) for p in pairs)),
        "n_clips_audited": len(ok_ids),
        "n_audio_without_labels": unlabelled,
        "n_failed": len(failures),
        "counts": count_verdicts(verdicts),
        "metrics": {"corpus": _metrics(total), "clips": {a: per_clip[a] for a in ok_ids},
                    "note": "class-agnostic: DOA peaks carry no class; windows of "
                            f"{window_s[ok_ids[0]] if ok_ids else 0:.2f}"
                            " s"},
        "clip_verdicts": {v: sum(1 for c in per_clip.values() if c["verdict"] == v)
                          for v in ("consistent", "suspicious", "unverifiable")},
        "convention": convention,
        "config": cfg.__dict__,
    }
    return run.result("starss", verdicts, summary, failures, draw, ok_ids)
