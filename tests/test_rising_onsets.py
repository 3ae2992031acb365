"""A source that starts under louder ones: its cone's rising bins date its onset."""

import numpy as np
import pytest

from foakit.analysis import analyze_samples
from foakit.conventions import angular_distance
from foakit.events import _onset_support, rising_onsets
from foakit.params import AnalysisParams


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
    from foakit.synth import random_scene, render_scene

    scene = random_scene(70001, n_sources=(2, 3), rt60_s=(0.2, 0.8), snr_db=(8.0, 20.0),
                         distance_m=(0.8, 4.5))
    speech = next(s for s in scene.sources if s.kind == "speechlike")
    dog = next(s for s in scene.sources if s.kind == "bark")
    assert dog.onset_s < speech.onset_s < dog.offset_s
    x = render_scene(scene, engine="ism")

    def onset(params):
        res = analyze_samples(x, scene.sample_rate, params=params)
        near = [e for e in res.events if angular_distance(
            e.azimuth_deg, e.elevation_deg, speech.azimuth_deg, speech.elevation_deg) < 20]
        assert len(near) == 1 and res.n_sources == 3
        return near[0].onset_s

    assert onset(AnalysisParams()) == pytest.approx(speech.onset_s, abs=0.1)
    assert onset(AnalysisParams(rise_onset_ratio=0.0)) > speech.onset_s + 0.5
