"""The shared question parser (foakit.bench.questions): every cue form it reads."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.questions import AZIMUTH_HALFWIDTH_DEG, parse_question


@pytest.mark.parametrize("text, az, kind", [
    ("A sound comes from 2 o'clock. When does it start?", -60.0, "clock"),
    ("What is at 9 o'clock?", 90.0, "clock"),
    ("the source at 12 oclock", 0.0, "clock"),
    ("the source at 6 o'clock", -180.0, "clock"),
    ("the source at 10:30 o'clock", 45.0, "clock"),
    ("Which sound is ahead and to the left?", 45.0, "word"),
    ("the one in front and to your right", -45.0, "word"),
    ("A sound comes from the back-right (about -144 degrees azimuth).", -144.0, "angle"),
    ("about 30 degrees to the left", 30.0, "angle"),
    ("about 30 degrees to your right", -30.0, "angle"),
    ("azimuth -45°", -45.0, "angle"),
    ("30° left", 30.0, "angle"),
    ("the sound to your left", 90.0, "word"),
    ("the sound behind you", 180.0, "word"),
])
def test_azimuth_cues(text, az, kind):
    c = parse_question(text)
    assert c.azimuth_deg == pytest.approx(az) and c.azimuth_kind == kind
    assert c.azimuth_explicit == (kind == "angle")
    assert AZIMUTH_HALFWIDTH_DEG[kind] > 0


@pytest.mark.parametrize("text, window, time_s", [
    ("during 1.2-3.4 s", (1.2, 3.4), None),
    ("from 2 to 4 seconds", (2.0, 4.0), None),
    ("between 2 and 4 s", (2.0, 4.0), None),
    ("after 7 seconds", (7.0, math.inf), None),
    ("before 3 s", (0.0, 3.0), None),
    ("at 4.1 s", None, 4.1),
    ("in the first 3 seconds", (0.0, 3.0), None),
])
def test_time_cues(text, window, time_s):
    c = parse_question(text)
    assert c.window == window and c.time_s == time_s


def test_ear_level_is_elevation_zero_and_options_are_not_cues():
    assert parse_question("Which sound is at ear level?").elevation_deg == 0.0
    c = parse_question("Is the crackle to the left or right of the vehicle?")
    assert c.azimuth_deg is None


def test_a_question_without_cues_is_empty():
    c = parse_question("During which time interval can the sound of the gong be heard?")
    assert c.empty and c.azimuth_kind is None


@given(st.integers(1, 12), st.booleans())
def test_clock_positions_turn_clockwise_from_the_front(hour, half):
    text = f"the sound at {hour}:{'30' if half else '00'} o'clock"
    az = parse_question(text).azimuth_deg
    expected = -30.0 * (hour % 12 + (0.5 if half else 0.0))
    assert ((az - expected + 180.0) % 360.0 - 180.0) == pytest.approx(0.0, abs=1e-9)
    assert -180.0 <= az < 180.0


@given(st.floats(0, 180, allow_nan=False).map(lambda x: round(x, 1)),
       st.sampled_from(["left", "right"]), st.sampled_from(["the", "your"]))
def test_unsigned_angles_take_their_side(x, side, whose):
    az = parse_question(f"about {x} degrees to {whose} {side}").azimuth_deg
    assert az == (x if side == "left" else -x)


@given(st.floats(0, 60, allow_nan=False).map(lambda x: round(x, 2)),
       st.floats(0.05, 30, allow_nan=False).map(lambda x: round(x, 2)))
def test_bare_intervals_read_in_order(a, d):
    b = round(a + d, 2)
    assert parse_question(f"it sounds {a}-{b} s").window == (a, b)
