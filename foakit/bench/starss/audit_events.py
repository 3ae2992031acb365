"""Event evidence of the STARSS audit: the analysis's onset-based events against a track.

The events (:mod:`foakit.events`: onset-based, reflections pruned) vouch for a track whose
labelled span starts with one near its direction (:func:`_event_support`), show its frames
moved in time (:func:`_event_shift`), contradict its direction with an unexplained event
starting with it elsewhere (:func:`_onset_contradiction`), and veto the energy map's
verdicts (:func:`_event_in_span`, :func:`_onset_in_azimuth`); see :mod:`foakit.audit.starss`.
"""

from __future__ import annotations

import math

import numpy as np

from ...audit.hypotheses import ANGLE_HYPOTHESES, apply_hypothesis
from ...audit.onsets import elevation_votes, onset_side
from ...conventions import azimuth_difference, direction_to_vector
from .audit_config import StarssAuditConfig
from .format import LABEL_HOP_S, SourceTrack


def _event_vector(e: dict) -> np.ndarray | None:
    if e.get("azimuth_deg") is None or e.get("motion") not in (None, "stationary"):
        return None
    return direction_to_vector(e["azimuth_deg"], e["elevation_deg"])


def _angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    return math.degrees(math.acos(float(np.clip(a @ b, -1.0, 1.0))))


def _span_starts(tr: SourceTrack) -> list[float]:
    return [first * LABEL_HOP_S for first, _ in tr.spans()]


def _active_others(tr: SourceTrack, tracks: dict | None, t: float,
                   tol_s: float) -> list[np.ndarray]:
    """Mean labelled directions of the other tracks labelled within ``tol_s`` of time ``t``."""
    out = []
    for o in (tracks or {}).values():
        if o is tr or len(o) == 0:
            continue
        times = o.frames * LABEL_HOP_S
        sel = (times >= t - tol_s) & (times <= t + tol_s)
        if sel.any():
            v = direction_to_vector(o.azimuth_deg[sel], o.elevation_deg[sel]).sum(axis=0)
            n = np.linalg.norm(v)
            if n > 0:
                out.append(v / n)
    return out


def _is_stationary(tr: SourceTrack, ref: np.ndarray, cfg: StarssAuditConfig) -> bool:
    spread = np.degrees(np.arccos(np.clip(
        direction_to_vector(tr.azimuth_deg, tr.elevation_deg) @ ref, -1.0, 1.0)))
    return spread.size > 0 and float(spread.max()) <= cfg.event_support_deg


def _event_support(events: list[dict], tr: SourceTrack, az: float, el: float, t0: float,
                   t1: float, cfg: StarssAuditConfig, tracks: dict | None = None) -> dict | None:
    """An analysed event that agrees with a stationary track as labelled, or None.

    The energy map that scores the labels reads strong reflections (a side wall's mirrored
    azimuth, the floor's mirrored elevation) and the modal field of tonal sounds as sources;
    the analysis's events come from whitened, onset-weighted votes with reflections pruned,
    so an event's start is where the direct sound dominates.  When one sits within
    ``event_support_deg`` of the track's direction, starts within ``event_support_onset_s``
    of the start of one of its labelled spans, lasts ``event_support_min_s`` (or half the
    track's span when that is shorter) and is not closer to another track labelled at that
    moment, the label stands: a shifted, rotated or mirrored label has no such event (on
    the synthetic bar corpora none of the injected labels has one within 30 deg, while
    about 80 % of the clean labels do).  Moving tracks (labels spread over more than
    ``event_support_deg``) are not vouched for.
    """
    return _event_near_label(events, tr, az, el, t0, t1, cfg, tracks, _span_starts(tr))


def _event_near_label(events: list[dict], tr: SourceTrack, az: float, el: float, t0: float,
                      t1: float, cfg: StarssAuditConfig, tracks: dict | None,
                      starts: list[float] | None) -> dict | None:
    """The first event within ``event_support_deg`` of a stationary track's label that
    sounds ``event_support_min_s`` (or half the span) of ``[t0, t1]``, is not closer to
    another track labelled when it starts and, with ``starts``, starts within
    ``event_support_onset_s`` of one of them; or None."""
    ref = direction_to_vector(az, el)
    if not _is_stationary(tr, ref, cfg):
        return None
    need = min(cfg.event_support_min_s, 0.5 * (t1 - t0))
    for e in _label_events(events, tr, ref, cfg, tracks):
        if starts is not None and \
                not any(abs(e["onset_s"] - s) <= cfg.event_support_onset_s for s in starts):
            continue
        if min(e["offset_s"], t1) - max(e["onset_s"], t0) < need:
            continue
        return {k: e[k] for k in ("onset_s", "offset_s", "azimuth_deg", "elevation_deg")}
    return None


def _label_events(events: list[dict], tr: SourceTrack, ref: np.ndarray,
                  cfg: StarssAuditConfig, tracks: dict | None):
    """The stationary events within ``event_support_deg`` of a track's labelled direction
    ``ref`` that are not closer to another track labelled when they start."""
    for e in events:
        ev = _event_vector(e)
        if ev is None:
            continue
        ang = _angle_deg(ev, ref)
        if ang > cfg.event_support_deg:
            continue
        others = _active_others(tr, tracks, e["onset_s"], cfg.event_support_onset_s)
        if any(_angle_deg(ev, o) < ang for o in others):
            continue
        yield e


def _event_in_span(events: list[dict], tr: SourceTrack, az: float, el: float, t0: float,
                   t1: float, cfg: StarssAuditConfig, tracks: dict | None = None
                   ) -> dict | None:
    """An analysed event near a stationary track's label that sounds during its frames
    (whenever it starts), or None.

    Weaker than :func:`_event_support` (the source's onset may be masked by another one,
    so the event starts late): it does not confirm a label, but it vetoes the energy map's
    direction verdicts, whose evidence (reflections, the modal field of tonal sounds, the
    floor's mirrored elevation) is weaker than a reflection-pruned event from the label.
    """
    return _event_near_label(events, tr, az, el, t0, t1, cfg, tracks, None)


def _onset_in_azimuth(events: list[dict], tr: SourceTrack, az: float,
                      cfg: StarssAuditConfig, tracks: dict | None = None) -> dict | None:
    """An event starting with one of a track's labelled spans within ``event_support_deg``
    of its labelled azimuth (any elevation: in a room the floor and ceiling pull an
    event's elevation by tens of degrees), not closer to another track labelled then.

    It vetoes the energy map's time-shift verdict: the source starts where the labels say.
    """
    starts = _span_starts(tr)
    for e in events:
        ev = _event_vector(e)
        if ev is None:
            continue
        if abs((e["azimuth_deg"] - az + 180.0) % 360.0 - 180.0) > cfg.event_support_deg:
            continue
        if not any(abs(e["onset_s"] - s) <= cfg.event_support_onset_s for s in starts):
            continue
        others = _active_others(tr, tracks, e["onset_s"], cfg.event_support_onset_s)
        own = direction_to_vector(az, e["elevation_deg"])
        if any(_angle_deg(ev, o) < _angle_deg(ev, own) for o in others):
            continue
        return {k: e[k] for k in ("onset_s", "offset_s", "azimuth_deg", "elevation_deg")}
    return None


def _onset_near(onsets: np.ndarray | None, t: float, az: float, el: float,
                cfg: StarssAuditConfig) -> bool:
    """Whether an onset (:func:`foakit.audit.onsets.onset_directions`) within
    ``onset_az_tol_deg`` of ``az`` and ``onset_el_tol_deg`` of ``el`` falls within
    ``event_support_onset_s`` of time ``t``; True when the clip has no onset array."""
    if onsets is None:
        return True
    o = np.asarray(onsets, dtype=float).reshape(-1, np.shape(onsets)[-1])
    near = ((np.abs(o[:, 0] - t) <= cfg.event_support_onset_s)
            & (np.abs(azimuth_difference(o[:, 1], az)) <= cfg.onset_az_tol_deg)
            & (np.abs(o[:, 2] - el) <= cfg.onset_el_tol_deg))
    return bool(near.any())


def _onsets_side_with_label(onsets: np.ndarray | None, t: float, label: tuple[float, float],
                            heard: tuple[float, float], cfg: StarssAuditConfig) -> bool:
    """Whether the onsets within ``event_support_onset_s`` of time ``t`` come from the label
    (``label`` az / el) and none from the event's direction ``heard``: the first
    milliseconds of the sound precede the reflections that pull a reverberant event's
    direction away, so they overrule it."""
    if onsets is None:
        return False
    return (_onset_near(onsets, t, *label, cfg) and not _onset_near(onsets, t, *heard, cfg))


def _onset_contradiction(events: list[dict], tr: SourceTrack, az: float, el: float,
                         cfg: StarssAuditConfig, tracks: dict | None = None
                         ) -> tuple[dict, str, float] | None:
    """An event that starts with a stationary track but from the direction the label would
    have under a convention error: ``(event, hypothesis, angle to the label)`` or None.

    The synthetic and real label errors keep the frames of a source and change its
    direction, so the source's own onset is still there: an event starting within
    ``contradict_onset_s`` of a labelled span's start that no other track labelled then
    explains (none within ``contradict_claim_deg``), at least ``contradict_deg`` from the
    label and within ``contradict_hyp_deg`` of the label mapped through one hypothesis
    (mirror, front-back, Y/X swap, elevation sign) is the source heard where that error
    would put it.  Onset events are direct-path dominated, so a side-wall reflection near
    the mirrored azimuth does not produce one (the analysis prunes echo axes); requiring a
    hypothesis match keeps a mislocalised event (reverberant bias of 40-100 deg happens)
    from blaming a correct label.  Without a hypothesis match (a rotated label) the event
    must be at least ``contradict_any_deg`` away; the hypothesis is then ``"none"``.
    """
    ref = direction_to_vector(az, el)
    if not _is_stationary(tr, ref, cfg):
        return None
    hyps = {}
    for h in ANGLE_HYPOTHESES[1:]:
        haz, hel = apply_hypothesis(h, tr.azimuth_deg, tr.elevation_deg)
        v = direction_to_vector(haz, hel).sum(axis=0)
        n = np.linalg.norm(v)
        if n > 0:
            hyps[h] = v / n
    starts = _span_starts(tr)
    best = None
    for e in events:
        ev = _event_vector(e)
        if ev is None:
            continue
        if not any(abs(e["onset_s"] - s) <= cfg.contradict_onset_s for s in starts):
            continue
        ang = _angle_deg(ev, ref)
        if ang < cfg.contradict_deg:
            continue
        others = _active_others(tr, tracks, e["onset_s"], cfg.event_support_onset_s)
        if any(_angle_deg(ev, o) <= cfg.contradict_claim_deg for o in others):
            continue
        fits = {h: _angle_deg(ev, v) for h, v in hyps.items()}
        ok = {h: a for h, a in fits.items()
              if a <= (cfg.contradict_el_hyp_deg if h == "elevation_sign"
                       else cfg.contradict_hyp_deg)}
        if ok:
            h = min(ok, key=ok.get)
        elif ang >= cfg.contradict_any_deg:
            h = "none"
            fits[h] = 180.0 + ang  # ranks below any hypothesis match
        else:
            continue
        if best is None or fits[h] < best[2]:
            best = ({k: e[k] for k in ("onset_s", "offset_s", "azimuth_deg", "elevation_deg")},
                    h, fits[h], ang)
    return None if best is None else (best[0], best[1], best[3])


def _event_shift(events: list[dict], tr: SourceTrack, az: float, el: float,
                 cfg: StarssAuditConfig, tracks: dict | None = None
                 ) -> tuple[float, float, float] | None:
    """A stationary track whose direction's event is its labelled span moved in time:
    ``(shift_s, iou_shifted, iou_unshifted)`` or None.

    The map's presence test (:func:`_track_shift`) loses a shifted label in a diffuse or
    busy clip; the analysis's events give the source's span directly.  An event within
    ``event_support_deg`` of the label, not closer to another track labelled at its start, whose
    span matches the track's span moved by ``min_shift_s``-``max_shift_s`` (IoU at least
    ``shift_min_iou``, and ``shift_gain`` above its IoU with the span as labelled) says
    the frames are off by that much.  An intermittent source whose onset the analysis
    missed starts its event inside the labelled span and ends with it: moving the span
    does not raise the IoU, so it is not blamed.  Single-span tracks only.
    """
    spans = tr.spans()
    ref = direction_to_vector(az, el)
    if len(spans) != 1 or not _is_stationary(tr, ref, cfg):
        return None
    t0, t1 = spans[0][0] * LABEL_HOP_S, (spans[0][1] + 1) * LABEL_HOP_S

    def iou(a0: float, a1: float, b0: float, b1: float) -> float:
        inter = min(a1, b1) - max(a0, b0)
        union = max(a1, b1) - min(a0, b0)
        return max(inter, 0.0) / union if union > 0 else 0.0

    best = None
    for e in _label_events(events, tr, ref, cfg, tracks):
        shift = e["onset_s"] - t0
        if not cfg.min_shift_s - 1e-9 <= abs(shift) <= cfg.max_shift_s + 1e-9:
            continue
        i1 = iou(e["onset_s"], e["offset_s"], t0 + shift, t1 + shift)
        i0 = iou(e["onset_s"], e["offset_s"], t0, t1)
        # a sound already going at the labelled start (no onset of its own there: the
        # track was not vouched for) needs less gain than one starting inside the span,
        # which an intermittent source does with correct labels
        gain = cfg.shift_gain if shift > 0 or e["offset_s"] <= t0 else cfg.lead_shift_gain
        if i1 >= cfg.shift_min_iou and i1 - i0 >= gain and (
                best is None or i1 - i0 > best[1] - best[2]):
            best = (round(shift / LABEL_HOP_S) * LABEL_HOP_S, i1, i0)
    return best


def _other_track_near(tr: SourceTrack, tracks: dict | None, az: float, el: float,
                      tol_deg: float, *, window: tuple[float, float] | None = None) -> bool:
    """Is another track labelled within ``tol_deg`` of (az, el) during ``tr``'s labelled
    frames, or (``window``: start and end, s) in its frames inside that window?"""
    here = direction_to_vector(az, el)
    for o in (tracks or {}).values():
        if o is tr or len(o) == 0:
            continue
        if window is None:
            sel = np.isin(o.frames, tr.frames)
        else:
            times = o.frames * LABEL_HOP_S
            sel = (times >= window[0]) & (times < window[1])
        if not sel.any():
            continue
        v = direction_to_vector(o.azimuth_deg[sel], o.elevation_deg[sel])
        if np.any(np.rad2deg(np.arccos(np.clip(v @ here, -1.0, 1.0))) <= tol_deg):
            return True
    return False


def _onset_elevation(onsets: np.ndarray | None, tr: SourceTrack, az: float, el: float,
                     cfg: StarssAuditConfig, tracks: dict | None = None) -> dict | None:
    """The onsets at a stationary track's labelled azimuth during its labelled spans that
    side with its elevation or with the elevation's sign flipped
    (:func:`foakit.audit.onsets.elevation_votes`), with ``side``: "flipped" or "label"
    when the onsets clearly choose one (at least ``onset_min_votes`` and ``onset_ratio``
    times the other side), else None.  A track whose labelled azimuth wanders by more than
    ``onset_az_tol_deg`` is moving (no vote); another track labelled during its spans near
    the flipped direction would explain flipped onsets, so it keeps ``side`` from being
    "flipped".
    """
    if onsets is None or len(tr) == 0:
        return None
    spread = np.abs((tr.azimuth_deg - az + 180.0) % 360.0 - 180.0)
    if float(np.max(spread)) > cfg.onset_az_tol_deg:
        return None
    wins = [(a * LABEL_HOP_S, (b + 1) * LABEL_HOP_S) for a, b in tr.spans()]
    vote = elevation_votes(onsets, el, wins, az, az_tol_deg=cfg.onset_az_tol_deg,
                           el_tol_deg=cfg.onset_el_tol_deg)
    if vote is None:
        return None
    if _other_track_near(tr, tracks, az, -el, cfg.onset_az_tol_deg,
                         window=(wins[0][0], wins[-1][1])):
        vote["other_track_there"] = True
    vote["side"] = onset_side(vote, cfg, explained=bool(vote.get("other_track_there")))
    return vote
