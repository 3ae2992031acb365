"""Per-frame energy arriving within a cone around given directions (Numba CPU kernel).

Events are activity segments of the energy inside a cone around each tracked direction, so
overlapping sources from different directions get their own onsets and offsets.  The part of
that energy in *onset* bins (bins whose DOA vote is their full energy: they rose by
``onset_ratio``, see :mod:`foakit.kernels.dirac`) tells a source's own onsets from the
reverberation of other sources leaking into its cone; the part in bins that rose by a lower
``rise_ratio`` dates a source that starts under louder ones, whose bins rise less above the
sound already there.  The CUDA twin in :mod:`foakit.kernels.cuda` has the same signature.
"""

from __future__ import annotations

import numba
import numpy as np

from .histogram import band_unit_vectors

__all__ = ["CONE_CHANNELS", "cone_energy"]

#: Channels of :func:`cone_energy`'s output per cone and frame.
CONE_CHANNELS = 10


# Per frame, the unit vectors of the band's bins first (a branch-free loop LLVM vectorises;
# error_model="numpy" drops its zero-division test: non-voting bins are scaled by 1), then
# each cone's sums in bin order, as before (same bits).
@numba.njit(cache=True, nogil=True, error_model="numpy")
def cone_energy(intensity, energy, votes, psi, lo, hi, psi_max, dirs, cos_cone, rise_ratio,
                n_prev, clip_frames, out):
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
    rise_ratio : float
        A bin *rises* when its energy is at least ``rise_ratio`` times the mean of its
        ``n_prev`` previous frames' (the onset test of :mod:`foakit.kernels.dirac` with
        another ratio; frames before the clip count as silent); ``<= 0`` rises none.
    n_prev : int
        Frames of that mean (>= 1).
    clip_frames : int
        Frames of one clip: frames ``t`` with ``t % clip_frames == 0`` start a clip, and the
        mean does not reach back past them (a batch stacks clips along the frame axis).
    out : ndarray [shape=(n_dirs, n_frames, CONE_CHANNELS), dtype=float32]
        Output (overwritten): weighted unit-vector sum (x, y, z), weight, the weight of the
        onset bins among them, then the onset bins' unweighted unit-vector sum (x, y, z)
        and their number, then the weight of the rising bins.  Each onset bin counts once
        in the unweighted sums: a loud partial and its coherent early reflections then
        outvote no other bin.
    """
    # the kernel does not bound-check its writes: a narrower array would be overrun
    if out.shape[2] != CONE_CHANNELS:
        raise ValueError("cone_energy: out must have CONE_CHANNELS (10) channels")
    n_dirs, n_frames = dirs.shape[0], dirs.shape[1]
    nb = max(hi - lo, 0)
    vote = np.empty(nb, np.bool_)
    ux_ = np.empty(nb, np.float32)
    uy_ = np.empty(nb, np.float32)
    uz_ = np.empty(nb, np.float32)
    inside = np.empty(nb, np.int64)
    rise = np.empty(nb, np.bool_)
    prev = np.empty(nb, np.float64)
    for t in range(n_frames):
        for k in range(n_dirs):
            for c in range(CONE_CHANNELS):
                out[k, t, c] = 0.0
        band_unit_vectors(intensity, psi, t, lo, hi, psi_max, vote, ux_, uy_, uz_)
        wt = energy[t, lo:hi]
        vt = votes[t, lo:hi]
        _rising(energy, t, lo, hi, rise_ratio, n_prev, clip_frames, prev, rise)
        for k in range(n_dirs):
            dx = dirs[k, t, 0]
            dy = dirs[k, t, 1]
            dz = dirs[k, t, 2]
            if dx == 0.0 and dy == 0.0 and dz == 0.0:
                continue
            # the bins inside the cone listed first without branches (which bins fall
            # inside is all but random, a test per bin was mispredicted), then their sums in
            # registers: the same float32 additions in the same order
            n_in = 0
            for j in range(nb):
                inside[n_in] = j
                n_in += vote[j] and ux_[j] * dx + uy_[j] * dy + uz_[j] * dz >= cos_cone
            sx = out[k, t, 0]
            sy = out[k, t, 1]
            sz = out[k, t, 2]
            sw = out[k, t, 3]
            so = out[k, t, 4]
            ox = out[k, t, 5]
            oy = out[k, t, 6]
            oz = out[k, t, 7]
            on = out[k, t, 8]
            sr = out[k, t, 9]
            for i in range(n_in):
                j = inside[i]
                wgt = wt[j]
                sx += wgt * ux_[j]
                sy += wgt * uy_[j]
                sz += wgt * uz_[j]
                sw += wgt
                # + 0 leaves the sum as it was (it starts at +0 and is never -0)
                onset = vt[j] >= wgt
                so += wgt if onset else np.float32(0.0)
                ox += ux_[j] if onset else np.float32(0.0)
                oy += uy_[j] if onset else np.float32(0.0)
                oz += uz_[j] if onset else np.float32(0.0)
                on += np.float32(1.0) if onset else np.float32(0.0)
                sr += wgt if rise[j] else np.float32(0.0)
            out[k, t, 0] = sx
            out[k, t, 1] = sy
            out[k, t, 2] = sz
            out[k, t, 3] = sw
            out[k, t, 4] = so
            out[k, t, 5] = ox
            out[k, t, 6] = oy
            out[k, t, 7] = oz
            out[k, t, 8] = on
            out[k, t, 9] = sr


@numba.njit(cache=True, nogil=True)
def _rising(energy, t, lo, hi, rise_ratio, n_prev, clip_frames, prev, rise):
    """Which of frame ``t``'s bins ``lo <= f < hi`` rise (see :func:`cone_energy`)."""
    nb = hi - lo
    if not rise_ratio > 0.0:
        for j in range(nb):
            rise[j] = False
        return
    for j in range(nb):
        prev[j] = 0.0
    for k in range(1, min(n_prev, t % clip_frames) + 1):
        ek = energy[t - k, lo:hi]
        for j in range(nb):
            prev[j] += ek[j]
    en = energy[t, lo:hi]
    for j in range(nb):
        rise[j] = en[j] >= rise_ratio * (prev[j] / n_prev)
