"""Fused DirAC features for the CPU (Numba): the CPU twin of :mod:`foakit.kernels.spatial`.

One pass over the STFT gives the same intensity, energy and per-bin diffuseness as
``intensity_energy`` + ``smooth_frames`` + ``diffuseness_from_smoothed`` (which stay the
array code the GPU runs and the tests' reference), without NumPy temporaries, and the
broadband per-frame diffuseness of the band.  :func:`vote_totals` and :func:`scale_bins` are
the two passes over the frames of ``whiten_votes`` (its per-bin step between them,
``whiten_weights``, is shared).
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["dirac_features", "vote_totals", "scale_bins"]


# Loops run over contiguous rows of one frame with reductions kept apart from element-wise
# work, so LLVM vectorises them; every value is computed by the same operations in the same
# order as in one loop per bin.  error_model="numpy": the diffuseness is computed before its
# ``ae > tiny`` test (a branch-free loop) and may divide by zero there, unused.
@numba.njit(cache=True, nogil=True, error_model="numpy")
def dirac_features(spec, n_smooth, lo, hi, onset_ratio, n_prev, onset_floor, intensity,
                   energy, psi, frame_psi, votes):
    """Intensity, energy, diffuseness per bin, broadband diffuseness per frame, DOA votes.

    Parameters
    ----------
    spec : ndarray [shape=(4, n_frames, n_bins), dtype=complex64]
        ambiX STFT (W, Y, Z, X).
    n_smooth : int
        Frames of the centred time average for diffuseness (edges average fewer).
    lo, hi : int
        Band ``lo <= f < hi`` for ``psi`` and ``frame_psi`` (``psi`` is 1 outside it).
    onset_ratio, n_prev, onset_floor : float, int, float
        As :func:`foakit.kernels.spatial.onset_votes`.
    intensity : ndarray [shape=(3, n_frames, n_bins), dtype=float32]
        Output (Ix, Iy, Iz).
    energy, psi : ndarray [shape=(n_frames, n_bins), dtype=float32]
        Outputs.
    frame_psi : ndarray [shape=(n_frames,), dtype=float32]
        Output: ``1 - ||sum_f <I>|| / sum_f <E>`` over the band.
    votes : ndarray [shape=(n_frames, n_bins), dtype=float32]
        Output: ``onset_votes(energy)``.
    """
    n_frames = spec.shape[1]
    n_bins = spec.shape[2]
    prev = np.empty(n_bins, np.float64)
    for t in range(n_frames):
        sw, sy, sz, sx = spec[0, t], spec[1, t], spec[2, t], spec[3, t]
        ix_, iy_, iz_ = intensity[0, t], intensity[1, t], intensity[2, t]
        en = energy[t]
        ps = psi[t]
        for f in range(n_bins):
            w = sw[f]
            y = sy[f]
            z = sz[f]
            x = sx[f]
            wr, wi = w.real, w.imag
            ix_[f] = wr * x.real + wi * x.imag
            iy_[f] = wr * y.real + wi * y.imag
            iz_[f] = wr * z.real + wi * z.imag
            en[f] = 0.5 * (wr * wr + wi * wi + x.real * x.real + x.imag * x.imag
                           + y.real * y.real + y.imag * y.imag
                           + z.real * z.real + z.imag * z.imag)
            ps[f] = 1.0
        vt = votes[t]
        if onset_ratio <= 0.0:
            for f in range(n_bins):
                vt[f] = en[f]
            continue
        for f in range(n_bins):
            prev[f] = 0.0
        for k in range(1, min(n_prev, t) + 1):
            ek = energy[t - k]
            for f in range(n_bins):
                prev[f] += ek[f]
        for f in range(n_bins):
            e = en[f]
            vt[f] = e if e >= onset_ratio * (prev[f] / n_prev) else onset_floor * e
    half = n_smooth // 2
    after = n_smooth - half  # window [t - half, t + after)
    nb = hi - lo
    acc = np.zeros((4, nb), dtype=np.float64)
    a0, a1, a2, a3 = acc[0], acc[1], acc[2], acc[3]
    # prime with frames [0, after - 1)
    for t in range(min(after - 1, n_frames)):
        _add_rows(a0, a1, a2, a3, intensity, energy, t, lo, hi, 1.0)
    tiny = np.float64(np.finfo(np.float32).tiny)
    for t in range(n_frames):
        add = t + after - 1
        drop = t - half - 1
        if add < n_frames:
            _add_rows(a0, a1, a2, a3, intensity, energy, add, lo, hi, 1.0)
        if drop >= 0:
            _add_rows(a0, a1, a2, a3, intensity, energy, drop, lo, hi, -1.0)
        pt = psi[t, lo:hi]
        for j in range(nb):
            ax, ay, az, ae = a0[j], a1[j], a2[j], a3[j]
            p = 1.0 - math.sqrt(ax * ax + ay * ay + az * az) / ae
            if ae > tiny:
                pt[j] = min(max(p, 0.0), 1.0)
        sx = 0.0
        sy = 0.0
        sz = 0.0
        se = 0.0
        for j in range(nb):
            sx += a0[j]
            sy += a1[j]
            sz += a2[j]
            se += a3[j]
        if se > tiny:
            fp = 1.0 - math.sqrt(sx * sx + sy * sy + sz * sz) / se
            frame_psi[t] = min(max(fp, 0.0), 1.0)
        else:
            frame_psi[t] = 1.0


@numba.njit(cache=True, nogil=True, inline="always")
def _add_rows(a0, a1, a2, a3, intensity, energy, t, lo, hi, sign):
    """``acc += sign * (Ix, Iy, Iz, E)[t, lo:hi]``; sign is +-1, so exactly a sum or a
    difference."""
    b0 = intensity[0, t, lo:hi]
    b1 = intensity[1, t, lo:hi]
    b2 = intensity[2, t, lo:hi]
    b3 = energy[t, lo:hi]
    for j in range(b3.shape[0]):
        a0[j] += sign * b0[j]
        a1[j] += sign * b1[j]
        a2[j] += sign * b2[j]
        a3[j] += sign * b3[j]


@numba.njit(cache=True, nogil=True)
def vote_totals(votes, energy, psi, active, psi_max, totals):
    """Per-bin totals of two vote kinds over the active frames where the bin is not diffuse.

    The sums of :func:`foakit.kernels.spatial.whiten_votes` for ``votes`` and ``energy`` in
    one pass: float64, frame after frame as NumPy sums over the frame axis (the skipped
    entries add zero there), so the same bits.

    Parameters
    ----------
    votes, energy, psi : ndarray [shape=(n_frames, n_bins), dtype=float32]
    active : ndarray [shape=(n_frames,), dtype=bool]
    psi_max : float32
        Bins with ``psi > psi_max`` (or NaN) are left out.
    totals : ndarray [shape=(2, n_bins), dtype=float64]
        Output: ``votes`` totals, ``energy`` totals.
    """
    tv = totals[0]
    te = totals[1]
    tv[:] = 0.0
    te[:] = 0.0
    for t in range(votes.shape[0]):
        if not active[t]:
            continue
        vt = votes[t]
        et = energy[t]
        pt = psi[t]
        for f in range(vt.shape[0]):
            if pt[f] <= psi_max:
                tv[f] += vt[f]
                te[f] += et[f]


@numba.njit(cache=True, nogil=True)
def scale_bins(a, weight, out):
    """``out[t, f] = float32(a[t, f] * weight[f])`` (the product in float64, as NumPy's
    ``(a * weight).astype(float32)`` with float64 weights).

    Parameters
    ----------
    a : ndarray [shape=(n_frames, n_bins), dtype=float32]
    weight : ndarray [shape=(n_bins,), dtype=float64]
    out : ndarray [shape=(n_frames, n_bins), dtype=float32]
    """
    for t in range(a.shape[0]):
        at = a[t]
        ot = out[t]
        for f in range(at.shape[0]):
            ot[f] = np.float32(np.float64(at[f]) * weight[f])
