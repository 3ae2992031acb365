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


# ---- the dsp baseline across phrasings ------------------------------------------------

@pytest.fixture(scope="module")
def scene_clip(tmp_path_factory):
    """The phrasing set's scene as a 16 kHz ambiX file, analysed once."""
    import numpy as np
    import soundfile as sf

    from foakit.bench.sobench.baselines import analyze_for_qa
    from foakit.bench.sobench.format import QAItem

    from ..scenes import diffuse_field, plane_wave_scene
    from .phrasings import DURATION_S, SCENE

    root = tmp_path_factory.mktemp("phr") / "SO-Bench"
    (root / "audio" / "test").mkdir(parents=True)
    x = sum(gain * plane_wave_scene([(az, el, on, off)], duration=DURATION_S, seed=k)
            for k, (_, az, el, on, off, gain) in enumerate(SCENE))
    n = x.shape[1]
    x = x + 0.1 * 10 ** (-30 / 20) * diffuse_field(n, np.random.default_rng(7))
    rel = "audio/test/scene.wav"
    sf.write(root / rel, (x / np.max(np.abs(x)) * 0.5).T, 16000, subtype="PCM_16")
    clips, problems = analyze_for_qa(root, [QAItem("q", rel, "estimate_azimuth", "?")],
                                     tmp_path_factory.mktemp("phr_an"), workers=1)
    assert not problems
    return rel, clips


def _truth(label):
    from .phrasings import SCENE

    return next(s for s in SCENE if s[0] == label)


@pytest.mark.slow
def test_the_dsp_answers_one_scene_the_same_however_it_is_asked(scene_clip):
    from foakit.bench.sobench.baselines import dsp_predictions
    from foakit.bench.sobench.format import QAItem

    rel, clips = scene_clip
    items = [QAItem(f"{task}-{k}", rel, task, p.question) for task, k, p in CASES]
    rows = {r["qa_id"]: r for r in dsp_predictions(items, clips)}
    answered = 0
    for task, ps in PHRASINGS.items():
        got = [rows[f"{task}-{k}"]["foakit"] for k in range(len(ps))]
        values = [(g["abstained"], g["values"]) for g in got]
        assert all(v == values[0] for v in values), (task, values)
        answered += not values[0][0]
    assert answered >= 9  # the rest name a class, a transcript or a distance it cannot give
    v = {task: rows[f"{task}-0"]["foakit"]["values"] for task in PHRASINGS}
    tel, dog = _truth("telephone"), _truth("dog")
    assert abs(v["estimate_azimuth"]["angle_deg"] - tel[1]) <= 20
    assert abs(v["estimate_elevation"]["elevation_deg"] - tel[2]) <= 10
    assert abs(v["onset_from_location"]["onset_time_s"] - dog[3]) <= 0.2
    span = v["detect_time"]["time_span"]
    assert abs(span[0] - tel[3]) <= 0.3 and abs(span[1] - tel[4]) <= 0.3
    assert v["count_sources"] == {"count": 3}
    assert v["relative_left_right"] == {"left_right": "left"}
    assert v["compare_elevation"] == {"height_relation": "lower"}
