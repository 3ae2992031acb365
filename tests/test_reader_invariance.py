"""Paraphrase invariance: one scene, its options worded ten ways, the same dsp answers.

The analysis records are hand-made (a source's events as ``foakit analyze`` writes them),
so the right letter of each pair is known; every wording must give that letter by the same
rule, with every option read in full.
"""

from __future__ import annotations

import pytest

from foakit.bench.rmsaqa.baselines import dsp_answer
from foakit.bench.rmsaqa.claims import coverage

WORDS = "zero one two three four five six seven eight nine ten".split()


def _rec(*sources):
    """An analysis record: ``(onset, offset, azimuth)`` per source, 10 s clip."""
    return {"status": "ok", "duration_s": 10.0, "events": [
        {"source": k, "onset_s": a, "offset_s": b, "azimuth_deg": az, "elevation_deg": 0.0,
         "confidence": 0.5} for k, (a, b, az) in enumerate(sources)]}


TWO = _rec((0.5, 4.0, 60.0), (5.0, 9.5, -120.0))
ONE = _rec((6.2, 10.0, 135.0))

COUNTS = {"A": 1, "B": 2, "C": 3, "D": 4}
COUNT_STYLES = [
    lambda n: str(n),
    lambda n: f"{WORDS[n].capitalize()} source" + ("s" if n > 1 else ""),
    lambda n: f"{n} distinct sounds",
    lambda n: f"The maximum overlap is {n} simultaneous sounds.",
    lambda n: f"I can make out {WORDS[n]} distinct sources.",
    lambda n: f"There are {WORDS[n]} sound sources in this recording.",
    lambda n: f"{WORDS[n].capitalize()} different sounds",
    lambda n: f"I count {n}.",
    lambda n: f"Exactly {WORDS[n]}.",
    lambda n: "A pair of sounds." if n == 2 else f"The scene holds {WORDS[n]} sound events.",
]

SPANS = {"A": (0.0, 3.0), "B": (2.0, 5.0), "C": (6.0, 10.0), "D": (3.0, 6.0)}


def _edge(a, b, start, end, middle):
    return start(b) if a == 0 else end(a) if b == 10 else middle(a, b)


SPAN_STYLES = [
    lambda a, b: f"From {a:.1f} s to {b:.1f} s",
    lambda a, b: f"Between {a:g} and {b:g} seconds",
    lambda a, b: f"{a:g}-{b:g} s",
    lambda a, b: f"Between the {a:g}- and {b:g}-second marks",
    lambda a, b: f"It is audible from roughly {a:g} until {b:g} seconds.",
    lambda a, b: f"Starting at {a:g} s and ending at {b:g} s",
    lambda a, b: f"The active interval runs from {a:.1f} s to {b:.1f} s.",
    lambda a, b: _edge(a, b, lambda y: f"During the opening {WORDS[int(y)]} seconds",
                       lambda x: f"From {x:g} s until the end",
                       lambda x, y: f"Between {x:g} and {y:g} s"),
    lambda a, b: _edge(a, b, lambda y: f"Before the {y:g}-second mark",
                       lambda x: f"After the {x:g}-second mark",
                       lambda x, y: f"{x:g} to {y:g} sec"),
    lambda a, b: f"From {WORDS[int(a)]} to {WORDS[int(b)]} seconds",
]

DIRS = {"A": 0.0, "B": 45.0, "C": -90.0, "D": 135.0}
DIR_STYLES = [
    {0.0: "Toward the front", 45.0: "Toward the front-left", -90.0: "Toward the right",
     135.0: "Toward the rear-left"},
    {0.0: "Near the front area", 45.0: "Near the front-left area", -90.0: "Near the right area",
     135.0: "Near the rear-left area"},
    {0.0: "Dead ahead", 45.0: "Ahead and to the left", -90.0: "Off to your right",
     135.0: "Behind you on your left"},
    {0.0: "Spatially, it is positioned toward the front.",
     45.0: "Spatially, it is positioned toward the front-left.",
     -90.0: "Spatially, it is positioned toward the right.",
     135.0: "Spatially, it is positioned toward the rear-left."},
    {0.0: "Straight ahead, at 0 degrees", 45.0: "About 45 degrees to your left",
     -90.0: "About 90 degrees to your right", 135.0: "About 135 degrees to your left"},
    {0.0: "In front of the listener", 45.0: "Roughly 45° off to the left",
     -90.0: "Roughly 90° off to the right", 135.0: "Roughly 135° off to the left"},
    {0.0: "Azimuth 0 deg", 45.0: "Azimuth 45 deg", -90.0: "Azimuth -90 deg",
     135.0: "Azimuth 135 deg"},
    {0.0: "At 12 o'clock", 45.0: "Front-left", -90.0: "At 3 o'clock",
     135.0: "To the back left"},
    {0.0: "From the front", 45.0: "From the front-left sector",
     -90.0: "From the right-hand side", 135.0: "From the back-left region"},
    {0.0: "It's coming from straight ahead.", 45.0: "It's coming from ahead, slightly off to "
     "the left.", -90.0: "It's coming from your right.",
     135.0: "It's coming from behind you, over on the left."},
]

LISTS = {"A": ["dishwasher"], "B": ["dishwasher", "television"],
         "C": ["dishwasher", "television", "toy train"],
         "D": ["dishwasher", "television", "toy train", "air conditioner"]}


def _and(xs, oxford=False):
    if len(xs) == 1:
        return xs[0]
    return ", ".join(xs[:-1]) + ("," if oxford and len(xs) > 2 else "") + " and " + xs[-1]


LIST_STYLES = [
    lambda xs: f"In the audio, you can hear {_and(xs, True)}.",
    lambda xs: _and(xs).capitalize(),
    lambda xs: "; ".join(xs).capitalize(),
    lambda xs: f"The clip features {_and(xs)}.",
    lambda xs: f"Audible: {', '.join(xs)}.",
    lambda xs: f"You can hear {_and(xs, True)}.",
    lambda xs: f"The sounds present are {_and(xs)}.",
    lambda xs: ("Only " + xs[0]) if len(xs) == 1 else " plus ".join(xs).capitalize(),
    lambda xs: f"The recording contains {_and(xs)}.",
    lambda xs: f"Sounds of {_and(xs)}.",
]


def _answers(question, styles, values, rec, stage):
    out = []
    for style in styles:
        options = {k: (style[v] if isinstance(style, dict) else
                       style(*v) if isinstance(v, tuple) else style(v))
                   for k, v in values.items()}
        assert coverage(options.values())["share"] == 1.0, options
        letter, info = dsp_answer(question, options, rec, stage=stage)
        out.append((letter, info["rule"], info["abstained"], options))
    return out


@pytest.mark.parametrize("question, styles, values, rec, stage, letter, rule", [
    ("How many sound sources are there?", COUNT_STYLES, COUNTS, TWO, 2, "B", "count"),
    ("From what you hear, what time span does the dog cover?", SPAN_STYLES, SPANS, ONE, 2,
     "C", "span"),
    ("Where is the dog relative to you?", DIR_STYLES, DIRS, ONE, 2, "D", "direction"),
    ("Which sounds can be heard?", LIST_STYLES, LISTS, TWO, 1, "B", "sound_count"),
], ids=["count", "span", "direction", "sound list"])
def test_ten_wordings_one_answer(question, styles, values, rec, stage, letter, rule):
    got = _answers(question, styles, values, rec, stage)
    assert len(got) == 10
    for ans, r, abstained, options in got:
        assert (ans, r, abstained) == (letter, rule, False), options


@pytest.mark.parametrize("styles, values, rec, cat, right, wrong", [
    (COUNT_STYLES, COUNTS, TWO, 1, "B", "D"),
    (SPAN_STYLES, SPANS, ONE, 3, "C", "A"),
    (DIR_STYLES, DIRS, ONE, 2, "D", "A"),
], ids=["count", "span", "direction"])
def test_ten_wordings_one_audit_verdict(styles, values, rec, cat, right, wrong):
    from foakit.bench.rmsaqa.audit import AuditConfig, _check
    from foakit.bench.rmsaqa.format import CATEGORIES, Item, Pair

    verdicts = {right: set(), wrong: set()}
    for style in styles:
        options = {k: (style[v] if isinstance(style, dict) else
                       style(*v) if isinstance(v, tuple) else style(v))
                   for k, v in values.items()}
        s1 = Pair(1, "Which sounds?", {"A": "a dog", "B": "a cat"}, "A")
        for ref in verdicts:
            s2 = Pair(2, "What does the clip say?", options, ref, cat, CATEGORIES[cat])
            v = _check(Item("seg", 0, "a.wav", s1, s2), rec, AuditConfig())
            verdicts[ref].add((v.field, v.verdict))
    assert verdicts[right] == {(verdicts[right].copy().pop()[0], "consistent")}
    assert len(verdicts[wrong]) == 1 and verdicts[wrong].pop()[1] == "suspicious"
