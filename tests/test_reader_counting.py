"""What a counting question counts: the most sounds at one moment or the distinct sounds
(:func:`foakit.bench.reader.count_kind`)."""

from __future__ import annotations

import pytest

from foakit.bench.reader import count_kind, overlap_cue

# the challenge's public example first (docs/rmsaqa.md, FORMATS.md section 5)
OVERLAP = [
    "From the audio alone, what is the maximum number of overlapping sounds?",
    "At most how many sounds can be heard at the same time?",
    "What is the largest number of concurrent sources?",
    "How many sounds overlap at the busiest moment?",
    "what's the max number of sounds playing at once",
    "Peak overlap: how many sources are simultaneously active?",
    "How many sound events occur simultaneously at most?",
    "What is the greatest number of sources you can hear at any one time?",
    "When the scene is at its busiest, how many sounds are there?",
    "Listen carefully. What is the highest number of co-occurring sound events in the clip?",
    "Based on the events you recognised, what is the most sounds active at the same moment?",
    "Count the sounds heard together at the peak of the recording.",
    "How many sources, at the most, sound concurrently?",
    "What is the maximum number of sound sources that are active at any given instant?",
]
DISTINCT = [
    "How many distinct sound sources are present in the clip?",
    "Count the sound sources you hear. How many are there?",
    "In total, how many separate sources emit sound in this scene?",
    "How many separate things are making noise here?",
    "how many sounds are there altogether, overlapping or not?",
    "What is the total number of sources, including overlapping ones?",
    "How many different sounds do you hear, whether or not they overlap?",
    "Some sounds overlap. How many sources are there?",
    "What is the maximum number of distinct sound classes present?",
    "How many sounds are heard one at a time?",
    "Number of sound events in the recording:",
    "How many sources play, at most, in this clip?",
    "Which sound is the most prominent, and how many sounds overlap with it?",
    "How many sound sources are there all together, even if they overlap at the peak?",
    "How many sources are active, not at the same time but one after another?",
]


@pytest.mark.parametrize("q", OVERLAP)
def test_overlap_questions(q):
    assert count_kind(q) == "overlap", (q, overlap_cue(q))


@pytest.mark.parametrize("q", DISTINCT)
def test_distinct_questions(q):
    assert count_kind(q) == "distinct", (q, overlap_cue(q))


def test_the_cue_names_the_words_read():
    assert overlap_cue(OVERLAP[0]) == ("maximum", "overlapping")
    assert overlap_cue("At most how many sounds play at the same time?") == \
        ("most", "at the same time")
    assert overlap_cue("How many sounds overlap at the busiest moment?") == \
        ("busiest", "busiest")
    assert overlap_cue("How many sounds are there?") is None


def test_maximum_and_concurrency_in_different_sentences_do_not_join():
    q = "Some of the sounds overlap. What is the maximum number of sources?"
    assert count_kind(q) == "distinct"


def test_empty_and_odd_text_is_distinct():
    for q in ("", "?", "...", "overlap", "maximum"):
        assert count_kind(q) == "distinct"
