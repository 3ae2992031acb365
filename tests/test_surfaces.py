"""The ``-surfaces`` room engines: floor and ceiling unlike the walls (foakit.synth.surfaces)."""

import importlib.util

import numpy as np
import pytest

from foakit.synth import random_scene, render_scene
from foakit.synth.render import ENGINES, resolve_engine, room_impulse_response
from foakit.synth.scene import room_geometry, sabine_absorption
from foakit.synth.surfaces import (
    FLOOR_HARD,
    MAX_ALPHA,
    SURFACE_ENGINES,
    Surfaces,
    base_engine,
    draw_surfaces,
    image_gains,
)

HAVE_PRA = importlib.util.find_spec("pyroomacoustics") is not None


def _scene(seed, rt60=0.5):
    return random_scene(seed, n_sources=1, rt60_s=rt60, duration_s=2.0, elevation_deg=(0, 0))


@pytest.mark.parametrize("floor_hard", [True, False])
@pytest.mark.parametrize(("room", "alpha"), [((5.0, 6.0, 3.0), 0.3), ((9.0, 4.0, 2.7), 0.12),
                                             ((3.0, 3.5, 2.5), 0.05), ((20.0, 20.0, 3.0), 0.2),
                                             ((12.0, 10.0, 2.5), 0.2)])
def test_absorption_keeps_the_rooms_total_and_orders_floor_and_ceiling(room, alpha,
                                                                      floor_hard):
    a = Surfaces(floor_hard=floor_hard, hard=0.2, soft=2.0).absorption(room, alpha)
    lx, ly, lz = room
    areas = np.array([ly * lz, ly * lz, lx * lz, lx * lz, lx * ly, lx * ly])
    assert float(areas @ np.array(a)) / areas.sum() == pytest.approx(alpha, rel=1e-12)
    floor, ceiling = a[4], a[5]
    assert (floor < ceiling) if floor_hard else (ceiling < floor)
    assert a[0] == a[1] == a[2] == a[3]
    assert max(a) <= MAX_ALPHA


def test_draws_are_seeded_and_mostly_a_hard_floor():
    draws = [draw_surfaces(_scene(s)) for s in range(300)]
    assert draws[:5] == [draw_surfaces(_scene(s)) for s in range(5)]
    share = np.mean([d.floor_hard for d in draws])
    assert abs(share - FLOOR_HARD) < 0.08


def test_image_gains_of_equal_surfaces_are_beta_to_the_order():
    n_max, alpha = 3, 0.3
    nn = np.arange(-n_max, n_max + 1)
    o = np.concatenate([2 * np.abs(nn), np.abs(nn - 1) + np.abs(nn)])
    order = (o[:, None, None] + o[None, :, None] + o[None, None, :]).ravel()
    got = image_gains(n_max, [alpha] * 6)
    np.testing.assert_allclose(got, np.sqrt(1 - alpha) ** order, rtol=1e-12)
    # a floor that absorbs everything silences every image that reflects off it
    g = image_gains(n_max, [0.3, 0.3, 0.3, 0.3, 1.0, 0.3]).reshape(3 * [2 * (2 * n_max + 1)])
    assert g[n_max, n_max, n_max] == 1.0  # the source itself
    assert g[n_max, n_max, 3 * n_max + 1] == 0.0  # its floor image (-p, n = 0)
    assert g[n_max, n_max, 3 * n_max + 2] > 0.0  # its ceiling image (-p + 2 L, n = 1)


def test_engines_are_known_and_resolve_to_themselves():
    for eng in SURFACE_ENGINES:
        assert eng in ENGINES
        if eng.startswith("pyroomacoustics") and not HAVE_PRA:
            continue
        assert resolve_engine(eng) == eng
    scene = _scene(1)
    assert base_engine("ism", scene) == ("ism", None)
    assert base_engine("ism-surfaces", scene) == ("ism", draw_surfaces(scene))


def _early_vertical(scene, engine):
    """Sum of W * Z over the first 15 ms of reflections: < 0 when they come from below."""
    h = room_impulse_response(scene, 0, engine=engine, include_direct=False)
    n = int(0.015 * scene.sample_rate)
    return float(np.sum(h[0, :n] * h[2, :n]))


@pytest.mark.parametrize("engine", [
    "ism-surfaces",
    pytest.param("pyroomacoustics-surfaces",
                 marks=pytest.mark.skipif(not HAVE_PRA, reason="needs pyroomacoustics")),
])
def test_early_reflections_come_from_the_hard_surface(engine):
    seeds = {True: None, False: None}
    for s in range(50):
        scene = _scene(s)
        hard = draw_surfaces(scene).floor_hard
        if seeds[hard] is None:
            seeds[hard] = s
    base = SURFACE_ENGINES[engine]
    for floor_hard, s in seeds.items():
        scene = _scene(s)
        got, equal = _early_vertical(scene, engine), _early_vertical(scene, base)
        # against the same room with all surfaces alike, the hard one's side gains
        assert (got < equal) if floor_hard else (got > equal), (floor_hard, got, equal)
        room, _ = room_geometry(scene)
        a = draw_surfaces(scene).absorption(room, sabine_absorption(scene.rt60_s, room))
        assert (a[4] < a[5]) == floor_hard


def test_render_scene_with_surfaces_is_seeded_and_differs_from_equal_surfaces():
    scene = random_scene(3, n_sources=2, rt60_s=0.6, duration_s=2.0, snr_db=20.0)
    a = render_scene(scene, engine="ism-surfaces")
    assert np.array_equal(a, render_scene(scene, engine="ism-surfaces"))
    b = render_scene(scene, engine="ism")
    assert a.shape == b.shape and not np.array_equal(a, b)
