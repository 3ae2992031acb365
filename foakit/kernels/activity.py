"""Energy-based activity detection (Numba CPU kernels).

Double-threshold hysteresis: a run of frames above the *off* level is active when at least
one of its frames reaches the *on* level (symmetric in time, so onsets are not late by the
rise time).  Then runs separated by short gaps are merged and runs that stay short dropped.
The CUDA twin in :mod:`foakit.kernels.cuda` has the same signature (one thread per clip).
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = [
    "hysteresis",
    "clean_activity",
    "segments",
    "noise_floor",
    "percentile_pair",
    "median_f32",
    "cone_levels",
]


@numba.njit(cache=True, nogil=True)
def hysteresis_row(level, on, off, n, out):
    """One clip of :func:`hysteresis` (its source is also compiled as the CUDA twin's
    per-thread body)."""
    for t in range(out.shape[0]):
        out[t] = 0
    t = 0
    while t < n:
        if level[t] <= off:
            t += 1
            continue
        start = t
        hit = False
        while t < n and level[t] > off:
            if level[t] >= on:
                hit = True
            t += 1
        if hit:
            for u in range(start, t):
                out[u] = 1


@numba.njit(cache=True, nogil=True)
def clean_activity_row(active, n, max_gap, min_len):
    """One clip of :func:`clean_activity` (also the CUDA twin's per-thread body)."""
    last_end = -1  # one past the last active frame seen
    for t in range(n):
        if active[t]:
            if last_end >= 0 and 0 < t - last_end <= max_gap:
                for u in range(last_end, t):
                    active[u] = 1
            last_end = t + 1
    t = 0
    while t < n:
        if not active[t]:
            t += 1
            continue
        start = t
        while t < n and active[t]:
            t += 1
        if t - start < min_len:
            for u in range(start, t):
                active[u] = 0


@numba.njit(cache=True, nogil=True)
def hysteresis(level, on, off, n_valid, out):
    """Double-threshold activity per row.

    Parameters
    ----------
    level : ndarray [shape=(n_clips, n_frames), dtype=float32]
        Frame level (dB).
    on, off : ndarray [shape=(n_clips,), dtype=float32]
        Thresholds (dB), ``on >= off``.
    n_valid : ndarray [shape=(n_clips,), dtype=int64]
        Frames of each row that belong to the clip (rows are padded to a common length).
    out : ndarray [shape=(n_clips, n_frames), dtype=uint8]
        Output: 1 where active.
    """
    for b in range(level.shape[0]):
        hysteresis_row(level[b], on[b], off[b], n_valid[b], out[b])


@numba.njit(cache=True, nogil=True)
def clean_activity(active, n_valid, max_gap, min_len):
    """Merge gaps of at most ``max_gap`` frames, then drop runs shorter than ``min_len``.

    Parameters
    ----------
    active : ndarray [shape=(n_clips, n_frames), dtype=uint8]
        Modified in place.
    n_valid : ndarray [shape=(n_clips,), dtype=int64]
    max_gap, min_len : int
    """
    for b in range(active.shape[0]):
        clean_activity_row(active[b], n_valid[b], max_gap, min_len)


def segments(mask: np.ndarray) -> np.ndarray:
    """Runs of true values of a 1-D mask as ``[[start, stop), ...]`` (int64, shape (k, 2))."""
    m = np.concatenate([[False], np.asarray(mask, dtype=bool), [False]])
    d = np.flatnonzero(m[1:] != m[:-1])
    return d.reshape(-1, 2).astype(np.int64)


def noise_floor(level_db: np.ndarray, percentile: float) -> float:
    """Noise-floor estimate: a low percentile of the frame levels (dB)."""
    return float(np.percentile(level_db, percentile))


@numba.njit(cache=True, nogil=True)
def percentile_pair(values, q1, q2):
    """``float(np.percentile(values, q))`` for two percentiles of one float32 vector, from
    one sort, bit for bit.

    NumPy's linear method for a Python-number ``q``: virtual index ``(n - 1) q / 100``, the
    weight rounded to float32 (weak promotion) and its two-sided lerp in float32; NaN when
    ``values`` holds a NaN (as NumPy) or is empty (where NumPy raises).

    Parameters
    ----------
    values : ndarray [shape=(n,), dtype=float32]
    q1, q2 : float
        Percentiles in [0, 100].

    Returns
    -------
    tuple of float
    """
    srt = np.sort(values)
    if srt.shape[0] == 0 or np.isnan(srt[-1]):  # NaNs sort last
        return np.nan, np.nan
    return _sorted_percentile(srt, q1), _sorted_percentile(srt, q2)


@numba.njit(cache=True, nogil=True)
def _sorted_percentile(srt, q):
    n = srt.shape[0]
    vi = (n - 1) * (q / 100.0)
    if vi >= n - 1:  # NumPy takes the last element, with the weight of index -1
        prev = -1
        nxt = -1
    elif vi < 0:
        prev = 0
        nxt = 0
    else:
        prev = int(math.floor(vi))
        nxt = prev + 1
    gamma = vi - prev
    a = srt[prev]
    b = srt[nxt]
    d = b - a
    if gamma >= 0.5:
        return float(b - d * np.float32(1.0 - gamma))
    return float(a + d * np.float32(gamma))


@numba.njit(cache=True, nogil=True)
def median_f32(values):
    """``np.median`` of a float32 vector, bit for bit (the float32 mean of the two middle
    values for an even count; NaN when it holds a NaN or is empty)."""
    srt = np.sort(values)
    if srt.shape[0] == 0 or np.isnan(srt[-1]):
        return np.nan
    return float(_sorted_median(srt))


@numba.njit(cache=True, nogil=True)
def _sorted_median(srt):
    n = srt.shape[0]
    if n % 2 == 1:
        return srt[n // 2]
    # NumPy's mean of the two: their float32 sum (from the reduction's zero), halved
    return (np.float32(0.0) + srt[n // 2 - 1] + srt[n // 2]) / np.float32(2.0)


@numba.njit(cache=True, nogil=True)
def cone_levels(level, span, quiet, min_quiet, q, ref, noise):
    """Each cone's loud level and noise level, as NumPy computes them per row.

    Parameters
    ----------
    level : ndarray [shape=(n_cones, n_frames), dtype=float32]
        Smoothed in-cone level (dB).
    span : ndarray [shape=(n_cones, n_frames), dtype=bool]
        Frames in each cone's span.
    quiet : ndarray [shape=(n_frames,), dtype=bool]
        Frames where nothing is active.
    min_quiet : int
        Fewer quiet frames than this: no noise estimate.
    q : float
        Percentile of the loud level.
    ref, noise : ndarray [shape=(n_cones,)]
        Outputs: ``np.percentile(level[k, span[k]], q)`` (-200 for an empty span) and
        ``np.median(level[k, quiet])`` (-200 with fewer than ``min_quiet`` quiet frames).
    """
    n_cones, n_frames = level.shape
    buf = np.empty(n_frames, np.float32)
    n_quiet = 0
    for t in range(n_frames):
        if quiet[t]:
            n_quiet += 1
    for k in range(n_cones):
        m = 0
        for t in range(n_frames):
            if span[k, t]:
                buf[m] = level[k, t]
                m += 1
        if m == 0:
            ref[k] = -200.0
        else:
            srt = np.sort(buf[:m])
            ref[k] = np.nan if np.isnan(srt[-1]) else _sorted_percentile(srt, q)
        if n_quiet < min_quiet:
            noise[k] = -200.0
            continue
        m = 0
        for t in range(n_frames):
            if quiet[t]:
                buf[m] = level[k, t]
                m += 1
        srt = np.sort(buf[:m])
        noise[k] = np.nan if np.isnan(srt[-1]) else _sorted_median(srt)
