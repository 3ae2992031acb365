"""The ``pyroomacoustics-bands`` room engine (foakit.synth.bands): octave-band walls, the
direct path from the room model, a directional late tail, moving sources moved through the
room."""

from __future__ import annotations

import numpy as np
import pytest

from foakit.conventions import angular_distance, vector_to_direction
from foakit.errors import ParameterError
from foakit.synth import Scene, Source, bands, render_scene, resolve_engine, room_impulse_response
from foakit.synth.render import Interferer
from foakit.synth.scene import room_geometry

pytest.importorskip("pyroomacoustics")

SR = 16000
ENGINE = "pyroomacoustics-bands"


def _direction(x: np.ndarray) -> tuple[float, float]:
    w, y, z, xx = x
    return tuple(float(v) for v in vector_to_direction(
        [np.mean(w * xx), np.mean(w * y), np.mean(w * z)]))


def _edt_like_rt60(w: np.ndarray, sr: int) -> float:
    edc = np.cumsum(w[::-1] ** 2)[::-1]
    db = 10 * np.log10(edc / edc[0] + 1e-30)
    i5, i25 = np.argmax(db <= -5), np.argmax(db <= -25)
    return -60.0 / np.polyfit(np.arange(i5, i25) / sr, db[i5:i25], 1)[0]


def _scene(rt60=0.5, az=60.0, el=20.0, dist=2.0, end=None, seed=3, dur=1.0):
    return Scene([Source(az, el, dist, 0.0, dur, "noise", azimuth_end_deg=end)], dur,
                 rt60_s=rt60, seed=seed, sample_rate=SR)


def test_the_engine_is_listed_and_resolved():
    assert resolve_engine(ENGINE) == ENGINE


@pytest.mark.parametrize("rt60", [0.25, 0.5, 0.85])
def test_materials_give_the_rt60_at_mid_bands_and_keep_every_band_near_it(rt60):
    scene = _scene(rt60=rt60)
    mats = bands.room_materials(scene)
    assert sorted(mats) == ["ceiling", "east", "floor", "north", "south", "west"]
    room = np.asarray(room_geometry(scene)[0])
    area = {"west": room[1] * room[2], "east": room[1] * room[2],
            "south": room[0] * room[2], "north": room[0] * room[2],
            "floor": room[0] * room[1], "ceiling": room[0] * room[1]}
    absorbed = sum(area[w] * a for w, a in mats.items())
    band_rt = 0.161 * np.prod(room) / absorbed
    assert np.mean(band_rt[2:4]) == pytest.approx(rt60, rel=0.05)
    assert np.all(band_rt >= 0.45 * rt60) and np.all(band_rt <= 2.2 * rt60)
    assert all(np.all((a >= 0.01) & (a <= 0.99)) for a in mats.values())
    # octave-band walls: the absorption is not the same in every band
    assert any(np.ptp(a) > 0.01 for a in mats.values())
    # the materials are the scene's: the same seed draws the same room
    again = bands.room_materials(_scene(rt60=rt60))
    assert all(np.array_equal(again[w], mats[w]) for w in mats)


def test_materials_errors():
    with pytest.raises(ParameterError, match="anechoic"):
        bands.room_materials(Scene([Source(0, 0, 1.0, 0, 1, "dog")], 1.0))
    far = Scene([Source(0, 0, 1.0, 0, 1, "dog")], 1.0, rt60_s=60.0)
    with pytest.raises(ParameterError, match="rt60_s=60.0 is not reachable"):
        bands.room_materials(far)


@pytest.mark.parametrize("az, el", [(60.0, 20.0), (-135.0, -30.0), (170.0, 45.0)])
def test_direct_path_is_at_sample_0_with_the_other_engines_level_and_direction(az, el):
    scene = _scene(az=az, el=el, dist=2.0)
    h = room_impulse_response(scene, 0, engine=ENGINE)
    rev = room_impulse_response(scene, 0, engine=ENGINE, include_direct=False)
    direct = h[:, :64] - rev[:, :64]
    # (the fractional-delay filter's first half lies before sample 0)
    assert np.linalg.norm(direct[0]) == pytest.approx(0.5, rel=0.05)
    assert angular_distance(*_direction(direct), az, el) < 1.0
    # the room's part holds little of the first samples (its octave-band filters spread
    # the first reflections a little before them)
    assert np.sum(rev[0, :8] ** 2) < 0.05 * np.sum(direct[0] ** 2)


def test_the_room_decays_near_its_rt60_and_its_late_tail_is_directional():
    for rt60 in (0.4, 0.8):
        h = room_impulse_response(_scene(rt60=rt60, seed=5), 0, engine=ENGINE)
        assert 0.5 * rt60 < _edt_like_rt60(h[0], SR) < 2.0 * rt60
    # floor and ceiling absorbing far more than the walls: little late sound from above or
    # below, sound along the walls lasts
    room = np.array([6.0, 5.0, 3.0])
    soft = np.full(7, 0.6)
    hard = np.full(7, 0.05)
    mats = {"west": hard, "east": hard, "south": hard, "north": hard, "floor": soft,
            "ceiling": soft}
    rng = np.random.default_rng(0)
    early = np.zeros((4, 4000))
    early[:, :3000] = rng.standard_normal((4, 3000)) * np.exp(-np.arange(3000) / 800.0)
    out = bands._with_tail(early, mats, room, 0.5, SR, 0.15, rng)
    late = np.sum(out[1:, int(0.3 * SR):] ** 2, axis=1)  # Y, Z, X
    assert late[1] < 0.2 * late.sum()
    assert out.shape[1] >= int(0.5 * SR)
    # no measurable image sources before the cap: the response is left as it is
    assert bands._with_tail(early, mats, room, 0.5, SR, 0.001, rng) is early


def test_a_moving_source_is_rendered_along_its_path():
    scene = Scene([Source(-60.0, 0.0, 1.5, 0.0, 3.0, "noise", azimuth_end_deg=60.0)], 3.0,
                  rt60_s=0.25, seed=2, sample_rate=SR)
    x = render_scene(scene, engine=ENGINE).astype(float)
    # its first millisecond: the direct sound from the start of the path
    assert angular_distance(*_direction(x[:, : SR // 1000]), -60.0, 0.0) < 2.0
    # its last 0.4 s with their reflections: from the end of the path
    az, _ = _direction(x[:, -int(0.4 * SR):])
    assert abs(az - 52.0) < 15.0
    # a moving source one sample long has no path to cross-fade over
    one = bands.render_source(scene, 0, np.ones(1), 100, 2000)
    assert one.shape == (4, 2000) and np.isfinite(one).all() and np.abs(one).max() > 0
    # a stationary source: one room response; the same scene renders the same samples
    still = _scene(rt60=0.3, dur=1.5)
    a, b = render_scene(still, engine=ENGINE), render_scene(still, engine=ENGINE)
    assert np.array_equal(a, b)
    assert angular_distance(*_direction(a[:, : SR // 1000].astype(float)), 60.0, 20.0) < 2.0


def test_a_fan_is_rendered_from_its_direction_through_the_room():
    scene = Scene([], 1.0, rt60_s=0.3, seed=4, sample_rate=SR)
    fan = Interferer(-100.0, 10.0, snr_db=0.0, distance_m=1.5)
    x = render_scene(scene, engine=ENGINE, interferer=fan).astype(float)
    assert angular_distance(*_direction(x[:, : SR // 1000]), -100.0, 10.0) < 2.0
    # and its room: more power than the same fan without one
    dry = render_scene(Scene([], 1.0, seed=4, sample_rate=SR), interferer=fan)
    assert np.mean(x[0] ** 2) > 1.2 * np.mean(dry[0].astype(float) ** 2)
