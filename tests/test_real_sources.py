"""benchmarks/accuracy.py: recorded source signals (spans follow the recordings' sound) and
the `--role` choice of the fan / yaw sets, detection by source family."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from foakit.synth import Scene, Source, render_scene


@pytest.fixture()
def accuracy(bench_script):
    return bench_script("accuracy")


def test_recorded_sources_span_where_the_recording_sounds(recordings_pool):
    pool = recordings_pool
    scene = Scene([Source(30, 0, 2.0, 1.0, 4.0, "speech"), Source(-90, 0, 1.0, 2.0, 4.0, "dog")],
                  6.0, seed=3)
    for seed in range(4):
        got, signals = pool.scene(scene, np.random.default_rng(seed))
        kinds = []
        for src, new, sig in zip(scene.sources, got.sources, signals, strict=True):
            if len(sig) < 1.5 * 16000:  # the word: its hiss is cut, then it ends after 1 s
                kinds.append("word")
                assert new.onset_s == pytest.approx(src.onset_s, abs=1e-9)
                assert new.offset_s - new.onset_s == pytest.approx(1.0, abs=0.021)
            else:  # the noise: an excerpt filling the drawn span
                kinds.append("long")
                assert new.offset_s - new.onset_s == pytest.approx(src.offset_s - src.onset_s,
                                                                   abs=0.021)
            assert len(sig) == pytest.approx((new.offset_s - new.onset_s) * 16000, abs=1)
            assert (new.azimuth_deg, new.distance_m) == (src.azimuth_deg, src.distance_m)
        assert sorted(kinds) == ["long", "word"]  # distinct groups in one scene
        # the recorded kind each source plays: the speech label draws the speech group
        assert pool.drawn == ["speech", "effect"]
        x = render_scene(got, signals=signals)
        assert x.shape == (4, 6 * 16000) and np.all(np.isfinite(x))


def test_a_recorded_source_ends_at_its_first_long_pause(accuracy):
    span = accuracy.RealSources._active_span
    sr = 16000
    beep = np.ones(sr // 5)
    short, long = np.zeros(sr // 2), np.zeros(int(1.5 * sr))
    # quiet ends are trimmed; a 0.5 s pause stays inside, a 1.5 s one ends the source
    y = np.r_[0.01 * beep, beep, short, beep, long, beep]
    lo, hi = span(y, sr, max_pause_s=1.0)
    assert (lo, hi) == (len(beep), 3 * len(beep) + len(short))
    assert span(y, sr) == (len(beep), len(y))
    assert span(np.zeros(sr), sr) == (0, 0)


def test_role_picks_the_tuned_or_the_held_out_sets(accuracy):
    tuned, held = accuracy.sets_of("tuned"), accuracy.sets_of("held-out")
    assert tuned and held and not set(tuned) & set(held)
    assert {s[4] for s in tuned.values()} == {"tuned"}
    assert {s[4] for s in held.values()} == {"held out", "other room model"}
    assert accuracy.sets_of("all") == accuracy.SETS == {**tuned, **held}
    # the room model never tuned on: its sets alone, none of them tuned or from the other two
    other = accuracy.sets_of("room-model")
    assert other and set(other) < set(held)
    assert {s[0] for s in other.values()} == {"pyroomacoustics-bands"}
    assert "pyroomacoustics-bands" not in {s[0] for s in tuned.values()}
    assert {s[3] for s in other.values()} == {16000, 24000}
    # both rates of the corpora: 16 kHz / 20 s and 24 kHz / 10 s
    assert {(s.rate, s.duration_s) for s in other.values()} >= {(16000, 20.0), (24000, 10.0)}
    with pytest.raises(ValueError, match="role='held out'"):
        accuracy.sets_of("held out")


def test_by_family_counts_each_kind_and_puts_the_worst_first(accuracy):
    from foakit.evaluate import match_clip

    truth = [{"azimuth_deg": az, "elevation_deg": 0.0, "onset_s": on, "offset_s": on + 1.0,
              "kind": kind, "motion": "stationary"}
             for az, on, kind in ((0.0, 1.0, "alarm"), (90.0, 3.0, "alarm"),
                                  (-90.0, 5.0, "impacts"), (180.0, 7.0, "bell"))]
    # events for the first alarm and the impacts only
    events = [{"azimuth_deg": t["azimuth_deg"], "elevation_deg": 0.0, "onset_s": t["onset_s"],
               "offset_s": t["offset_s"], "motion": "stationary"} for t in truth[::2]]
    fam = accuracy.by_family(match_clip("c", truth, events))
    assert fam == {"bell": (0, 1), "alarm": (1, 2), "impacts": (1, 1)}
    assert list(fam) == ["bell", "alarm", "impacts"]
    assert accuracy._family_line(match_clip("c", truth, events)).endswith(
        "bell 0% of 1, alarm 50% of 2, impacts 100% of 1")


def test_a_source_whose_recording_is_unusable_keeps_its_synthetic_signal(recordings_pool):
    pool = recordings_pool
    sf.write(pool.rows[1]["file"], np.zeros(16000), 16000)  # silent: nothing to play
    scene = Scene([Source(30, 0, 2.0, 1.0, 4.0, "speech"), Source(-90, 0, 1.0, 2.0, 4.0, "dog")],
                  6.0, seed=3)
    got, signals = pool.scene(scene, np.random.default_rng(0))
    assert pool.drawn == ["speech", None]
    assert signals[1] is None and got.sources[1] == scene.sources[1]


def test_by_family_reads_the_sound_a_source_plays(accuracy):
    from foakit.evaluate import match_clip

    truth = [{"azimuth_deg": az, "elevation_deg": 0.0, "onset_s": on, "offset_s": on + 1.0,
              "kind": "noise", "motion": "stationary"} for az, on in ((0.0, 1.0), (90.0, 3.0))]
    events = [{"azimuth_deg": 0.0, "elevation_deg": 0.0, "onset_s": 1.0, "offset_s": 2.0,
               "motion": "stationary"}]
    matches = match_clip("c", truth, events)
    matches[0].extra["sound"], matches[1].extra["sound"] = "music", "drum"
    assert accuracy.by_family(matches) == {"drum": (0, 1), "music": (1, 1)}
    assert accuracy._family_line(matches, recorded=True) == (
        "    detected by recorded kind: drum 0% of 1, music 100% of 1")
