"""From per-window DOA peaks and per-frame features to sound events.

1. **Tracks**: peaks of consecutive DOA windows are linked when they lie within
   ``track_gate_deg`` (greedy, strongest first); a track survives gaps of up to
   ``track_max_gap_windows`` windows.  A moving source stays one track.
2. **Events**: for each track, the energy of the non-diffuse bins inside a ``cone_deg`` cone
   around the track's direction is measured per frame; hysteresis on that level (relative to
   the track's own level and to the noise in the cone) gives onsets and offsets, so
   overlapping sources from different directions become separate events.  In a room the
   reverberation of every source leaks into every cone, so a segment must start with an
   onset of its own (energy in onset bins inside the cone, within ``event_onset_db`` of the
   cone's loud level); it is cut back to its first such onset (to where the cone's level
   starts climbing into it, for a soft attack: ``onset_ramp_s``), or dropped when it has
   none.  A source that starts under louder ones rises less above the sound already in its
   bins: a segment with an onset starts earlier where its cone's bins rose by the lower
   ``rise_onset_ratio`` and carry more such energy than any other cone around that frame
   (:func:`rising_onsets`).  Another source's leakage ahead of a louder segment of a cone is
   dropped, not bridged into it (:func:`foakit.echoes.bridge_pauses`), and so is
   reverberation opening a segment (:func:`foakit.echoes.cut_lead_ins`).  Axes whose onsets
   mostly coincide with a stronger axis's onsets (the same or the next frame) are
   reflections and dropped first (:func:`echo_axes`), and of events from different
   directions with nearly the same onset (``echo_event_onset_s``) and span
   (``echo_event_iou``) only the earliest (precedence), else the most confident, stays.
   These tests are for reverberant clips only (``dry_psi``).
3. **Direction**: of a stationary source (a clip-histogram peak), where the onset bins
   inside its cone point over the event, one unit vote each (``onset_direction_bins``; too
   few, and the peak); of a moving track, the normalised in-cone vector sum.
   **Motion**: a straight-line fit of the unwrapped in-cone azimuth against time; a change of
   at least ``motion_min_deg`` is ``left_to_right`` (azimuth decreasing; +90 is left) or
   ``right_to_left``.  Events it calls stationary are tested again, once the sources are
   counted, on their cone's onset bins and on the clip's per-frame DOA near them
   (:func:`foakit.sources.label_frame_motion`).
4. **Distance proxy** (``distance_proxy = "diffuseness"``): DirAC diffuseness of the event's
   frames (all bins in the band, averaged over the whole event), mapped through the
   diffuse-field model DRR = (1 - psi) / psi and DRR = (r_c / r)^2, so
   ``r = r_c sqrt(psi / (1 - psi))`` with ``r_c = distance_rc_m`` (calibrated on foakit.synth
   rooms; see the README), clipped to ``distance_range_m``.  Noise raises psi too: a proxy.
   In a clip without reverberation (clip diffuseness below ``distance_min_psi``: anechoic
   or a close-up) there is nothing to weigh the direct sound against: ``distance_m`` is
   None and ``distance_proxy`` is :data:`NO_DISTANCE`.
5. **Sources**: which events are one source, and the motion labels of the per-frame DOA,
   are in :mod:`foakit.sources`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, fields

import numpy as np

from .conventions import direction_to_vector, vector_to_direction
from .echoes import bridge_pauses, cut_lead_ins, drop_reflection_events, echo_axes
from .kernels.activity import clean_activity, cone_levels, hysteresis, segments
from .params import AnalysisParams

__all__ = [
    "Event",
    "NO_DISTANCE",
    "Track",
    "link_tracks",
    "track_axes",
    "moving_tracks",
    "source_axes",
    "moving_or_stationary",
    "cone_level_db",
    "rising_onsets",
    "events_from_cones",
    "echo_axes",
]


@dataclass
class Event:
    """One sound event (angles in degrees, azimuth CCW from the front, +90 = left)."""

    onset_s: float
    offset_s: float
    azimuth_deg: float | None = None
    elevation_deg: float | None = None
    distance_m: float | None = None
    distance_proxy: str | None = None
    diffuseness: float | None = None
    motion: str | None = None
    azimuth_start_deg: float | None = None
    azimuth_end_deg: float | None = None
    confidence: float = 0.0
    energy_db: float | None = None
    source: int = 0
    # the cone axis of a clip-level peak (unit vector; None for a moving track): the
    # per-frame motion test (foakit.sources.label_frame_motion) looks around it; not output
    peak_axis: np.ndarray | None = field(default=None, repr=False, compare=False,
                                         metadata={"output": False})
    # its cone's index (foakit.sources.label_frame_motion reads its onset bins); not output
    cone: int | None = field(default=None, repr=False, compare=False, metadata={"output": False})

    def to_dict(self) -> dict:
        d = {}
        for k in _EVENT_FIELDS:
            v = getattr(self, k)
            if isinstance(v, float | np.floating):
                v = float(v)
                v = round(v, 4) if math.isfinite(v) else None
            d[k] = v
        return d


_EVENT_FIELDS = tuple(f.name for f in fields(Event) if f.metadata.get("output", True))

#: ``distance_proxy`` of events in clips without reverberation (``distance_m`` is None)
NO_DISTANCE = "none: no reverberation to weigh the direct sound against"


@dataclass
class Track:
    """Linked peaks: window indices, unit vectors ``(m, 3)`` and weights ``(m,)``."""

    windows: list[int]
    vecs: list[np.ndarray]
    weights: list[float]

    @property
    def weight(self) -> float:
        return _np_sum(self.weights)


def _np_sum(values: list[float]) -> float:
    """``float(np.sum(values))`` of a list of floats, in NumPy's pairwise order (8
    accumulators for 8 to 128 values) without building an array."""
    n = len(values)
    if n > 128:
        return float(np.sum(values))
    if n < 8:
        res = -0.0
        for v in values:
            res += v
        return 0.0 + res
    r = values[:8]
    i = 8
    while i < n - n % 8:
        for k in range(8):
            r[k] += values[i + k]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for v in values[i:]:
        res += v
    return 0.0 + res


def link_tracks(peaks: np.ndarray, params: AnalysisParams) -> list[Track]:
    """Link per-window peaks into tracks.

    Parameters
    ----------
    peaks : ndarray [shape=(n_windows, max_peaks, 4)]
        From :func:`foakit.kernels.peaks.pick_peaks`.
    """
    cos_gate = np.cos(np.deg2rad(params.track_gate_deg))
    tracks: list[Track] = []
    open_ids: list[int] = []
    # Python floats: the products of float32 components are exact in float64, so the sum in
    # index order is np.dot's value bit for bit, without its per-call cost
    last: list[tuple[float, float, float]] = []  # each track's latest vector
    rows = peaks.tolist()
    vecs = peaks[:, :, :3].astype(np.float64)
    for w, row in enumerate(rows):
        open_ids = [i for i in open_ids
                    if w - tracks[i].windows[-1] <= params.track_max_gap_windows + 1]
        taken: set[int] = set()
        for k, (x, y, z, wgt) in enumerate(row):
            if wgt <= 0.0:
                break
            best, best_cos = -1, cos_gate
            for i in open_ids:
                if i in taken:
                    continue
                lx, ly, lz = last[i]
                c = lx * x + ly * y + lz * z
                if c >= best_cos:
                    best, best_cos = i, c
            v = vecs[w, k]
            if best < 0:
                tracks.append(Track([w], [v], [wgt]))
                last.append((x, y, z))
                best = len(tracks) - 1
                open_ids.append(best)
            else:
                tr = tracks[best]
                tr.windows.append(w)
                tr.vecs.append(v)
                tr.weights.append(wgt)
                last[best] = (x, y, z)
            taken.add(best)
    if tracks:
        weights = [tr.weight for tr in tracks]
        least = params.min_track_weight * max(weights)
        tracks = [tr for tr, wt in zip(tracks, weights, strict=True) if wt >= least]
    return tracks


def track_axes(tracks: list[Track], n_frames: int, window_frames: int) -> np.ndarray:
    """Cone axis per track and frame: the track's direction interpolated between its
    windows' centres, held over one window before and after; zero elsewhere.

    Returns
    -------
    ndarray [shape=(n_tracks, n_frames, 3), dtype=float32]
    """
    axes = np.zeros((len(tracks), n_frames, 3), dtype=np.float32)
    t = np.arange(n_frames, dtype=np.float64)
    for k, tr in enumerate(tracks):
        centres = (np.asarray(tr.windows) + 0.5) * window_frames - 0.5
        vecs = np.asarray(tr.vecs)
        start = max(0, tr.windows[0] * window_frames - window_frames)
        stop = min(n_frames, (tr.windows[-1] + 2) * window_frames)
        tt = t[start:stop]
        v = np.stack([np.interp(tt, centres, vecs[:, c]) for c in range(3)], axis=-1)
        v /= np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)
        axes[k, start:stop] = v
    return axes


def moving_tracks(tracks: list[Track], params: AnalysisParams) -> list[Track]:
    """Tracks whose azimuth moves steadily by at least twice ``motion_min_deg``."""
    out = []
    for tr in tracks:
        if len(tr.windows) < 4:
            continue
        az, _ = vector_to_direction(np.asarray(tr.vecs))
        if not _may_move(az.tolist(), tr.windows, tr.weights, 2 * params.motion_min_deg):
            continue  # the fit below would reject it (most tracks: stationary sources)
        az = np.rad2deg(np.unwrap(np.deg2rad(az)))
        w = np.asarray(tr.windows, dtype=float)
        slope, icpt = np.polyfit(w, az, 1, w=np.sqrt(np.asarray(tr.weights)))
        change = slope * (w[-1] - w[0])
        resid = np.median(np.abs(az - (icpt + slope * w)))
        if abs(change) >= 2 * params.motion_min_deg and resid < params.track_gate_deg / 2:
            out.append(tr)
    return out


def _may_move(az: list[float], windows: list[int], weights: list[float],
              change_min: float) -> bool:
    """False only where :func:`moving_tracks`' weighted straight-line fit of the unwrapped
    azimuth certainly changes by less than ``change_min`` over the track.

    The fit's slope is at most ``sqrt(Syy / Sxx)`` in magnitude (Cauchy-Schwarz; weighted
    sums of squares about the weighted means).  With no step of 179 degrees or more,
    ``np.unwrap`` leaves the azimuths as they are (up to the degree-radian round trip's last
    bits), so the raw ones stand in; the margins cover that and the fit's own rounding.
    """
    for a, b in zip(az[:-1], az[1:], strict=True):
        if not abs(b - a) < 179.0:  # a wrap (or NaN): decide by the fit itself
            return True
    sw = sum(weights)
    xm = sum(w * x for w, x in zip(weights, windows, strict=True)) / sw
    ym = sum(w * y for w, y in zip(weights, az, strict=True)) / sw
    sxx = sum(w * (x - xm) ** 2 for w, x in zip(weights, windows, strict=True))
    syy = sum(w * (y - ym) ** 2 for w, y in zip(weights, az, strict=True))
    if not sxx > 0.0:
        return True
    bound = (windows[-1] - windows[0]) * math.sqrt(syy / sxx)
    return not bound * (1.0 + 1e-6) + 1e-6 < change_min


def source_axes(clip_peaks: np.ndarray, moving: list[Track], n_frames: int,
                window_frames: int, params: AnalysisParams) -> np.ndarray:
    """Cone axes: one moving axis per moving track, then one constant axis per clip-level DOA
    peak (stationary sources: the whole clip's votes make their direct paths stand out of
    reflections).  Clip peaks on a moving track's path stay: either they are the smear of a
    moving source or the track is a stationary source's wandering peaks, and only the cone
    energies tell which (:func:`moving_or_stationary`).

    Parameters
    ----------
    clip_peaks : ndarray [shape=(max_peaks, 4)]
        Peaks of the clip histogram (unit vector, weight), strongest first.

    Returns
    -------
    ndarray [shape=(n_axes, n_frames, 3), dtype=float32]
    """
    axes = [track_axes(moving, n_frames, window_frames)] if moving else []
    stat = [np.broadcast_to(v.astype(np.float32), (n_frames, 3))
            for v, wgt in zip(clip_peaks[:, :3], clip_peaks[:, 3], strict=True) if wgt > 0]
    if stat:
        axes.append(np.stack(stat))
    if not axes:
        return np.zeros((0, n_frames, 3), np.float32)
    return np.ascontiguousarray(np.concatenate(axes), dtype=np.float32)


def moving_or_stationary(cones: np.ndarray, axes: np.ndarray, params: AnalysisParams
                         ) -> np.ndarray:
    """Which axes to keep where a moving axis and constant axes on its path compete.

    A moving source smears the clip histogram along its path, so constant axes appear there;
    reverberation makes a stationary source's window peaks wander, so a moving track appears
    over it.  Over the moving axis's span, the cone that collects more energy explains the
    sound: when the best constant axis on the path collects at least as much as the moving
    one, the track is dropped, else the constant axes on its path are.

    Parameters
    ----------
    cones : ndarray [shape=(n_axes, n_frames, 4 or more)]
    axes : ndarray [shape=(n_axes, n_frames, 3)]
        A moving axis changes direction over its span (non-zero frames); a constant one
        does not.

    Returns
    -------
    ndarray [shape=(n_axes,), dtype=bool]
    """
    n = axes.shape[0]
    keep = np.ones(n, dtype=bool)
    span = np.any(axes != 0.0, axis=-1)
    first = np.array([axes[k][span[k]][0] if span[k].any() else np.zeros(3, np.float32)
                      for k in range(n)])
    constant = np.array([bool(np.all(axes[k][span[k]] == first[k])) for k in range(n)])
    cos_gate = np.cos(np.deg2rad(params.track_gate_deg))
    for m in np.flatnonzero(~constant):
        path = axes[m][span[m]]
        peers = [p for p in np.flatnonzero(constant & keep)
                 if np.max(path @ first[p]) >= cos_gate]
        if not peers:
            continue
        moving = float(cones[m, span[m], 3].sum(dtype=np.float64))
        best = max(float(cones[p, span[m], 3].sum(dtype=np.float64)) for p in peers)
        if best >= moving:
            keep[m] = False
        else:
            keep[peers] = False
    return keep


def _smooth3_rows(x: np.ndarray) -> np.ndarray:
    """[0.25, 0.5, 0.25] average along each row (edges held), in float64 and in the order
    ``np.convolve`` sums it (the products are exact), rounded to float32."""
    n = x.shape[1]
    p = np.empty((x.shape[0], n + 2))
    p[:, 1:-1] = x
    p[:, 0] = x[:, 0]
    p[:, -1] = x[:, -1]
    out = p[:, :-2] * 0.25
    out += p[:, 1:-1] * 0.5
    out += p[:, 2:] * 0.25
    return out.astype(np.float32)


def cone_level_db(cones: np.ndarray, axes: np.ndarray, frame_active: np.ndarray, *,
                  power_scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each cone's smoothed in-cone level and the two levels its activity is judged by.

    Parameters
    ----------
    cones : ndarray [shape=(n_tracks, n_frames, 4 or more)]
    axes : ndarray [shape=(n_tracks, n_frames, 3)]
    frame_active : ndarray [shape=(n_frames,), dtype=bool]
    power_scale : float
        Factor turning summed bin energies into mean-square power (Parseval).

    Returns
    -------
    level : ndarray [shape=(n_tracks, n_frames), dtype=float32]
        In-cone level (dB), averaged over 3 frames.
    span : ndarray [shape=(n_tracks, n_frames), dtype=bool]
        Frames with an axis.
    ref : ndarray [shape=(n_tracks,), dtype=float32]
        The cone's loud level: the 95th percentile of ``level`` over its span.
    noise : ndarray [shape=(n_tracks,), dtype=float64]
        Its median level while nothing is active (what noise alone puts there).
    """
    level = 10.0 * np.log10(np.maximum(cones[..., 3] * power_scale, 1e-20))
    level = _smooth3_rows(level)
    span = np.any(axes != 0.0, axis=-1)
    ref = np.empty(len(cones), dtype=np.float32)
    noise = np.empty(len(cones))
    # NumPy's bits (Numba)
    cone_levels(level, span, ~frame_active, 10, 95.0, ref, noise)
    return level, span, ref, noise


def events_from_cones(
    cones: np.ndarray,
    axes: np.ndarray,
    frame_active: np.ndarray,
    frame_iv: np.ndarray,
    *,
    frame_rate: float,
    power_scale: float,
    params: AnalysisParams,
    onset_support: bool = True,
) -> list[Event]:
    """Events from the in-cone energy of each track.

    Parameters
    ----------
    cones : ndarray [shape=(n_tracks, n_frames, CONE_CHANNELS)]
        :func:`foakit.kernels.cone.cone_energy` output (a 4-channel array without onset
        energies skips the onset support, one without the onset bins' sums and number the
        onset directions and lead-in cuts, one without the rising bins' the rising starts).
    axes : ndarray [shape=(n_tracks, n_frames, 3)]
        Cone axes (zero outside a track's span).
    frame_active : ndarray [shape=(n_frames,), dtype=bool]
        Broadband activity (its inactive frames measure the noise in each cone).
    frame_iv : ndarray [shape=(n_frames, 4)]
        Band sums of raw intensity (x, y, z) and energy per frame, for the event diffuseness.
    frame_rate : float
        Frames per second.
    power_scale : float
        Factor turning summed bin energies into mean-square power (Parseval).
    onset_support : bool
        A reverberant clip: cut segments back to their first in-cone onset and collapse
        reflection events (see the module docstring); off for dry clips, where no
        reverberation leaks into the cones.
    """
    n_tracks, n_frames = cones.shape[:2]
    if n_tracks == 0:
        return []
    tiny = 1e-20
    level, span, ref, noise_a = cone_level_db(cones, axes, frame_active, power_scale=power_scale)
    on = np.empty(n_tracks, dtype=np.float32)
    off = np.empty(n_tracks, dtype=np.float32)
    noise = noise_a.tolist()
    for k in range(n_tracks):
        on[k] = max(ref[k] - 20.0, noise[k] + params.act_on_db)
        off[k] = max(ref[k] - 30.0, noise[k] + params.act_off_db)
    lv = np.where(span, level, -300.0).astype(np.float32)
    act = np.zeros((n_tracks, n_frames), dtype=np.uint8)
    n_valid = np.full(n_tracks, n_frames, dtype=np.int64)
    hysteresis(lv, on, off, n_valid, act)
    gap = int(round(params.event_merge_gap_s * frame_rate))
    min_len = int(round(params.min_event_s * frame_rate))
    if onset_support and params.event_onset_db > 0 and cones.shape[2] > 4:
        # judge each sound on its own (dips inside it bridged), then merge the pauses
        clean_activity(act, n_valid, int(round(params.onset_merge_gap_s * frame_rate)), 0)
        onset_level = 10.0 * np.log10(np.maximum(cones[..., 4] * power_scale, tiny))
        ramp = int(round(params.onset_ramp_s * frame_rate))
        early = None
        if params.rise_onset_ratio > 0 and cones.shape[2] > 9:
            early = rising_onsets(cones[..., 9], ref - params.event_onset_db,
                                  power_scale=power_scale)
        for k in range(n_tracks):
            _onset_support(act[k], onset_level[k] >= ref[k] - params.event_onset_db, lv[k],
                           ramp=ramp, ramp_db=params.onset_ramp_db,
                           early=None if early is None else early[k])
        bridge_pauses(act, cones[..., 4], lv, max_gap=gap, least_db=params.leak_precursor_db)
        cut_lead_ins(act, cones, frame_rate=frame_rate, least_db=params.lead_in_db)
        gap = 0  # bridged
    clean_activity(act, n_valid, gap, min_len)
    events: list[Event] = []
    for k in range(n_tracks):
        for start, stop in segments(act[k]):
            ev = _event(cones[k, start:stop], axes[k, start:stop], frame_iv[start:stop], start,
                        stop, frame_rate=frame_rate, power_scale=power_scale, params=params)
            if ev is not None:
                ev.cone = k
                events.append(ev)
    events = _merge_duplicates(events, params)
    if onset_support:
        events = drop_reflection_events(events, params)
    # a faint, diffuse event from the clip's first frames is the noise floor (in a wet clip
    # the onset test passes its start there, against the silence before the clip); a sound
    # already playing is direct enough
    events = [e for e in events if round(e.onset_s * frame_rate) > _ONSET_LOOKBACK
              or e.confidence >= params.start_min_confidence]
    events.sort(key=lambda e: (e.onset_s, e.azimuth_deg or 0.0))
    return events


#: frames of look-back when a segment's onset is sought (the level is smoothed over 3 frames)
_ONSET_LOOKBACK = 3


def rising_onsets(rise: np.ndarray, least_db: np.ndarray, *, power_scale: float
                  ) -> np.ndarray:
    """Frames where a cone's rising bins (channel 9 of
    :func:`foakit.kernels.cone.cone_energy`) mark a source of its own starting.

    A source that starts while louder ones play rises less above the sound already in its
    bins than the ``onset_ratio`` test asks, while a reflection of another source's onset
    rises in the other source's cone with more energy.  A frame counts for a cone when its
    rising energy is at least ``least_db`` (dB) and more than every other cone's in that
    frame and the one before and after it.

    Parameters
    ----------
    rise : ndarray [shape=(n_tracks, n_frames)]
        In-cone energy of the rising bins (summed bin energies).
    least_db : ndarray [shape=(n_tracks,)]
        Least level (dB, after ``power_scale``) of a counted frame, per cone.
    power_scale : float
        Factor turning summed bin energies into mean-square power (Parseval).

    Returns
    -------
    ndarray [shape=(n_tracks, n_frames), dtype=bool]
    """
    r = np.asarray(rise, dtype=np.float64)
    level = 10.0 * np.log10(np.maximum(r * power_scale, 1e-20))
    out = level >= np.asarray(least_db, dtype=np.float64)[:, None]
    if len(r) > 1:
        near = r.copy()  # the most of each frame and its neighbours
        near[:, 1:] = np.maximum(near[:, 1:], r[:, :-1])
        near[:, :-1] = np.maximum(near[:, :-1], r[:, 1:])
        for k in range(len(r)):
            others = np.delete(near, k, axis=0).max(axis=0)
            out[k] &= r[k] > others
    return out


def _onset_support(act: np.ndarray, onset: np.ndarray, level: np.ndarray, *, ramp: int = 0,
                   ramp_db: float = 2.0, early: np.ndarray | None = None) -> None:
    """Cut each active segment of ``act`` (in place) back to where its first onset's attack
    starts; drop it when it has none.  (A sound already playing when the clip begins has
    its onset in the first frame: the onset test compares it with the silence before the
    clip.)

    The attack starts at the onset frame, or up to ``ramp`` frames before it while the
    cone's ``level`` (dB) climbs at least ``ramp_db`` each frame into it: a soft attack
    fills its cone before any of its bins rises by ``onset_ratio`` within ``onset_frames``,
    while another source's sound leaking into the cone holds its level, so no frame of it
    is taken.  A segment with an onset starts at an ``early`` frame (:func:`rising_onsets`)
    before it instead; ``early`` alone keeps no segment.  The start never moves before the
    segment's own."""
    for start, stop in segments(act):
        a = max(0, start - _ONSET_LOOKBACK)
        hit = np.flatnonzero(onset[a:stop])
        if len(hit) and early is not None:
            hit = np.flatnonzero(onset[a:stop] | early[a:stop])
        if len(hit):
            t = h = a + int(hit[0])
            while t > start and h - t < ramp and level[t - 1] <= level[t] - ramp_db:
                t -= 1
            act[start:max(start, t)] = 0
        else:
            act[start:stop] = 0


def _event(cone, axis, iv, start, stop, *, frame_rate, power_scale, params) -> Event | None:
    vec = cone[:, :3].sum(axis=0, dtype=np.float64)
    if not vec.any():
        return None
    fixed = bool((axis == axis[0]).all() and axis[0].any())
    # a fixed axis is a clip-level peak: its onset-weighted direction is better than the
    # in-cone mean, which reflections inside the cone pull about; better still are the
    # event's own onset bins in its cone, one unit vote each (params.onset_direction_bins)
    direction = vec
    if fixed:
        direction = axis[0]
        n_on = params.onset_direction_bins
        if n_on and cone.shape[1] > 8 and float(cone[:, 8].sum(dtype=np.float64)) >= n_on:
            own = cone[:, 5:8].sum(axis=0, dtype=np.float64)
            if own.any():
                direction = own
    az, el = vector_to_direction(direction)
    # motion: straight-line fit of the unwrapped azimuth of ~0.2 s blocks
    block = max(1, int(round(0.2 * frame_rate)))
    nb = len(cone) // block
    motion, az0, az1 = "stationary", float(az), float(az)
    if nb >= 3 and not fixed:
        bv = cone[: nb * block, :3].reshape(nb, block, 3).sum(axis=1, dtype=np.float64)
        bw = cone[: nb * block, 3].reshape(nb, block).sum(axis=1, dtype=np.float64)
        ok = bw > 0.05 * bw.max()
        if ok.sum() >= 3:
            baz, _ = vector_to_direction(bv[ok])
            baz = np.rad2deg(np.unwrap(np.deg2rad(baz)))
            tb = (np.flatnonzero(ok) + 0.5) * block / frame_rate
            slope, icpt = np.polyfit(tb, baz, 1, w=np.sqrt(bw[ok]))
            dur = (stop - start) / frame_rate
            change = slope * dur
            a_start = icpt + slope * 0.0
            az0 = float((a_start + 180.0) % 360.0 - 180.0)
            az1 = float((a_start + change + 180.0) % 360.0 - 180.0)
            if abs(change) >= params.motion_min_deg:
                motion = "left_to_right" if change < 0 else "right_to_left"
    e_sum = float(iv[:, 3].sum())
    psi = 1.0 - float(np.linalg.norm(iv[:, :3].sum(axis=0))) / e_sum if e_sum > 0 else 1.0
    psi = _clip(psi, 0.0, 1.0)
    lo, hi = params.distance_range_m
    # math.sqrt is np.sqrt (both exact); its arguments here are never negative
    dist = _clip(params.distance_rc_m * math.sqrt(psi / max(1.0 - psi, 1e-6)), lo, hi)
    w_in = float(cone[:, 3].sum())
    share = w_in / e_sum if e_sum > 0 else 0.0
    conf = _clip(math.sqrt(max(share, 0.0) * (1.0 - psi)), 0.0, 1.0)
    energy = 10.0 * np.log10(max(w_in * power_scale / max(stop - start, 1), 1e-20))
    return Event(
        onset_s=start / frame_rate,
        offset_s=stop / frame_rate,
        azimuth_deg=float(az),
        elevation_deg=float(el),
        distance_m=dist,
        distance_proxy="diffuseness",
        diffuseness=psi,
        motion=motion,
        azimuth_start_deg=az0,
        azimuth_end_deg=az1,
        confidence=conf,
        energy_db=float(energy),
        # the unit vector of the peak's rounded direction, as the motion test always read it
        peak_axis=np.array(_unit_vector(*map(float, vector_to_direction(axis[0]))))
        if fixed else None,
    )


def _clip(x: float, lo: float, hi: float) -> float:
    """``float(np.clip(x, lo, hi))`` for a Python float without NumPy's scalar overhead
    (NaN stays NaN and ``x`` wins ties, signed zeros included, as in NumPy)."""
    if x < lo:
        return lo
    return hi if x > hi else x


def _close(a: Event, b: Event, deg: float) -> bool:
    """``angular_distance(a, b) <= deg`` with each direction's unit vector made once: the
    dot product summed as np.sum sums three numbers, then NumPy's clip, arccos and
    rad2deg (the same bits)."""
    ax, ay, az = _unit_vector(a.azimuth_deg, a.elevation_deg)
    bx, by, bz = _unit_vector(b.azimuth_deg, b.elevation_deg)
    c = _clip(ax * bx + ay * by + az * bz, -1.0, 1.0)
    return float(np.rad2deg(np.arccos(c))) <= deg


@functools.lru_cache(maxsize=256)
def _unit_vector(az_deg: float, el_deg: float) -> tuple[float, float, float]:
    return tuple(direction_to_vector(az_deg, el_deg).tolist())


def _merge_duplicates(events: list[Event], params: AnalysisParams) -> list[Event]:
    """Merge stationary events from about the same direction that overlap or nearly touch
    (two tracks of one source)."""
    events = sorted(events, key=lambda e: e.onset_s)
    out: list[Event] = []
    for ev in events:
        for prev in out:
            if (prev.motion == ev.motion == "stationary"
                    and ev.onset_s <= prev.offset_s + params.merge_gap_s
                    and _close(prev, ev, params.track_gate_deg)):
                keep = prev if prev.confidence * (prev.offset_s - prev.onset_s) >= \
                    ev.confidence * (ev.offset_s - ev.onset_s) else ev
                prev.azimuth_deg, prev.elevation_deg = keep.azimuth_deg, keep.elevation_deg
                prev.peak_axis, prev.cone = keep.peak_axis, keep.cone
                prev.azimuth_start_deg = prev.azimuth_end_deg = keep.azimuth_deg
                prev.offset_s = max(prev.offset_s, ev.offset_s)
                prev.confidence = max(prev.confidence, ev.confidence)
                break
        else:
            out.append(ev)
    return out
