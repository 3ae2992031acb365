"""The fused Numba DirAC kernels equal the array code (the GPU's path) they replace."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from foakit.kernels.dirac import dirac_features, frame_sums, pairwise_sum, scale_bins, vote_totals
from foakit.kernels.spatial import (
    diffuseness_from_smoothed,
    frame_power,
    intensity_energy,
    onset_votes,
    parseval_weights,
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
        band = np.empty(n_frames, np.float32)
        scale_bins(a, weight[k], lo, hi, got, band)
        ref = whiten_votes(a, psi, active, psi_max=psi_max, lo=lo, hi=hi, power=power)
        assert got.dtype == ref.dtype and np.array_equal(got, ref)
        assert np.array_equal(band, ref[:, lo:hi].sum(axis=-1))


@given(st.integers(0, 1100), st.integers(0, 30))
def test_pairwise_sum_is_numpys_float32_sum(n, seed):
    rng = np.random.default_rng(seed)
    a = (rng.normal(size=n) * 10.0 ** rng.uniform(-6, 6, size=n)).astype(np.float32)
    if seed % 5 == 0:
        a[:] = -0.0  # NumPy's sum of negative zeros is +0.0
    ref, got = a.sum(), pairwise_sum(a)
    assert got == ref and np.signbit(got) == np.signbit(ref)


@given(st.integers(1, 20), st.integers(2, 300), st.integers(0, 20))
def test_frame_sums_equal_numpy_sums(n_frames, n_bins, seed):
    rng = np.random.default_rng(seed)
    inten = rng.normal(size=(3, n_frames, n_bins)).astype(np.float32)
    energy = (rng.random((n_frames, n_bins)) * 10.0 ** rng.uniform(-8, 2)).astype(np.float32)
    lo = int(rng.integers(0, n_bins - 1))
    hi = int(rng.integers(lo + 1, n_bins + 1))
    n_fft = 2 * (n_bins - 1) + int(seed % 2)
    band = np.empty((4, n_frames), np.float32)
    power = np.empty(n_frames, np.float32)
    frame_sums(inten, energy, lo, hi, parseval_weights(n_bins, n_fft), band, power)
    assert np.array_equal(band[:3], inten[:, :, lo:hi].sum(axis=-1))
    assert np.array_equal(band[3], energy[:, lo:hi].sum(axis=-1))
    power /= n_fft * 3.5
    assert np.array_equal(power, frame_power(energy, n_fft, 3.5))
