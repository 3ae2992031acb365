"""The expression reader's grammar: numbers, units and intervals as property tests
(derandomized), spans, unread words, partial readings."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.bench.reader import read, resolve_window, tokenize

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()


def words(n: int) -> str:
    if n < 20:
        return _ONES[n]
    t, o = divmod(n, 10)
    return _TENS[t - 2] + ("" if o == 0 else f"-{_ONES[o]}")


times = st.integers(min_value=0, max_value=999).map(lambda k: k / 10)
units = st.sampled_from(["s", " s", " sec", " secs", " seconds", "-second mark"])


def fmt(t: float) -> str:
    return f"{t:.1f}"


@settings(derandomize=True, max_examples=60, deadline=None)
@given(t=times, unit=units, lead=st.sampled_from(["at ", "around ", "about ", "roughly ",
                                                    "at about ", "near ", "", "t = "]))
def test_time_point_any_unit_and_hedge(t, unit, lead):
    text = f"{lead}{'the ' if unit.endswith('mark') and lead else ''}{fmt(t)}{unit}"
    r = read(text)
    assert r.summary().get("time_s") == pytest.approx(t), text
    assert r.fully_read


@settings(derandomize=True, max_examples=60, deadline=None)
@given(n=st.integers(min_value=0, max_value=99))
def test_numbers_in_words_read_as_their_value(n):
    r = read(f"at {words(n)} seconds")
    assert r.summary()["time_s"] == n
    assert r.fully_read


@settings(derandomize=True, max_examples=80, deadline=None)
@given(a=times, b=times, form=st.integers(min_value=0, max_value=6))
def test_interval_forms_read_as_sorted_windows(a, b, form):
    x, y = fmt(a), fmt(b)
    text = (f"between {x} and {y} seconds", f"from {x} s to {y} s", f"{x}-{y} s",
            f"from about {x} until {y} sec", f"between the {x}- and {y}-second marks",
            f"{x} to {y} s", f"from {x} s through {y} s")[form]
    r = read(text)
    w = r.summary().get("window")
    assert w is not None, text
    assert w == (pytest.approx(min(a, b)), pytest.approx(max(a, b)))
    assert r.fully_read, r.unread


@settings(derandomize=True, max_examples=40, deadline=None)
@given(t=times, dur=st.integers(min_value=11, max_value=60),
       form=st.integers(min_value=0, max_value=4))
def test_open_intervals_close_at_the_clip_end(t, dur, form):
    text = (f"after {fmt(t)} s", f"from {fmt(t)} s until the end",
            f"after the {fmt(t)}-second mark", f"not until {fmt(t)} seconds",
            f"from {fmt(t)} s onwards")[form]
    r = read(text)
    assert r.summary()["window"] == (pytest.approx(t), None)
    assert resolve_window(r, float(dur)) == (pytest.approx(t), float(dur))
    assert resolve_window(r, None) is None


@settings(derandomize=True, max_examples=40, deadline=None)
@given(t=st.integers(min_value=1, max_value=19), dur=st.integers(min_value=20, max_value=60))
def test_opening_and_closing_seconds(t, dur):
    first = read(f"during the opening {words(t)} seconds")
    last = read(f"in the last {t} s")
    assert first.summary()["window"] == (0.0, t)
    assert resolve_window(last, float(dur)) == (dur - t, dur)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(deg=st.integers(min_value=1, max_value=179), side=st.sampled_from(["left", "right"]),
       form=st.integers(min_value=0, max_value=2))
def test_angles_with_side_words(deg, side, form):
    text = (f"{deg} degrees to the {side}", f"roughly {deg}° off to the {side}",
            f"about {deg} deg to your {side}")[form]
    s = read(text).summary()
    assert s["azimuth_deg"] == (deg if side == "left" else -deg)
    assert s["azimuth_kind"] == "angle"


@settings(derandomize=True, max_examples=40, deadline=None)
@given(n=st.integers(min_value=0, max_value=12), digits=st.booleans(),
       noun=st.sampled_from(["sounds", "sources", "distinct sound sources",
                             "simultaneous sounds", "separate events"]))
def test_counts_in_digits_or_words(n, digits, noun):
    r = read(f"There are {n if digits else words(n)} {noun}.")
    assert r.summary()["count"] == n
    assert r.fully_read


@settings(derandomize=True, max_examples=40, deadline=None)
@given(text=st.text(alphabet="ab 0123456789.,-sdegmo'°", max_size=40))
def test_spans_are_the_text_read_and_never_overlap(text):
    r = read(text)
    spans = sorted((e.start, e.end) for e in r.exprs if e.kind != "sound_list")
    for e in r.exprs:
        assert e.text == text.lower()[e.start:e.end] or e.text == text[e.start:e.end]
    for (_, b0), (a1, _) in zip(spans, spans[1:], strict=False):
        assert b0 <= a1
    for a, b, w in r.unread:
        assert text[a:b] == w


@settings(derandomize=True, max_examples=30, deadline=None)
@given(x=st.integers(min_value=1, max_value=99),
       unit=st.sampled_from(["furlongs", "minutes", "radians", "hours", "feet"]))
def test_unknown_units_are_reported_never_guessed(x, unit):
    r = read(f"at {x} {unit}")
    assert r.summary() == {}
    assert [w for _, _, w in r.unread] == [str(x)]


def test_a_part_read_option_says_so():
    r = read("between 2 and 4 seconds, 30 furlongs to the northeast")
    assert r.summary()["window"] == (2.0, 4.0)
    assert r.partial and not r.fully_read
    assert [w for _, _, w in r.unread] == ["30", "northeast"]
    whole = read("between 2 and 4 seconds")
    assert whole.fully_read and not whole.partial


def test_readings_keep_kind_and_span():
    text = "The maximum overlap is 3 simultaneous sounds, active from 2.0 s to 3.0 s."
    r = read(text)
    got = {(e.kind, e.text) for e in r.exprs}
    assert ("count", "3 simultaneous sounds") in got
    assert ("interval", "from 2.0 s to 3.0 s") in got
    for e in r.exprs:
        assert text[e.start:e.end] == e.text


def test_tokens_keep_character_spans():
    text = "At 2 o’clock, –45°"
    toks = tokenize(text)
    assert [t.text for t in toks] == ["at", "2", "o'clock", ",", "-", "45", "°"]
    assert all(text[t.start:t.end].lower().replace("’", "'").replace("–", "-") == t.text
               for t in toks)


def test_sound_lists_count_sounds_not_commas():
    assert read("In the audio, you can hear dishwasher.").summary()["n_sounds"] == 1
    assert read("air conditioner, television, and toy train").summary()["n_sounds"] == 3
    vocab = ["rock and roll music", "dog"]
    assert read("You can hear rock and roll music and a dog.",
                vocab=vocab).summary()["n_sounds"] == 2


def test_resolve_window_needs_a_duration_for_relative_parts():
    r = read("in the second half")
    assert resolve_window(r, 10.0) == (5.0, 10.0)
    assert resolve_window(r, None) is None
    assert resolve_window(r, math.nan) is None
    assert resolve_window(read("dead ahead"), 10.0) is None


@pytest.mark.parametrize("text, want", [
    ("Starting at 0.7 s and ending at 4.5 s", {"window": (0.7, 4.5)}),
    ("It begins at 2 s and ends at 5 s.", {"window": (2.0, 5.0)}),
    ("I count 4.", {"count": 4}),
    ("In total: 3", {"count": 3}),
    ("approx. 3 s", {"time_s": 3.0}),
])
def test_start_end_intervals_and_reported_counts(text, want):
    r = read(text)
    assert r.summary() == want and r.fully_read
