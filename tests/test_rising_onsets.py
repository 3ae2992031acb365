"""A source that starts under louder ones: its cone's rising bins date its onset."""

import numpy as np
import pytest

from foakit.analysis import analyze_samples
from foakit.conventions import angular_distance
from foakit.events import _onset_support, rising_onsets
from foakit.kernels.cone import CONE_CHANNELS, cone_energy
from foakit.params import AnalysisParams

from .naive import ref_cones


def _speech_under_a_dog():
    from foakit.synth import random_scene, render_scene

    scene = random_scene(70001, n_sources=(2, 3), rt60_s=(0.2, 0.8), snr_db=(8.0, 20.0),
                         distance_m=(0.8, 4.5))
    return scene, render_scene(scene, engine="ism")


@pytest.mark.parametrize("rise_ratio,n_prev,clip_frames", [(0.0, 2, 9), (-1.0, 2, 9),
                                                           (3.0, 7, 4), (3.0, 1, 1)])
def test_rising_channel_off_and_look_backs_longer_than_a_clip(rise_ratio, n_prev,
                                                              clip_frames):
    rng = np.random.default_rng(3)
    n_frames, n_bins = 9, 12
    intensity = rng.normal(size=(3, n_frames, n_bins)).astype(np.float32)
    energy = (rng.random((n_frames, n_bins)) ** 3 + 0.01).astype(np.float32)
    psi = (0.5 * rng.random((n_frames, n_bins))).astype(np.float32)
    dirs = np.zeros((2, n_frames, 3), np.float32)
    dirs[0, :, 0] = 1.0
    dirs[1, :, 2] = -1.0
    out = np.zeros((2, n_frames, CONE_CHANNELS), np.float32)
    cone_energy(intensity, energy, energy, psi, 1, n_bins, np.float32(0.4), dirs, 0.5,
                rise_ratio, n_prev, clip_frames, out)
    ref = ref_cones(intensity, energy, energy, psi, 1, n_bins, np.float32(0.4), dirs, 0.5,
                    rise_ratio, n_prev, clip_frames)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    if rise_ratio <= 0:
        assert not out[..., 9].any() and out[..., 3].any()
    else:
        assert 0 < out[..., 9].sum() <= out[..., 3].sum()
    if clip_frames == 1:  # every frame starts a clip: all in-cone bins rise
        np.testing.assert_array_equal(out[..., 9], out[..., 3])


def test_a_cone_counts_where_its_rising_energy_beats_every_other_cone_nearby():
    rise = np.zeros((2, 30))
    rise[0, 5], rise[1, 5] = 4.0, 1.0    # both rise, cone 0 more: cone 0's onset
    rise[1, 10] = 2.0                    # cone 1 alone
    rise[0, 20], rise[1, 21] = 2.0, 3.0  # a stronger rise in the next frame elsewhere
    rise[0, 25] = 0.5                    # below the least level
    got = rising_onsets(rise, np.array([0.0, 0.0]), power_scale=1.0)
    assert np.flatnonzero(got[0]).tolist() == [5]
    assert np.flatnonzero(got[1]).tolist() == [10, 21]
    # the least level is per cone and in dB after power_scale
    got = rising_onsets(rise, np.array([0.0, 5.0]), power_scale=1.0)
    assert np.flatnonzero(got[1]).tolist() == []
    got = rising_onsets(rise, np.array([-10.0, -10.0]), power_scale=0.1)
    assert np.flatnonzero(got[0]).tolist() == [5]
    # ties go to neither; a lone cone has only the level test
    tie = np.zeros((2, 4))
    tie[:, 1] = 1.0
    assert not rising_onsets(tie, np.zeros(2), power_scale=1.0).any()
    alone = rising_onsets(rise[:1], np.zeros(1), power_scale=1.0)
    assert np.flatnonzero(alone[0]).tolist() == [5, 20]


def test_early_frames_move_a_segment_with_an_onset_and_keep_none_without():
    act = np.zeros(60, np.uint8)
    act[10:35] = 1   # its onset at 24, rising energy of its own from 16
    act[45:55] = 1   # rising energy only
    onset = np.zeros(60, bool)
    onset[24] = True
    early = np.zeros(60, bool)
    early[[16, 47]] = True
    flat = np.zeros(60)
    got = act.copy()
    _onset_support(got, onset, flat, early=early)
    assert np.flatnonzero(got).tolist() == list(range(16, 35))
    got = act.copy()
    _onset_support(got, onset, flat)  # without: the onset frame
    assert np.flatnonzero(got).tolist() == list(range(24, 35))
    # never before the segment's own start
    early[8] = True
    got = act.copy()
    _onset_support(got, onset, flat, early=early)
    assert np.flatnonzero(got).tolist() == list(range(10, 35))


def test_speech_starting_under_a_barking_dog_starts_on_time():
    """A room with RT60 0.7 s: speech at +89 deg starts at 1.9 s while a dog 4.4 m away
    barks; no bin of the speech rises 16-fold above the dog's reverberation in its first
    frames, so the onset test alone dates it 0.8 s late."""
    scene, x = _speech_under_a_dog()
    speech = next(s for s in scene.sources if s.kind == "speechlike")
    dog = next(s for s in scene.sources if s.kind == "bark")
    assert dog.onset_s < speech.onset_s < dog.offset_s

    def onset(params):
        res = analyze_samples(x, scene.sample_rate, params=params)
        near = [e for e in res.events if angular_distance(
            e.azimuth_deg, e.elevation_deg, speech.azimuth_deg, speech.elevation_deg) < 20]
        assert len(near) == 1 and res.n_sources == 3
        return near[0].onset_s

    assert onset(AnalysisParams()) == pytest.approx(speech.onset_s, abs=0.1)
    assert onset(AnalysisParams(rise_onset_ratio=0.0)) > speech.onset_s + 0.5


def test_batched_analysis_dates_the_masked_onset_as_the_clip_alone_does(monkeypatch):
    """The batch stacks clips along the frame axis: the rise test of a clip's first frames
    must not look back into the clip before it (a loud room here)."""
    from foakit.gpu import analyze_clips
    from foakit.gpu.check import compare_events, compare_frames
    from foakit.kernels import cone

    strides = []

    def spy(*args):
        strides.append((args[11], args[12].shape[1]))  # clip_frames, frames in the batch
        return cone_energy(*args)

    monkeypatch.setattr(cone, "cone_energy", spy)
    scene, x = _speech_under_a_dog()
    sr = scene.sample_rate
    n = 6 * sr  # the clip's loud last 6 s, then its first 6 s (the speech)
    clips = [x[:, -n:].copy(), x[:, :n].copy()]
    got = analyze_clips(clips, [sr] * 2, params=AnalysisParams(), backend="cpu",
                        max_batch_samples=2 * n)
    # one batch of both; the second clip's frames start at the stride the kernel is given
    assert len(strides) == 1 and strides[0][1] == 2 * strides[0][0]
    assert strides[0][0] == len(got[1].frames["frame"])
    for c, g in zip(clips, got, strict=True):
        ref = analyze_samples(c, sr)
        assert compare_events(g.events, ref.events) == []
        assert compare_frames(g.frames, ref.frames) == []
    speech = next(s for s in scene.sources if s.kind == "speechlike")
    assert any(abs(e.onset_s - speech.onset_s) < 0.1 and angular_distance(
        e.azimuth_deg, e.elevation_deg, speech.azimuth_deg, speech.elevation_deg) < 20
        for e in got[1].events)
