"""benchmarks/miss_stages.py: where misses and motion labels are lost, and the onset
evidence (bins and beams) at the true onsets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from foakit.conventions import direction_to_vector
from foakit.events import Track
from foakit.params import AnalysisParams

ROOT = Path(__file__).resolve().parents[1]
FR = 50.0  # frames per second
WF = 24  # frames per DOA window
N = 500  # frames (10 s)
TRUTH = {"azimuth_deg": 0.0, "azimuth_end_deg": 60.0, "elevation_deg": 10.0, "onset_s": 2.0,
         "offset_s": 7.0, "motion": "right_to_left"}
STILL = {"onset_s": 2.0, "offset_s": 7.0, "azimuth_deg": 30.0, "elevation_deg": 10.0,
         "motion": "stationary"}


@pytest.fixture()
def ms(bench_script):
    return bench_script("miss_stages")


def _vec(az: float, el: float = 10.0) -> np.ndarray:
    return np.asarray(direction_to_vector(az, el), dtype=np.float32)


def _moving_axis(az0: float, az1: float) -> np.ndarray:
    """An axis sweeping az0 -> az1 over the source's frames, zero elsewhere."""
    ax = np.zeros((N, 3), np.float32)
    a, b = int(TRUTH["onset_s"] * FR), int(TRUTH["offset_s"] * FR)
    for f, az in zip(range(a, b), np.linspace(az0, az1, b - a), strict=True):
        ax[f] = _vec(az)
    return ax


def _constant_axis(az: float) -> np.ndarray:
    return np.broadcast_to(_vec(az), (N, 3)).copy()


def _sweep_track(az0: float, az1: float) -> Track:
    windows = list(range(4, 15))
    azs = np.linspace(az0, az1, len(windows))
    return Track(windows, [_vec(a).astype(np.float64) for a in azs], [1.0] * len(windows))


def _trace(*, tracks=(), axes=(), keep=None, kept=None, frame_moved=(), onset_moved=()):
    axes = np.stack(axes) if len(axes) else np.zeros((0, N, 3), np.float32)
    t = {"params": AnalysisParams(), "window_frames": WF, "tracks": list(tracks),
         "axes": axes, "kept": axes if kept is None else kept,
         "frame_moved": set(frame_moved), "onset_moved": set(onset_moved)}
    if keep is not None:
        t["motion_keep"] = np.asarray(keep, dtype=bool)
    return t


def test_a_stationary_label_is_traced_to_the_step_that_lost_the_motion(ms):
    still = dict(STILL)
    assert (ms.motion_stage(TRUTH, still, _trace(), FR)
            == "called stationary: no window-peak track spans its path")
    # a track over only half the path does not span it
    half = _trace(tracks=[_sweep_track(0.0, 30.0)])
    assert ms.motion_stage(TRUTH, still, half, FR).endswith("no window-peak track spans its path")
    track = [_sweep_track(0.0, 60.0)]
    assert (ms.motion_stage(TRUTH, still, _trace(tracks=track, axes=[_constant_axis(30.0)]), FR)
            == "called stationary: a track spans its path, not a steady move")
    axes = [_moving_axis(0.0, 60.0), _constant_axis(30.0)]
    assert (ms.motion_stage(TRUTH, still, _trace(tracks=track, axes=axes, keep=[False, True]), FR)
            == "called stationary: its moving axis lost to a constant axis")
    only_constant = np.stack(axes[1:])
    tr = _trace(tracks=track, axes=axes, keep=[True, True], kept=only_constant)
    assert (ms.motion_stage(TRUTH, still, tr, FR)
            == "called stationary: its moving axis dropped by echo_axes")
    tr = _trace(tracks=track, axes=axes, keep=[True, True])
    assert (ms.motion_stage(TRUTH, still, tr, FR)
            == "called stationary: its moving axis kept, the event from another axis")


def test_a_right_label_names_its_test_and_a_reversed_one_is_the_wrong_way(ms):
    est = dict(STILL, motion="right_to_left", onset_s=2.00004, offset_s=7.0)
    assert ms.motion_stage(TRUTH, est, _trace(), FR) == "right, from a moving axis"
    by_frames = _trace(frame_moved=[ms._key(2.00004, 7.0)])
    assert ms.motion_stage(TRUTH, est, by_frames, FR) == "right, from the per-frame DOA test"
    assert ms.moved_by(est, by_frames) == "stationary called moving by the per-frame DOA test"
    assert ms.moved_by(est, _trace()) == "stationary called moving by a moving axis"
    by_onsets = _trace(onset_moved=[ms._key(2.00004, 7.0)])
    assert ms.motion_stage(TRUTH, est, by_onsets, FR) == "right, from the onset-bin test"
    assert ms.moved_by(est, by_onsets) == "stationary called moving by the onset-bin test"
    assert (ms.motion_stage(TRUTH, dict(est, motion="left_to_right"), _trace(), FR)
            == "the wrong way")


def test_spans_wraps_azimuth_and_keeps_to_the_sources_time(ms):
    truth = dict(TRUTH, azimuth_deg=170.0, azimuth_end_deg=-150.0)
    times = np.array([2.0, 4.0, 6.5])
    assert ms._spans(np.array([172.0, -175.0, -155.0]), times, truth, 25.0)
    assert not ms._spans(np.array([172.0, 178.0, -100.0]), times, truth, 25.0)
    # the end azimuth reached only 2 s after the source stopped does not count
    assert not ms._spans(np.array([172.0, -155.0]), np.array([2.0, 9.0]), truth, 25.0)


def test_the_motion_run_accounts_for_every_detected_moving_source():
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "miss_stages.py"), "--clips", "3",
         "--sources", "1", "2", "--moving", "1.0", "--motion"],
        capture_output=True, text=True, timeout=600, check=True).stdout
    lines = out.splitlines()
    n_moving = int(lines[1].split()[0])
    rows = [ln.split(maxsplit=1) for ln in lines[2:]]
    assert sum(int(n) for n, st in rows if not st.startswith("stationary called")) == n_moving
    assert n_moving > 0


def test_the_run_plays_recorded_sources_with_real_sources(ms, recordings_pool, monkeypatch,
                                                           capsys):
    monkeypatch.setattr(ms, "RealSources", lambda cache=None: recordings_pool)
    assert ms.main(["--clips", "2", "--sources", "1", "1", "--duration", "6",
                    "--real-sources"]) == 0
    out = capsys.readouterr().out
    assert "2 clips, recorded source signals: detected" in out
    assert len(recordings_pool.drawn) == 1 and recordings_pool.drawn[0] in ("speech", "effect")


def _bins(n_frames: int = 100, n_bins: int = 12) -> dict:
    """Per-bin arrays of a quiet clip: every bin points at azimuth -90 deg, energy 1, and
    votes as a bin that does not rise (``onset_floor`` of its energy)."""
    iv = np.broadcast_to(_vec(-90.0, 0.0)[:, None, None], (3, n_frames, n_bins)).copy()
    return {"intensity": iv, "energy": np.ones((n_frames, n_bins), np.float32),
            "psi": np.full((n_frames, n_bins), 0.1, np.float32),
            "votes": np.full((n_frames, n_bins), 0.025, np.float32), "n_prev": 2}


def _onset_bins(bins: dict, frame: int, cols) -> None:
    """Make bins onset bins: they vote with their whole energy."""
    bins["votes"][frame, cols] = bins["energy"][frame, cols]


def test_onset_evidence_counts_the_bins_of_the_onset_frames(ms):
    bins = _bins()
    truth = dict(STILL, onset_s=1.0)  # frame 50 at 50 frames a second
    src = _vec(STILL["azimuth_deg"], STILL["elevation_deg"])
    # six bins from the source rise tenfold at its onset and are onset bins
    bins["intensity"][:, 50, :6] = src[:, None]
    bins["energy"][50, :6] = 10.0
    _onset_bins(bins, 50, slice(0, 6))
    # one more from the source, too diffuse to vote: an onset bin that rises, not in b
    bins["intensity"][:, 51, 6] = src
    bins["energy"][51, 6] = 10.0
    _onset_bins(bins, 51, 6)
    bins["psi"][51, 6] = 0.9
    # four onset bins elsewhere, and one bin from the source rising only 3x
    _onset_bins(bins, 52, slice(8, 12))
    bins["intensity"][:, 53, 7] = src
    bins["energy"][53, 7] = 3.0
    # outside the frames -1..+4: not counted
    bins["intensity"][:, 55, :6] = src[:, None]
    bins["energy"][55, :6] = 100.0
    _onset_bins(bins, 55, slice(0, 6))
    # a silent bin (energy 0) votes 0 >= 0, but is no onset bin
    bins["energy"][52, 0] = bins["votes"][52, 0] = 0.0
    assert ms.onset_evidence(truth, bins, FR, AnalysisParams()) == (11, 6, 7)
    assert ms.onset_evidence(truth, bins, FR, AnalysisParams(), shift_s=-0.5) == (0, 0, 0)
    # off the clip: no frames to compare with, no answer
    assert ms.onset_evidence(dict(truth, onset_s=0.02), bins, FR, AnalysisParams()) is None
    assert ms.onset_evidence(dict(truth, onset_s=1.95), bins, FR, AnalysisParams()) is None


def test_evidence_table_puts_detected_first_and_skips_missing_baselines(ms):
    rows = {"missed: x": [((0, 0, 6, 1, 0, 0), None), ((3, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 0)),
                          (None, None)],
            "detected": [((9, 9, 9, 1, 1, 1), (1, 0, 0, 0, 1, 0))]}
    lines = ms.evidence_table(rows)
    assert lines[4].split() == ["1", "100%", "[100%]", "100%", "[", "0%]", "100%", "[",
                                "0%]", "100%", "[", "0%]", "100%", "[100%]", "100%", "[",
                                "0%]", "detected"]
    # the baseline of the first missed source is off the clip (one of one counted), the third
    # source's onset too: not counted at all
    assert lines[5].split() == ["2", "50%", "[", "0%]", "0%", "[", "0%]", "50%", "[", "0%]",
                                "50%", "[", "0%]", "0%", "[", "0%]", "50%", "[", "0%]",
                                "missed:", "x"]


def _response(w: np.ndarray, az: float, el: float) -> float:
    a, e = np.deg2rad(az), np.deg2rad(el)
    return float(w @ [1.0, np.sin(a) * np.cos(e), np.sin(e), np.cos(a) * np.cos(e)])


def test_beam_weights_look_at_the_source_and_null_the_others(ms):
    look, nulls = (30.0, 10.0), [(150.0, 0.0), (-90.0, 20.0), (0.0, -60.0)]
    w = ms.beam_weights(look, nulls)
    assert _response(w, *look) == pytest.approx(1.0, abs=0.01)
    for v in nulls:
        assert abs(_response(w, *v)) < 0.01
    # without nulls: the cardioid toward the source, (1 + cos) / 2 of a plane wave
    plain = ms.beam_weights(look, [])
    assert _response(plain, *look) == pytest.approx(1.0, abs=0.01)
    assert _response(plain, 210.0, -10.0) == pytest.approx(0.0, abs=0.01)
    cos = float(_vec(30.0, 10.0) @ _vec(150.0, 10.0))
    assert _response(plain, 150.0, 10.0) == pytest.approx((1.0 + cos) / 2.0, abs=0.01)
    # a null within 40 deg of the look direction is left out (taking no place of the three),
    # a fourth one too
    np.testing.assert_allclose(ms.beam_weights(look, [(50.0, 10.0)]), plain)
    np.testing.assert_allclose(ms.beam_weights(look, [(50.0, 10.0), *nulls]), w)
    np.testing.assert_allclose(ms.beam_weights(look, [*nulls, (100.0, 0.0)]), w)


def _plane(rng, az: float, el: float, power: np.ndarray, n_bins: int, *,
           steady: bool = False) -> np.ndarray:
    """(4, frames, bins) spectra of a plane wave from (az, el) with Gaussian bins of the
    given power per frame (``steady``: every bin exactly that power, random phases)."""
    a, e = np.deg2rad(az), np.deg2rad(el)
    gains = np.array([1.0, np.sin(a) * np.cos(e), np.sin(e), np.cos(a) * np.cos(e)])
    shape = (len(power), n_bins)
    if steady:
        s = np.sqrt(2.0) * np.exp(2j * np.pi * rng.random(shape))
    else:
        s = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return gains[:, None, None] * (np.sqrt(power / 2.0)[:, None] * s)[None]


def test_beam_evidence_finds_an_onset_only_the_nulled_beam_sees(ms):
    rng = np.random.default_rng(5)
    n, n_bins, on = 200, 64, 100  # 4 s at 50 frames a second; the source from frame 100
    # a steady source: only its first frame rises
    src = np.where(np.arange(n) >= on, 1.0, 0.0)
    # a source 120 deg away bursting 30 dB above it every fifth frame, silent between
    loud = np.where(np.arange(n) % 5 == 0, 1000.0, 0.0)
    floor = 0.01 * (rng.standard_normal((4, n, n_bins)) + 1j * rng.standard_normal((4, n, n_bins)))
    spec = (_plane(rng, 30.0, 0.0, src, n_bins, steady=True)
            + _plane(rng, 150.0, 0.0, loud, n_bins) + floor).astype(np.complex64)
    bins = {"spec": spec, "n_prev": 2}
    truth = {"azimuth_deg": 30.0, "elevation_deg": 0.0, "onset_s": 2.0, "offset_s": 4.0}
    other = {"azimuth_deg": 150.0, "elevation_deg": 0.0, "onset_s": 0.0, "offset_s": 4.0}
    # the cardioid passes the bursts at -12 dB, still above the source; W all of them
    assert ms.beam_evidence(truth, [other], bins, FR) == (1, 0, 0)
    assert ms.beam_evidence(truth, [other], bins, FR, shift_s=-0.5) == (0, 0, 0)
    # the frames -1..+4 of the onset: frame 100 is in them for true onsets at frames 96-101
    for frame, marked in ((95, 0), (96, 1), (101, 1), (102, 0)):
        at = dict(truth, onset_s=frame / FR)
        assert ms.beam_evidence(at, [other], bins, FR)[0] == marked, frame
    # the other source ends long before: no null, and no beam marks the onset
    gone = dict(other, offset_s=0.5)
    assert ms.beam_evidence(truth, [gone], bins, FR) == (0, 0, 0)
    # an onset at the clip's third frame: the flux of the stretch's first frames compares
    # them with the frames before the stretch
    early = (_plane(rng, 30.0, 0.0, np.where(np.arange(n) >= 3, 1.0, 0.0), n_bins, steady=True)
             + floor).astype(np.complex64)
    assert ms.beam_evidence(dict(truth, onset_s=3 / FR), [], {"spec": early, "n_prev": 2},
                            FR) == (1, 1, 1)
    # off the clip: the frame before the onset needs its two previous frames, the fourth
    # after it must be in the clip
    for frame, off in ((2, True), (3, False), (195, False), (196, True)):
        got = ms.beam_evidence(dict(truth, onset_s=frame / FR), [other], bins, FR)
        assert (got is None) == off, frame


def test_beam_flux_counts_bins_rising_over_their_previous_frames(ms):
    spec = np.ones((4, 6, 10), np.complex64)
    spec[:, 3, :4] = 3.0  # 9x the power in 4 of 10 bins; 2x (not 4x) in the next frame
    spec[:, 4, :4] = np.sqrt(2.0 * (9.0 + 1.0) / 2.0)
    flux = ms.beam_flux(spec, np.eye(4)[0], 2)
    np.testing.assert_allclose(flux, [0, 0, 0, 0.4, 0, 0])


def test_the_evidence_run_accounts_for_every_source_of_multi_source_clips():
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "miss_stages.py"), "--clips", "3",
         "--sources", "2", "3", "--evidence"],
        capture_output=True, text=True, timeout=600, check=True).stdout
    lines = out.splitlines()
    n_true = int(lines[0].split(" of ")[1].split()[0])
    start = next(i for i, ln in enumerate(lines) if ln.split()[:2] == ["n", "a"]) + 1
    rows = [ln.split() for ln in lines[start:]]
    assert rows[0][-1] == "detected"
    assert sum(int(r[0]) for r in rows) == n_true
