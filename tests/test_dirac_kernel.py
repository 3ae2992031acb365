"""The fused Numba DirAC kernels equal the array code (the GPU's path) they replace."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from foakit.kernels.dirac import dirac_features, scale_bins, vote_totals
from foakit.kernels.spatial import (
    diffuseness_from_smoothed,
    intensity_energy,
    onset_votes,
    whiten_votes,
    whiten_weights,
)
from foakit.kernels.spatial import smooth_frames as smooth


@given(st.integers(1, 30), st.integers(2, 20), st.sampled_from([1, 2, 5, 6]),
       st.sampled_from([0.0, 2.0]), st.integers(0, 5))
def test_fused_kernel_equals_array_code(n_frames, n_bins, n_smooth, ratio, seed):
    rng = np.random.default_rng(seed)
    spec = (rng.normal(size=(4, n_frames, n_bins)) + 1j * rng.normal(size=(4, n_frames, n_bins))
            ).astype(np.complex64)
    lo, hi = min(1, n_bins - 1), n_bins
    inten = np.empty((3, n_frames, n_bins), np.float32)
    energy = np.empty((n_frames, n_bins), np.float32)
    psi = np.empty_like(energy)
    votes = np.empty_like(energy)
    fpsi = np.empty(n_frames, np.float32)
    dirac_features(spec, n_smooth, lo, hi, ratio, 2, 0.1, inten, energy, psi, fpsi, votes)
    s64 = spec.astype(np.complex128)
    ri, re = intensity_energy(s64)
    tol = 16 * np.finfo(np.float32).eps * max(1.0, float(np.abs(re).max()))
    assert np.allclose(inten, ri, atol=tol) and np.allclose(energy, re, atol=tol)
    i_s, e_s = smooth(ri, n_smooth), smooth(re, n_smooth)
    ref_psi = diffuseness_from_smoothed(i_s, e_s)
    assert np.allclose(psi[:, lo:hi], ref_psi[:, lo:hi], atol=1e-4)
    assert np.all(psi[:, :lo] == 1.0)
    ref_f = diffuseness_from_smoothed(i_s[:, :, lo:hi].sum(-1), e_s[:, lo:hi].sum(-1),
                                      vector_axis=0)
    assert np.allclose(fpsi, ref_f, atol=1e-4)
    ref_v = onset_votes(re, ratio=ratio, n_prev=2, floor=0.1)
    padded = np.pad(re, ((2, 0), (0, 0)))
    prev = (padded[1:-1] + padded[:-2]) / 2
    decided = np.abs(re - ratio * prev) > tol  # bins not on the threshold itself
    assert np.allclose(votes[decided], ref_v[decided], atol=tol)


@given(st.integers(1, 40), st.integers(2, 30), st.sampled_from([1.0, 0.5, 2.0]),
       st.integers(0, 20))
def test_whitening_kernels_equal_whiten_votes_bit_for_bit(n_frames, n_bins, power, seed):
    """vote_totals + whiten_weights + scale_bins (the CPU path) give whiten_votes' bits."""
    rng = np.random.default_rng(seed)
    votes = (rng.random((n_frames, n_bins)) ** 4 * 10.0 ** rng.uniform(-8, 3)).astype(np.float32)
    votes[rng.random((n_frames, n_bins)) < 0.2] = 0.0
    energy = (votes * rng.uniform(0.5, 30.0, size=votes.shape)).astype(np.float32)
    psi = rng.random((n_frames, n_bins)).astype(np.float32)
    psi[rng.random((n_frames, n_bins)) < 0.02] = np.nan
    active = rng.random(n_frames) < 0.7
    psi_max = np.float32(rng.uniform(0.2, 1.0))
    lo = int(rng.integers(0, n_bins - 1))
    hi = int(rng.integers(lo + 1, n_bins + 1))
    totals = np.empty((2, n_bins), np.float64)
    vote_totals(votes, energy, psi, active, psi_max, totals)
    weight = whiten_weights(totals, lo=lo, hi=hi, power=power)
    for k, a in enumerate((votes, energy)):
        got = np.empty_like(a)
        scale_bins(a, weight[k], got)
        ref = whiten_votes(a, psi, active, psi_max=psi_max, lo=lo, hi=hi, power=power)
        assert got.dtype == ref.dtype and np.array_equal(got, ref)
