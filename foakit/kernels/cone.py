"""Per-frame energy arriving within a cone around given directions (Numba CPU kernel).

Events are activity segments of the energy inside a cone around each tracked direction, so
overlapping sources from different directions get their own onsets and offsets.  The part of
that energy in *onset* bins (bins whose DOA vote is their full energy: they rose by
``onset_ratio``, see :mod:`foakit.kernels.dirac`) tells a source's own onsets from the
reverberation of other sources leaking into its cone.  The CUDA twin in
:mod:`foakit.kernels.cuda` has the same signature.
"""

from __future__ import annotations

import math

import numba

__all__ = ["cone_energy"]


@numba.njit(cache=True, nogil=True)
def cone_energy(intensity, energy, votes, psi, lo, hi, psi_max, dirs, cos_cone, out):
    """Energy-weighted vote of the non-diffuse bins inside each cone, per frame.

    Parameters
    ----------
    intensity : ndarray [shape=(3, n_frames, n_bins), dtype=float32]
    energy, votes, psi : ndarray [shape=(n_frames, n_bins), dtype=float32]
        ``votes`` as :func:`foakit.kernels.dirac.dirac_features` writes them: a bin with
        ``votes >= energy`` is an onset bin.
    lo, hi : int
        Bins ``lo <= f < hi`` count.
    psi_max : float
        Bins more diffuse than this do not count.
    dirs : ndarray [shape=(n_dirs, n_frames, 3), dtype=float32]
        Unit cone axis per direction and frame; an all-zero axis skips that frame.
    cos_cone : float
        Cosine of the cone's half angle.
    out : ndarray [shape=(n_dirs, n_frames, 5), dtype=float32]
        Output (overwritten): weighted unit-vector sum (x, y, z), weight, and the weight of
        the onset bins among them.
    """
    n_dirs, n_frames = dirs.shape[0], dirs.shape[1]
    for k in range(n_dirs):
        for t in range(n_frames):
            for c in range(5):
                out[k, t, c] = 0.0
    for t in range(n_frames):
        for f in range(lo, hi):
            if psi[t, f] > psi_max:
                continue
            ix = intensity[0, t, f]
            iy = intensity[1, t, f]
            iz = intensity[2, t, f]
            norm = math.sqrt(ix * ix + iy * iy + iz * iz)
            if norm <= 0.0:
                continue
            ux = ix / norm
            uy = iy / norm
            uz = iz / norm
            wgt = energy[t, f]
            onset = wgt if votes[t, f] >= wgt else 0.0
            for k in range(n_dirs):
                dx = dirs[k, t, 0]
                dy = dirs[k, t, 1]
                dz = dirs[k, t, 2]
                if dx == 0.0 and dy == 0.0 and dz == 0.0:
                    continue
                if ux * dx + uy * dy + uz * dz >= cos_cone:
                    out[k, t, 0] += wgt * ux
                    out[k, t, 1] += wgt * uy
                    out[k, t, 2] += wgt * uz
                    out[k, t, 3] += wgt
                    out[k, t, 4] += onset
