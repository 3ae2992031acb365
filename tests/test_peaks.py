"""Histogram blur kernel: the same bits as scipy.ndimage's Gaussian filter it replaced."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from scipy.ndimage import gaussian_filter

from foakit.kernels.peaks import blur_hist, gaussian_weights


@given(st.integers(1, 80), st.integers(1, 40), st.sampled_from([0.3, 1.0, 1.5, 2.7]),
       st.integers(0, 50))
def test_blur_hist_equals_gaussian_filter(n_az, n_el, sigma, seed):
    rng = np.random.default_rng(seed)
    h = (rng.random((n_az, n_el)) ** 3 * 10.0 ** rng.uniform(-20, 20)).astype(np.float32)
    h[rng.random((n_az, n_el)) < 0.5] = 0.0
    out = np.empty_like(h)
    blur_hist(h, gaussian_weights(sigma), out)
    ref = gaussian_filter(h, sigma, mode=("wrap", "nearest"))
    assert ref.dtype == out.dtype and np.array_equal(out, ref)
