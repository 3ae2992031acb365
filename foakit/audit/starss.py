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
   (IoU of its frames with the presence of its direction, shifted up to ``max_shift_s``) is
   suspicious in ``time``.  Otherwise its directions are scored by their *prominence* over
   its frames (share of the directional energy near the label over that of the strongest
   direction, with the cones of the other tracks labelled at the same time removed):
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

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..bench.starss import LABEL_HOP_S, SourceTrack, metadata_files, read_label_csv, rows_to_tracks
from ..conventions import (
    check_channel_order,
    direction_to_vector,
    vector_to_direction,
)
from ..errors import FoakitError, ParameterError
from ..io import iter_audio_files
from ..params import AnalysisParams
from .checkpoint import EstimateStore, StoredClips
from .common import (
    ANGLE_HYPOTHESES,
    AuditResult,
    ClipEstimate,
    DoaEstimate,
    LabelVerdict,
    apply_hypothesis,
    best_hypothesis,
    count_verdicts,
    directional_blocks,
    drop_doa_maps,
    estimate_clips,
    mean_diffuseness,
    redecode_hypothesis,
)
from .conventions import CandidateScore, decide
from .starss_config import StarssAuditConfig
from .starss_events import (
    _event_in_span,
    _event_shift,
    _event_support,
    _onset_contradiction,
    _onset_elevation,
    _onset_in_azimuth,
)

__all__ = ["StarssAuditConfig", "window_references", "match_window",
           "audit_tracks", "audit_starss"]


def _frame_windows(frames: np.ndarray, window_s: float) -> np.ndarray:
    return np.floor((frames + 0.5) * LABEL_HOP_S / window_s + 1e-9).astype(np.int64)


def window_references(
    track: SourceTrack, window_s: float, *, hypothesis: str = "declared", shift: int = 0,
) -> dict[int, np.ndarray]:
    """Window -> unit vector of a track's labelled direction there.

    Parameters
    ----------
    track : SourceTrack
    window_s : float
        DOA window length (s).
    hypothesis : str
        Angle map applied to the labels first.
    shift : int
        Windows added to every window index (to test labels that lag or lead).

    Returns
    -------
    dict
        Windows where at least half the label frames carry the track.
    """
    if len(track) == 0:
        return {}
    az, el = apply_hypothesis(hypothesis, track.azimuth_deg, track.elevation_deg)
    vec = direction_to_vector(az, el)
    win = _frame_windows(track.frames, window_s)
    per_window = max(1, int(round(window_s / LABEL_HOP_S)))
    need = max(1, int(math.ceil(per_window / 2)))
    out: dict[int, np.ndarray] = {}
    order = np.argsort(win, kind="stable")
    win, vec = win[order], vec[order]
    bounds = np.flatnonzero(np.diff(win)) + 1
    for idx in np.split(np.arange(len(win)), bounds):
        if len(idx) >= need:
            v = vec[idx].sum(axis=0)
            n = np.linalg.norm(v)
            if n > 0:
                out[int(win[idx[0]]) + shift] = v / n
    return out


def _angles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angles (deg) between every row of ``a`` (n, 3) and of ``b`` (m, 3): (n, m)."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    return np.rad2deg(np.arccos(np.clip(a @ b.T, -1.0, 1.0)))


def match_window(refs: np.ndarray, ests: np.ndarray) -> list[tuple[int, int, float]]:
    """Hungarian matching of reference and estimated unit vectors on angular distance.

    Returns
    -------
    list of (ref_index, est_index, angle_deg)
    """
    if len(refs) == 0 or len(ests) == 0:
        return []
    cost = _angles(refs, ests)
    ri, ci = linear_sum_assignment(cost)
    return [(int(i), int(j), float(cost[i, j])) for i, j in zip(ri, ci, strict=True)]


@dataclass
class _ClipMatch:
    """Window matching of one clip under one hypothesis."""

    err: dict[tuple[int, int], dict[int, float]]      # track -> window -> matched error
    support: dict[tuple[int, int], dict[int, bool]]   # track -> window -> peak within support
    has_peak: dict[tuple[int, int], dict[int, bool]]
    tp: int = 0
    fp_spatial: int = 0
    fp: int = 0
    fn: int = 0
    n_ref: int = 0
    errors: list[float] = field(default_factory=list)


def _match_clip(tracks: dict[tuple[int, int], SourceTrack], doa: DoaEstimate,
                cfg: StarssAuditConfig, hypothesis: str = "declared",
                shifts: dict[tuple[int, int], int] | None = None) -> _ClipMatch:
    refs = {k: window_references(t, doa.window_s, hypothesis=hypothesis,
                                 shift=(shifts or {}).get(k, 0)) for k, t in tracks.items()}
    windows = sorted({w for r in refs.values() for w in r})
    m = _ClipMatch(err={k: {} for k in tracks}, support={k: {} for k in tracks},
                   has_peak={k: {} for k in tracks})
    n_win = doa.peaks.shape[0]
    for w in windows:
        keys = [k for k in tracks if w in refs[k]]
        rv = np.stack([refs[k][w] for k in keys])
        ev = doa.window_peaks(w)
        m.n_ref += len(keys)
        pairs = match_window(rv, ev)
        ang = _angles(rv, ev)
        for i, k in enumerate(keys):
            m.has_peak[k][w] = len(ev) > 0
            m.support[k][w] = bool(len(ev) and ang[i].min() <= cfg.support_deg)
        for i, _, e in pairs:
            m.err[keys[i]][w] = e
            m.errors.append(e)
        tp = sum(1 for *_, e in pairs if e <= cfg.match_deg)
        m.tp += tp
        m.fp_spatial += len(pairs) - tp
        m.fn += len(keys) - len(pairs)
        m.fp += len(ev) - len(pairs)
    # peaks in windows without any reference are false positives too
    labelled = set(windows)
    for w in range(n_win):
        if w not in labelled:
            m.fp += len(doa.window_peaks(w))
    return m


def _metrics(m: _ClipMatch) -> dict:
    denom = m.tp + m.fp_spatial + 0.5 * (m.fp + m.fn)
    return {
        "F20": m.tp / denom if denom > 0 else None,
        "LE_deg": float(np.mean(m.errors)) if m.errors else None,
        "LR": (m.n_ref - m.fn) / m.n_ref if m.n_ref else None,
        "TP": m.tp, "FP_spatial": m.fp_spatial, "FP": m.fp, "FN": m.fn, "n_ref": m.n_ref,
    }


# ----------------------------------------------------------------------------------------
# per-source verdicts
# ----------------------------------------------------------------------------------------

def _label_summary(track: SourceTrack) -> tuple[float, float]:
    v = direction_to_vector(track.azimuth_deg, track.elevation_deg).sum(axis=0)
    az, el = vector_to_direction(v)
    return float(az), float(el)


def _track_key(audio_id: str, tr: SourceTrack) -> dict:
    return {"audio_id": audio_id, "class": tr.class_idx, "source": tr.source,
            "frames": [list(s) for s in tr.spans()]}


def _chunks(tr: SourceTrack, chunk_s: float, hypothesis: str = "declared"
            ) -> list[tuple[float, float, float, float]]:
    """The track cut into runs of at most ``chunk_s``: (t0, t1, mean az, mean el)."""
    az, el = apply_hypothesis(hypothesis, tr.azimuth_deg, tr.elevation_deg)
    vec = direction_to_vector(az, el)
    per = max(1, int(round(chunk_s / LABEL_HOP_S)))
    out = []
    for first, last in tr.spans():
        for c0 in range(first, last + 1, per):
            c1 = min(last, c0 + per - 1)
            sel = (tr.frames >= c0) & (tr.frames <= c1)
            caz, cel = vector_to_direction(vec[sel].sum(axis=0))
            out.append((c0 * LABEL_HOP_S, (c1 + 1) * LABEL_HOP_S, float(caz), float(cel)))
    return out


def _others(tr: SourceTrack, tracks: dict | None, t0: float, t1: float,
            tol: float) -> list[tuple[float, float, float]]:
    """Cones of the other tracks labelled in ``[t0, t1)`` (their mean direction there)."""
    out = []
    for o in (tracks or {}).values():
        if o is tr:
            continue
        sel = (o.frames * LABEL_HOP_S < t1) & ((o.frames + 1) * LABEL_HOP_S > t0)
        if sel.sum() >= max(1, int(0.3 * (t1 - t0) / LABEL_HOP_S)):
            az, el = vector_to_direction(
                direction_to_vector(o.azimuth_deg[sel], o.elevation_deg[sel]).sum(axis=0))
            out.append((float(az), float(el), tol))
    return out


def _track_prominence(dmap, tr: SourceTrack, cfg: StarssAuditConfig, *, mode: str = "dir",
                      hypothesis: str = "declared", flip_el: bool = False,
                      tracks: dict | None = None) -> float:
    """Length-weighted mean prominence of a track's labelled directions over its frames,
    with the cones of the other tracks labelled at the same time removed first."""
    vals, weights = [], []
    tol = cfg.support_deg if mode == "dir" else cfg.az_tol_deg
    for t0, t1, az, el in _chunks(tr, cfg.chunk_s, hypothesis):
        ex = _others(tr, tracks, t0, t1, cfg.exclude_deg)
        p = dmap.prominence(az, (-el if flip_el else el) if mode == "dir" else None, t0, t1, tol,
                            exclude=ex)
        if np.isfinite(p):
            vals.append(p)
            weights.append(t1 - t0)
    return float(np.average(vals, weights=weights)) if vals else float("nan")


def _track_presence(dmap, tr: SourceTrack, cfg: StarssAuditConfig) -> np.ndarray:
    """Per 0.1 s block: does the track's labelled direction (nearest chunk in time) sound?"""
    chunks = _chunks(tr, cfg.chunk_s)
    cache: dict[tuple[int, int], np.ndarray] = {}
    out = np.zeros(dmap.n_blocks)
    centres = (np.arange(dmap.n_blocks) + 0.5) * dmap.block_s
    mids = np.array([(c[0] + c[1]) / 2 for c in chunks])
    nearest = np.argmin(np.abs(centres[:, None] - mids[None, :]), axis=1)
    for i, (_, _, az, el) in enumerate(chunks):
        key = (int(round(az)), int(round(el)))
        if key not in cache:
            cache[key] = dmap.presence(az, el, cfg.support_deg, rise_db=cfg.presence_rise_db,
                                       min_share=cfg.presence_min_share,
                                       smooth=cfg.presence_smooth).astype(float)
        sel = nearest == i
        out[sel] = cache[key][sel]
    return out


def _track_shift(dmap, tr: SourceTrack, cfg: StarssAuditConfig) -> tuple[float, float, float]:
    """Best shift (s) of a track's frames against its direction's presence: IoU over a
    region of ``max_shift_s`` around the track, unshifted and at the best shift."""
    pres = _track_presence(dmap, tr, cfg) > 0.5
    n = len(pres)
    k_max = int(round(cfg.max_shift_s / LABEL_HOP_S))
    lab = np.zeros(n + 2 * k_max, bool)
    idx = tr.frames[(tr.frames >= 0) & (tr.frames < n)]
    lo, hi = max(0, int(tr.frames.min()) - k_max), min(n, int(tr.frames.max()) + k_max + 1)
    region = np.zeros(n, bool)
    region[lo:hi] = True
    best, best_iou, iou0 = 0, -1.0, 0.0
    for s in range(-k_max, k_max + 1):
        moved = idx + s
        moved = moved[(moved >= 0) & (moved < n)]
        lab = np.zeros(n, bool)
        lab[moved] = True
        inter = np.sum(lab & pres & region)
        union = np.sum((lab | pres) & region)
        iou = inter / union if union else 0.0
        if s == 0:
            iou0 = iou
        if iou > best_iou + 1e-9 or (abs(iou - best_iou) <= 1e-9 and abs(s) < abs(best)):
            best, best_iou = s, iou
    return best * LABEL_HOP_S, float(max(best_iou, 0.0)), float(iou0)


def audit_tracks(
    audio_id: str, tracks: dict[tuple[int, int], SourceTrack], clip: ClipEstimate,
    cfg: StarssAuditConfig | None = None,
) -> tuple[list[LabelVerdict], dict]:
    """Verdicts on the tracks of one clip, and the clip's metrics.

    Parameters
    ----------
    audio_id : str
    tracks : dict
        ``(class, source)`` -> :class:`~foakit.bench.starss.SourceTrack`.
    clip : ClipEstimate
        Its analysis (``clip.doa`` with its ``dmap`` must be set).
    cfg : StarssAuditConfig, optional

    Returns
    -------
    verdicts : list of LabelVerdict
        One per track: field ``time`` when its frames are shifted, else ``azimuth``,
        ``elevation`` or ``direction``.
    metrics : dict
        ``F20``, ``LE_deg``, ``LR`` and the counts, plus ``verdict`` of the clip.
    """
    cfg = cfg or StarssAuditConfig()
    doa = clip.doa
    dmap = doa.dmap
    m = _match_clip(tracks, doa, cfg)
    verdicts = []
    for k, tr in tracks.items():
        key = _track_key(audio_id, tr)
        lab_az, lab_el = _label_summary(tr)
        label = {"azimuth_deg": lab_az, "elevation_deg": lab_el}
        err = m.err[k]
        ev: dict = {"frames": len(tr), "windows_matched": len(err)}
        if err:
            ev["median_error_deg"] = float(np.median(list(err.values())))
        t0, t1 = tr.frames.min() * LABEL_HOP_S, (tr.frames.max() + 1) * LABEL_HOP_S
        votes = directional_blocks(dmap, t0, t1)
        psi = mean_diffuseness(clip, t0, t1)
        if psi is not None:
            ev["diffuseness"] = psi if np.isfinite(psi) else None
        if len(tr) < cfg.min_frames or votes < cfg.min_frames // 2:
            verdicts.append(LabelVerdict(key, "direction", "unverifiable", label,
                                         reason=f"labelled in only {len(tr)} frame(s) or no "
                                                "directional energy there", evidence=ev))
            continue
        onset_el = (_onset_elevation(doa.onsets, tr, lab_az, lab_el, cfg, tracks)
                    if abs(lab_el) >= cfg.flip_min_abs_deg else None)
        if onset_el is not None:
            ev["onset_vote"] = onset_el
        if onset_el is not None and onset_el["side"] == "flipped":
            verdicts.append(LabelVerdict(
                key, "elevation", "suspicious", label,
                {"azimuth_deg": lab_az, "elevation_deg": -lab_el}, cfg.onset_flip_conf,
                f"{onset_el['flipped']} onset(s) at the labelled azimuth during its frames come "
                f"from {-lab_el:.0f} deg elevation and {onset_el['label']} from the label's "
                f"{lab_el:.0f} deg: the first milliseconds of an onset precede its floor and "
                "ceiling reflections, so the label's sign looks flipped", ev))
            continue
        vouch = _event_support(doa.events, tr, lab_az, lab_el, t0, t1, cfg, tracks)
        if vouch is not None:
            ev["event"] = vouch
            verdicts.append(LabelVerdict(key, "direction", "consistent", label,
                                         {"azimuth_deg": vouch["azimuth_deg"],
                                          "elevation_deg": vouch["elevation_deg"]},
                                         evidence=ev))
            continue
        shift_s, iou_best, iou0 = _track_shift(dmap, tr, cfg)
        ev.update(time_shift_s=shift_s, time_iou=iou_best, time_iou_unshifted=iou0)
        started = _onset_in_azimuth(doa.events, tr, lab_az, cfg, tracks)
        if started is not None:
            ev["onset_event_azimuth"] = started
        if (abs(shift_s) >= cfg.min_shift_s - 1e-9 and iou_best - iou0 >= cfg.shift_gain
                and iou_best >= cfg.shift_min_iou and started is None):
            conf = float(np.clip(0.45 + (iou_best - iou0), 0.3, 0.95))
            when = "late" if shift_s < 0 else "early"
            verdicts.append(LabelVerdict(
                key, "time", "suspicious", label=[t0, t1],
                estimate=[t0 + shift_s, t1 + shift_s], confidence=conf,
                reason=f"labelled frames are {abs(shift_s):.1f} s too {when}: the source's "
                       f"labelled direction sounds {shift_s:+.1f} s from its labels "
                       f"(IoU {iou0:.2f} -> {iou_best:.2f})", evidence=ev))
            continue
        moved = _event_shift(doa.events, tr, lab_az, lab_el, cfg, tracks) \
            if started is None else None
        if moved is not None:
            shift_s, iou_best, iou0 = moved
            ev.update(event_shift_s=shift_s, event_iou=iou_best, event_iou_unshifted=iou0)
            when = "late" if shift_s < 0 else "early"
            verdicts.append(LabelVerdict(
                key, "time", "suspicious", label=[t0, t1],
                estimate=[t0 + shift_s, t1 + shift_s],
                confidence=float(np.clip(0.45 + (iou_best - iou0), 0.3, 0.95)),
                reason=f"labelled frames are {abs(shift_s):.1f} s too {when}: an event from "
                       f"the labelled direction spans them moved by {shift_s:+.1f} s (IoU "
                       f"{iou0:.2f} -> {iou_best:.2f})", evidence=ev))
            continue
        # a label whose Hungarian-matched DOA peaks agree with it within the DCASE threshold
        # (match_deg) is not blamed on a mislocalised onset event; a looser bar (the map
        # verdicts' peak_disagree_deg) would spare wrong labels that side-wall reflections
        # put peaks near
        con = _onset_contradiction(doa.events, tr, lab_az, lab_el, cfg, tracks) \
            if ev.get("median_error_deg", 180.0) > cfg.match_deg else None
        if con is not None:
            cev, h, ang = con
            ev.update(onset_event=cev, onset_event_hypothesis=h)
            fld = "elevation" if h == "elevation_sign" else "azimuth"
            verdicts.append(LabelVerdict(
                key, fld, "suspicious", label,
                {"azimuth_deg": cev["azimuth_deg"], "elevation_deg": cev["elevation_deg"]},
                float(np.clip(0.5 + ang / 360.0, 0.5, 0.9)),
                f"the sound starting with the label at {cev['onset_s']:.1f} s comes from "
                f"{cev['azimuth_deg']:.0f} deg azimuth, {cev['elevation_deg']:.0f} deg "
                f"elevation ({ang:.0f} deg from the label)"
                + (f", where the label would be under {h}" if h != "none" else "")
                + "; no other label explains it", ev))
            continue
        p = _track_prominence(dmap, tr, cfg, tracks=tracks)
        p_az = _track_prominence(dmap, tr, cfg, mode="az", tracks=tracks)
        p_flip = _track_prominence(dmap, tr, cfg, flip_el=True, tracks=tracks)
        fits = {h: _track_prominence(dmap, tr, cfg, mode="az" if h != "elevation_sign"
                                     else "dir", hypothesis=h, tracks=tracks)
                for h in ANGLE_HYPOTHESES[1:]}
        ev.update(prominence=p, prominence_azimuth=p_az, prominence_elevation_flipped=p_flip,
                  prominence_under=fits)
        s_az, s_el, _ = dmap.strongest(t0, t1, cfg.support_deg, mode="dir")
        estimate = {"azimuth_deg": s_az, "elevation_deg": s_el}
        if not np.isfinite(p):
            verdicts.append(LabelVerdict(key, "direction", "unverifiable", label,
                                         reason="no directional energy in its frames",
                                         evidence=ev))
            continue
        if np.isfinite(ev.get("diffuseness") or np.nan) and ev["diffuseness"] >= cfg.diffuse_psi:
            verdicts.append(LabelVerdict(key, "direction", "unverifiable", label, estimate,
                                         reason=f"diffuse field (diffuseness "
                                                f"{ev['diffuseness']:.2f})", evidence=ev))
            continue
        heard = _event_in_span(doa.events, tr, lab_az, lab_el, t0, t1, cfg, tracks)
        if heard is not None:
            ev["event_in_span"] = heard
            verdicts.append(LabelVerdict(
                key, "direction", "unverifiable", label, estimate,
                reason=f"an event from the labelled direction sounds from "
                       f"{heard['onset_s']:.1f} s but not at the labelled start; the energy "
                       f"map alone (prominence {p:.2f}) cannot overrule it", evidence=ev))
            continue
        best_h = max(fits, key=lambda h: fits[h] if np.isfinite(fits[h]) else -1)
        # the peaks matched to the track (Hungarian) must disagree too before blaming it
        peaks_disagree = ev.get("median_error_deg", 180.0) >= cfg.peak_disagree_deg
        p_dir = max(p, p_az) if np.isfinite(p_az) else p
        if (best_h != "elevation_sign" and p_dir <= cfg.agree_prom and peaks_disagree
                and np.isfinite(fits[best_h])
                and fits[best_h] >= cfg.hypothesis_prom
                and fits[best_h] - p_dir >= cfg.hypothesis_gain):
            verdicts.append(LabelVerdict(
                key, "azimuth", "suspicious", label, estimate,
                float(np.clip(0.4 + fits[best_h] - p_dir, 0.5, 0.9)),
                f"the labels fit the signal under {best_h} (prominence {fits[best_h]:.2f}) "
                f"much better than as written ({p_dir:.2f})", ev))
            continue
        if p_dir <= cfg.doubt_prom and peaks_disagree:
            how = (f"; it fits the signal under {best_h} (prominence {fits[best_h]:.2f})"
                   if np.isfinite(fits[best_h]) and fits[best_h] >= cfg.agree_prom else "")
            conf = float(np.clip(0.5 + 0.45 * (cfg.doubt_prom - p_dir) / cfg.doubt_prom
                                 + (0.1 if how else 0.0), 0.3, 0.95))
            verdicts.append(LabelVerdict(
                key, "azimuth", "suspicious", label, estimate, conf,
                f"little energy from the labelled direction during its frames (prominence "
                f"{p_dir:.2f}; the strongest direction is {s_az:.0f} deg){how}", ev))
            continue
        # an onset event at the labelled azimuth on the labelled side of the horizon says the
        # map's mirrored elevation is the floor's (or ceiling's) reflection
        same_side = started is not None and started["elevation_deg"] * lab_el > 0
        # so do the onsets' first milliseconds (foakit.audit.onsets) on the labelled side
        same_side = same_side or (onset_el is not None and onset_el["side"] == "label")
        if (abs(lab_el) >= cfg.flip_min_abs_deg and np.isfinite(p_flip)
                and p_flip - p >= cfg.flip_gain and not same_side):
            verdicts.append(LabelVerdict(
                key, "elevation", "suspicious", label, {"azimuth_deg": lab_az,
                                                        "elevation_deg": -lab_el},
                float(np.clip(0.5 + (p_flip - p), 0.5, 0.95)),
                f"the signal shows the source at the opposite elevation: prominence "
                f"{p_flip:.2f} at {-lab_el:.0f} deg against {p:.2f} at the label", ev))
            continue
        if p >= cfg.agree_prom or p_az >= cfg.agree_prom:
            verdicts.append(LabelVerdict(key, "direction", "consistent", label, estimate,
                                         evidence=ev))
            continue
        verdicts.append(LabelVerdict(
            key, "direction", "unverifiable", label, estimate,
            reason=f"weak evidence: prominence {p:.2f} (azimuth {p_az:.2f}); overlapping "
                   "sources or reverberation", evidence=ev))
    met = _metrics(m)
    if any(v.verdict == "suspicious" for v in verdicts):
        met["verdict"] = "suspicious"
    elif verdicts and all(v.verdict == "unverifiable" for v in verdicts):
        met["verdict"] = "unverifiable"
    else:
        met["verdict"] = "consistent"
    return verdicts, met


# ----------------------------------------------------------------------------------------
# corpus
# ----------------------------------------------------------------------------------------

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
    workers: int | None = None,
    progress: bool = False,
    params: AnalysisParams | None = None,
    config: StarssAuditConfig | None = None,
    keep_maps: bool = False,
    estimates_dir: str | os.PathLike | None = None,
    retry_errors: bool = False,
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

    Returns
    -------
    AuditResult
        ``summary`` holds ``counts`` (by verdict and by field), ``metrics`` (corpus and per
        clip), ``convention``, ``clips`` (per-clip verdicts) and the numbers of files.
    """
    cfg = config or StarssAuditConfig()
    order = check_channel_order(channel_order)
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
    paths: dict[str, str] = {}
    broken: dict[str, tuple[str, str]] = {}
    store = EstimateStore(estimates_dir, base_dir=audio_dir, channel_order=order,
                          params=params) if estimates_dir is not None else None
    kept: dict[str, ClipEstimate] = {}

    # everything the audit needs from a clip is taken here, so the clip can be let go
    def consume(clip: ClipEstimate) -> None:
        aid = clip.audio_id
        if clip.ok:
            tracks = tracks_by_clip[aid]
            per_clip_verdicts[aid], per_clip[aid] = audit_tracks(aid, tracks, clip, cfg)
            counts[aid] = _clip_counts(tracks, clip, cfg)
            window_s[aid] = clip.doa.window_s
            paths[aid] = clip.path
            if store is None:
                kept[aid] = clip
        else:
            broken[aid] = (clip.path, clip.error or "analysis failed")
        if not keep_maps:
            drop_doa_maps(clip)

    estimate_clips(jobs, channel_order=order, workers=workers, progress=progress,
                   params=params, desc="foakit audit starss", on_result=consume,
                   store=store, retry_errors=retry_errors, keep=False)
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
    summary = {
        "kind": "starss",
        "audio_dir": os.path.abspath(audio_dir),
        "metadata_dir": os.path.abspath(metadata_dir),
        "channel_order": order,
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
    clips = StoredClips(store, {a: paths[a] for a in ok_ids}, keep_maps=keep_maps) \
        if store is not None else {a: kept[a] for a in ok_ids}
    return AuditResult("starss", verdicts, summary, failures, clips, draw,
                       checkpoints=store.stats() if store is not None else {})
