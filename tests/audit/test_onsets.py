"""Known answers of the onset-direction evidence (foakit.audit.onsets) and its verdicts."""

import numpy as np
import pytest

from foakit.audit.onsets import elevation_votes, onset_directions
from foakit.bench.starss.audit_config import StarssAuditConfig
from foakit.bench.starss.audit_events import _onset_elevation
from foakit.bench.starss.format import SourceTrack

from ..scenes import plane_wave_scene

SR = 16000


def _ambix(s: np.ndarray, az: float, el: float) -> np.ndarray:
    a, e = np.deg2rad(az), np.deg2rad(el)
    return np.stack([s, s * np.sin(a) * np.cos(e), s * np.sin(e), s * np.cos(a) * np.cos(e)])


def _bursts(rng, n, starts, length_s=0.15):
    s = np.zeros(n)
    m = int(length_s * SR)
    ramp = 0.5 - 0.5 * np.cos(np.pi * (np.arange(32) + 0.5) / 32)  # 2 ms attack
    for t in starts:
        b = rng.standard_normal(m) * np.exp(-np.arange(m) / (0.05 * SR))
        b[:32] *= ramp
        i = int(t * SR)
        s[i:i + m] += b
    return s


def _room_like(el_src: float, floor_gain: float = 0.9, delay_ms: float = 5.0,
               seed: int = 0) -> tuple[np.ndarray, list[float]]:
    """Bursts from (40, el_src) with a floor image at (40, -el_src) ``delay_ms`` later and
    strong enough that the whole-burst intensity points below the horizon."""
    rng = np.random.default_rng(seed)
    n = 3 * SR
    starts = [0.3, 0.8, 1.4, 2.1]
    s = _bursts(rng, n, starts)
    d = int(delay_ms * 1e-3 * SR)
    refl = np.concatenate([np.zeros(d), s[:-d]]) * floor_gain
    # a later, stronger tail from below (ceiling-less room, absorbent walls)
    tail = np.concatenate([np.zeros(2 * d), s[:-2 * d]]) * floor_gain
    x = _ambix(s, 40.0, el_src) + _ambix(refl, 40.0, -el_src) + _ambix(tail, 40.0, -el_src)
    x += 1e-4 * rng.standard_normal(x.shape)
    return x, starts


def test_onset_direction_precedes_floor_reflection():
    x, starts = _room_like(25.0)
    # averaged over the bursts, the reflections win: the intensity points below the horizon
    i = (x[0] * x[1:]).sum(axis=1)
    assert np.rad2deg(np.arctan2(i[1], np.hypot(i[0], i[2]))) < 0
    od = onset_directions(x, SR)
    assert len(od) >= len(starts)
    for t in starts:
        near = od[np.abs(od[:, 0] - t) <= 0.01]
        assert len(near), t
        assert np.all(np.abs(near[:, 1] - 40.0) <= 10.0)
        assert np.all(near[:, 2] > 10.0)  # the direct sound's side of the horizon


def test_onset_directions_of_silence_and_bad_shapes():
    assert onset_directions(np.zeros((4, SR)), SR).shape == (0, 6)
    assert onset_directions(np.zeros((2, SR)), SR).shape == (0, 6)


def test_elevation_votes_counts_sides_in_windows_and_azimuth():
    od = np.array([
        [1.00, 40, 20, 1, 1, 0],    # label side
        [1.50, 42, -22, 1, 1, 0],   # flipped side
        [1.60, 38, -18, 1, 1, 1],   # flipped side
        [1.70, -90, -20, 1, 1, 0],  # another azimuth
        [5.00, 40, -20, 1, 1, 0],   # outside the window
        [1.80, 40, 0, 1, 1, 0],     # nearer neither within 20 of... 0 is 20 from both: none
    ], float)
    v = elevation_votes(od, 20.0, [(0.98, 2.0)], 40.0, az_tol_deg=25, el_tol_deg=15)
    assert (v["label"], v["flipped"]) == (1, 2)
    v = elevation_votes(od, 20.0, [(0.98, 2.0)], None, az_tol_deg=25, el_tol_deg=15)
    assert (v["label"], v["flipped"]) == (1, 3)
    assert elevation_votes(None, 20.0, [(0, 1)]) is None
    assert elevation_votes(od, 20.0, []) is None


def _track(frames, az, el):
    frames = np.asarray(frames)
    return SourceTrack(0, 0, frames, np.full(len(frames), float(az)),
                       np.full(len(frames), float(el)))


def test_starss_onset_elevation_sides():
    cfg = StarssAuditConfig()
    od = np.array([[t, 40, -25, 1, 1, 0] for t in (1.0, 1.3, 1.7)], float)
    tr = _track(range(10, 20), 40, 25)  # 1.0-2.0 s
    v = _onset_elevation(od, tr, 40.0, 25.0, cfg)
    assert v["side"] == "flipped" and v["flipped"] == 3
    v = _onset_elevation(od, _track(range(10, 20), 40, -25), 40.0, -25.0, cfg)
    assert v["side"] == "label"
    # one onset is not enough
    assert _onset_elevation(od[:1], tr, 40.0, 25.0, cfg)["side"] is None
    # another track labelled at the flipped direction explains the onsets
    other = SourceTrack(1, 0, np.arange(10, 20), np.full(10, 45.0), np.full(10, -25.0))
    v = _onset_elevation(od, tr, 40.0, 25.0, cfg, {(0, 0): tr, (1, 0): other})
    assert v["side"] is None and v["other_track_there"]
    # a moving track gets no vote
    mv = SourceTrack(0, 0, np.arange(10, 20), np.linspace(0, 90, 10), np.full(10, 25.0))
    assert _onset_elevation(od, mv, 45.0, 25.0, cfg) is None


@pytest.mark.parametrize("el", [-30.0, 30.0])
def test_onset_elevation_sign_both_ways(el):
    x, _ = _room_like(el, seed=3)
    od = onset_directions(x, SR)
    v = elevation_votes(od, el, [(0.0, 3.0)], 40.0)
    assert v["label"] >= 4 and v["flipped"] == 0


def test_sobench_onset_side():
    from foakit.bench.sobench.audit_config import SobenchAuditConfig
    from foakit.bench.sobench.audit_direction import _onset_side

    cfg = SobenchAuditConfig()
    assert _onset_side({"label": 0, "flipped": 3}, cfg) == "flipped"
    assert _onset_side({"label": 1, "flipped": 3}, cfg) == "flipped"
    assert _onset_side({"label": 1, "flipped": 2}, cfg) is None      # not 3x
    assert _onset_side({"label": 0, "flipped": 1}, cfg) is None      # one onset
    assert _onset_side({"label": 0, "flipped": 3, "other_class_there": "dog"}, cfg) is None
    assert _onset_side({"label": 4, "flipped": 1}, cfg) == "label"


def test_both_audits_share_the_onset_thresholds():
    from dataclasses import fields

    from foakit.audit.onsets import OnsetCheckConfig, onset_side
    from foakit.bench.sobench.audit_config import SobenchAuditConfig

    shared = {f.name: f.default for f in fields(OnsetCheckConfig)}
    for cls in (SobenchAuditConfig, StarssAuditConfig):
        cfg = cls()
        assert {k: getattr(cfg, k) for k in shared} == shared
    # one verdict rule, each audit's own values
    vote = {"label": 1, "flipped": 3}
    assert onset_side(vote, StarssAuditConfig()) == "flipped"
    assert onset_side(vote, StarssAuditConfig(onset_ratio=4.0)) is None
    assert onset_side(vote, SobenchAuditConfig(), explained=True) is None
    assert onset_side({"label": 3, "flipped": 1}, SobenchAuditConfig(),
                      explained=True) == "label"


def _onsets(rows):
    """Onset rows (time, azimuth, elevation, energy) as onset_directions gives them."""
    return np.array([[t, az, el, e, 1.0, 0.0] for t, az, el, e in rows], dtype=float)


def test_new_onset_direction_skips_the_sounds_already_playing():
    from foakit.audit.onsets import new_onset_direction

    # a sound at 60 deg has onsets all along; one at -90 deg starts at 2.0 s in two bands
    rows = [(t, 60.0, 0.0, 1.0) for t in (0.3, 0.8, 1.4, 1.9, 2.1, 2.6)]
    rows += [(2.0, -92.0, 10.0, 2.0), (2.01, -88.0, 10.0, 1.0)]
    got = new_onset_direction(_onsets(sorted(rows)), 2.0)
    assert got is not None and abs(got["azimuth_deg"] + 90.7) < 0.5
    assert got["onsets"] == 2 and got["share"] == 1.0 and got["first_s"] == 2.0
    assert sorted(set(got["before"])) == [60.0]
    # at 1.4 s only the sound already playing has onsets: nothing new
    assert new_onset_direction(_onsets(sorted(rows)), 1.4) is None
    # with no history the playing sound is new at its first onset
    assert new_onset_direction(_onsets(sorted(rows)), 0.3, look_s=0.6)["azimuth_deg"] == 60.0


def test_new_onset_direction_needs_agreeing_onsets():
    from foakit.audit.onsets import new_onset_direction

    assert new_onset_direction(None, 1.0) is None
    assert new_onset_direction(np.zeros((0, 6)), 1.0) is None
    one = _onsets([(2.0, -90.0, 0.0, 1.0)])
    assert new_onset_direction(one, 2.0) is None  # one onset is not enough
    assert new_onset_direction(one, 2.0, min_onsets=1)["azimuth_deg"] == -90.0
    # two directions of like energy start together: neither holds min_share
    split = _onsets([(2.0, -90.0, 0.0, 1.0), (2.0, -88.0, 0.0, 1.0),
                     (2.02, 40.0, 0.0, 1.0), (2.02, 42.0, 0.0, 1.0)])
    assert new_onset_direction(split, 2.0) is None
    assert new_onset_direction(split, 2.0, min_share=0.5) is not None
    # azimuths wrap: onsets at 179 and -179 deg are 2 deg apart
    wrap = _onsets([(2.0, 179.0, 0.0, 1.0), (2.0, -179.0, 0.0, 1.0)])
    assert abs(abs(new_onset_direction(wrap, 2.0)["azimuth_deg"]) - 180.0) < 0.5


def test_new_onset_direction_on_a_rendered_scene():
    from foakit.audit.onsets import new_onset_direction

    quiet = plane_wave_scene([(60, 0, 0.3, 3.8)], duration=4.0, seed=1) * 0.2
    loud = plane_wave_scene([(-90, 0, 2.0, 3.8)], duration=4.0, seed=2)
    od = onset_directions(quiet + loud, 16000)
    got = new_onset_direction(od, 2.0)
    assert got is not None and abs(got["azimuth_deg"] + 90.0) < 10.0
    assert any(abs(a - 60.0) < 10.0 for a in got["before"])
    assert abs(new_onset_direction(od, 0.3)["azimuth_deg"] - 60.0) < 10.0
