"""Reverberant rooms: whitened DOA votes, echo axes, onset support of per-source events."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.analysis import analyze_samples
from foakit.audit.preset import AUDIT_PARAMS
from foakit.conventions import angular_distance, azimuth_difference
from foakit.events import _onset_support, echo_axes, moving_or_stationary
from foakit.kernels.spatial import whiten_votes
from foakit.params import AnalysisParams


@st.composite
def vote_fields(draw):
    n_frames = draw(st.integers(3, 12))
    n_bins = draw(st.integers(4, 20))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    votes = (rng.random((n_frames, n_bins)) * 10.0 ** rng.uniform(-3, 3, n_bins)).astype(
        np.float32)
    psi = rng.random((n_frames, n_bins)).astype(np.float32)
    active = rng.random(n_frames) < 0.8
    lo = draw(st.integers(0, n_bins - 2))
    hi = draw(st.integers(lo + 1, n_bins))
    return votes, psi, active, lo, hi


def _band_totals(v, psi, active, lo, hi, psi_max):
    used = np.where((psi <= psi_max) & active[:, None], v.astype(np.float64), 0.0)
    return used.sum(axis=0)[lo:hi]


@given(vote_fields(), st.floats(0.2, 1.0))
def test_whitening_equalises_bins_and_keeps_the_band_total(field, psi_max):
    votes, psi, active, lo, hi = field
    out = whiten_votes(votes, psi, active, psi_max=psi_max, lo=lo, hi=hi)
    assert out.dtype == np.float32 and out.shape == votes.shape
    before = _band_totals(votes, psi, active, lo, hi, psi_max)
    after = _band_totals(out, psi, active, lo, hi, psi_max)
    if before.sum() == 0:
        assert after.sum() == 0
        return
    np.testing.assert_allclose(after.sum(), before.sum(), rtol=1e-4)
    # bins above the floor (3 % of the band median) all end with the same total
    big = before >= 0.03 * np.median(before) * (1 + 1e-6)
    big &= before > 0
    if big.sum() >= 2:
        np.testing.assert_allclose(after[big], after[big].max(), rtol=1e-4)
    # a frame's votes keep their proportions within each bin
    w = np.divide(out, votes, out=np.zeros_like(out), where=votes > 0)
    for f in range(votes.shape[1]):
        col = w[:, f][votes[:, f] > 0]
        if col.size:
            np.testing.assert_allclose(col, col[0], rtol=1e-5)


@given(vote_fields())
def test_whitening_batched_equals_looped_and_power_zero_is_identity(field):
    votes, psi, active, lo, hi = field
    assert whiten_votes(votes, psi, active, psi_max=0.5, lo=lo, hi=hi, power=0) is votes
    batch = np.stack([votes, votes[::-1] * 3])
    psis = np.stack([psi, psi[::-1]])
    acts = np.stack([active, active[::-1]])
    got = whiten_votes(batch, psis, acts, psi_max=0.5, lo=lo, hi=hi)
    for b in range(2):
        ref = whiten_votes(batch[b], psis[b], acts[b], psi_max=0.5, lo=lo, hi=hi)
        np.testing.assert_allclose(got[b], ref, rtol=1e-6)


def test_echo_axes_drop_delayed_weaker_copies_only():
    rng = np.random.default_rng(0)
    n = 200
    direct = np.where(rng.random(n) < 0.1, rng.uniform(1, 2, n), 0.0)
    echo = 0.3 * np.roll(direct, 1)  # the next frame, weaker
    other = np.where(rng.random(n) < 0.1, rng.uniform(0.5, 1.0, n), 0.0)  # its own onsets
    keep = echo_axes(np.stack([direct, echo, other]), 0.7)  # strongest peak first
    assert keep.tolist() == [True, False, True]
    # in some frames a reflection outweighs the direct sound: still an echo
    loud = echo.copy()
    loud[np.flatnonzero(loud)[:3]] *= 6.0
    assert echo_axes(np.stack([direct, loud, other]), 0.7).tolist() == [True, False, True]
    assert echo_axes(np.stack([direct, echo, other]), 0.0).all()
    assert echo_axes(direct[None], 0.7).tolist() == [True]
    # an axis with no onsets at all is not called an echo of anything
    assert echo_axes(np.stack([direct, np.zeros(n)]), 0.7).tolist() == [True, True]
    # an echo of a dropped axis is judged against the kept ones only
    assert echo_axes(np.stack([other, direct, 0.5 * direct]), 0.7).tolist() == [True, True,
                                                                               False]


def test_onset_support_cuts_leak_and_drops_segments_without_onsets():
    act = np.zeros(60, np.uint8)
    act[0:8] = 1     # starts the clip with its onset in the first frame
    act[15:35] = 1   # leakage from 15, its own onset at 24
    act[45:55] = 1   # leakage only
    onset = np.zeros(60, bool)
    onset[[0, 24]] = True
    flat = np.zeros(60)  # a level that does not climb: no frame before an onset is taken
    _onset_support(act, onset, flat, ramp=10)
    assert np.flatnonzero(act).tolist() == list(range(0, 8)) + list(range(24, 35))
    # an onset just before the level rises (the level is smoothed) still counts
    act = np.zeros(20, np.uint8)
    act[10:15] = 1
    onset = np.zeros(20, bool)
    onset[8] = True
    _onset_support(act, onset, np.zeros(20))
    assert np.flatnonzero(act).tolist() == list(range(10, 15))


def test_onset_support_starts_a_soft_attack_where_its_cone_level_begins_to_climb():
    act = np.zeros(60, np.uint8)
    act[15:40] = 1
    onset = np.zeros(60, bool)
    onset[24] = True
    level = np.full(60, -30.0)
    level[19:25] = [-28.0, -25.0, -22.0, -21.5, -18.0, -15.0]  # a 0.5 dB step into frame 22
    got = act.copy()
    _onset_support(got, onset, level, ramp=10, ramp_db=2.0)
    # the level climbs 3.5 dB into frame 23 and 3 dB into 24, only 0.5 dB into 22
    assert np.flatnonzero(got)[0] == 22
    got = act.copy()
    _onset_support(got, onset, level, ramp=10, ramp_db=0.4)
    assert np.flatnonzero(got)[0] == 18  # every step from frame 18 on climbs 0.5 dB or more
    got = act.copy()
    _onset_support(got, onset, level, ramp=1, ramp_db=0.4)
    assert np.flatnonzero(got)[0] == 23  # at most ramp frames back
    got = act.copy()
    _onset_support(got, onset, level, ramp=0, ramp_db=0.4)
    assert np.flatnonzero(got)[0] == 24  # off: the onset frame
    # never before the segment's own start
    got = np.zeros(60, np.uint8)
    got[22:40] = 1
    _onset_support(got, onset, np.linspace(-80.0, 0.0, 60), ramp=10, ramp_db=0.4)
    assert np.flatnonzero(got)[0] == 22


@pytest.mark.parametrize("seed", [47, 49])
def test_single_source_in_a_room_is_found_where_reflections_misled_the_energy_votes(seed):
    """Regression: a speech-like and a harmonic source 3.5-4 m away in lively rooms, where
    the energy-weighted votes peaked at a reflection / a frozen reverberant direction."""
    from foakit.synth import random_scene, render_scene

    scene = random_scene(seed, n_sources=(1, 3), rt60_s=(0.2, 0.8), snr_db=(8.0, 20.0),
                         distance_m=(0.8, 4.5))
    assert len(scene.sources) == 1 and scene.sources[0].distance_m > 3.4
    src = scene.sources[0]
    x = render_scene(scene, engine="ism")
    # the analysis the fix was made on (the pre-stop-9 defaults, kept as the audits' preset)
    res = analyze_samples(x, scene.sample_rate, params=AUDIT_PARAMS)
    assert res.n_sources == 1
    ev = max(res.events, key=lambda e: e.offset_s - e.onset_s)
    assert angular_distance(ev.azimuth_deg, ev.elevation_deg, src.azimuth_deg,
                            src.elevation_deg) < 10
    assert abs(ev.onset_s - src.onset_s) < 0.2
    # the current defaults (tuned on many rooms for counts and elevation) find it too; on
    # seed 49 the floor reflection of this 3.5 m source lifts their elevation by 19 deg and
    # the onset comes 0.26 s late
    res = analyze_samples(x, scene.sample_rate)
    assert res.n_sources == 1
    ev = max(res.events, key=lambda e: e.offset_s - e.onset_s)
    assert abs(azimuth_difference(ev.azimuth_deg, src.azimuth_deg)) < 10
    assert angular_distance(ev.azimuth_deg, ev.elevation_deg, src.azimuth_deg,
                            src.elevation_deg) < 20
    assert abs(ev.onset_s - src.onset_s) < 0.3
    # the previous weighting (energy votes, no onset tests) points elsewhere on these clips
    old = AnalysisParams(vote_whitening=0, event_onset_db=0, echo_share=0, clip_peak_rel=0.25)
    prev = analyze_samples(x, scene.sample_rate, params=old)
    worst = max(angular_distance(e.azimuth_deg, e.elevation_deg, src.azimuth_deg,
                                 src.elevation_deg) for e in prev.events)
    assert worst > 90


def _one_source_room(seed):
    """The source of a one-source ISM room and the most salient event (longest times most
    confident) the analysis finds there with the given params."""
    from foakit.synth import random_scene, render_scene

    scene = random_scene(seed, n_sources=1, rt60_s=(0.3, 0.8), snr_db=(15.0, 30.0),
                         distance_m=(0.8, 4.5), allow_motion=True)
    x = render_scene(scene, engine="ism")

    def salient(params=None):
        res = analyze_samples(x, scene.sample_rate, params=params)
        return max(res.events, key=lambda e: (e.offset_s - e.onset_s) * e.confidence)

    return scene.sources[0], salient


@pytest.mark.parametrize("seed,motion", [(25026, "right_to_left"), (25031, "left_to_right"),
                                         (25000, "stationary")])
def test_moving_source_the_cone_calls_stationary_gets_its_motion_from_the_frames(seed, motion):
    """Rooms (RT60 0.53 / 0.34 s) where a source moving 42 / 104 deg gave a stationary
    histogram peak mid-path and its cone called it stationary; the per-frame DOA test alone
    (the onset-bin test, which comes first, off) labels it; a stationary source (seed
    25000) stays stationary."""
    src, salient = _one_source_room(seed)
    assert src.motion == motion
    assert salient().motion == src.motion
    ev = salient(AnalysisParams(motion_onset_min_deg=0.0))
    assert ev.motion == src.motion
    if src.motion == "stationary":
        return
    assert salient(AnalysisParams(motion_frame_min_deg=0.0,
                                  motion_onset_min_deg=0.0)).motion == "stationary"
    true_change = azimuth_difference(src.azimuth_end_deg, src.azimuth_deg)
    got_change = azimuth_difference(ev.azimuth_end_deg, ev.azimuth_start_deg)
    assert np.sign(got_change) == np.sign(true_change) and abs(got_change) >= 25


@pytest.mark.parametrize("seed,motion", [(25008, "left_to_right"), (25047, "right_to_left")])
def test_moving_source_the_frames_miss_gets_its_motion_from_its_onset_bins(seed, motion):
    """Rooms (RT60 0.42 / 0.67 s) where a source moving 68 / 106 deg (a chirp, a harmonic
    tone) gave a stationary peak mid-path and neither the in-cone fit nor the per-frame DOA
    test found its motion: the onset bins inside its cone do."""
    src, salient = _one_source_room(seed)
    assert src.motion == motion
    for params in (None, AnalysisParams(motion_frame_min_deg=0.0)):
        ev = salient(params)
        assert ev.motion == motion
        got_change = azimuth_difference(ev.azimuth_end_deg, ev.azimuth_start_deg)
        assert np.sign(got_change) == np.sign(src.azimuth_change_deg)
        assert abs(got_change) >= 30
    assert salient(AnalysisParams(motion_onset_min_deg=0.0)).motion == "stationary"


@pytest.mark.parametrize("seed", [25055, 25083])
def test_stationary_source_the_frames_call_moving_keeps_still_by_its_onset_bins(seed):
    """Rooms where a stationary source (a two-tone alarm, a harmonic tone) drifts on the
    per-frame DOA enough for the frame test alone to call it moving: its cone's onset bins
    give a line that does not change its way, and the label stays stationary."""
    src, salient = _one_source_room(seed)
    assert src.motion == "stationary"
    assert salient().motion == "stationary"
    assert salient(AnalysisParams(motion_onset_min_deg=0.0)).motion != "stationary"


@pytest.mark.parametrize("seed", [10, 11])
def test_events_read_the_cone_they_came_from_after_axes_are_dropped(seed, monkeypatch):
    """Rooms of 3 / 4 sources where moving_or_stationary and echo_axes drop axes before the
    events are made: each clip-peak event's cone index points at its own axis among those
    left, in the cones the motion tests read."""
    import foakit.analysis as A
    from foakit.conventions import vector_to_direction
    from foakit.events import _unit_vector
    from foakit.synth import random_scene, render_scene

    seen: dict = {"dropped": 0}
    orig = {k: getattr(A, k) for k in ("moving_or_stationary", "echo_axes",
                                        "events_from_cones", "label_frame_motion")}

    def dropping(name):
        def wrap(*args, **kw):
            keep = orig[name](*args, **kw)
            seen["dropped"] += int((~keep).sum())
            return keep
        return wrap

    def efc(cones, axes, *args, **kw):
        seen["cones"], seen["axes"] = cones, axes
        return orig["events_from_cones"](cones, axes, *args, **kw)

    def lfm(events, frame_doa, **kw):
        seen["events"], seen["read"] = list(events), kw["cones"]
        return orig["label_frame_motion"](events, frame_doa, **kw)

    for name in ("moving_or_stationary", "echo_axes"):
        monkeypatch.setattr(A, name, dropping(name))
    monkeypatch.setattr(A, "events_from_cones", efc)
    monkeypatch.setattr(A, "label_frame_motion", lfm)
    scene = random_scene(seed, n_sources=3 + seed % 2, rt60_s=(0.2, 0.9), snr_db=(10.0, 30.0),
                         distance_m=(0.8, 4.5), allow_motion=True)
    A.analyze_samples(render_scene(scene, engine="ism"), scene.sample_rate)
    assert seen["dropped"] >= 2 and seen["read"] is seen["cones"]
    peaks = [ev for ev in seen["events"] if ev.peak_axis is not None]
    assert peaks
    for ev in peaks:
        axis = seen["axes"][ev.cone][0]
        assert np.allclose(ev.peak_axis, _unit_vector(*map(float, vector_to_direction(axis))))


def test_new_parameters_are_validated():
    from foakit.errors import ParameterError

    for kw in ({"vote_whitening": -1}, {"event_onset_db": -3}, {"echo_share": 1.5},
               {"motion_frame_cone_deg": 0}, {"motion_frame_min_deg": -1},
               {"motion_frame_resid_deg": 0}, {"onset_ramp_s": -0.1}, {"onset_ramp_db": 0},
               {"start_min_confidence": -0.1}, {"start_min_confidence": 1.5},
               {"rise_onset_ratio": -1.0}, {"onset_frames": 0}, {"motion_onset_min_deg": -1.0},
               {"motion_onset_block_s": 0.0}, {"motion_onset_min_bins": 0},
               {"motion_onset_agree": -0.1}, {"motion_onset_agree": 1.5},
               {"motion_frame_agreed_deg": 0.0}):
        with pytest.raises(ParameterError, match=next(iter(kw))):
            AnalysisParams(**kw)


def test_moving_or_stationary_keeps_the_axis_that_explains_the_energy():
    from foakit.conventions import direction_to_vector

    n = 50
    params = AnalysisParams()
    path = direction_to_vector(np.linspace(60, 0, n), 0.0).astype(np.float32)
    moving = path
    on_path = np.broadcast_to(direction_to_vector(30, 0.0).astype(np.float32), (n, 3))
    elsewhere = np.broadcast_to(direction_to_vector(-120, 0.0).astype(np.float32), (n, 3))
    axes = np.ascontiguousarray(np.stack([moving, on_path, elsewhere]))
    cones = np.zeros((3, n, 5), np.float32)
    cones[2, :, 3] = 5.0
    # a moving source: its cone collects all along, the constant one only while it passes
    cones[0, :, 3] = 1.0
    cones[1, 20:30, 3] = 1.0
    assert moving_or_stationary(cones, axes, params).tolist() == [True, False, True]
    # a stationary source under wandering peaks: the drifting cone loses it
    cones[0, :, 3] = np.where(np.arange(n) < 15, 1.0, 0.1)
    cones[1, :, 3] = 1.0
    assert moving_or_stationary(cones, axes, params).tolist() == [False, True, True]
    # no constant axis on the path: nothing to decide
    assert moving_or_stationary(cones[[0, 2]], axes[[0, 2]], params).all()


@given(st.integers(0, 2**31 - 1), st.sampled_from([0.0, 0.5, 0.75, 1.0]))
def test_clip_histogram_weights_windows_and_batches(seed, power):
    from foakit.kernels.spatial import clip_histogram

    rng = np.random.default_rng(seed)
    hist = (rng.random((2, 5, 6, 4)) * 10.0 ** rng.uniform(-2, 2, (2, 5, 1, 1))).astype(
        np.float32)
    hist[0, 2] = 0.0  # a silent window
    vsum = rng.normal(size=hist.shape + (3,)).astype(np.float32)
    ch, cv = clip_histogram(hist, vsum, power)
    for b in range(2):
        h1, v1 = clip_histogram(hist[b], vsum[b], power)
        np.testing.assert_allclose(ch[b], h1, rtol=1e-6)
        np.testing.assert_allclose(cv[b], v1, rtol=1e-6)
        tot = hist[b].sum(axis=(1, 2)).astype(np.float64)
        w = np.ones_like(tot)
        if power:
            w = np.where(tot > 0, np.maximum(tot, 1e-30) ** -power, 0.0)
        np.testing.assert_allclose(h1, np.einsum("w,wae->ae", w, hist[b]), rtol=1e-5)
        if power == 1.0:  # every window with votes counts once
            np.testing.assert_allclose(h1.sum(), (tot > 0).sum(), rtol=1e-5)


def test_reflection_events_sharing_onset_and_span_collapse_to_the_direct_sound():
    from foakit.echoes import drop_reflection_events
    from foakit.events import Event

    params = AnalysisParams()
    direct = Event(1.00, 4.0, 30.0, 0.0, confidence=0.3)
    echo = Event(1.06, 3.9, -60.0, 20.0, confidence=0.1)
    other = Event(1.50, 3.0, 120.0, 0.0, confidence=0.05)   # its own onset, 0.5 s later
    later = Event(1.04, 8.0, -150.0, 0.0, confidence=0.05)  # same onset, other span
    got = drop_reflection_events([echo, other, direct, later], params)
    assert {e.azimuth_deg for e in got} == {30.0, 120.0, -150.0}
    off = AnalysisParams(echo_event_iou=0.0)
    assert len(drop_reflection_events([echo, other, direct, later], off)) == 4
    # a louder reflection that starts a frame later gives way to the earlier direct sound
    loud_echo = Event(1.02, 4.0, -60.0, 20.0, confidence=0.9)
    got = drop_reflection_events([loud_echo, direct], params)
    assert [e.azimuth_deg for e in got] == [30.0]
    # in the same frame the more confident stays
    same = Event(1.00, 4.0, -60.0, 20.0, confidence=0.9)
    assert [e.azimuth_deg for e in drop_reflection_events([direct, same], params)] == [-60.0]
    # beyond echo_event_onset_s they are two sounds
    apart = Event(1.15, 4.0, -60.0, 20.0, confidence=0.9)
    assert len(drop_reflection_events([direct, apart], params)) == 2


def test_weak_sources_are_dropped_relative_to_the_most_confident():
    from foakit.events import Event
    from foakit.sources import weak_sources_dropped

    evs = [Event(0.0, 1.0, 0.0, 0.0, confidence=0.4, source=0),
           Event(2.0, 3.0, 0.0, 0.0, confidence=0.01, source=0),  # a faint event of a kept one
           Event(0.5, 2.0, 90.0, 0.0, confidence=0.05, source=1),
           Event(1.0, 2.0, -90.0, 0.0, confidence=0.03, source=2)]
    assert [e.source for e in weak_sources_dropped(evs, 0.1)] == [0, 0, 1]
    assert len(weak_sources_dropped(evs, 0.0)) == 4
    assert weak_sources_dropped([], 0.1) == []


def test_pieces_of_a_moving_source_share_one_source_id():
    from foakit.events import Event
    from foakit.sources import assign_sources

    params = AnalysisParams()

    def moving(on, off, a0, a1, conf):
        return Event(on, off, (a0 + a1) / 2, 10.0, motion="right_to_left" if a1 > a0 else
                     "left_to_right", azimuth_start_deg=a0, azimuth_end_deg=a1,
                     confidence=conf)

    # a track 100 -> 130 deg over 3-5 s, a stationary piece where it lost the source
    # (141 deg at 5.9-6.3 s: the line extrapolated reaches ~145), a duplicate track
    track = moving(3.0, 5.0, 100.0, 130.0, 0.3)
    piece = Event(5.9, 6.3, 141.0, 12.0, confidence=0.2, motion="stationary")
    dup = moving(3.5, 5.5, 105.0, 140.0, 0.1)
    assert assign_sources([track, piece, dup], params) == 1
    # the azimuth wraps: a right-to-left track 170 -> -170 (= 190) continued at -160
    wrap = moving(1.0, 2.0, 170.0, -170.0, 0.3)
    wrap.motion = "right_to_left"
    cont = Event(2.3, 3.0, -160.0, 10.0, confidence=0.1, motion="stationary")
    assert assign_sources([wrap, cont], params) == 1
    # not the path: a stationary source far off the line, one long after it, one at another
    # elevation, a track moving the other way
    for other in (Event(3.0, 8.0, -60.0, 10.0, confidence=0.2, motion="stationary"),
                  Event(7.5, 8.0, 150.0, 10.0, confidence=0.2, motion="stationary"),
                  Event(5.9, 6.3, 141.0, -40.0, confidence=0.2, motion="stationary"),
                  moving(3.5, 5.5, 140.0, 105.0, 0.1)):
        assert assign_sources([track, other], params) == 2, other
    # a stationary source the track passes: its long span leaves the line
    passed = Event(1.0, 9.0, 115.0, 10.0, confidence=0.2, motion="stationary")
    assert assign_sources([track, passed], params) == 2


def test_a_brief_event_starting_with_a_louder_one_and_ending_inside_it_is_its_reflection():
    from foakit.echoes import drop_reflection_events
    from foakit.events import Event

    params = AnalysisParams()
    source = Event(1.52, 3.42, -5.8, 16.0, confidence=0.14)
    blip = Event(1.60, 2.30, -103.7, 18.0, confidence=0.05)  # IoU 0.37: inside its span
    assert [e.azimuth_deg for e in drop_reflection_events([blip, source], params)] == [-5.8]
    off = AnalysisParams(echo_event_contained=False)
    assert len(drop_reflection_events([blip, source], off)) == 2
    # one that outlasts the louder event stays
    longer = Event(1.60, 5.00, -103.7, 18.0, confidence=0.05)
    assert len(drop_reflection_events([longer, source], params)) == 2
    # one starting more than echo_event_onset_s later is a sound of its own
    late = Event(1.70, 2.30, -103.7, 18.0, confidence=0.05)
    assert len(drop_reflection_events([late, source], params)) == 2


@pytest.mark.parametrize("clip, seed, engine, rate, first, kept", [
    (38, 0, "ism", 16000, 3.3, False),             # one source at 3.3 s in a room
    (43, 8, "pyroomacoustics", 24000, 1.9, False),  # a dry clip: no onset test at all
    (14, 2, "pyroomacoustics", 16000, 0.0, True),   # an impact train playing from 0 s
])
def test_the_noise_floors_own_start_is_no_event(bench_script, clip, seed, engine, rate, first,
                                                kept):
    accuracy = bench_script("accuracy")
    scene, _, _, x, _ = accuracy.render_clip(clip, seed, engine, (0.2, 0.8), rate=rate,
                                             moving=0.2)
    assert min(s.onset_s for s in scene.sources) == first
    starts = [e.onset_s for e in analyze_samples(x, rate).events]
    assert bool(min(starts) == 0.0) is kept
    # without the rule the floor's start at the first frame is an event of its own
    keep = AnalysisParams(start_min_confidence=0.0)
    assert min(e.onset_s for e in analyze_samples(x, rate, params=keep).events) == 0.0
    # the audits keep such events: their checks are calibrated without the rule
    assert AUDIT_PARAMS.start_min_confidence == 0.0
