"""Sources of a clip's events: which events are one source, and how they move.

* :func:`assign_sources`: stationary events whose directions are within ``track_gate_deg``
  share a ``source`` id; a moving event shares one with the events that continue its path
  (a moving source in a room is often cut into pieces).  ``n_sources`` counts the ids.
* :func:`weak_sources_dropped`: sources whose events are all far fainter and more diffuse
  than the most confident source's are reverberation more often than sources.
* :func:`label_frame_motion`: events the cones call stationary are tested on their cone's
  own onset bins (:func:`onset_motion`), then on the clip's per-frame DOA near them
  (:func:`frame_motion`), once the sources are counted.
"""

from __future__ import annotations

import math

import numpy as np

from .events import Event, _close, _unit_vector
from .params import AnalysisParams

__all__ = ["assign_sources", "frame_motion", "label_frame_motion", "onset_line",
           "onset_motion", "weak_sources_dropped"]


def assign_sources(events: list[Event], params: AnalysisParams) -> int:
    """Give events of one source a shared ``source`` id; return the number of sources.

    Stationary events whose directions are within ``track_gate_deg`` share one; a moving
    event shares one with the events that continue its path (:func:`_on_path`)."""
    reps: list[Event] = []
    for ev in sorted(events, key=lambda e: -e.confidence):
        if ev.motion == "stationary":
            for sid, rep in enumerate(reps):
                if rep.motion == "stationary" and _close(rep, ev, params.track_gate_deg):
                    ev.source = sid
                    break
            else:
                ev.source = len(reps)
                reps.append(ev)
        else:
            ev.source = len(reps)
            reps.append(ev)
    if len(reps) < 2 or all(e.motion == "stationary" for e in events):
        return len(reps)
    parent = list(range(len(reps)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for m in events:
        if m.motion == "stationary":
            continue
        for ev in events:
            if ev is not m and root(ev.source) != root(m.source) and _on_path(m, ev, params):
                a, b = sorted((root(ev.source), root(m.source)))
                parent[b] = a
    ids: dict[int, int] = {}
    for ev in sorted(events, key=lambda e: -e.confidence):
        ev.source = ids.setdefault(root(ev.source), len(ids))
    return len(ids)


def _azimuth_at(ev: Event, t: np.ndarray, reach: float) -> np.ndarray:
    """Azimuth (unwrapped about the start) of ``ev``'s straight-line motion at times ``t``,
    held beyond ``reach`` s past its ends."""
    a0 = ev.azimuth_start_deg if ev.azimuth_start_deg is not None else ev.azimuth_deg
    a1 = ev.azimuth_end_deg if ev.azimuth_end_deg is not None else ev.azimuth_deg
    if ev.motion == "stationary" or a0 is None or a1 is None:
        return np.full(len(t), float(ev.azimuth_deg or 0.0))
    dur = max(ev.offset_s - ev.onset_s, 1e-6)
    change = (a1 - a0 + 180.0) % 360.0 - 180.0
    if ev.motion == "left_to_right" and change > 0 or ev.motion == "right_to_left" and change < 0:
        change -= math.copysign(360.0, change)
    tt = np.clip(t, ev.onset_s - reach, ev.offset_s + reach)
    return a0 + change * (tt - ev.onset_s) / dur


def _on_path(m: Event, ev: Event, params: AnalysisParams) -> bool:
    """Whether ``ev`` continues moving event ``m``'s path: it lies within
    ``event_merge_gap_s`` of ``m``'s span, and over ``ev``'s span ``m``'s azimuth line
    (extrapolated that far) stays within half ``track_gate_deg`` of ``ev``'s azimuth (its
    own line when it moves too, then in the same sense), elevations within the gate.  A
    moving source in a room is often cut into such pieces: a duplicate track, or a
    stationary event where the track lost it."""
    reach = params.event_merge_gap_s
    if ev.onset_s > m.offset_s + reach or ev.offset_s < m.onset_s - reach:
        return False
    if ev.motion != "stationary" and ev.motion != m.motion:
        return False
    if m.elevation_deg is None or ev.elevation_deg is None or \
            abs(m.elevation_deg - ev.elevation_deg) > params.track_gate_deg:
        return False
    t = np.linspace(ev.onset_s, ev.offset_s, 5)
    d = (_azimuth_at(m, t, reach) - _azimuth_at(ev, t, reach) + 180.0) % 360.0 - 180.0
    return bool(np.max(np.abs(d)) <= params.track_gate_deg / 2)


def weak_sources_dropped(events: list[Event], ratio: float) -> list[Event]:
    """The events of sources (``source`` ids) whose most confident event reaches ``ratio``
    times the most confident source's: a candidate whose events are all that faint and
    diffuse (confidence = sqrt(in-cone share x (1 - diffuseness))) is reverberation more
    often than a source."""
    best: dict[int, float] = {}
    for ev in events:
        best[ev.source] = max(best.get(ev.source, 0.0), ev.confidence)
    if not best:
        return events
    floor = ratio * max(best.values())
    return [ev for ev in events if best[ev.source] >= floor]


def label_frame_motion(events: list[Event], frame_doa: np.ndarray, *, frame_rate: float,
                       params: AnalysisParams, cones: np.ndarray | None = None) -> None:
    """Give the events still called stationary the motion :func:`onset_motion` finds on
    their cone's onset bins (``cones``: the cones the events came from, events with a
    ``cone`` index; ``motion_onset_min_deg`` = 0: none), else the motion :func:`frame_motion`
    finds on the per-frame DOA (``motion_frame_min_deg`` = 0: none); in place.

    Where the onset bins give a line (:func:`onset_line`) that falls short of motion, they
    still vote on the per-frame DOA's motion: it stands only when the line changes the same
    way by at least ``motion_onset_agree`` times its threshold, and then a change of
    ``motion_frame_agreed_deg`` is enough.  The per-frame DOA follows the loudest sound of
    each frame, so near a stationary source it drifts with other sources and reflections;
    the source's own onset bins do not.

    Run once the sources are counted: the counting merges stationary events of one
    direction, and these tests, made for the labels, are not meant to change which events
    are one source.
    """
    onsets = (params.motion_onset_min_deg > 0 and cones is not None and cones.ndim == 3
              and cones.shape[2] > 8)
    if params.motion_frame_min_deg <= 0 and not onsets:
        return
    agreed_deg = min(params.motion_frame_agreed_deg, params.motion_frame_min_deg)
    for ev in events:
        if ev.motion != "stationary" or ev.azimuth_deg is None:
            continue
        a = int(round(ev.onset_s * frame_rate))
        b = int(round(ev.offset_s * frame_rate))
        fit = line = None
        # a clip peak's cone only: a moving track's cone already follows its source
        if onsets and ev.cone is not None and ev.peak_axis is not None:
            line = onset_line(cones[ev.cone, a:b, 5:8], cones[ev.cone, a:b, 8],
                              frame_rate=frame_rate, params=params)
            if line is not None and abs(line[1]) >= line[2]:
                fit = line[:2]
        if fit is None and params.motion_frame_min_deg > 0:
            # around the clip peak the test was calibrated on, not the onset bins' direction
            axis = (ev.peak_axis if ev.peak_axis is not None
                    else np.array(_unit_vector(ev.azimuth_deg, ev.elevation_deg)))
            fit = frame_motion(frame_doa[a:b], axis, frame_rate=frame_rate, params=params,
                               min_deg=params.motion_frame_min_deg if line is None
                               else agreed_deg)
            if fit is not None and line is not None and not (
                    line[1] * fit[1] > 0
                    and abs(line[1]) >= params.motion_onset_agree * line[2]):
                fit = None
        if fit is not None:
            a_start, change = fit
            ev.motion = "left_to_right" if change < 0 else "right_to_left"
            ev.azimuth_start_deg = float((a_start + 180.0) % 360.0 - 180.0)
            ev.azimuth_end_deg = float((a_start + change + 180.0) % 360.0 - 180.0)


def onset_line(onset_vec: np.ndarray, onset_n: np.ndarray, *, frame_rate: float,
               params: AnalysisParams) -> tuple[float, float, float] | None:
    """The straight line of an event's azimuth on its cone's own onset bins, and the change
    over the event that makes it motion (:func:`onset_motion`).

    A clip peak's cone is fixed at the middle of a moving source's path, and the cone's
    energy there is mostly reverberation about its axis, so the in-cone fit sees little of
    the path.  The onset bins in the cone (bins that rose ``onset_ratio``-fold: the direct
    sound of each new note, syllable or hit) point where the source is while it crosses the
    cone.  They are grouped in ``motion_onset_block_s`` blocks; the blocks with at least
    ``motion_onset_min_bins`` of them give an azimuth each (their unit-vector sum, each bin
    one vote), and a least-squares line through those (three blocks at least, each block's
    squared residual weighted by the square root of its number of bins) is motion when it
    changes over the event by at least ``motion_onset_min_deg`` times ``sqrt(3 / k)`` for
    ``k`` such blocks, ``k`` counted up to 25 (the more blocks, the less a steady change can
    be their scatter; 25 blocks are a 10 s event, the longest the scaling was chosen on, so
    a slow drift over a long recording is not called motion).  The cone clips the path to
    about twice ``cone_deg``, so the change found is smaller than the source's; a residual
    test would add nothing (block azimuths within the cone scatter within it).

    Parameters
    ----------
    onset_vec : ndarray [shape=(n, 3)]
        The event's frames: the onset bins' unit-vector sum in its cone
        (:func:`foakit.kernels.cone.cone_energy` channels 5-7).
    onset_n : ndarray [shape=(n,)]
        Their number per frame (channel 8).

    Returns
    -------
    (azimuth at the event's first frame, azimuth change over the event, the change that is
    motion), degrees; None with fewer than three blocks or a line that is not finite.
    """
    n = len(onset_n)
    block = max(1, int(round(params.motion_onset_block_s * frame_rate)))
    nb = n // block
    if nb < 3:
        return None
    v = np.asarray(onset_vec[: nb * block], dtype=np.float64).reshape(nb, block, 3).sum(axis=1)
    c = np.asarray(onset_n[: nb * block], dtype=np.float64).reshape(nb, block).sum(axis=1)
    ok = (c >= params.motion_onset_min_bins) & np.isfinite(v).all(axis=1)
    if ok.sum() < 3:
        return None
    ab = np.rad2deg(np.unwrap(np.arctan2(v[ok, 1], v[ok, 0])))
    tb = (np.flatnonzero(ok) + 0.5) * block / frame_rate
    line = _line_fit(tb, ab, np.sqrt(c[ok]))
    if line is None:
        return None
    slope, icpt, _ = line
    change = slope * n / frame_rate
    if not (math.isfinite(icpt) and math.isfinite(change)):
        return None
    # each block's azimuth scatters about the path: with k blocks the line's change is
    # known sqrt(k / 3) times better than with three
    k = min(int(ok.sum()), _MOST_BLOCKS)
    return icpt, change, params.motion_onset_min_deg * math.sqrt(3.0 / k)


def onset_motion(onset_vec: np.ndarray, onset_n: np.ndarray, *, frame_rate: float,
                 params: AnalysisParams) -> tuple[float, float] | None:
    """Steady azimuth motion of an event on its cone's own onset bins: (azimuth at the
    event's first frame, azimuth change over the event) in degrees, when the line of
    :func:`onset_line` (same parameters) changes by at least its threshold; else None."""
    line = onset_line(onset_vec, onset_n, frame_rate=frame_rate, params=params)
    if line is None or abs(line[1]) < line[2]:
        return None
    return line[0], line[1]


#: Blocks of :func:`onset_line` counted at most when its threshold falls with their
#: number: a 10 s event's (0.4 s blocks), the longest the scaling was chosen on
_MOST_BLOCKS = 25


def _line_fit(t: np.ndarray, a: np.ndarray, w: np.ndarray) -> tuple[float, float, float] | None:
    """Weighted least-squares line ``a = icpt + slope t`` (np.polyfit(t, a, 1, w=sqrt(w)) in
    closed form): (slope, icpt, weighted RMS residual), or None when ``t`` is constant."""
    wsum = w.sum()
    tm = (w @ t) / wsum
    am = (w @ a) / wsum
    dt = t - tm
    den = w @ (dt * dt)
    if den <= 0:
        return None
    slope = (w @ (dt * (a - am))) / den
    icpt = am - slope * tm
    resid = a - (icpt + slope * t)
    rms = math.sqrt(float(w @ (resid * resid)) / wsum)
    return float(slope), float(icpt), rms


def frame_motion(frame_doa: np.ndarray, axis: np.ndarray, *, frame_rate: float,
                 params: AnalysisParams, min_deg: float | None = None
                 ) -> tuple[float, float] | None:
    """Steady azimuth motion of an event on the clip's per-frame DOA, or None.

    A source moving through a room often gives a stationary histogram peak (the middle of
    its path, where its votes pile up), and its 25 deg cone sees only part of the path, so
    the in-cone fit calls it stationary.  Here the frames whose DOA lies within
    ``motion_frame_cone_deg`` of the event's direction are grouped in 0.2 s blocks (two
    frames at least), each block's weighted mean azimuth is taken, and a straight line is
    fitted to those (three blocks at least, weighted by the square root of their DOA
    weight).  It is motion when the line changes by at least ``motion_frame_min_deg`` over
    the event (``min_deg``, when given, instead) and fits the blocks within
    ``motion_frame_resid_deg`` (weighted RMS): a stationary source's blocks scatter about its
    direction without a trend.

    The thresholds' measured effect is in docs/method.md ("Motion").

    Parameters
    ----------
    frame_doa : ndarray [shape=(n, 4)]
        The event's frames: DOA unit vector (zero where no bin voted) and weight.
    axis : ndarray [shape=(3,)]
        The event's direction (unit vector).

    Returns
    -------
    (azimuth at the event's first frame, azimuth change over the event), degrees; or None.
    """
    n = frame_doa.shape[0]
    block = max(1, int(round(0.2 * frame_rate)))
    v = np.asarray(frame_doa[:, :3], dtype=np.float64)
    w = np.asarray(frame_doa[:, 3], dtype=np.float64)
    cos_cone = math.cos(math.radians(params.motion_frame_cone_deg))
    idx = np.flatnonzero((w > 0) & (v @ np.asarray(axis, dtype=np.float64) >= cos_cone))
    if len(idx) < 3 * block // 2:
        return None
    bi = idx // block
    nbk = int(bi[-1]) + 1
    count = np.bincount(bi, minlength=nbk)
    az = np.arctan2(v[idx, 1], v[idx, 0])
    wi = w[idx]
    re = np.bincount(bi, wi * np.cos(az), nbk)
    im = np.bincount(bi, wi * np.sin(az), nbk)
    wb = np.bincount(bi, wi, nbk)
    tb = np.bincount(bi, idx / frame_rate, nbk) / np.maximum(count, 1)
    ok = count >= 2
    if ok.sum() < 3:
        return None
    ab = np.rad2deg(np.unwrap(np.arctan2(im[ok], re[ok])))
    line = _line_fit(tb[ok], ab, wb[ok])
    if line is None:
        return None
    slope, icpt, rms = line
    change = slope * n / frame_rate
    least = params.motion_frame_min_deg if min_deg is None else min_deg
    if abs(change) < least or rms > params.motion_frame_resid_deg:
        return None
    return float(icpt), change
