"""Peak picking on DOA histograms, several sources per window (Numba CPU kernel).

Each window's histogram is smoothed with a 3 x 3 [1 2 1] kernel (circular in azimuth), local
maxima are taken in decreasing height while they are at least ``rel`` of the highest and at
least ``min_sep`` away from every peak already taken, and each peak's direction is refined as
the normalised sum of the unit vectors that voted into cells within ``refine`` of it.
:func:`blur_hist` is the Gaussian blur of clip histograms before their peaks are picked.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

__all__ = ["pick_peaks", "blur_hist", "gaussian_weights"]


@numba.njit(cache=True, nogil=True, inline="always")
def _smooth(h, out):
    """``out[a, e]``: the [1 2 1] x [1 2 1] sum around cell (a, e) in float64, circular in
    azimuth, the terms added in the order (da, de) = (-1, -1), (-1, 0), ... (+1, +1) with
    out-of-range elevations skipped.  Rows are walked with their neighbours' indices worked
    out once (no modulo per term) and the interior cells in a loop LLVM vectorises; each
    cell still gets the same terms in the same order (the same bits)."""
    n_az, n_el = h.shape
    for a in range(n_az):
        hm = h[a - 1 if a > 0 else n_az - 1]
        h0 = h[a]
        hp = h[a + 1 if a < n_az - 1 else 0]
        o = out[a]
        if n_el == 1:
            o[0] = ((0.0 + 2.0 * hm[0]) + 4.0 * h0[0]) + 2.0 * hp[0]
            continue
        last = n_el - 1
        o[0] = (((((0.0 + 2.0 * hm[0]) + 1.0 * hm[1]) + 4.0 * h0[0]) + 2.0 * h0[1])
                + 2.0 * hp[0]) + 1.0 * hp[1]
        for e in range(1, last):
            o[e] = ((((((((0.0 + 1.0 * hm[e - 1]) + 2.0 * hm[e]) + 1.0 * hm[e + 1])
                        + 2.0 * h0[e - 1]) + 4.0 * h0[e]) + 2.0 * h0[e + 1])
                     + 1.0 * hp[e - 1]) + 2.0 * hp[e]) + 1.0 * hp[e + 1]
        o[last] = (((((0.0 + 1.0 * hm[last - 1]) + 2.0 * hm[last]) + 2.0 * h0[last - 1])
                    + 4.0 * h0[last]) + 1.0 * hp[last - 1]) + 2.0 * hp[last]


@numba.njit(cache=True, nogil=True)
def _any_positive(h):
    for a in range(h.shape[0]):
        for e in range(h.shape[1]):
            if h[a, e] > 0.0:
                return True
    return False


@numba.njit(cache=True, nogil=True)
def pick_peaks(hist, vsum, centers, rel, cos_min_sep, cos_refine, peaks):
    """Pick and refine up to ``peaks.shape[1]`` peaks per window.

    Parameters
    ----------
    hist : ndarray [shape=(n_windows, n_az, n_el), dtype=float32]
    vsum : ndarray [shape=(n_windows, n_az, n_el, 3), dtype=float32]
    centers : ndarray [shape=(n_az, n_el, 3), dtype=float64]
        Cell-centre unit vectors (:func:`foakit.kernels.histogram.cell_centers`).
    rel : float
        Peaks lower than ``rel`` times the highest smoothed cell are dropped.
    cos_min_sep, cos_refine : float
        Cosines of the minimum peak separation and of the refinement radius.
    peaks : ndarray [shape=(n_windows, max_peaks, 4), dtype=float32]
        Output: refined unit vector (x, y, z) and the weight within the refinement radius,
        strongest first; unused slots have weight 0.
    """
    n_win, n_az, n_el = hist.shape
    max_peaks = peaks.shape[1]
    sm = np.empty((n_az, n_el), dtype=np.float64)
    cand_a = np.empty(n_az * n_el, dtype=np.int64)
    cand_e = np.empty(n_az * n_el, dtype=np.int64)
    cand_v = np.empty(n_az * n_el, dtype=np.float64)
    for w in range(n_win):
        for k in range(max_peaks):
            for c in range(4):
                peaks[w, k, c] = 0.0
        if not _any_positive(hist[w]):
            continue  # its smoothed maximum would be <= 0 too: no peak (inactive windows)
        _smooth(hist[w], sm)
        top = 0.0
        for a in range(n_az):
            for e in range(n_el):
                if sm[a, e] > top:
                    top = sm[a, e]
        if top <= 0.0:
            continue
        n_cand = 0
        for a in range(n_az):
            for e in range(n_el):
                v = sm[a, e]
                if v < rel * top:
                    continue
                is_max = True
                for da in range(-1, 2):
                    aa = (a + da) % n_az
                    for de in range(-1, 2):
                        ee = e + de
                        if (da == 0 and de == 0) or ee < 0 or ee >= n_el:
                            continue
                        nv = sm[aa, ee]
                        # ties broken towards the lower index so a plateau gives one peak
                        if nv > v or (nv == v and (aa * n_el + ee) < (a * n_el + e)):
                            is_max = False
                if is_max:
                    cand_a[n_cand] = a
                    cand_e[n_cand] = e
                    cand_v[n_cand] = v
                    n_cand += 1
        order = np.argsort(-cand_v[:n_cand])
        n_taken = 0
        for oi in range(n_cand):
            if n_taken >= max_peaks:
                break
            a = cand_a[order[oi]]
            e = cand_e[order[oi]]
            cx = centers[a, e, 0]
            cy = centers[a, e, 1]
            cz = centers[a, e, 2]
            close = False
            for k in range(n_taken):
                d = cx * peaks[w, k, 0] + cy * peaks[w, k, 1] + cz * peaks[w, k, 2]
                if d > cos_min_sep:
                    close = True
                    break
            if close:
                continue
            sx = 0.0
            sy = 0.0
            sz = 0.0
            sw = 0.0
            for a2 in range(n_az):
                for e2 in range(n_el):
                    h = hist[w, a2, e2]
                    if h <= 0.0:
                        continue
                    d = cx * centers[a2, e2, 0] + cy * centers[a2, e2, 1] + cz * centers[a2, e2, 2]
                    if d >= cos_refine:
                        sx += vsum[w, a2, e2, 0]
                        sy += vsum[w, a2, e2, 1]
                        sz += vsum[w, a2, e2, 2]
                        sw += h
            nrm = np.sqrt(sx * sx + sy * sy + sz * sz)
            if nrm <= 0.0:
                continue
            peaks[w, n_taken, 0] = sx / nrm
            peaks[w, n_taken, 1] = sy / nrm
            peaks[w, n_taken, 2] = sz / nrm
            peaks[w, n_taken, 3] = sw
            n_taken += 1


@functools.lru_cache(maxsize=8)
def gaussian_weights(sigma: float) -> np.ndarray:
    """Taps of :func:`blur_hist`: a normalised Gaussian over ``int(4 sigma + 0.5)`` cells each
    side, computed as ``scipy.ndimage.gaussian_filter`` computes its own (cached: treat as
    read-only).

    Parameters
    ----------
    sigma : float
        Standard deviation in cells, > 0.

    Returns
    -------
    ndarray [shape=(2 * radius + 1,), dtype=float64]
    """
    radius = int(4.0 * float(sigma) + 0.5)
    x = np.arange(-radius, radius + 1)
    phi = np.exp(-0.5 / (sigma * sigma) * x ** 2)
    return phi / phi.sum()


@numba.njit(cache=True, nogil=True)
def blur_hist(h, weights, out):
    """Gaussian blur of an (azimuth, elevation) histogram, circular in azimuth, edge cells
    held in elevation.

    The same bits as ``scipy.ndimage.gaussian_filter(h, sigma, mode=("wrap", "nearest"))``
    with ``weights = gaussian_weights(sigma)``: azimuth first, then elevation; each pass
    sums in float64 the centre tap, then the symmetric pairs from the outermost in, and
    rounds to float32.

    Parameters
    ----------
    h : ndarray [shape=(n_az, n_el), dtype=float32]
    weights : ndarray [shape=(2 * radius + 1,), dtype=float64]
        Symmetric taps.
    out : ndarray [shape=(n_az, n_el), dtype=float32]
        Output (not ``h``).
    """
    n_az, n_el = h.shape
    r = (weights.shape[0] - 1) // 2
    # padded float64 copies, then each tap added over a whole row (loops LLVM vectorises;
    # every cell still gets its terms in the same order)
    pad = np.empty((n_az + 2 * r, n_el), np.float64)
    for a in range(-r, n_az + r):
        src = h[a % n_az]
        dst = pad[a + r]
        for e in range(n_el):
            dst[e] = src[e]
    acc = np.empty(n_el, np.float64)
    for a in range(n_az):
        c = pad[a + r]
        for e in range(n_el):
            acc[e] = c[e] * weights[r]
        for k in range(r, 0, -1):
            lo = pad[a + r - k]
            hi = pad[a + r + k]
            wk = weights[r - k]
            for e in range(n_el):
                acc[e] += (lo[e] + hi[e]) * wk
        for e in range(n_el):
            out[a, e] = acc[e]
    row = np.empty(n_el + 2 * r, np.float64)
    for a in range(n_az):
        for e in range(-r, n_el + r):
            row[e + r] = out[a, min(max(e, 0), n_el - 1)]
        for e in range(n_el):
            acc[e] = row[e + r] * weights[r]
        for k in range(r, 0, -1):
            wk = weights[r - k]
            for e in range(n_el):
                acc[e] += (row[e + r - k] + row[e + r + k]) * wk
        for e in range(n_el):
            out[a, e] = acc[e]
