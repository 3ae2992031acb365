"""Questions as benchmark files phrase them: the parser reads every phrasing of the phrasing
set (tests/sobench/phrasings.py) to its cues, and the dsp baseline answers one scene the same
whichever way it is asked."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.questions import Cues, class_mentions, parse_question, referents

from .phrasings import PHRASINGS, READ_PARTS, SEED_DETECT_TIME, UNREAD, VOCAB

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


@pytest.mark.parametrize("text, frac", READ_PARTS)
def test_parts_of_the_clip_in_words_are_read(text, frac):
    c = parse_question(text)
    assert c.window_frac == pytest.approx(frac) and c.unparsed == []


@pytest.mark.parametrize("text, unread", UNREAD)
def test_unknown_cues_are_reported_not_guessed(text, unread):
    c = parse_question(text)
    assert c.unparsed == unread
    assert c.azimuth_deg is None and c.elevation_deg is None and not c.elevation_sign
    assert c.time_s is None and c.window is None and c.empty


_DIRECTION_FORMS = (
    lambda az: f"the sound about {abs(az)} degrees to your {'left' if az > 0 else 'right'}",
    lambda az: f"the sound at azimuth {az}°",
    lambda az: f"the sound {abs(az)}° {'left' if az > 0 else 'right'}",
    lambda az: f"A sound comes from somewhere (about {az} degrees azimuth). When does it start?",
    lambda az: f"the source at an azimuth of about {az} degrees",
)


@given(st.integers(-179, 180).filter(lambda a: a != 0), st.sampled_from(_DIRECTION_FORMS))
def test_angles_read_back_however_they_are_written(az, form):
    c = parse_question(form(az))
    assert c.azimuth_deg == az and c.azimuth_kind == "angle" and not c.unparsed


@given(st.integers(-180, 179), st.integers(0, 1))
def test_sector_phrases_and_clock_positions_read_back_to_their_direction(az, k):
    from foakit.bench.questions import AZIMUTH_HALFWIDTH_DEG
    from foakit.bench.sobench.questions_synth import sector_of
    from foakit.bench.sobench.questions_varied import SECTOR_WORDS

    name, margin = sector_of(az)
    c = parse_question(f"What do you hear {SECTOR_WORDS[name][k]}?")
    diff = abs((c.azimuth_deg - az + 180.0) % 360.0 - 180.0)
    assert c.azimuth_kind == "word" and diff <= AZIMUTH_HALFWIDTH_DEG["word"] + 1e-9
    hour = round(-az / 30.0) % 12 or 12
    c = parse_question(f"What do you hear at {hour} o'clock?")
    diff = abs((c.azimuth_deg - az + 180.0) % 360.0 - 180.0)
    assert c.azimuth_kind == "clock" and diff <= AZIMUTH_HALFWIDTH_DEG["clock"] + 1e-9


@given(st.sampled_from(VOCAB), st.sampled_from(["", "a ", "the ", "two ", "the loud "]),
       st.sampled_from(["", "ringing ", "distant ", "faint "]),
       st.sampled_from(["{}", "plural", "{}'s sound", "{}' sound"]))
def test_a_class_is_found_with_article_adjective_plural_or_possessive(label, art, adj, form):
    plural = label + ("es" if label.endswith(("s", "x", "ch", "sh")) else "s")
    word = plural if form == "plural" else form.format(label)
    assert class_mentions(f"Is {art}{adj}{word} on the left?", VOCAB) == [label]


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


# ---- the synthetic generator's two wordings -------------------------------------------

def _qa(seed, wording=None):
    import numpy as np

    from foakit.bench.sobench.questions_synth import make_qa_items
    from foakit.synth.scene import random_scene

    out = []
    for i in range(12):
        scene = random_scene(seed * 100 + i, n_sources=1 + i % 3, allow_motion=bool(i % 2))
        kw = {} if wording is None else {"wording": wording}
        out.append((scene, make_qa_items(scene, np.random.default_rng([seed, i, 17]), **kw)))
    return out


# sha256 of the items the house wording made for these seeds before "varied" existed
_HOUSE_SHA256 = {
    0: "dc1090ee6886272cad23583fe55c4a57f4df9fd0e8191c2754f59669c5318f30",
    1: "1342583e8c2e41f36c8fbdc38f1bf4ae90a421ff31c4b6009ec25fed6e94f212",
    2: "997fdae42ea5f00a80b694d649ffe74ce2e729ad458ae61fc39b3aea6b034266",
}


@pytest.mark.parametrize("seed", sorted(_HOUSE_SHA256))
def test_the_house_wording_is_unchanged(seed):
    import hashlib
    import json

    for wording in (None, "house"):
        items = [it for _, its in _qa(seed, wording) for it in its]
        digest = hashlib.sha256(json.dumps(items, sort_keys=True).encode()).hexdigest()
        assert digest == _HOUSE_SHA256[seed], wording


def _near(az, truth, kind):
    from foakit.bench.questions import AZIMUTH_HALFWIDTH_DEG

    return abs((az - truth + 180.0) % 360.0 - 180.0) <= AZIMUTH_HALFWIDTH_DEG[kind] + 1.0


def _names(cues, scene, i, dur):
    """Which of the question's cues single out source ``i`` (and that none points elsewhere)."""
    from foakit.bench.questions import resolve_window

    s = scene.sources[i]
    ons = sorted(range(len(scene.sources)), key=lambda j: scene.sources[j].onset_s)
    named = []
    if cues.azimuth_deg is not None:
        assert _near(cues.azimuth_deg, s.azimuth_deg, cues.azimuth_kind)
        named.append("azimuth")
    if cues.elevation_sign:
        assert cues.elevation_sign == 1 and s.elevation_deg >= 15.0
        named.append("elevation")
    if cues.order is not None:
        assert ons[cues.order] == i
        named.append("order")
    win = resolve_window(cues, dur)
    if win is not None:
        active = [j for j, o in enumerate(scene.sources)
                  if o.onset_s < win[1] and o.offset_s > win[0]]
        assert active == [i], (win, active)
        named.append("time")
    return named


def test_the_varied_wording_reads_back_to_the_truth():
    from foakit.bench.questions import class_mentions, parse_question, referents
    from foakit.bench.sobench.questions_synth import ENDINGS, GENERATED_TASKS, PREAMBLES
    from foakit.bench.sobench.questions_varied import VARIED_ENDINGS, VARIED_PREAMBLES
    from foakit.synth.scene import LABELS

    assert not set(PREAMBLES) & set(VARIED_PREAMBLES)
    assert not set(ENDINGS.values()) & set(VARIED_ENDINGS.values())
    labels = sorted(LABELS, key=len, reverse=True)
    tasks, kinds, n = set(), set(), 0
    for seed in range(6):
        house = {it["question"] for _, its in _qa(seed) for it in its}
        for scene, items in _qa(seed, "varied"):
            dur = scene.duration_s
            for it in items:
                q, task, refs = it["question"], it["task_name"], it["source_refs"]
                assert q not in house and q.startswith(VARIED_PREAMBLES)
                assert q.endswith(VARIED_ENDINGS[task])
                cues = parse_question(q)
                assert not cues.unparsed, q
                src = [scene.sources[r] for r in refs]
                said = class_mentions(q, labels)
                told = class_mentions(it["answer"], labels)
                if task == "count_sources":
                    assert not said and cues.empty and it["canonical_answer"] == str(len(src))
                elif task in ("relative_left_right", "compare_elevation", "compare_distance"):
                    assert sorted(said) == sorted(s.label for s in src), q
                    assert told[:2] == [s.label for s in src], it["answer"]
                elif task == "multi_hop":
                    if cues.relation:
                        assert cues.relation == "after" and cues.anchor is not None
                        assert _names(cues.anchor, scene, refs[0], dur) == ["azimuth"], q
                    else:  # "Between the sound X and the sound Y, which ...?"
                        pair = referents(q)
                        assert len(pair) == 2, q
                        for r, s in zip(pair, src, strict=True):
                            assert _near(r.azimuth_deg, s.azimuth_deg, r.azimuth_kind), q
                    assert told == [it["canonical_answer"]]
                else:
                    named = _names(cues, scene, refs[0], dur)
                    if said:
                        assert said == [src[0].label], q
                        named.append("class")
                    assert named or (task == "detect_source" and len(scene.sources) == 1), q
                    kinds.update(named)
                    assert told[:1] == [src[0].label], it["answer"]
                tasks.add(task)
                n += 1
    assert tasks == set(GENERATED_TASKS) and n > 300
    assert kinds == {"azimuth", "elevation", "order", "time", "class"}


def test_the_corpus_writer_passes_the_wording_on(tmp_path):
    import json

    from foakit.bench.sobench.questions_varied import VARIED_PREAMBLES
    from foakit.bench.sobench.synth import write_sobench_corpus
    from foakit.errors import ParameterError

    kw = {"n_clips": 2, "duration_s": 3.0, "rt60_s": None, "engine": "ism", "seed": 3}
    write_sobench_corpus(tmp_path / "h", **kw)
    write_sobench_corpus(tmp_path / "v", wording="varied", **kw)
    h, v = ([json.loads(x) for x in open(tmp_path / d / "qa" / "test.jsonl")] for d in "hv")
    assert all(r["question"].startswith(VARIED_PREAMBLES) for r in v)
    assert not any(r["question"].startswith(VARIED_PREAMBLES) for r in h)
    assert (tmp_path / "h" / "truth" / "scenes.jsonl").read_bytes() == \
        (tmp_path / "v" / "truth" / "scenes.jsonl").read_bytes()
    with pytest.raises(ParameterError, match="wording='plain'"):
        write_sobench_corpus(tmp_path / "x", wording="plain", **kw)
    assert not (tmp_path / "x").exists()


def test_the_dsp_resolves_fractions_with_the_clip_and_says_what_it_could_not_read():
    from foakit.bench.sobench.baselines import dsp_predictions
    from foakit.bench.sobench.format import QAItem

    def ev(az, on, off, src, db):
        return {"onset_s": on, "offset_s": off, "azimuth_deg": az, "elevation_deg": 0.0,
                "energy_db": db, "source": src}

    clip = {"status": "ok", "channels": 4, "duration_s": 20.0, "n_sources": 2,
            "events": [ev(60.0, 1.0, 4.0, 0, -20.0), ev(-60.0, 12.0, 18.0, 1, -30.0)]}
    asks = {"h1": "When does the sound in the first half start?",
            "h2": "When does the sound in the second half start?",
            "l5": "When does the sound in the last 5 seconds start?",
            "ne": "When does the sound from the northeast start?"}
    rows = dsp_predictions([QAItem(k, "a.wav", "onset_from_location", q)
                            for k, q in asks.items()], {"a.wav": clip})
    got = {r["qa_id"]: r["foakit"] for r in rows}
    assert got["h1"]["values"] == {"onset_time_s": 1.0}  # the louder one, and first half
    assert got["h2"]["values"] == {"onset_time_s": 12.0}  # 10-20 s of a 20 s clip
    assert got["l5"]["values"] == {"onset_time_s": 12.0}
    assert got["ne"]["evidence"].endswith("; not read from the question: 'northeast'")
    assert "not read" not in got["h2"]["evidence"]
    unknown = dict(clip, duration_s=None)  # no duration: the fraction is not guessed
    row = dsp_predictions([QAItem("h2", "a.wav", "onset_from_location", asks["h2"])],
                          {"a.wav": unknown})[0]
    assert row["foakit"]["values"] == {"onset_time_s": 1.0}
