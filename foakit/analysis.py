"""One clip through the kernels: frame features, DOA histograms, activity and events.

``analyze_samples`` is the CPU (NumPy / Numba) path for one clip; ``foakit.corpus`` runs it
over folders.  Mono and stereo clips get energy and activity only (spatial fields empty).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from .conventions import angular_distance, direction_to_vector, vector_to_direction
from .events import (
    NO_DISTANCE,
    Event,
    echo_axes,
    events_from_cones,
    link_tracks,
    moving_or_stationary,
    moving_tracks,
    source_axes,
)
from .io import Clip
from .kernels.activity import (
    clean_activity,
    hysteresis,
    median_f32,
    percentile_pair,
    segments,
)
from .kernels.cone import CONE_CHANNELS, cone_energy
from .kernels.dirac import dirac_features, frame_sums, scale_bins, vote_totals
from .kernels.histogram import cell_centers, doa_histograms
from .kernels.peaks import blur_hist, gaussian_weights, pick_peaks
from .kernels.spatial import clip_histogram, frame_power, parseval_weights, whiten_weights
from .kernels.stft import hann, stft
from .params import AnalysisParams, StftGrid
from .sources import assign_sources, label_frame_motion, weak_sources_dropped

__all__ = ["ClipAnalysis", "analyze_clip", "analyze_samples", "detect_activity", "FRAME_COLUMNS",
           "steady_background"]

#: Columns of the per-frame table (frames.parquet), besides audio_id.
FRAME_COLUMNS = (
    "frame",
    "time_s",
    "energy_db",
    "active",
    "azimuth_deg",
    "elevation_deg",
    "diffuseness",
    "doa_weight",
    "source",
)


@dataclass
class ClipAnalysis:
    """Everything the analysis of one clip produced.

    Attributes
    ----------
    frames : dict of ndarray [shape=(n_frames,)]
        The per-frame table (:data:`FRAME_COLUMNS`).  ``azimuth_deg`` / ``elevation_deg`` are
        the direction of the non-diffuse bins' summed unit vectors, weighted by their
        whitened onset votes (NaN when none voted); ``doa_weight`` the fraction of the
        frame's band votes that passed the diffuseness gate; ``source`` the
        ``source`` id of the strongest event active in the frame (-1 for none).
    events : list of Event
    n_sources : int or None
        None for mono / stereo clips.
    hist : ndarray [shape=(n_az, n_el)] or None
        Clip DOA histogram over active frames.
    window_hist : ndarray [shape=(n_windows, n_az, n_el)] or None
    peaks : ndarray [shape=(n_windows, max_peaks, 4)] or None
    background : list of dict
        Steady directional sound through the whole clip that is not an event (a fan, an
        air conditioner): at most one entry, :func:`steady_background`'s keys.
    """

    sample_rate: int
    n_samples: int
    channels: int
    grid: StftGrid
    frames: dict[str, np.ndarray]
    events: list[Event]
    n_sources: int | None
    hist: np.ndarray | None = None
    window_hist: np.ndarray | None = None
    peaks: np.ndarray | None = None
    window_frames: int = 0
    extra: dict = field(default_factory=dict)
    background: list[dict] = field(default_factory=list)

    @property
    def duration_s(self) -> float:
        return self.n_samples / float(self.sample_rate)


def detect_activity(level_db: np.ndarray, params: AnalysisParams, frame_rate: float) -> np.ndarray:
    """Broadband activity of one clip from its frame levels (dB).

    Noise floor = ``floor_percentile`` of the levels; hysteresis at floor + ``act_on_db`` /
    + ``act_off_db``; gaps up to ``merge_gap_s`` merged, runs shorter than ``min_event_s``
    dropped.  A clip whose levels span less than ``act_on_db`` is all active when its median
    level is above ``abs_active_dbfs`` (one sound throughout) and all inactive otherwise.
    """
    level = np.asarray(level_db, dtype=np.float32)
    n = level.shape[0]
    # noise_floor's and the 95th percentile, NumPy's bits, from one sort (Numba)
    floor, top = percentile_pair(level, float(params.floor_percentile), 95.0)
    if top - floor < params.act_on_db:
        return np.full(n, np.median(level) > params.abs_active_dbfs, dtype=bool)
    out = np.zeros((1, n), dtype=np.uint8)
    nv = np.array([n], dtype=np.int64)
    hysteresis(level[None], np.array([floor + params.act_on_db], np.float32),
               np.array([floor + params.act_off_db], np.float32), nv, out)
    clean_activity(out, nv, int(round(params.merge_gap_s * frame_rate)),
                   int(round(params.min_event_s * frame_rate)))
    return out[0].astype(bool)


def analyze_clip(clip: Clip, *, params: AnalysisParams | None = None) -> ClipAnalysis:
    """Analyse a decoded :class:`~foakit.io.Clip` on the CPU."""
    return analyze_samples(clip.samples, clip.sample_rate, params=params)


def analyze_samples(
    samples: np.ndarray, sample_rate: int, *, params: AnalysisParams | None = None
) -> ClipAnalysis:
    """Analyse one clip on the CPU.

    Parameters
    ----------
    samples : ndarray [shape=(channels, n)]
        1, 2 or 4 channels; 4 channels are ambiX (ACN W, Y, Z, X; SN3D).
    sample_rate : int
    params : AnalysisParams, optional

    Returns
    -------
    ClipAnalysis
    """
    params = params or AnalysisParams()
    x = np.asarray(samples, dtype=np.float32)
    if x.ndim != 2 or x.shape[0] not in (1, 2, 4):
        from .errors import ParameterError

        raise ParameterError(f"samples must have shape (1|2|4, n), got {x.shape}")
    grid = params.grid(sample_rate)
    spec = stft(x, win_length=grid.win_length, hop_length=grid.hop_length, n_fft=grid.n_fft)
    wss = _window_sq_sum(grid.win_length)
    # one-sided bin energies -> mean-square power (Parseval); cones sum non-DC bins
    power_scale = 2.0 / (grid.n_fft * wss)
    n_frames = spec.shape[-2]
    frame_rate = grid.frame_rate
    times = np.arange(n_frames) / frame_rate
    frame_psi = np.full(n_frames, np.nan, np.float32)
    if x.shape[0] == 4:
        n_bins = spec.shape[-1]
        lo, hi = grid.band(params.fmin_hz, params.fmax_hz)
        intensity = np.empty((3, n_frames, n_bins), np.float32)
        energy = np.empty((n_frames, n_bins), np.float32)
        psi = np.empty((n_frames, n_bins), np.float32)
        votes = np.empty((n_frames, n_bins), np.float32)
        dirac_features(spec, params.smooth_frames, lo, hi, params.onset_ratio,
                       params.onset_frames, params.onset_floor, intensity, energy, psi,
                       frame_psi, votes)
    else:
        energy = (spec.real ** 2 + spec.imag ** 2).mean(axis=0)
        intensity = None
    if intensity is None:
        power = frame_power(energy, grid.n_fft, wss)
    else:  # the frame sums of the spatial steps in the same pass (Numba, the same bits)
        band = np.empty((4, n_frames), np.float32)
        power = np.empty(n_frames, np.float32)
        frame_sums(intensity, energy, lo, hi, parseval_weights(n_bins, grid.n_fft), band,
                   power)
        power /= grid.n_fft * wss
        # (n_frames, 4) in the column-major layout np.concatenate gave it: the events' sums
        # over its frames then run in the same order
        frame_iv = band.T
    level = 10.0 * np.log10(np.maximum(power, 1e-12))
    level = level.astype(np.float32)
    active = detect_activity(level, params, frame_rate)
    frames = {
        "frame": np.arange(n_frames, dtype=np.int32),
        "time_s": times.astype(np.float64),
        "energy_db": level,
        "active": active,
        "azimuth_deg": np.full(n_frames, np.nan, np.float32),
        "elevation_deg": np.full(n_frames, np.nan, np.float32),
        "diffuseness": frame_psi,
        "doa_weight": np.zeros(n_frames, np.float32),
        "source": np.full(n_frames, -1, np.int16),
    }
    if intensity is None:
        events = [
            Event(onset_s=float(a / frame_rate), offset_s=float(b / frame_rate),
                  confidence=1.0, energy_db=float(np.max(level[a:b])))
            for a, b in segments(active)
        ]
        for i, ev in enumerate(events):
            ev.source = i
            frames["source"][int(ev.onset_s * frame_rate):int(ev.offset_s * frame_rate)] = i
        return ClipAnalysis(sample_rate=grid.sample_rate, n_samples=x.shape[1],
                            channels=x.shape[0], grid=grid, frames=frames, events=events,
                            n_sources=None)
    return _spatial(x, grid, params, intensity, energy, psi, votes, frames, power_scale,
                    frame_iv)


@functools.lru_cache(maxsize=8)
def _window_sq_sum(win_length: int) -> float:
    return float(np.sum(hann(win_length).astype(np.float64) ** 2))


def _spatial(x, grid, params, intensity, energy, psi, votes, frames, power_scale, frame_iv
             ) -> ClipAnalysis:
    n_frames = energy.shape[0]
    lo, hi = grid.band(params.fmin_hz, params.fmax_hz)
    wf = params.window_frames(grid)
    n_win = (n_frames + wf - 1) // wf
    active = frames["active"]
    frame_window = np.where(active, np.arange(n_frames) // wf, -1).astype(np.int32)
    hist = np.zeros((n_win, params.az_bins, params.el_bins), np.float32)
    vsum = np.zeros((n_win, params.az_bins, params.el_bins, 3), np.float32)
    frame_vec = np.zeros((n_frames, 4), np.float32)
    pm = np.float32(params.psi_max)
    white, steady, band_votes = _whiten(votes, energy, psi, active, pm, lo, hi,
                                        params.vote_whitening)
    # next to the onset-weighted window histograms, the plain (not onset-weighted) clip
    # histogram, which finds steady sources
    sh = np.zeros((1, params.az_bins, params.el_bins), np.float32)
    sv = np.zeros((1, params.az_bins, params.el_bins, 3), np.float32)
    doa_histograms(intensity, white, steady, psi, frame_window,
                   np.where(active, 0, -1).astype(np.int32), lo, hi, pm, hist, vsum,
                   frame_vec, sh, sv)
    centers = cell_centers(params.az_bins, params.el_bins)
    peaks = np.zeros((n_win, params.max_sources, 4), np.float32)
    pick_peaks(hist, vsum, centers, params.peak_rel,
               np.cos(np.deg2rad(params.peak_min_sep_deg)),
               np.cos(np.deg2rad(params.peak_refine_deg)), peaks)
    set_doa_columns(frames, frame_vec, band_votes)
    clip_psi = clip_diffuseness(frames["diffuseness"], active)
    ch, cv = clip_histogram(hist, vsum, params.window_weighting)
    axes = clip_axes(peaks, ch, cv, n_frames, wf, params, sh[0], sv[0], clip_psi)
    cones = np.zeros((len(axes), n_frames, CONE_CHANNELS), np.float32)
    if len(axes):
        cone_energy(intensity, energy, votes, psi, lo, hi, pm, axes,
                    np.cos(np.deg2rad(params.cone_deg)), float(params.rise_onset_ratio),
                    params.onset_frames, n_frames, cones)
    return finish_clip(frames, cones, axes, frame_iv, grid=grid, n_samples=x.shape[1],
                       power_scale=power_scale, params=params, peaks=peaks, window_hist=hist,
                       window_frames=wf, clip_psi=clip_psi)


def _whiten(votes, energy, psi, active, psi_max, lo, hi, power):
    """``whiten_votes`` of the votes and of the energy: both totals in one pass, the shared
    per-bin step, then one scaling pass each (Numba; the same bits); and the band sums of
    the whitened votes."""
    n_frames, n_bins = votes.shape
    band = np.empty(n_frames, np.float32)
    white = np.empty_like(votes)
    if power == 0:
        scale_bins(votes, np.ones(n_bins), lo, hi, white, band)  # a copy, and the sums
        return votes, energy, band
    totals = np.empty((2, n_bins), np.float64)
    vote_totals(votes, energy, psi, active, psi_max, totals)
    weight = whiten_weights(totals, lo=lo, hi=hi, power=power)
    steady = np.empty_like(energy)
    scale_bins(votes, weight[0], lo, hi, white, band)
    # the steady votes' band sums are not used: an empty band skips them (0.02 ms a clip)
    scale_bins(energy, weight[1], lo, lo, steady, np.empty(n_frames, np.float32))
    return white, steady, band


# Host steps shared by the CPU path above and the GPU batches (foakit.gpu.batch).

def set_doa_columns(frames: dict, frame_vec: np.ndarray, band_votes: np.ndarray) -> None:
    """Per-frame direction and vote share from the histogram kernel's ``frame_vec``;
    ``band_votes`` is each frame's total (whitened) vote in the band, gated or not."""
    voted = frame_vec[:, 3] > 0
    az, el = vector_to_direction(frame_vec[:, :3])
    frames["azimuth_deg"] = np.where(voted, az, np.nan).astype(np.float32)
    frames["elevation_deg"] = np.where(voted, el, np.nan).astype(np.float32)
    frames["doa_weight"] = np.where(band_votes > 0, np.minimum(
        frame_vec[:, 3] / np.maximum(band_votes, 1e-30), 1.0), 0.0).astype(np.float32)


def clip_diffuseness(frame_psi: np.ndarray, active: np.ndarray) -> float:
    """Median broadband diffuseness of a clip's active frames (1 when none is active):
    about 0-0.2 for dry scenes, 0.5-0.9 in reverberant rooms."""
    vals = np.asarray(frame_psi)[np.asarray(active, dtype=bool)]
    vals = vals[np.isfinite(vals)]
    if not vals.size:
        return 1.0
    if vals.dtype == np.float32:
        return median_f32(vals)  # np.median's bits (Numba)
    return float(np.median(vals))


def clip_axes(peaks: np.ndarray, clip_hist: np.ndarray, clip_vsum: np.ndarray, n_frames: int,
              window_frames: int, params: AnalysisParams, steady_hist: np.ndarray | None = None,
              steady_vsum: np.ndarray | None = None, clip_psi: float = 1.0) -> np.ndarray:
    """Cone axes of one clip: peaks of its blurred onset-weighted clip histogram, then peaks
    of its plain energy histogram away from those (stationary sources), and moving tracks
    linked from its window peaks; after them, constant axes at long stationary tracks away
    from every other axis (``track_axis_windows``, :func:`_with_track_axes`).

    Parameters
    ----------
    peaks : ndarray [shape=(n_windows, max_sources, 4)]
    clip_hist : ndarray [shape=(n_az, n_el)]
        Onset-weighted votes (the direct sound of sources with onsets stands out of their
        reflections).
    clip_vsum : ndarray [shape=(n_az, n_el, 3)]
    steady_hist, steady_vsum : ndarray, optional
        The same with plain energy votes (sources that rarely rise, a hum, a tone);
        ``steady_peak_rel = 0`` or None skips them.
    clip_psi : float
        :func:`clip_diffuseness`; below ``dry_psi`` the lower ``*_dry`` peak thresholds apply
        (a dry scene makes no reflection peaks, so weaker sources can be trusted).

    Returns
    -------
    ndarray [shape=(n_axes, n_frames, 3), dtype=float32]
    """
    dry = clip_psi < params.dry_psi
    onset_rel = params.clip_peak_rel_dry if dry else params.clip_peak_rel
    steady_rel = params.steady_peak_rel_dry if dry else params.steady_peak_rel
    clip_peaks = np.zeros((1, params.max_sources, 4), np.float32)
    pick_peaks(_blur(clip_hist, params.clip_blur_cells)[None], clip_vsum[None],
               cell_centers(params.az_bins, params.el_bins), onset_rel,
               np.cos(np.deg2rad(params.peak_min_sep_deg)),
               np.cos(np.deg2rad(params.peak_refine_deg)), clip_peaks)
    found = clip_peaks[0][clip_peaks[0][:, 3] > 0]
    if steady_hist is not None and steady_rel > 0:
        sp = np.zeros((1, params.max_sources, 4), np.float32)
        pick_peaks(_blur(steady_hist, params.clip_blur_cells)[None], steady_vsum[None],
                   cell_centers(params.az_bins, params.el_bins), steady_rel,
                   np.cos(np.deg2rad(params.peak_min_sep_deg)),
                   np.cos(np.deg2rad(params.peak_refine_deg)), sp)
        cos_sep = np.cos(np.deg2rad(params.peak_min_sep_deg))
        extra = [p for p in sp[0] if p[3] > 0 and (len(found) == 0 or
                                                   np.max(found[:, :3] @ p[:3]) < cos_sep)]
        if extra:
            found = np.concatenate([found, np.asarray(extra)])[: params.max_sources]
    tracks = link_tracks(peaks, params)
    moving = moving_tracks(tracks, params)
    axes = source_axes(found, moving, n_frames, window_frames, params)
    return _with_track_axes(axes, tracks, moving, params)


def _with_track_axes(axes: np.ndarray, tracks: list, moving: list,
                     params: AnalysisParams) -> np.ndarray:
    """``axes`` and, after them (the weakest for :func:`echo_axes`), a constant axis at each
    stationary track of at least ``track_axis_windows`` windows (their weighted mean
    direction) that lies ``track_axis_sep_deg`` or more from every axis' mean direction and
    from the tracks taken before it, longest first."""
    if params.track_axis_windows <= 0:
        return axes
    moved = {id(t) for t in moving}
    cos_sep = np.cos(np.deg2rad(params.track_axis_sep_deg))
    means = axes.sum(axis=1, dtype=np.float64)
    dirs = [m / n for m, n in zip(means, np.linalg.norm(means, axis=1), strict=True) if n > 0]
    extra: list[np.ndarray] = []
    long = [t for t in tracks if id(t) not in moved and len(t.windows) >= params.track_axis_windows]
    for tr in sorted(long, key=lambda t: -len(t.windows)):
        v = np.sum(np.asarray(tr.vecs, np.float64) * np.asarray(tr.weights)[:, None], axis=0)
        norm = np.linalg.norm(v)
        if norm == 0 or any(float(v @ d) >= cos_sep * norm for d in dirs + extra):
            continue
        extra.append(v / norm)
    if not extra:
        return axes
    add = np.broadcast_to(np.asarray(extra, np.float32)[:, None, :],
                          (len(extra), axes.shape[1], 3))
    return np.ascontiguousarray(np.concatenate([axes, add]), dtype=np.float32)


def finish_clip(frames: dict, cones: np.ndarray, axes: np.ndarray, frame_iv: np.ndarray, *,
                grid: StftGrid, n_samples: int, power_scale: float, params: AnalysisParams,
                peaks: np.ndarray, window_hist: np.ndarray | None, window_frames: int,
                clip_psi: float | None = None) -> ClipAnalysis:
    """Events, source ids and the :class:`ClipAnalysis` of one FOA clip from its cones
    (``clip_psi``: its :func:`clip_diffuseness`, when already known)."""
    fr = grid.frame_rate
    n_frames = len(frames["active"])
    if clip_psi is None:
        clip_psi = clip_diffuseness(frames["diffuseness"], frames["active"])
    # reflections and reverberant leakage are what the onset tests guard against; a dry clip
    # has neither, and there overlapping sources may start without clean onsets of their own
    wet = clip_psi >= params.dry_psi
    if len(axes) > 1:
        keep = moving_or_stationary(cones, axes, params)
        cones, axes = cones[keep], axes[keep]
    if wet and len(axes) > 1 and cones.shape[2] > 4:
        keep = echo_axes(cones[..., 4], params.echo_share)
        cones, axes = cones[keep], axes[keep]
    events = events_from_cones(cones, axes, frames["active"], frame_iv, frame_rate=fr,
                               power_scale=power_scale, params=params, onset_support=wet)
    frame_doa = _frame_doa(frames)
    background = steady_background(frame_iv, frames["active"], frame_rate=fr,
                                   power_scale=power_scale, frame_doa=frame_doa)
    if background:
        events = [ev for ev in events if not _is_background(ev, background[0], n_frames / fr)]
    n_sources = assign_sources(events, params)
    if params.min_source_confidence > 0 and n_sources > 1:
        events = weak_sources_dropped(events, params.min_source_confidence)
        n_sources = assign_sources(events, params)
    # motion labels of the events the cones call stationary, from their cone's onset bins
    # and the per-frame DOA
    label_frame_motion(events, frame_doa, frame_rate=fr, params=params, cones=cones)
    if clip_psi < params.distance_min_psi:
        for ev in events:  # no reverberation to weigh the direct sound against
            ev.distance_m, ev.distance_proxy = None, NO_DISTANCE
    _mark_sources(frames, events, fr)
    return ClipAnalysis(
        sample_rate=grid.sample_rate, n_samples=int(n_samples), channels=4, grid=grid,
        frames=frames, events=events, n_sources=n_sources,
        hist=None if window_hist is None else window_hist.sum(axis=0),
        window_hist=window_hist, peaks=peaks, window_frames=window_frames,
        background=background,
    )


#: Parts of the clip whose quiet frames are compared (a background lasts the whole clip)
BACKGROUND_PARTS = 4
#: Least directness (|summed intensity| / summed energy) of the quiet frames of each part
#: with enough of them; an isotropic noise floor sums to about 0
BACKGROUND_MIN_DIRECTNESS = 0.07
#: Most angle (degrees) between a part's quiet-frame direction and the clip's
BACKGROUND_MAX_SPREAD_DEG = 30.0
#: Least quiet time (s) in a part for it to count, and parts that must count
BACKGROUND_MIN_QUIET_S = 0.25
BACKGROUND_MIN_PARTS = 2
#: A clip quiet in one part only (sources play through the rest) has its background read
#: there when that part holds this much quiet time (s) this directly
BACKGROUND_ONE_PART_S = 1.0
BACKGROUND_ONE_PART_DIRECTNESS = 0.15
#: One counted part may point elsewhere (a source's tail outweighs the floor in its quiet
#: frames) when it is itself directional and the agreeing parts hold this share of the
#: counted quiet frames
BACKGROUND_AGREE_SHARE = 0.5
#: Events within this angle (degrees) of the background that start with the clip (first
#: 0.1 s), last most of it (``BACKGROUND_SPAN``) or are no louder than its level plus
#: ``BACKGROUND_ABOVE_DB`` are the background, not sources (a source near a fan and louder
#: than it stays)
BACKGROUND_EVENT_DEG = 25.0
BACKGROUND_SPAN = 0.8
BACKGROUND_ABOVE_DB = 0.0
#: An event from elsewhere that starts with the clip and is this much quieter than the
#: background is one of its reflections
BACKGROUND_BELOW_DB = 5.0


def steady_background(frame_iv: np.ndarray, active: np.ndarray, *, frame_rate: float,
                      power_scale: float, frame_doa: np.ndarray | None = None) -> list[dict]:
    """The steady directional background of a clip, from its quiet (inactive) frames.

    Between and around the events the noise floor remains: an isotropic one's intensity
    vectors cancel, a fan's point at it.  The clip is cut into :data:`BACKGROUND_PARTS`
    parts; the quiet frames of each part with at least :data:`BACKGROUND_MIN_QUIET_S` of
    them give a directness and a direction: the length and direction of the mean of their
    band intensity vectors, each over its frame's band energy.
    A background is reported when at least :data:`BACKGROUND_MIN_PARTS` parts count, all
    of them at least :data:`BACKGROUND_MIN_DIRECTNESS` direct and within
    :data:`BACKGROUND_MAX_SPREAD_DEG` of the direction of all quiet frames together; or when
    all but one do and that one is directional too but points elsewhere (a source's tail
    outweighs the floor in its few quiet frames), the others holding at least
    :data:`BACKGROUND_AGREE_SHARE` of the counted quiet frames (an isotropic part says the
    floor's direction went away: no background); or when a single part counts with at
    least :data:`BACKGROUND_ONE_PART_S` of quiet time at least
    :data:`BACKGROUND_ONE_PART_DIRECTNESS` direct (sources fill the rest of the clip).  Its
    direction is then read from the per-frame DOA (``frame_doa``: non-diffuse bins,
    whitened across frequency) of the quiet frames it was found in, which the band sums'
    loud low frequencies and their room reflections do not pull about.

    Parameters
    ----------
    frame_iv : ndarray [shape=(n_frames, 4)]
        Band sums of intensity (x, y, z) and energy per frame.
    active : ndarray [shape=(n_frames,), dtype=bool]
        Broadband activity.
    frame_rate : float
    power_scale : float
        Factor turning summed bin energies into mean-square power (Parseval).
    frame_doa : ndarray [shape=(n_frames, 4)], optional
        Per-frame DOA unit vector and weight (zero where no bin voted); without it, or
        where no quiet frame voted, the direction is that of the mean normalised intensity.

    Returns
    -------
    list of dict
        Empty, or one dict: ``azimuth_deg``, ``elevation_deg`` (of the quiet frames'
        weighted per-frame DOA), ``level_db`` (band power of its directional part, dBFS on
        W: the median quiet frame's band power times the directness), ``directness``
        (0-1: the length of that mean) and ``quiet_s`` (the quiet time it was measured on).
    """
    iv = np.asarray(frame_iv, dtype=np.float64)
    quiet = ~np.asarray(active, dtype=bool) & (iv[:, 3] > 0)
    n = len(quiet)
    least = max(1, int(round(BACKGROUND_MIN_QUIET_S * frame_rate)))
    if n == 0 or quiet.sum() < least * BACKGROUND_MIN_PARTS:
        return []
    # each frame's intensity over its energy: the loud decaying tails of sources that fall
    # in quiet frames weigh no more than the floor's own frames
    unit = np.zeros((n, 3))
    unit[quiet] = iv[quiet, :3] / iv[quiet, 3:4]
    bounds = np.linspace(0, n, BACKGROUND_PARTS + 1).round().astype(int)
    parts = []  # (mean unit vector, quiet frames) of each part with enough of them
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        q = np.zeros(n, dtype=bool)
        q[a:b] = quiet[a:b]
        if q.sum() >= least:
            parts.append((unit[q].mean(axis=0), q))
    used = _background_frames(parts, quiet, unit, frame_rate)
    if used is None:
        return []
    vec = unit[used].mean(axis=0)
    directness = float(np.linalg.norm(vec))
    az, el = vector_to_direction(vec)
    if frame_doa is not None:
        fd = np.asarray(frame_doa, dtype=np.float64)[used]
        dv = (fd[:, :3] * fd[:, 3:4]).sum(axis=0)
        if np.linalg.norm(dv) > 0:
            az, el = vector_to_direction(dv)
    n_quiet = int(used.sum())
    # the median quiet frame's band power times the directness: the directional part
    power = float(np.median(iv[used, 3])) * power_scale * directness
    return [{
        "azimuth_deg": round(float(az), 2),
        "elevation_deg": round(float(el), 2),
        "level_db": round(10.0 * math.log10(max(power, 1e-20)), 2),
        "directness": round(directness, 4),
        "quiet_s": round(n_quiet / frame_rate, 3),
    }]


def _background_frames(parts: list, quiet: np.ndarray, unit: np.ndarray,
                       frame_rate: float) -> np.ndarray | None:
    """The quiet frames a steady background is read from (see :func:`steady_background`),
    or None when the parts do not show one."""
    if len(parts) == 1:
        p, q = parts[0]
        if (q.sum() >= BACKGROUND_ONE_PART_S * frame_rate
                and float(np.linalg.norm(p)) >= BACKGROUND_ONE_PART_DIRECTNESS):
            return q
        return None
    if len(parts) < BACKGROUND_MIN_PARTS:
        return None
    cos_spread = math.cos(math.radians(BACKGROUND_MAX_SPREAD_DEG))

    def apart(ps, vec):
        d = float(np.linalg.norm(vec))
        return [j for j, (p, _) in enumerate(ps)
                if (pn := float(np.linalg.norm(p))) < BACKGROUND_MIN_DIRECTNESS
                or float(p @ vec) < cos_spread * pn * d]

    off = apart(parts, unit[quiet].mean(axis=0))
    if not off:
        return quiet
    if len(off) > 1 or float(np.linalg.norm(parts[off[0]][0])) < BACKGROUND_MIN_DIRECTNESS:
        return None
    rest = [pq for j, pq in enumerate(parts) if j != off[0]]
    used = np.logical_or.reduce([q for _, q in rest])
    counted = sum(int(q.sum()) for _, q in parts)
    if (len(rest) < BACKGROUND_MIN_PARTS or used.sum() < BACKGROUND_AGREE_SHARE * counted
            or apart(rest, unit[used].mean(axis=0))):
        return None
    return used


def _is_background(ev: Event, bg: dict, duration_s: float) -> bool:
    """Whether an event is the background or one of its reflections: from its direction,
    an event that starts with the clip, lasts most of it or is no louder than it (the
    background's own wobble); from elsewhere, one that starts with the clip well
    below the background's level (a reflection of the sound already playing)."""
    if ev.azimuth_deg is None or ev.elevation_deg is None or ev.energy_db is None:
        return False
    near = angular_distance(ev.azimuth_deg, ev.elevation_deg, bg["azimuth_deg"],
                            bg["elevation_deg"]) <= BACKGROUND_EVENT_DEG
    early = ev.onset_s <= 0.1
    if near:
        long = ev.offset_s - ev.onset_s >= BACKGROUND_SPAN * duration_s
        return bool(early or long or ev.energy_db < bg["level_db"] + BACKGROUND_ABOVE_DB)
    return bool(early and ev.energy_db < bg["level_db"] - BACKGROUND_BELOW_DB)


def _blur(h: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of an (azimuth, elevation) histogram, circular in azimuth."""
    if sigma <= 0:
        return h
    out = np.empty(h.shape, np.float32)
    blur_hist(np.ascontiguousarray(h, dtype=np.float32), gaussian_weights(float(sigma)), out)
    return out


def _frame_doa(frames: dict) -> np.ndarray:
    """Per-frame DOA unit vector and weight (zero where no bin voted) from the frame table."""
    az = frames["azimuth_deg"].astype(np.float64)
    el = frames["elevation_deg"].astype(np.float64)
    voted = np.isfinite(az) & np.isfinite(el)
    out = np.zeros((len(az), 4))
    out[voted, :3] = direction_to_vector(az[voted], el[voted])
    out[voted, 3] = frames["doa_weight"][voted]
    return out


def _mark_sources(frames: dict, events: list[Event], frame_rate: float) -> None:
    src = frames["source"]
    for ev in sorted(events, key=lambda e: e.confidence):  # strongest written last
        a = int(round(ev.onset_s * frame_rate))
        b = int(round(ev.offset_s * frame_rate))
        src[a:b] = ev.source
