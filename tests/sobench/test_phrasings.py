"""Questions as benchmark files phrase them: the parser reads every phrasing of the phrasing
set (tests/sobench/phrasings.py) to its cues, and the dsp baseline answers one scene the same
whichever way it is asked."""

from __future__ import annotations

import math

import pytest

from foakit.bench.questions import Cues, class_mentions, parse_question, referents

from .phrasings import PHRASINGS, SEED_DETECT_TIME, UNREAD, VOCAB

CASES = [(task, k, p) for task, ps in PHRASINGS.items() for k, p in enumerate(ps)]
_EMPTY = {"azimuth_deg": None, "azimuth_kind": None, "elevation_deg": None,
          "elevation_sign": 0, "time_s": None, "window": None, "window_frac": None,
          "window_last_s": None, "order": None, "superlative": None, "relation": None,
          "unparsed": []}


def _check(cues: Cues, want: dict, where: str) -> None:
    for key, empty in _EMPTY.items():
        got, exp = getattr(cues, key), want.get(key, empty)
        if isinstance(exp, tuple):
            assert got is not None and len(got) == len(exp), (where, key, got)
            assert all(math.isclose(a, b) or a == b for a, b in zip(got, exp, strict=True)), \
                (where, key, got, exp)
        else:
            assert got == exp, (where, key, got, exp)
    assert cues.azimuth_explicit == (want.get("azimuth_kind") == "angle"), where
    if "anchor" in want:
        assert cues.anchor is not None, where
        _check(cues.anchor, want["anchor"], where + " (anchor)")
    else:
        assert cues.anchor is None, where


def test_the_set_has_six_phrasings_per_task_and_the_seed_example():
    from foakit.bench.sobench.format import TASKS

    assert set(PHRASINGS) == set(TASKS) and len(TASKS) == 16
    assert all(len(ps) >= 6 for ps in PHRASINGS.values())
    assert SEED_DETECT_TIME in [p.question for p in PHRASINGS["detect_time"]]
    for task in ("onset_from_location", "identify_source_by_location"):  # location only
        assert all(not class_mentions(p.question, VOCAB) for p in PHRASINGS[task])
    assert len({p.question for _, _, p in CASES}) == len(CASES)


@pytest.mark.parametrize("task, k, phrasing", CASES, ids=[f"{t}-{k}" for t, k, _ in CASES])
def test_every_phrasing_parses_to_its_cues(task, k, phrasing):
    where = f"{task}[{k}]"
    if phrasing.refs:
        refs = referents(phrasing.question)
        assert len(refs) == len(phrasing.refs), (where, [r.text for r in refs])
        for i, (got, want) in enumerate(zip(refs, phrasing.refs, strict=True)):
            _check(got, want, f"{where} referent {i}")
    else:
        _check(parse_question(phrasing.question), phrasing.cues, where)
    assert class_mentions(phrasing.question, VOCAB) == list(phrasing.classes), where


@pytest.mark.parametrize("text, unread", UNREAD)
def test_unknown_cues_are_reported_not_guessed(text, unread):
    c = parse_question(text)
    assert c.unparsed == unread
    assert c.azimuth_deg is None and c.elevation_deg is None and not c.elevation_sign
    assert c.time_s is None and c.window is None and c.empty
