"""Fused DirAC features for the CPU (Numba): the CPU twin of :mod:`foakit.kernels.spatial`.

One pass over the STFT gives the same intensity, energy and per-bin diffuseness as
``intensity_energy`` + ``smooth_frames`` + ``diffuseness_from_smoothed`` (which stay the
array code the GPU runs and the tests' reference), without NumPy temporaries, and the
broadband per-frame diffuseness of the band.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["dirac_features"]


@numba.njit(cache=True, nogil=True)
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
    for t in range(n_frames):
        for f in range(n_bins):
            w = spec[0, t, f]
            y = spec[1, t, f]
            z = spec[2, t, f]
            x = spec[3, t, f]
            wr, wi = w.real, w.imag
            intensity[0, t, f] = wr * x.real + wi * x.imag
            intensity[1, t, f] = wr * y.real + wi * y.imag
            intensity[2, t, f] = wr * z.real + wi * z.imag
            energy[t, f] = 0.5 * (wr * wr + wi * wi + x.real * x.real + x.imag * x.imag
                                  + y.real * y.real + y.imag * y.imag
                                  + z.real * z.real + z.imag * z.imag)
            psi[t, f] = 1.0
        for f in range(n_bins):
            e = energy[t, f]
            if onset_ratio <= 0.0:
                votes[t, f] = e
                continue
            prev = 0.0
            for k in range(1, n_prev + 1):
                if t - k >= 0:
                    prev += energy[t - k, f]
            votes[t, f] = e if e >= onset_ratio * (prev / n_prev) else onset_floor * e
    half = n_smooth // 2
    after = n_smooth - half  # window [t - half, t + after)
    nb = hi - lo
    acc = np.zeros((4, nb), dtype=np.float64)
    # prime with frames [0, after - 1)
    for t in range(min(after - 1, n_frames)):
        for j in range(nb):
            f = lo + j
            acc[0, j] += intensity[0, t, f]
            acc[1, j] += intensity[1, t, f]
            acc[2, j] += intensity[2, t, f]
            acc[3, j] += energy[t, f]
    tiny = np.float64(np.finfo(np.float32).tiny)
    for t in range(n_frames):
        add = t + after - 1
        drop = t - half - 1
        if add < n_frames:
            for j in range(nb):
                f = lo + j
                acc[0, j] += intensity[0, add, f]
                acc[1, j] += intensity[1, add, f]
                acc[2, j] += intensity[2, add, f]
                acc[3, j] += energy[add, f]
        if drop >= 0:
            for j in range(nb):
                f = lo + j
                acc[0, j] -= intensity[0, drop, f]
                acc[1, j] -= intensity[1, drop, f]
                acc[2, j] -= intensity[2, drop, f]
                acc[3, j] -= energy[drop, f]
        sx = 0.0
        sy = 0.0
        sz = 0.0
        se = 0.0
        for j in range(nb):
            ax, ay, az, ae = acc[0, j], acc[1, j], acc[2, j], acc[3, j]
            sx += ax
            sy += ay
            sz += az
            se += ae
            if ae > tiny:
                p = 1.0 - math.sqrt(ax * ax + ay * ay + az * az) / ae
                psi[t, lo + j] = min(max(p, 0.0), 1.0)
        if se > tiny:
            fp = 1.0 - math.sqrt(sx * sx + sy * sy + sz * sz) / se
            frame_psi[t] = min(max(fp, 0.0), 1.0)
        else:
            frame_psi[t] = 1.0
