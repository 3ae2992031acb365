"""A steady directional sound through the whole clip (a fan) is background, not an event."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.analysis import (
    BACKGROUND_MIN_DIRECTNESS,
    _is_background,
    analyze_samples,
    steady_background,
)
from foakit.conventions import angular_distance, direction_to_vector, vector_to_direction
from foakit.errors import ParameterError
from foakit.events import Event
from foakit.synth import Scene, Source
from foakit.synth.render import Interferer, fan_signal, render_scene, yawed_truth


def _fan_scene(rt60=None):
    src = Source(70.0, 10.0, 1.5, 3.0, 8.0, "speech")
    return Scene([src], 10.0, sample_rate=16000, snr_db=20.0, rt60_s=rt60, seed=3)


@pytest.mark.parametrize("rt60", [None, 0.4])
def test_one_fan_and_one_source_give_one_event_and_a_background(rt60):
    scene = _fan_scene(rt60)
    fan = Interferer(-120.0, 5.0, snr_db=6.0, distance_m=2.0)
    res = analyze_samples(render_scene(scene, engine="ism", interferer=fan), 16000)
    assert res.n_sources == 1 and len(res.events) == 1
    ev = res.events[0]
    assert angular_distance(ev.azimuth_deg, ev.elevation_deg, 70.0, 10.0) < 10
    assert abs(ev.onset_s - 3.0) < 0.2
    assert len(res.background) == 1
    bg = res.background[0]
    assert angular_distance(bg["azimuth_deg"], bg["elevation_deg"], -120.0, 5.0) < 15
    assert bg["directness"] >= BACKGROUND_MIN_DIRECTNESS and bg["quiet_s"] > 2.0


def test_background_level_follows_the_fan():
    scene = _fan_scene()
    quiet = render_scene(scene, engine="ism", interferer=Interferer(30.0, 0.0, snr_db=12.0))
    loud = render_scene(scene, engine="ism", interferer=Interferer(30.0, 0.0, snr_db=2.0))
    a = analyze_samples(quiet, 16000).background
    b = analyze_samples(loud, 16000).background
    assert len(a) == len(b) == 1
    # 10 dB louder fan: its directional level rises by about that much
    assert 7.0 < b[0]["level_db"] - a[0]["level_db"] < 13.0


def test_no_background_in_isotropic_noise():
    res = analyze_samples(render_scene(_fan_scene(0.4), engine="ism"), 16000)
    assert res.background == [] and res.n_sources == 1


def _iv(vecs, energy=1.0):
    """frame_iv rows: intensity ``vecs`` (n, 3) and a constant energy."""
    vecs = np.asarray(vecs, dtype=np.float64)
    return np.column_stack([vecs, np.full(len(vecs), energy)]).astype(np.float32)


@settings(max_examples=20, derandomize=True, deadline=None)
@given(st.floats(-179, 179), st.floats(-60, 60), st.floats(0.25, 0.9))
def test_steady_background_known_answer(az, el, directness):
    n, fr = 400, 40.0
    u = direction_to_vector(az, el)
    active = np.zeros(n, dtype=bool)
    active[100:300] = True  # the events; their frames point elsewhere
    vecs = np.tile(u * directness, (n, 1))
    vecs[active] = -u
    out = steady_background(_iv(vecs, 2.0), active, frame_rate=fr, power_scale=0.5)
    assert len(out) == 1
    bg = out[0]
    assert angular_distance(bg["azimuth_deg"], bg["elevation_deg"], az, el) < 0.1
    assert bg["directness"] == pytest.approx(directness / 2.0, abs=1e-4)
    assert bg["level_db"] == pytest.approx(10 * math.log10(2.0 * 0.5 * directness / 2.0),
                                           abs=0.01)
    assert bg["quiet_s"] == pytest.approx(200 / fr)


def test_steady_background_rejects_isotropic_turning_and_scarce_floors():
    n, fr = 400, 40.0
    rng = np.random.default_rng(0)
    active = np.zeros(n, dtype=bool)
    # isotropic: unit vectors from everywhere average to about nothing (0.5 / sqrt(1000)
    # per part, well under the least directness)
    iso = rng.normal(size=(4000, 3))
    iso /= np.linalg.norm(iso, axis=1, keepdims=True)
    assert steady_background(_iv(0.5 * iso), np.zeros(4000, bool), frame_rate=fr,
                             power_scale=1.0) == []
    # a direction that turns through the clip is not steady
    az = np.linspace(-90, 90, n)
    turning = 0.5 * direction_to_vector(az, np.zeros(n))
    assert steady_background(_iv(turning), active, frame_rate=fr, power_scale=1.0) == []
    # steady, but too little quiet time (one part of the clip)
    few = np.ones(n, dtype=bool)
    few[:20] = False
    steady = np.tile([0.5, 0.0, 0.0], (n, 1))
    assert steady_background(_iv(steady), few, frame_rate=fr, power_scale=1.0) == []
    assert steady_background(_iv(steady), active, frame_rate=fr, power_scale=1.0) != []
    # nothing at all
    assert steady_background(np.zeros((0, 4), np.float32), np.zeros(0, bool), frame_rate=fr,
                             power_scale=1.0) == []


def _parts_scene(n=400):
    """Four parts of 100 frames at 40 frames/s: ``active`` marks the events' frames."""
    return n, 40.0, np.zeros(n, dtype=bool)


def test_a_background_quiet_in_one_part_only_needs_a_second_of_it():
    n, fr, active = _parts_scene()
    active[:] = True
    fan = 0.3 * direction_to_vector(-60.0, 10.0)
    vecs = np.tile(-fan, (n, 1))  # the sources' frames point elsewhere
    vecs[300:] = fan
    for quiet_frames, want in ((45, True), (35, False)):
        act = active.copy()
        act[400 - quiet_frames:] = False  # quiet at the end only: 1.1 s, then 0.9 s
        out = steady_background(_iv(vecs), act, frame_rate=fr, power_scale=1.0)
        assert bool(out) is want
    act = active.copy()
    act[355:] = False
    out = steady_background(_iv(vecs), act, frame_rate=fr, power_scale=1.0)
    assert angular_distance(out[0]["azimuth_deg"], out[0]["elevation_deg"], -60.0, 10.0) < 0.1
    assert out[0]["quiet_s"] == pytest.approx(45 / fr)
    # a faint direction in that one part (a tail in diffuse noise) is not a background
    faint = np.where(np.arange(n)[:, None] >= 300, 0.4 * fan, -fan)
    assert steady_background(_iv(faint), act, frame_rate=fr, power_scale=1.0) == []


def test_one_part_may_point_elsewhere_when_it_is_directional():
    n, fr, active = _parts_scene()
    active[20:100] = active[120:200] = active[220:300] = active[320:400] = True
    fan = 0.3 * direction_to_vector(120.0, -5.0)
    vecs = np.tile(fan, (n, 1))
    vecs[200:220] = 0.3 * direction_to_vector(0.0, 0.0)  # a tail outweighs the fan there
    out = steady_background(_iv(vecs), active, frame_rate=fr, power_scale=1.0)
    assert len(out) == 1
    assert angular_distance(out[0]["azimuth_deg"], out[0]["elevation_deg"], 120.0, -5.0) < 0.1
    assert out[0]["quiet_s"] == pytest.approx(60 / fr)  # the three agreeing parts
    # an isotropic part: the direction went away, so the floor is no steady background
    iso = vecs.copy()
    iso[200:220] = 0.0
    iso[200:220, 0] = 0.01
    assert steady_background(_iv(iso), active, frame_rate=fr, power_scale=1.0) == []
    # two parts elsewhere
    two = vecs.copy()
    two[300:320] = 0.3 * direction_to_vector(-90.0, 0.0)
    assert steady_background(_iv(two), active, frame_rate=fr, power_scale=1.0) == []
    # the agreeing parts must hold at least half the counted quiet frames
    act = active.copy()
    act[200:300] = False  # the part elsewhere now has 100 quiet frames against their 60
    lop = vecs.copy()
    lop[200:300] = 0.3 * direction_to_vector(0.0, 0.0)
    assert steady_background(_iv(lop), act, frame_rate=fr, power_scale=1.0) == []


def test_is_background_rules():
    bg = {"azimuth_deg": 40.0, "elevation_deg": 0.0, "level_db": -20.0}

    def ev(az, on, off, energy):
        return Event(onset_s=on, offset_s=off, azimuth_deg=az, elevation_deg=0.0,
                     energy_db=energy)

    assert _is_background(ev(45.0, 0.0, 1.0, -5.0), bg, 10.0)  # with the clip, its direction
    assert _is_background(ev(45.0, 1.0, 9.5, -5.0), bg, 10.0)  # lasts most of the clip
    assert _is_background(ev(45.0, 4.0, 5.0, -21.0), bg, 10.0)  # no louder than it
    assert not _is_background(ev(45.0, 4.0, 5.0, -18.0), bg, 10.0)  # a source there
    assert _is_background(ev(-90.0, 0.0, 0.6, -30.0), bg, 10.0)  # a quiet reflection
    assert not _is_background(ev(-90.0, 0.0, 3.0, -12.0), bg, 10.0)  # a source at 0 s
    assert not _is_background(ev(-90.0, 2.0, 3.0, -30.0), bg, 10.0)
    assert not _is_background(Event(onset_s=0.0, offset_s=1.0), bg, 10.0)


def test_fan_signal_is_steady_and_unit_power():
    x = fan_signal(32000, 16000, np.random.default_rng(1))
    assert x.shape == (32000,) and np.mean(x**2) == pytest.approx(1.0)
    halves = [np.mean(h**2) for h in np.array_split(x, 8)]
    assert max(halves) / min(halves) < 1.6
    with pytest.raises(ParameterError, match="n=0"):
        fan_signal(0, 16000, np.random.default_rng(1))


@pytest.mark.parametrize("kw, match", [
    ({"azimuth_deg": float("nan")}, "azimuth_deg=nan"),
    ({"elevation_deg": 95.0}, "elevation_deg=95.0"),
    ({"distance_m": 0.0}, "distance_m=0.0"),
    ({"snr_db": float("inf")}, "snr_db=inf"),
])
def test_interferer_rejects_bad_values(kw, match):
    args = {"azimuth_deg": 0.0, "elevation_deg": 0.0} | kw
    with pytest.raises(ParameterError, match=match):
        Interferer(**args)


def test_render_rejects_bad_interferer_and_yaw():
    scene = _fan_scene()
    with pytest.raises(ParameterError, match="interferer must be an Interferer, got dict"):
        render_scene(scene, interferer={"azimuth_deg": 0.0})
    with pytest.raises(ParameterError, match="mic_yaw_deg=nan"):
        render_scene(scene, mic_yaw_deg=float("nan"))


@pytest.mark.parametrize("yaw", [30.0, -150.0])
def test_mic_yaw_turns_every_direction(yaw):
    src = Source(70.0, 10.0, 1.0, 0.5, 2.5, "noise", azimuth_end_deg=None)
    scene = Scene([src], 3.0, sample_rate=16000, seed=1)
    x = render_scene(scene, mic_yaw_deg=yaw).astype(np.float64)
    w, y, z, xx = x
    az, el = vector_to_direction(np.array([w @ xx, w @ y, w @ z]))
    truth = yawed_truth(src.to_dict(), yaw)
    assert angular_distance(az, el, truth["azimuth_deg"], 10.0) < 0.5
    assert truth["azimuth_deg"] == pytest.approx(((70.0 - yaw) + 180) % 360 - 180)
    moving = yawed_truth({"azimuth_deg": 170.0, "azimuth_end_deg": -170.0}, -20.0)
    assert moving == {"azimuth_deg": -170.0, "azimuth_end_deg": -150.0}


def test_background_direction_comes_from_the_frame_doa_when_given():
    n, fr = 400, 40.0
    active = np.zeros(n, dtype=bool)
    active[150:250] = True
    steady = np.tile(0.4 * direction_to_vector(0.0, 0.0), (n, 1))  # band intensity: 0 deg
    doa = np.zeros((n, 4))
    doa[:, :3] = direction_to_vector(30.0, 10.0)  # the whitened per-frame DOA: 30 deg
    doa[:, 3] = 0.5
    doa[active, :3] = direction_to_vector(-90.0, 0.0)  # the events' frames do not count
    bg = steady_background(_iv(steady), active, frame_rate=fr, power_scale=1.0,
                           frame_doa=doa)
    assert len(bg) == 1
    assert angular_distance(bg[0]["azimuth_deg"], bg[0]["elevation_deg"], 30.0, 10.0) < 0.1
    assert bg[0]["directness"] == pytest.approx(0.4, abs=1e-4)
    doa[:, 3] = 0.0  # no quiet frame voted: the band intensity's direction
    bg = steady_background(_iv(steady), active, frame_rate=fr, power_scale=1.0,
                           frame_doa=doa)
    assert angular_distance(bg[0]["azimuth_deg"], bg[0]["elevation_deg"], 0.0, 0.0) < 0.1
