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

__all__ = [
    "dirac_features",
    "vote_totals",
    "scale_bins",
    "frame_sums",
    "pairwise_sum",
]


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
        Frames of the centred time average for diffuseness (shifted inward at the edges,
        as :func:`foakit.kernels.spatial.smooth_frames`).
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
    # edge frames: the window is shifted inward, not truncated (a 2-frame average lets noise
    # bins pass as direct sound), i.e. each takes the values of the nearest frame whose
    # window fits; a clip shorter than the window averages all its frames
    for t in range(n_frames):
        tc = max(0, min(max(t, half), n_frames - after))
        if tc != t:
            psi[t, lo:hi] = psi[tc, lo:hi]
            frame_psi[t] = frame_psi[tc]


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
def scale_bins(a, weight, lo, hi, out, band):
    """``out[t, f] = float32(a[t, f] * weight[f])`` (the product in float64, as NumPy's
    ``(a * weight).astype(float32)`` with float64 weights) and the band sums of ``out``.

    Parameters
    ----------
    a : ndarray [shape=(n_frames, n_bins), dtype=float32]
    weight : ndarray [shape=(n_bins,), dtype=float64]
    lo, hi : int
        The band.
    out : ndarray [shape=(n_frames, n_bins), dtype=float32]
    band : ndarray [shape=(n_frames,), dtype=float32]
        Output: ``out[:, lo:hi].sum(axis=-1)``, the same bits (:func:`pairwise_sum`).
    """
    plan = np.empty((128, 2), np.int64)
    n_plan = _pairwise_plan(max(hi - lo, 0), plan)
    vals = np.empty(64, np.float32)
    for t in range(a.shape[0]):
        at = a[t]
        ot = out[t]
        for f in range(at.shape[0]):
            ot[f] = np.float32(np.float64(at[f]) * weight[f])
        band[t] = _pairwise_run(ot[lo:hi], plan, n_plan, vals)


@numba.njit(cache=True, nogil=True)
def frame_sums(intensity, energy, lo, hi, parseval, band, power_sum):
    """Per-frame sums of one clip, each the bits of the NumPy sum it replaces.

    Parameters
    ----------
    intensity : ndarray [shape=(3, n_frames, n_bins), dtype=float32]
    energy : ndarray [shape=(n_frames, n_bins), dtype=float32]
    lo, hi : int
        The band.
    parseval : ndarray [shape=(n_bins,), dtype=float32]
        :func:`foakit.kernels.spatial.parseval_weights`.
    band : ndarray [shape=(4, n_frames), dtype=float32]
        Output: band sums of ``Ix, Iy, Iz, E`` (``intensity[:, :, lo:hi].sum(-1)`` and
        ``energy[:, lo:hi].sum(-1)``).
    power_sum : ndarray [shape=(n_frames,), dtype=float32]
        Output: ``(energy * parseval).sum(-1)`` (``frame_power`` before its scaling).
    """
    n_bins = energy.shape[1]
    row = np.empty(n_bins, np.float32)
    plan = np.empty((128, 2), np.int64)
    n_plan = _pairwise_plan(max(hi - lo, 0), plan)
    plan_all = np.empty((128, 2), np.int64)
    n_all = _pairwise_plan(n_bins, plan_all)
    vals = np.empty(64, np.float32)
    for t in range(energy.shape[0]):
        for c in range(3):
            band[c, t] = _pairwise_run(intensity[c, t, lo:hi], plan, n_plan, vals)
        et = energy[t]
        band[3, t] = _pairwise_run(et[lo:hi], plan, n_plan, vals)
        for f in range(n_bins):
            row[f] = et[f] * parseval[f]
        power_sum[t] = _pairwise_run(row, plan_all, n_all, vals)


@numba.njit(cache=True, nogil=True)
def pairwise_sum(a):
    """NumPy's sum of a contiguous float32 vector, bit for bit: its pairwise summation
    (blocks of up to 128 summed with 8 float32 accumulators, halves split at multiples of 8
    above that) added to the reduction's initial zero.

    Kernels summing many rows of one length make the halving's plan once
    (:func:`_pairwise_plan`) and run it per row (:func:`_pairwise_run`).
    """
    plan = np.empty((128, 2), np.int64)
    return _pairwise_run(a, plan, _pairwise_plan(a.shape[0], plan), np.empty(64, np.float32))


@numba.njit(cache=True, nogil=True)
def _pairwise_plan(n, plan):
    """NumPy's halving of ``n`` elements as a postfix program in ``plan``: rows
    ``(start, length)`` are leaves of at most 128, ``(0, -1)`` adds the last two sums;
    returns its length.  (NumPy recurses; a recursive Numba function cannot be cached, and
    the halving spelled out per call site made kernels of megabytes.)"""
    todo = np.empty((128, 3), np.int64)  # depth-first, left half first, the sum after both
    todo[0, 0] = 0
    todo[0, 1] = n
    todo[0, 2] = 0
    top = 1
    k = 0
    while top > 0:
        top -= 1
        start = todo[top, 0]
        m = todo[top, 1]
        if todo[top, 2] == 1:
            plan[k, 0] = 0
            plan[k, 1] = -1
            k += 1
            continue
        if m <= 128:
            plan[k, 0] = start
            plan[k, 1] = m
            k += 1
            continue
        h = m // 2
        h -= h % 8
        todo[top, 2] = 1
        todo[top + 1, 0] = start + h
        todo[top + 1, 1] = m - h
        todo[top + 1, 2] = 0
        todo[top + 2, 0] = start
        todo[top + 2, 1] = h
        todo[top + 2, 2] = 0
        top += 3
    return k


@numba.njit(cache=True, nogil=True, inline="always")
def _pairwise_run(a, plan, n_plan, vals):
    """The pairwise sum of ``a`` by its length's plan (``vals``: float32 scratch of 64)."""
    nv = 0
    for k in range(n_plan):
        length = plan[k, 1]
        if length < 0:
            nv -= 1
            vals[nv - 1] = vals[nv - 1] + vals[nv]
        else:
            start = plan[k, 0]
            vals[nv] = _block_sum(a[start:start + length])
            nv += 1
    return np.float32(0.0) + vals[0]


@numba.njit(cache=True, nogil=True, inline="always")
def _block_sum(b):
    """NumPy's pairwise sum of a leaf ``b`` (at most 128 elements).  Indices come from
    ranges (non-negative to LLVM: no wrap-around test, the 8 accumulators vectorise)."""
    n = b.shape[0]
    if n < 8:
        res = np.float32(-0.0)
        for i in range(n):
            res += b[i]
        return res
    r0 = b[0]
    r1 = b[1]
    r2 = b[2]
    r3 = b[3]
    r4 = b[4]
    r5 = b[5]
    r6 = b[6]
    r7 = b[7]
    i = 8
    while i < n - n % 8:
        r0 += b[i]
        r1 += b[i + 1]
        r2 += b[i + 2]
        r3 += b[i + 3]
        r4 += b[i + 4]
        r5 += b[i + 5]
        r6 += b[i + 6]
        r7 += b[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += b[i]
        i += 1
    return res
