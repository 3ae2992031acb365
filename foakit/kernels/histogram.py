"""Weighted azimuth x elevation DOA histograms (Numba CPU kernel).

Bins whose diffuseness exceeds ``psi_max`` do not vote.  Next to the weights, each cell
keeps the weighted sum of unit vectors that fell in it, so peaks can be refined below the
cell size, and each frame keeps the weighted sum of its voting vectors (its dominant
direction).  The CUDA twin in :mod:`foakit.kernels.cuda` has the same signature.
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np

__all__ = ["doa_histograms", "cell_index", "cell_centers", "fast_atan2"]


@numba.njit(cache=True, inline="always")
def fast_atan2(y: float, x: float) -> float:
    """atan2 to within 1e-5 rad (a minimax polynomial): plenty for 5-degree cells and
    several times faster than libm's.  The CUDA twin uses the same polynomial."""
    # plain comparisons, not abs/min/max: this source is also compiled for CUDA devices
    ax = -x if x < 0.0 else x
    ay = -y if y < 0.0 else y
    mx = ax if ax > ay else ay
    if mx == 0.0:
        return 0.0
    a = (ay if ax > ay else ax) / mx
    s = a * a
    r = ((-0.0464964749 * s + 0.15931422) * s - 0.327622764) * s * a + a
    if ay > ax:
        r = 0.5 * math.pi - r
    if x < 0.0:
        r = math.pi - r
    if y < 0.0:
        r = -r
    return r


@numba.njit(cache=True, inline="always")
def cell_index(ux: float, uy: float, uz: float, n_az: int, n_el: int) -> tuple[int, int]:
    """Histogram cell of a direction vector (any length > 0)."""
    az = fast_atan2(uy, ux)
    el = fast_atan2(uz, math.sqrt(ux * ux + uy * uy))
    ia = int(math.floor((az + math.pi) / (2.0 * math.pi) * n_az))
    ie = int(math.floor((el + 0.5 * math.pi) / math.pi * n_el))
    if ia >= n_az:
        ia -= n_az
    if ia < 0:
        ia += n_az
    if ie >= n_el:
        ie = n_el - 1
    if ie < 0:
        ie = 0
    return ia, ie


# error_model="numpy": no zero-division test (blocks vectorisation); the kernel never divides
# by zero (non-voting bins are scaled by 1)
@numba.njit(cache=True, inline="always", error_model="numpy")
def band_unit_vectors(intensity, psi, t, lo, hi, psi_max, vote, ux, uy, uz):
    """Unit intensity vectors of frame ``t``'s bins ``lo <= f < hi`` into ``ux, uy, uz``
    and which of them vote (``vote``: not more diffuse than ``psi_max``, a non-zero
    intensity); a branch-free loop LLVM vectorises (non-voting bins are scaled by 1).
    Shared by the CPU histogram and cone kernels."""
    bx = intensity[0, t, lo:hi]
    by = intensity[1, t, lo:hi]
    bz = intensity[2, t, lo:hi]
    bp = psi[t, lo:hi]
    for j in range(hi - lo):
        ix = bx[j]
        iy = by[j]
        iz = bz[j]
        norm = math.sqrt(ix * ix + iy * iy + iz * iz)
        ok = not bp[j] > psi_max and not norm <= 0.0  # negated: NaN votes, as ever
        vote[j] = ok
        nn = norm if ok else np.float32(1.0)
        ux[j] = ix / nn
        uy[j] = iy / nn
        uz[j] = iz / nn


@numba.njit(cache=True, nogil=True, error_model="numpy")
def doa_histograms(intensity, votes, energy, psi, frame_window, steady_window, lo, hi, psi_max,
                   hist, vsum, frame_vec, steady_hist, steady_vsum):
    """Accumulate the two DOA histograms of one clip (or batch) in one pass over the bins.

    Every non-diffuse bin is binned once and votes into the onset-weighted histograms
    (weight ``votes``, windows ``frame_window``; per-frame sums in ``frame_vec``) and into the
    plain-energy "steady" histograms (weight ``energy``, windows ``steady_window``).  Each
    histogram receives its votes in the order two separate passes gave (frames, then bins),
    so the sums are the same bit for bit.

    Parameters
    ----------
    intensity : ndarray [shape=(3, n_frames, n_bins), dtype=float32]
        Active intensity (Ix, Iy, Iz) per bin.
    votes, energy, psi : ndarray [shape=(n_frames, n_bins), dtype=float32]
        Onset-weighted vote weight, energy (the steady vote weight) and diffuseness per bin.
    frame_window, steady_window : ndarray [shape=(n_frames,), dtype=int32]
        Window of each frame in ``hist`` / ``steady_hist``; -1: the frame does not vote
        there (``frame_vec`` gets its votes whatever its window).
    lo, hi : int
        Bins ``lo <= f < hi`` vote.
    psi_max : float
        Bins with ``psi > psi_max`` do not vote.
    hist : ndarray [shape=(n_windows, n_az, n_el), dtype=float32]
        Output, accumulated into: ``votes`` per cell.  The four histogram outputs must be
        C-contiguous.
    vsum : ndarray [shape=(n_windows, n_az, n_el, 3), dtype=float32]
        Output, accumulated into: ``votes``-weighted unit vectors per cell.
    frame_vec : ndarray [shape=(n_frames, 4), dtype=float32]
        Output, accumulated into: per frame ``votes``-weighted unit-vector sum (x, y, z) and
        weight.
    steady_hist : ndarray [shape=(n_steady, n_az, n_el), dtype=float32]
        Output, accumulated into: ``energy`` per cell.
    steady_vsum : ndarray [shape=(n_steady, n_az, n_el, 3), dtype=float32]
        Output, accumulated into: ``energy``-weighted unit vectors per cell.
    """
    n_frames = votes.shape[0]
    n_az = hist.shape[1]
    n_el = hist.shape[2]
    nb = max(hi - lo, 0)
    # per frame: unit vectors and cells of all band bins first (branch-free loops that LLVM
    # vectorises), then the votes in bin order (the sums' order, hence their bits, unchanged)
    vote = np.empty(nb, np.bool_)
    ux_ = np.empty(nb, np.float32)
    uy_ = np.empty(nb, np.float32)
    uz_ = np.empty(nb, np.float32)
    cell_ = np.empty(nb, np.int64)
    for t in range(n_frames):
        w_idx = frame_window[t]
        s_idx = steady_window[t]
        band_unit_vectors(intensity, psi, t, lo, hi, psi_max, vote, ux_, uy_, uz_)
        if w_idx >= 0 or s_idx >= 0:
            for j in range(nb):
                ia, ie = cell_index(ux_[j], uy_[j], uz_[j], n_az, n_el)
                cell_[j] = ia * n_el + ie
        # the frame's histograms as flat views (C-contiguous, as the callers make them), each
        # vote addressed by one cell index (fewer index computations per vote than 3-D and
        # 4-D indexing; the same additions in the same order)
        hw = hist[max(w_idx, 0)].reshape(n_az * n_el)
        vw = vsum[max(w_idx, 0)].reshape(n_az * n_el * 3)
        sw = steady_hist[max(s_idx, 0)].reshape(n_az * n_el)
        svw = steady_vsum[max(s_idx, 0)].reshape(n_az * n_el * 3)
        # the frame's sums in registers (same float32 additions in the same order)
        fx = frame_vec[t, 0]
        fy = frame_vec[t, 1]
        fz = frame_vec[t, 2]
        fw = frame_vec[t, 3]
        for j in range(nb):
            if not vote[j]:
                continue
            f = lo + j
            wgt = votes[t, f]
            ux = ux_[j]
            uy = uy_[j]
            uz = uz_[j]
            fx += wgt * ux
            fy += wgt * uy
            fz += wgt * uz
            fw += wgt
            c = cell_[j]
            if w_idx >= 0:
                hw[c] += wgt
                vw[3 * c] += wgt * ux
                vw[3 * c + 1] += wgt * uy
                vw[3 * c + 2] += wgt * uz
            if s_idx >= 0:
                e = energy[t, f]
                sw[c] += e
                svw[3 * c] += e * ux
                svw[3 * c + 1] += e * uy
                svw[3 * c + 2] += e * uz
        frame_vec[t, 0] = fx
        frame_vec[t, 1] = fy
        frame_vec[t, 2] = fz
        frame_vec[t, 3] = fw


@functools.lru_cache(maxsize=8)
def cell_centers(n_az: int, n_el: int) -> np.ndarray:
    """Unit vectors of cell centres, shape ``(n_az, n_el, 3)`` (cached: treat as read-only)."""
    az = -np.pi + (np.arange(n_az) + 0.5) * 2 * np.pi / n_az
    el = -np.pi / 2 + (np.arange(n_el) + 0.5) * np.pi / n_el
    a, e = np.meshgrid(az, el, indexing="ij")
    return np.stack([np.cos(a) * np.cos(e), np.sin(a) * np.cos(e), np.sin(e)], axis=-1)
