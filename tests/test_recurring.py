"""Stationary axes from recurring window peaks (foakit.recurring, params.recurring_*)."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.analysis import clip_axes
from foakit.conventions import angular_distance, direction_to_vector, vector_to_direction
from foakit.errors import ParameterError
from foakit.params import AnalysisParams
from foakit.recurring import RECURRING_MAX_AXES, recurring_axes

LOUD = (0.0, 0.0)
QUIET = (120.0, 20.0)


def _peaks(n_windows, rows):
    """A window-peak array: ``rows`` maps a window to its peaks [(az, el, weight), ...]
    (strongest first, as pick_peaks writes them)."""
    out = np.zeros((n_windows, 4, 4), np.float32)
    for w, peaks in rows.items():
        for k, (az, el, wgt) in enumerate(peaks):
            out[w, k, :3] = direction_to_vector(az, el)
            out[w, k, 3] = wgt
    return out


def _found(*dirs):
    return np.array([direction_to_vector(*d) for d in dirs], dtype=np.float64).reshape(-1, 3)


def _scene(quiet_windows, *, loud_pauses=True, n_windows=12, jitter=2.0):
    """A loud source peaking in every window but ``quiet_windows`` (or in all of them,
    without ``loud_pauses``) and a quiet one peaking in ``quiet_windows``."""
    rows = {}
    for w in range(n_windows):
        peaks = []
        if w not in quiet_windows or not loud_pauses:
            peaks.append((*LOUD, 10.0))
        if w in quiet_windows:
            peaks.append((QUIET[0] + jitter * (-1) ** w, QUIET[1] - jitter * (-1) ** w, 1.0))
        rows[w] = peaks
    return _peaks(n_windows, rows)


def test_a_strongest_peak_recurring_away_from_the_found_axes_becomes_an_axis():
    out = recurring_axes(_scene({2, 5, 9}), _found(LOUD), AnalysisParams())
    assert out.shape == (1, 4) and out.dtype == np.float32
    az, el = vector_to_direction(out[0, :3].astype(np.float64))
    assert angular_distance(az, el, *QUIET) < 3.0
    assert np.linalg.norm(out[0, :3]) == pytest.approx(1.0, abs=1e-6)
    assert out[0, 3] == pytest.approx(3.0)  # the group's summed peak weight


@pytest.mark.parametrize(("windows", "need", "expect"), [
    ({4}, 2, 0),  # one window: not recurring
    ({4, 7}, 2, 1),
    ({4, 7}, 3, 0),
    ({1, 4, 7}, 3, 1),
    ({1, 4, 7}, 0, 0),  # 0: off
])
def test_the_number_of_windows_it_needs(windows, need, expect):
    params = dataclasses.replace(AnalysisParams(), recurring_windows=need)
    assert len(recurring_axes(_scene(windows), _found(LOUD), params)) == expect


def test_only_the_windows_strongest_peaks_count():
    """Under a louder peak in every window, the quiet source's peaks (a reflection's, a
    leakage's) make no axis, however often they recur."""
    peaks = _scene(set(range(12)), loud_pauses=False)
    assert len(recurring_axes(peaks, _found(LOUD), AnalysisParams())) == 0
    # the same peaks, listed before the louder one: the weights decide, not the order
    flipped = peaks[:, ::-1].copy()
    assert len(recurring_axes(flipped, _found(LOUD), AnalysisParams())) == 0


def test_a_group_near_a_found_axis_is_that_axis():
    peaks = _scene({2, 5, 9})
    # within peak_min_sep_deg (26) of an axis found at the quiet source's direction + 15 deg
    near = (QUIET[0] + 15.0, QUIET[1])
    assert len(recurring_axes(peaks, _found(LOUD, near), AnalysisParams())) == 0
    far = (QUIET[0] + 40.0, QUIET[1])
    assert len(recurring_axes(peaks, _found(LOUD, far), AnalysisParams())) == 1


def test_no_found_axes_and_no_peaks():
    params = AnalysisParams()
    assert len(recurring_axes(_scene({2, 5, 9}), _found(), params)) == 2
    assert recurring_axes(np.zeros((5, 4, 4), np.float32), _found(LOUD), params).shape == (0, 4)


def test_at_most_max_axes_and_the_heaviest_first():
    dirs = [(60.0, 0.0, 4.0), (-60.0, 10.0, 3.0), (150.0, -20.0, 2.0), (-150.0, 30.0, 1.0)]
    rows = {w: [dirs[w % 4]] for w in range(8)}
    out = recurring_axes(_peaks(8, rows), _found(LOUD), AnalysisParams())
    assert len(out) == RECURRING_MAX_AXES
    got = [vector_to_direction(v.astype(np.float64)) for v in out[:, :3]]
    for (az, el), want in zip(got, dirs, strict=False):
        assert angular_distance(az, el, want[0], want[1]) < 1.0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.integers(1, 20), st.integers(0, 4))
def test_outputs_are_unit_axes_away_from_the_found_ones(seed, n_windows, n_found):
    rng = np.random.default_rng(seed)
    peaks = np.zeros((n_windows, 4, 4), np.float32)
    for w in range(n_windows):
        k = int(rng.integers(0, 5))
        v = rng.normal(size=(k, 3))
        peaks[w, :k, :3] = v / np.linalg.norm(v, axis=1, keepdims=True)
        peaks[w, :k, 3] = np.sort(rng.uniform(0.1, 1.0, k))[::-1]
    v = rng.normal(size=(n_found, 3))
    found = v / np.linalg.norm(v, axis=1, keepdims=True)
    params = AnalysisParams()
    out = recurring_axes(peaks, found, params)
    assert out.shape[1] == 4 and len(out) <= RECURRING_MAX_AXES
    assert np.allclose(np.linalg.norm(out[:, :3], axis=1), 1.0, atol=1e-5)
    cos_sep = np.cos(np.deg2rad(params.peak_min_sep_deg))
    for c in out[:, :3].astype(np.float64):
        assert not len(found) or np.max(found @ c) < cos_sep
    for i in range(len(out)):
        for j in range(i):
            assert float(out[i, :3] @ out[j, :3]) < cos_sep
    # the same input gives the same axes
    assert np.array_equal(out, recurring_axes(peaks, found, params))


def test_clip_axes_adds_them_after_the_clip_peaks():
    """A clip histogram with the loud source's peak only: the quiet source's recurring
    window peaks give a second constant axis."""
    params = AnalysisParams()
    peaks = _scene({2, 5, 9})
    n_az, n_el = params.az_bins, params.el_bins
    hist = np.zeros((n_az, n_el), np.float32)
    vsum = np.zeros((n_az, n_el, 3), np.float32)
    i, j = n_az // 2, n_el // 2  # a cell and its vector sum at the loud source
    hist[i, j] = 100.0
    vsum[i, j] = 100.0 * direction_to_vector(*LOUD)
    n_frames = 12 * 24
    on = clip_axes(peaks, hist, vsum, n_frames, 24, params)
    off = clip_axes(peaks, hist, vsum, n_frames, 24,
                    dataclasses.replace(params, recurring_windows=0))
    assert len(off) == 1 and len(on) == 2
    assert np.array_equal(on[0], off[0])
    az, el = vector_to_direction(on[1, 0].astype(np.float64))
    assert angular_distance(az, el, *QUIET) < 3.0
    assert (on[1] == on[1, 0]).all()  # constant over the clip


def test_a_negative_window_count_is_refused_by_name():
    with pytest.raises(ParameterError, match="recurring_windows=-1"):
        AnalysisParams(recurring_windows=-1)


def test_the_audits_keep_the_candidates_they_are_calibrated_on():
    from foakit.audit.preset import AUDIT_PARAMS

    assert AUDIT_PARAMS.recurring_windows == 0 < AnalysisParams().recurring_windows
