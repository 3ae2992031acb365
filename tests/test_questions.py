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
    ("from about 4.7 until 5.5 seconds", (4.7, 5.5), None),
    ("between roughly 2 and about 4 s", (2.0, 4.0), None),
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


# ---- fractional windows, relations, unread cues, class mentions -----------------------

@pytest.mark.parametrize("text, frac", [
    ("in the first half", (0.0, 0.5)),
    ("during the second half of the clip", (0.5, 1.0)),
    ("the last half", (0.5, 1.0)),
    ("in the first third", (0.0, 1 / 3)),
    ("the middle third of the recording", (1 / 3, 2 / 3)),
    ("the final third", (2 / 3, 1.0)),
    ("the second quarter", (0.25, 0.5)),
    ("in the last quarter", (0.75, 1.0)),
])
def test_fractional_windows_wait_for_the_duration(text, frac):
    from foakit.bench.questions import resolve_window

    c = parse_question(f"Which sound is heard {text}?")
    assert c.window is None and c.window_frac == pytest.approx(frac) and c.order is None
    assert "time" in c.kinds() and not c.empty
    assert resolve_window(c, 12.0) == pytest.approx((frac[0] * 12, frac[1] * 12))
    assert c.with_duration(12.0).window == pytest.approx((frac[0] * 12, frac[1] * 12))
    for unknown in (None, 0.0, -1.0, math.nan, math.inf):
        assert resolve_window(c, unknown) is None and c.with_duration(unknown).window is None


def test_the_last_seconds_count_from_the_end_and_explicit_windows_win():
    from foakit.bench.questions import resolve_window

    c = parse_question("What do you hear in the last 3 seconds?")
    assert c.window is None and c.window_last_s == 3.0 and c.order is None
    assert resolve_window(c, 10.0) == (7.0, 10.0) and resolve_window(c, 2.0) == (0.0, 2.0)
    both = parse_question("In the first half, between 1 and 2 s, what is heard?")
    assert both.window == (1.0, 2.0) and both.window_frac == (0.0, 0.5)
    assert resolve_window(both, 10.0) == (1.0, 2.0)
    assert resolve_window(parse_question("the sound at 5 o'clock"), 10.0) is None


@given(st.integers(1, 59), st.floats(0.5, 60, allow_nan=False).map(lambda x: round(x, 1)))
def test_last_n_seconds_is_a_window_ending_with_the_clip(n, dur):
    from foakit.bench.questions import resolve_window

    lo, hi = resolve_window(parse_question(f"in the final {n} s"), dur)
    assert hi == dur and lo == pytest.approx(max(0.0, dur - n))


@pytest.mark.parametrize("text, az", [
    ("the sound slightly to the right", -22.5),
    ("the sound slightly to your left", 22.5),
    ("a sound a little to the left", 22.5),
    ("the sound at two o'clock", -60.0),
    ("the sound at ten o'clock", 60.0),
    ("the sound behind you and to the right", -135.0),
    ("the sound behind you, on the left", 135.0),
    ("about 30 degrees off to the right", -30.0),
])
def test_more_direction_words(text, az):
    assert parse_question(text).azimuth_deg == pytest.approx(az)
    assert AZIMUTH_HALFWIDTH_DEG[parse_question(text).azimuth_kind] > 0


def test_slightly_is_a_sector_word_reaching_from_front_to_the_diagonal():
    c = parse_question("the sound slightly to the right")
    assert c.azimuth_kind == "word" and not c.azimuth_explicit
    lo = c.azimuth_deg - AZIMUTH_HALFWIDTH_DEG["word"]
    hi = c.azimuth_deg + AZIMUTH_HALFWIDTH_DEG["word"]
    assert (lo, hi) == (-45.0, 0.0)


@pytest.mark.parametrize("text, rel, anchor_text", [
    ("Which sound starts after the dog?", "after", "the dog"),
    ("the sound that begins right before the sound from the left starts", "before",
     "the sound from the left"),
    ("the sound following the first sound", "after", "the first sound"),
    ("What precedes the telephone?", "before", "the telephone"),
    ("Which sound begins just after the sound at 4.2 s?", "after", "the sound at 4.2 s"),
])
def test_before_and_after_another_sound_are_a_relation(text, rel, anchor_text):
    c = parse_question(text)
    assert c.relation == rel and c.anchor_text == anchor_text
    assert "relation" in c.kinds() and c.empty  # nothing about the event itself
    assert c.azimuth_deg is None and c.order is None and c.time_s is None
    assert c.anchor is not None and c.anchor.relation is None


def test_the_anchor_keeps_its_own_cues_and_times_are_no_anchor():
    c = parse_question("the sound that begins right before the sound from the left starts")
    assert c.anchor.azimuth_deg == 90.0
    assert parse_question("the sound following the first sound").anchor.order == 0
    assert parse_question("the sound after the sound at 4.2 s").anchor.time_s == 4.2
    after = parse_question("the sound after 7 seconds")
    assert after.relation is None and after.window == (7.0, math.inf)
    assert parse_question("the sound after the first half").relation is None


@pytest.mark.parametrize("text, unread", [
    ("the sound from the northeast", ["northeast"]),
    ("a sound to the north-west", ["north-west"]),
    ("the sound 300 ms after the start", ["300 ms", "after the start"]),
    ("the sound about 2 m away", ["2 m"]),
    ("the sound 1.5 minutes in", ["1.5 minutes"]),
    ("the sound thirty degrees to the left", ["thirty degrees to the left"]),
    ("the sound on the starboard side", ["starboard side"]),
    ("the sound at 13 o'clock", ["13 o'clock"]),
    ("the sound at 45", ["45"]),
    ("the sound near the ceiling", ["near the ceiling"]),
])
def test_unread_cues_are_listed_and_nothing_is_guessed(text, unread):
    c = parse_question(text)
    assert c.unparsed == unread
    assert c.empty and not c.kinds()


@pytest.mark.parametrize("text, field, value", [
    ("a sound early in the clip", "window_frac", (0.0, 1 / 3)),
    ("a sound near the end of the recording", "window_frac", (0.8, 1.0)),
    ("a sound in the middle", "window_frac", (0.4, 0.6)),
    ("two seconds in", "time_s", 2.0),
    ("the sound after the 7-second mark", "window", (7.0, math.inf)),
    ("the sound heard from 9 s until the end", "window", (9.0, math.inf)),
    ("the sound during the opening three seconds", "window", (0.0, 3.0)),
    ("the sound between the 6- and 8-second marks", "window", (6.0, 8.0)),
])
def test_times_the_expression_reader_reads(text, field, value):
    c = parse_question(text)
    assert getattr(c, field) == pytest.approx(value) and c.unparsed == []
    assert c.kinds() == {"time"}


def test_the_whole_clip_is_read_but_singles_nothing_out():
    for text in ("the sound during the entire recording", "How many sounds over the whole clip?"):
        c = parse_question(text)
        assert c.kinds() == set() and c.unparsed == [], text


def test_read_cues_leave_nothing_unread_and_clip_lengths_are_no_times():
    for text in ("the sound at 4.1 s", "between 2 and 4 s", "azimuth -45°",
                 "about 30 degrees to your left", "at 2 o'clock", "the 3rd sound",
                 "in the last 3 seconds", "the sound 20 degrees above"):
        assert parse_question(text).unparsed == [], text
    c = parse_question("In this 10-second clip, which sound is at 4 s?")
    assert c.time_s == 4.0 and c.unparsed == []
    assert parse_question("a 20 s recording").empty
    assert parse_question("the 3rd sound").order == 2


def test_referents_keep_between_windows_and_put_the_subject_first():
    from foakit.bench.questions import referents

    r = referents("Is the first sound left or right of the sound between 3.8 and 4.6 s?")
    assert [x.order for x in r] == [0, None] and r[1].window == (3.8, 4.6)
    r = referents("Relative to the loudest sound, is the first sound higher or lower?")
    assert [(x.order, x.superlative) for x in r] == [(0, None), (None, "loudest")]
    r = referents("Is the sound from the front-left to the left or right of the one on your "
                  "right?")
    assert [x.azimuth_deg for x in r] == [45.0, -90.0]


VOCAB = ["dog barking", "telephone", "footsteps", "glass", "baby", "car alarm", "car",
         "female_speech", "dog"]


@pytest.mark.parametrize("text, want", [
    ("a ringing telephone", ["telephone"]),
    ("The TELEPHONE rings.", ["telephone"]),
    ("two telephones", ["telephone"]),
    ("the dog's barking", ["dog barking"]),
    ("a barking dog", ["dog barking"]),
    ("dogs and a dog", ["dog", "dog"]),
    ("breaking glasses", ["glass"]),
    ("babies crying", ["baby"]),
    ("a single footstep", ["footsteps"]),
    ("car alarms and a car", ["car alarm", "car"]),
    ("female speech", ["female_speech"]),
    ("a female-speech clip", ["female_speech"]),
    ("a hotdog and carpets", []),
    ("the dogs' bowls", ["dog"]),
])
def test_class_mentions_read_plurals_possessives_and_adjectives(text, want):
    from foakit.bench.questions import class_mentions

    assert class_mentions(text, VOCAB) == want


_PLAIN = ["dog", "gong", "telephone", "water", "piano", "speech", "engine", "bird"]
_FILLER_WORDS = ["the", "a", "sound", "of", "is", "and", "heard", "from", "left", "at", "then"]


@given(st.lists(st.sampled_from(_PLAIN + _FILLER_WORDS + ["dog bark", "water pipe"]),
                max_size=12),
       st.permutations(_PLAIN + ["dog bark", "water pipe"]))
def test_class_mentions_is_the_exact_matcher_on_exact_mentions(words, vocab):
    """On text whose mentions are all exact, an exact-match reader and class_mentions
    agree (vocabulary longest first, as the audit builds it)."""
    from foakit.bench.questions import class_mentions

    from .naive import naive_exact_mentions as _mentions

    vocab = sorted(vocab, key=len, reverse=True)
    text = " ".join(words)
    assert class_mentions(text, vocab) == _mentions(text, vocab)


@pytest.mark.parametrize("question, azimuth", [
    ("What is the sound at an azimuth of about -68 degrees? (0 degrees is straight ahead and "
     "positive angles turn to the left.)", -68.0),
    ("Name the sound in this clip. (0 degrees is straight ahead and positive angles turn to "
     "the left.)", None),
    ("How far round from straight ahead is the dog?", None),
    ("What is the angle relative to the front of the sound at 2 o'clock?", -60.0),
    ("Which sound comes from straight ahead?", 0.0),
    ("Give the azimuth; azimuth increases towards the left. Where is the sound on your "
     "right?", -90.0),
])
def test_angle_conventions_and_reference_frames_are_not_cues(question, azimuth):
    assert parse_question(question).azimuth_deg == azimuth


def test_a_time_range_is_a_question_not_a_convention():
    c = parse_question("Over what time range does the sound at about 10 o'clock play?")
    assert c.azimuth_deg == 60.0
    c = parse_question("Give the azimuth (it ranges from -180 to 180). Where is the dog at 30 "
                       "degrees?")
    assert c.azimuth_deg == 30.0 and "-180" not in " ".join(c.matched)


@pytest.mark.parametrize("question, order", [
    ("At what moment does the one above you first become audible?", None),
    ("When is the dog first heard?", None),
    ("At what time does it first appear?", None),
    ("At first, what do you hear?", None),
    ("When does the first sound start?", 0),
    ("Which sound starts first?", 0),
    ("At what times does the sound heard first start and end?", 0),
    ("Which one first appears?", 0),
    ("Describe the last event.", -1),
    ("When does the last sound begin?", -1),
])
def test_first_as_an_adverb_of_time_is_no_rank(question, order):
    assert parse_question(question).order == order


@pytest.mark.parametrize("question, azimuth", [
    ("When can you hear the sound coming from ahead to the right?", -45.0),
    ("What is ahead on your left?", 45.0),
    ("Which sound is in front of you on your right?", -45.0),
    ("Which sound is ahead and to the left?", 45.0),
    ("Which sound is ahead?", 0.0),
    ("Is the sound in front, to the left of the dog?", 0.0),
])
def test_diagonals_with_or_without_and(question, azimuth):
    assert parse_question(question).azimuth_deg == azimuth


@pytest.mark.parametrize("question, field, want", [
    ("Audio task. Give the direction of the last event in degrees. Keep it short.",
     "order", -1),
    ("Spatial audio question: Give the start and end time of the sound from the left. Be "
     "precise.", "azimuth_deg", 90.0),
    ("Listen to the clip. State the onset of a sound from behind you.", "azimuth_deg", 180.0),
    ("Here is a clip. Report the time at which something starts after 7 seconds.",
     "window", (7.0, math.inf)),
    ("Here is a clip. Based on what you hear, which sound is behind you?", "azimuth_deg",
     180.0),
    # instructions about the answer stay out
    ("Where is the dog at 2 o'clock? Give your answer in degrees, using 0 for front.",
     "azimuth_deg", -60.0),
    ("When does the dog bark? Give the first and last second in your answer.", "order", None),
])
def test_an_imperative_about_a_sound_is_the_question_not_an_instruction(question, field,
                                                                        want):
    assert getattr(parse_question(question), field) == want
