"""DirAC spatial features per STFT bin: active intensity, energy, diffuseness (NumPy or CuPy).

In SN3D with channels W, Y, Z, X (ambiX)::

    I = Re{conj(W) [X, Y, Z]}          (active intensity, up to a constant)
    E = (|W|^2 + |X|^2 + |Y|^2 + |Z|^2) / 2
    psi = 1 - ||<I>|| / <E>            (<.> a short time average)

For one plane wave ``||I|| = E`` (psi = 0); for an isotropic diffuse field ``<I> -> 0``
(psi -> 1).  The DCASE feature ``I / (|W|^2 + sum|.|^2 / 3)`` is a different quantity.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import array_module

__all__ = [
    "intensity_energy",
    "smooth_frames",
    "diffuseness",
    "diffuseness_from_smoothed",
    "frame_power",
    "parseval_weights",
    "onset_votes",
    "whiten_votes",
    "whiten_weights",
    "clip_histogram",
]


def intensity_energy(spec: Any) -> tuple[Any, Any]:
    """Active intensity and energy per bin.

    Parameters
    ----------
    spec : ndarray [shape=(..., 4, n_frames, n_bins), dtype=complex]
        ambiX STFT (W, Y, Z, X).

    Returns
    -------
    intensity : ndarray [shape=(..., 3, n_frames, n_bins), dtype=float]
        ``(Ix, Iy, Iz)``.
    energy : ndarray [shape=(..., n_frames, n_bins), dtype=float]
    """
    xp = array_module(spec)
    if spec.shape[-3] != 4:
        from ..errors import ParameterError

        raise ParameterError(f"spec must have 4 FOA channels on axis -3, got {spec.shape}")
    w = spec[..., 0, :, :]
    wr, wi = w.real, w.imag
    comps = []
    for ch in (3, 1, 2):  # X, Y, Z in ACN
        c = spec[..., ch, :, :]
        comps.append(wr * c.real + wi * c.imag)
    intensity = xp.stack(comps, axis=-3)
    power = spec.real * spec.real + spec.imag * spec.imag
    energy = 0.5 * power.sum(axis=-3)
    return intensity, energy


def smooth_frames(a: Any, n: int, *, axis: int = -2) -> Any:
    """Centred moving average over ``n`` frames along ``axis``.

    Every frame averages ``n`` frames: frame ``t`` averages ``[t - n // 2, t - n // 2 + n)``,
    and at the ends that window is shifted inward rather than cut (an average of fewer
    frames is a biased diffuseness estimate: with two frames noise bins pass as direct
    sound), so the first and last frames take the values of the nearest frame whose window
    fits.  Signals shorter than ``n`` frames average all their frames.
    """
    if n <= 1:
        return a
    xp = array_module(a)
    a = xp.moveaxis(a, axis, -1)
    t = a.shape[-1]
    # float64 running sums: a float32 cumsum loses quiet bins next to loud ones
    c = xp.cumsum(a, axis=-1, dtype=np.float64)
    zero = xp.zeros(a.shape[:-1] + (1,), dtype=np.float64)
    c = xp.concatenate([zero, c], axis=-1)
    idx = xp.arange(t)
    lo = xp.clip(idx - n // 2, 0, max(t - n, 0))
    hi = xp.minimum(lo + n, t)
    out = ((c[..., hi] - c[..., lo]) / (hi - lo)).astype(a.dtype, copy=False)
    return xp.moveaxis(out, -1, axis)


def diffuseness(intensity: Any, energy: Any, *, n_smooth: int = 5, axis_time: int = -2) -> Any:
    """DirAC diffuseness per bin, in [0, 1].

    Parameters
    ----------
    intensity : ndarray [shape=(..., 3, n_frames, n_bins)]
    energy : ndarray [shape=(..., n_frames, n_bins)]
    n_smooth : int
        Frames averaged (centred).  Fewer frames bias a diffuse field's psi below 1.

    Returns
    -------
    ndarray [shape=(..., n_frames, n_bins)]
        1 where there is no energy.
    """
    i_s = smooth_frames(intensity, n_smooth, axis=axis_time)
    e_s = smooth_frames(energy, n_smooth, axis=axis_time)
    return diffuseness_from_smoothed(i_s, e_s)


def diffuseness_from_smoothed(i_s: Any, e_s: Any, *, vector_axis: int = -3) -> Any:
    """``1 - ||<I>|| / <E>`` from already averaged intensity and energy, clipped to [0, 1].

    Parameters
    ----------
    i_s : ndarray [shape=(..., 3, ...)]
        Averaged intensity; the vector axis is ``vector_axis``.
    e_s : ndarray
        Averaged energy, shaped as ``i_s`` without the vector axis.
    """
    xp = array_module(e_s)
    energy = e_s
    norm = xp.sqrt((i_s * i_s).sum(axis=vector_axis))
    tiny = xp.finfo(energy.dtype).tiny
    psi = 1.0 - norm / xp.maximum(e_s, tiny)
    psi = xp.where(e_s > tiny, psi, 1.0)  # no energy: nothing directional
    return xp.clip(psi, 0.0, 1.0).astype(energy.dtype, copy=False)


def frame_power(power: Any, n_fft: int, window_sq_sum: float) -> Any:
    """Mean-square signal power per frame from one-sided bin powers (Parseval).

    Parameters
    ----------
    power : ndarray [shape=(..., n_frames, n_fft // 2 + 1)]
        ``|X_k|^2`` (or the energy E, giving the W-channel power of plane waves).
    """
    weights = parseval_weights(power.shape[-1], n_fft, xp=array_module(power),
                               dtype=power.dtype)
    return (power * weights).sum(axis=-1) / (n_fft * window_sq_sum)


def parseval_weights(n_bins: int, n_fft: int, *, xp: Any = np, dtype: Any = np.float32) -> Any:
    """Weights of one-sided bins in a power sum: 1 for DC (and Nyquist when ``n_fft`` is
    even), 2 for the others (their negative-frequency twins)."""
    weights = xp.full(n_bins, 2.0, dtype=dtype)
    weights[0] = 1.0
    if n_fft % 2 == 0:
        weights[-1] = 1.0
    return weights


def onset_votes(energy: Any, *, ratio: float, n_prev: int = 2, floor: float = 0.0) -> Any:
    """DOA vote weights that favour the direct sound (precedence effect).

    A bin votes with its full energy when that energy is at least ``ratio`` times the mean of
    its previous ``n_prev`` frames (zeros before the clip), and with ``floor`` times it
    otherwise: the direct path arrives first, so rising bins carry it, while the decaying
    reverberation that follows mostly does not vote; a small ``floor`` keeps sources that
    never rise (a steady hum) visible.  ``ratio <= 0`` lets every bin vote fully.

    Parameters
    ----------
    energy : ndarray [shape=(..., n_frames, n_bins)]

    Returns
    -------
    ndarray [shape=(..., n_frames, n_bins)]
    """
    if ratio <= 0:
        return energy
    xp = array_module(energy)
    prev = xp.zeros_like(energy)
    for k in range(1, n_prev + 1):
        prev[..., k:, :] += energy[..., :-k, :]
    prev /= n_prev
    return xp.where(energy >= ratio * prev, energy, floor * energy).astype(energy.dtype,
                                                                          copy=False)


def whiten_votes(votes: Any, psi: Any, active: Any, *, psi_max: float, lo: int, hi: int,
                 power: float = 1.0) -> Any:
    """Votes reweighted so that every frequency bin of the band carries the same total.

    In a room, a bin's steady sound reaches the array through a fixed transfer function
    whose reverberant part points the bin's intensity in one random, frozen direction: a
    tonal or harmonic source puts all its votes into a few such bins and makes false DOA
    peaks.  Dividing each bin's votes by its total over the clip's active, non-diffuse frames
    makes a histogram cell count how many bins agree on a direction (the direct path: all of
    them) instead of how much energy a few bins hold.  Totals below 3 % of the band's median
    total count as that floor.

    Parameters
    ----------
    votes, psi : ndarray [shape=(..., n_frames, n_bins)]
        Per-bin votes (or energies) and diffuseness; leading axes are clips.
    active : ndarray [shape=(..., n_frames), dtype=bool]
        Frames that vote.
    psi_max : float
        Bins more diffuse than this do not vote (as in the histogram kernel).
    lo, hi : int
        The voting band; the band's total vote is kept.
    power : float
        Exponent of the per-bin total in the divisor: 1 equalises the bins, 0 changes nothing.

    Returns
    -------
    ndarray [shape=(..., n_frames, n_bins), dtype=float32]
    """
    xp = array_module(votes)
    if power == 0:
        return votes
    used = xp.where((psi <= psi_max) & active[..., None], votes, 0.0)
    total = used.sum(axis=-2, dtype=xp.float64)[..., None, :]  # (..., 1, n_bins)
    return (votes * whiten_weights(total, lo=lo, hi=hi, power=power)).astype(xp.float32)


def whiten_weights(total: Any, *, lo: int, hi: int, power: float = 1.0) -> Any:
    """Per-bin factors of :func:`whiten_votes` from each bin's total vote.

    The CPU path (:mod:`foakit.analysis`) sums the totals in a Numba kernel
    (:func:`foakit.kernels.dirac.vote_totals`) and scales the votes in another; this step
    between them is shared, so both paths weigh the bins alike.

    Parameters
    ----------
    total : ndarray [shape=(..., n_bins), dtype=float64]
        Each bin's votes summed over the clip's active frames where it is not diffuse;
        leading axes are clips (or vote kinds).
    lo, hi : int
        The voting band.
    power : float
        As in :func:`whiten_votes`.

    Returns
    -------
    ndarray [shape=(..., n_bins), dtype=float64]
        Multiply the votes by these (then round to float32).
    """
    xp = array_module(total)
    band = (slice(None),) * (total.ndim - 1) + (slice(lo, hi),)
    # a bin that hardly ever votes (no signal there) must not be blown up to full weight
    floor = 0.03 * xp.median(total[band], axis=-1, keepdims=True)
    weight = xp.where(total > 0, 1.0 / xp.maximum(xp.maximum(total, floor), 1e-30) ** power, 0.0)
    kept = (total * weight)[band].sum(axis=-1, keepdims=True)
    weight *= xp.where(kept > 0, total[band].sum(axis=-1, keepdims=True)
                       / xp.maximum(kept, 1e-30), 0.0)
    return weight


def clip_histogram(hist: Any, vsum: Any, power: float = 0.75) -> tuple[Any, Any]:
    """Clip DOA histogram from window histograms, each window's votes divided by its total
    to ``power``.

    Summed plainly, a clip histogram is ruled by whatever is loudest (a near knock, a
    close talker) and a quieter source, even one heard alone for seconds, stays below the
    peak threshold; dividing each window by its total (``power`` 1) makes every active window
    count alike, ``power`` 0 is the plain sum.

    Parameters
    ----------
    hist : ndarray [shape=(..., n_windows, n_az, n_el)]
    vsum : ndarray [shape=(..., n_windows, n_az, n_el, 3)]
        Window histograms and their vote-weighted unit-vector sums; leading axes are clips.
    power : float

    Returns
    -------
    clip_hist : ndarray [shape=(..., n_az, n_el), dtype=float32]
    clip_vsum : ndarray [shape=(..., n_az, n_el, 3), dtype=float32]
    """
    xp = array_module(hist)
    if power == 0:
        return hist.sum(axis=-3), vsum.sum(axis=-4)
    total = hist.sum(axis=(-2, -1), dtype=xp.float64)
    w = xp.where(total > 0, 1.0 / xp.maximum(total, 1e-30) ** power, 0.0).astype(xp.float32)
    return ((hist * w[..., None, None]).sum(axis=-3),
            (vsum * w[..., None, None, None]).sum(axis=-4))
