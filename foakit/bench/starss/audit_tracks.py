"""The verdicts on one clip's label tracks: direction, presence and time shift of each
source against the clip's DOA map and onsets.
"""

from __future__ import annotations

import numpy as np

from ...audit.estimates import (
    ClipEstimate,
    directional_blocks,
    mean_diffuseness,
)
from ...audit.hypotheses import (
    ANGLE_HYPOTHESES,
    apply_hypothesis,
)
from ...audit.verdicts import LabelVerdict, shift_confidence, weak_support_confidence
from ...conventions import (
    angular_distance,
    azimuth_difference,
    direction_to_vector,
    vector_to_direction,
)
from .audit_config import StarssAuditConfig
from .audit_events import (
    _event_in_span,
    _event_shift,
    _event_support,
    _onset_contradiction,
    _onset_elevation,
    _onset_in_azimuth,
    _onset_near,
    _onsets_side_with_label,
    _other_track_near,
)
from .audit_match import (
    _match_clip,
    _metrics,
)
from .format import LABEL_HOP_S, SourceTrack

__all__ = [
    "audit_tracks",
]


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
                      tracks: dict | None = None, wet: bool = True) -> float:
    """Length-weighted mean prominence of a track's labelled directions over its frames,
    with the cones of the other tracks labelled at the same time removed first (each up to
    ``exclude_deg`` wide, but reaching into the tested cone no further than an
    ``exclude_near_deg`` one would: a near source's cone must not remove the label's own;
    ``wet`` False: a dry track, whose sources leave no reflections, ``exclude_near_deg``)."""
    widest = cfg.exclude_deg if wet else cfg.exclude_near_deg
    vals, weights = [], []
    tol = cfg.support_deg if mode == "dir" else cfg.az_tol_deg
    for t0, t1, az, el in _chunks(tr, cfg.chunk_s, hypothesis):
        el_t = -el if flip_el else el
        ex = []
        for oaz, oel, _ in _others(tr, tracks, t0, t1, cfg.exclude_deg):
            apart = (angular_distance(oaz, oel, az, el_t) if mode == "dir"
                     else abs(azimuth_difference(oaz, az)))
            gap = float(apart) - tol
            ex.append((oaz, oel, min(widest, max(cfg.exclude_near_deg, gap))))
        p = dmap.prominence(az, el_t if mode == "dir" else None, t0, t1, tol, exclude=ex)
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
                and iou_best >= cfg.shift_min_iou and started is None
                and _onset_near(doa.onsets, t0 + shift_s, lab_az, lab_el, cfg)):
            conf = shift_confidence(iou_best - iou0)
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
                confidence=shift_confidence(iou_best - iou0),
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
        if con is not None and _onsets_side_with_label(
                doa.onsets, con[0]["onset_s"], (lab_az, lab_el),
                (con[0]["azimuth_deg"], con[0]["elevation_deg"]), cfg):
            ev["onset_event_overruled"] = con[0]
            con = None
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
        # the weak-map rules below are for rooms, where reflections of louder sources fill
        # the map; in a dry track the map is trusted as it stands
        psi = ev.get("diffuseness")
        wet = psi is None or not np.isfinite(psi) or psi >= cfg.masking_min_psi
        p = _track_prominence(dmap, tr, cfg, tracks=tracks, wet=wet)
        p_az = _track_prominence(dmap, tr, cfg, mode="az", tracks=tracks, wet=wet)
        p_flip = _track_prominence(dmap, tr, cfg, flip_el=True, tracks=tracks, wet=wet)
        fits = {h: _track_prominence(dmap, tr, cfg, mode="az" if h != "elevation_sign"
                                     else "dir", hypothesis=h, tracks=tracks, wet=wet)
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
        # the peaks matched to the track (Hungarian) must disagree too before blaming it; a
        # track no window's peak was matched to has none that disagree (a masked source)
        peaks_disagree = (bool(err) or not wet) and \
            ev.get("median_error_deg", 180.0) >= cfg.peak_disagree_deg
        p_dir = max(p, p_az) if np.isfinite(p_az) else p
        if (wet and onset_el is not None and onset_el["side"] == "label"
                and not _other_track_near(tr, tracks, lab_az, lab_el, cfg.onset_az_tol_deg)):
            # the first milliseconds of its onsets come from the labelled direction, and no
            # other label there explains them: a weak map there is masking by louder sounds
            # and their reflections, not a wrong direction
            verdicts.append(LabelVerdict(
                key, "direction", "consistent" if p_dir >= cfg.agree_prom else "unverifiable",
                label, estimate,
                reason="" if p_dir >= cfg.agree_prom else
                f"{onset_el['label']} onset(s) come from the labelled direction, but the map "
                f"hears little of it among other sounds (prominence {p_dir:.2f})",
                evidence=ev))
            continue
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
            conf = weak_support_confidence(p_dir, cfg.doubt_prom, base=0.5, floor=0.3,
                                           corroborated=bool(how))
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
