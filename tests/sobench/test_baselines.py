"""SO-Bench baselines: phrasing, oracle / prior / dsp answers, path safety, the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from foakit.bench.sobench.baselines import (
    abstention,
    dsp_predictions,
    oracle_predictions,
    phrase_answer,
    prior_predictions,
    run_baseline,
    select_event,
    source_blocks,
)
from foakit.bench.sobench.calibration import DISTANCE_CALIBRATION
from foakit.bench.sobench.format import TASKS, QAItem, load_qa, parse_question, read_predictions
from foakit.bench.sobench.scoring import ScoreConfig, extract_text_values, score_predictions
from foakit.errors import ParameterError

PATH = "audio/test/foa_a.wav"


def item(task, meta=None, *, question="Where is the sound?", canonical="", qa_id=None,
         audio_path=PATH):
    return QAItem(qa_id=qa_id or f"{task}-{len(question)}", audio_path=audio_path,
                  task_name=task, question=question, canonical_answer=canonical,
                  answer=canonical, answer_meta=meta or {})


def event(az, el=0.0, on=1.0, off=3.0, *, src=0, energy=-20.0, dist=2.0, motion="stationary",
          **kw):
    return {"onset_s": on, "offset_s": off, "azimuth_deg": az, "elevation_deg": el,
            "distance_m": dist, "distance_proxy": 0.5, "diffuseness": 0.2, "motion": motion,
            "azimuth_start_deg": az, "azimuth_end_deg": az, "confidence": 0.9,
            "energy_db": energy, "source": src, **kw}


def clip(*events, n_sources=None):
    return {"audio_id": "foa_a", "path": PATH, "status": "ok", "error": None,
            "sample_rate": 16000, "duration_s": 10.0, "channels": 4,
            "n_sources": n_sources if n_sources is not None else len({e["source"] for e in events}),
            "events": list(events)}


# ---- phrasing -------------------------------------------------------------------------

@pytest.mark.parametrize("task,values,field,expect", [
    ("estimate_azimuth", {"angle_deg": 67.2}, "angle_deg", 67.0),
    ("estimate_azimuth", {"angle_deg": -0.3}, "angle_deg", 0.0),
    ("estimate_elevation", {"elevation_deg": -12.4}, "elevation_deg", -12.0),
    ("estimate_distance", {"distance_m": 2.345}, "distance_m", 2.35),
    ("onset_from_location", {"onset_time_s": 3.214}, "onset_time_s", 3.21),
    ("count_sources", {"count": 3}, "count", 3),
    ("detect_time", {"time_span": [2.3, 4.1]}, "time_span", [2.3, 4.1]),
])
def test_value_comes_first_so_the_fallback_reads_it(task, values, field, expect):
    text = phrase_answer(task, values)
    assert extract_text_values(text)[field] == pytest.approx(expect)
    assert not text.startswith("-0")


def test_phrases_say_unit_and_region():
    assert phrase_answer("estimate_azimuth", {"angle_deg": 67}) == \
        "67 degrees azimuth: the sound is front-left."
    assert phrase_answer("estimate_azimuth", {"angle_deg": -90}).endswith("to the right.")
    assert phrase_answer("estimate_azimuth", {"angle_deg": 180}).endswith("behind.")
    assert phrase_answer("count_sources", {"count": 1}) == "1 source is active."
    assert phrase_answer("count_sources", {"count": 3}) == "3 sources are active."
    assert phrase_answer("detect_time", {"time_span": [2.3, 4.1]}).startswith("2.30 s to 4.10 s")
    assert extract_text_values(phrase_answer("classify_motion", {"motion_label": "moving_left"})
                               )["motion_label"] == "moving_left"
    with pytest.raises(ParameterError):
        phrase_answer("detect_source", {})


def test_abstentions_carry_no_value():
    for task in TASKS:
        text = abstention(task, "foakit cannot tell")
        values = extract_text_values(text)
        assert not re.search(r"\d", text)
        assert all(values[k] is None for k in ("angle_deg", "left_right", "height_relation",
                                               "distance_relation", "motion_label"))


# ---- oracle and prior -----------------------------------------------------------------

def _all_tasks():
    q2 = "Is the sound of the dog to the left or to the right of the sound of the car?"
    return [
        item("estimate_azimuth", {"azimuth_deg": -172.4}, qa_id="a1"),
        item("estimate_azimuth", {"azimuth_deg": 35.0}, qa_id="a2"),
        item("estimate_elevation", {"elevation_deg": 12.3}, qa_id="e1"),
        item("estimate_distance", {"distance_m": 3.21}, qa_id="d1"),
        item("detect_time", {"time_span": [0.3, 0.45]}, qa_id="t1"),
        item("detect_time", {"time_span": [18.5, 20.0]}, qa_id="t2"),
        item("onset_from_location", {"onset_time": 4.37}, qa_id="o1"),
        item("count_sources", {"active_count": 2}, qa_id="c1", canonical="2"),
        item("count_sources", {"active_count": 2}, qa_id="c2", canonical="2"),
        item("count_sources", {"active_count": 3}, qa_id="c3", canonical="3"),
        item("relative_left_right", question=q2, canonical="left", qa_id="r1"),
        item("relative_left_right", question=q2,
             canonical="The dog is to the right of the car.", qa_id="r2"),
        item("compare_elevation", question="Is the dog higher or lower than the car?",
             canonical="lower", qa_id="r3"),
        item("compare_distance", question="Which is closer, the dog or the car?",
             canonical="dog", qa_id="r4"),
        item("classify_motion", canonical="moving right", qa_id="m1"),
        item("classify_motion", canonical="stationary", qa_id="m2"),
        item("speech_content", canonical="turn left at the corner", qa_id="s1"),
        item("detect_source", {"time_span": [1, 2]}, canonical="gong", qa_id="x1"),
        item("identify_source_by_doa", canonical="dog", qa_id="x2"),
        item("identify_source_by_location", canonical="car", qa_id="x3"),
        item("multi_hop", canonical="bell", qa_id="x4"),
        item("spatial_temporal", {"time_span": [2.0, 4.5]}, canonical="dog, front-left, "
             "2.0s to 4.5s", qa_id="x5"),
    ]


@pytest.mark.parametrize("values", ["auto", "text"])
def test_oracle_through_the_scorer(values):
    items = _all_tasks()
    rows = oracle_predictions(items)
    assert [r["qa_id"] for r in rows] == [it.qa_id for it in items]
    rep = score_predictions(items, rows, ScoreConfig(values=values, source_match="exact"))
    for task, entry in rep["per_task"].items():
        assert entry["accuracy"] >= 0.99, (task, entry)
        assert entry["parse_rate"] == 1.0, task
    assert rep["per_task"]["detect_time"]["mean_iou"] >= 0.95
    judged = score_predictions(items, rows, ScoreConfig(values=values))
    assert judged["overall"]["task_aware_accuracy_judged"] >= 0.99
    assert judged["overall"]["n_needs_judge"] == 5


def test_prior_answers_are_the_documented_constants():
    items = _all_tasks()
    rows = {r["qa_id"]: r for r in prior_predictions(items)}
    assert rows["a1"]["foakit"]["values"] == {"angle_deg": 0.0}
    assert rows["e1"]["foakit"]["values"] == {"elevation_deg": 0.0}
    assert rows["d1"]["foakit"]["values"] == {"distance_m": 3.21}  # median of one
    assert rows["c1"]["foakit"]["values"] == {"count": 2}  # most common count
    # no audio to read the duration from: 0 s to the median span end (0.45, 2, 4.5, 20)
    assert rows["t1"]["foakit"]["values"]["time_span"] == [0.0, 3.25]
    assert rows["r4"]["prediction"] == "The dog."
    for qa_id in ("x2", "s1"):
        assert rows[qa_id]["foakit"]["abstained"]
    rep = score_predictions(items, list(rows.values()))
    assert rep["per_task"]["estimate_azimuth"]["accuracy"] == 0.0
    assert rep["per_task"]["count_sources"]["accuracy"] == pytest.approx(2 / 3)


# ---- dsp: which event a question means ------------------------------------------------

def test_select_event_by_direction_time_order_and_salience():
    blocks = source_blocks([event(90, on=1, off=2, src=0, energy=-30),
                            event(-90, on=3, off=6, src=1, energy=-10),
                            event(180, 30, on=5, off=7, src=2, energy=-25)])
    pick = {q: select_event(blocks, parse_question(q))[0]["source"] for q in (
        "When does the sound coming from your left start?",
        "When does the sound from the right start?",
        "What is the elevation of the sound coming from behind?",
        "What is the azimuth of the sound heard at 1.5 s?",
        "What is the azimuth of the first sound?",
        "What is the azimuth of the last sound?",
        "Where does the sound coming from about -80 degrees azimuth come from?",
        "What is the azimuth of the sound above you?",
        "What is the azimuth of the sound of the dog?",
    )}
    assert list(pick.values()) == [0, 1, 2, 0, 0, 2, 1, 2, 1]
    ev, why = select_event(blocks, parse_question("What is the azimuth of the sound of the dog?"))
    assert "most salient" in why and ev["azimuth_deg"] == -90


def test_blocks_merge_one_source_and_keep_the_first_occurrence():
    blocks = source_blocks([event(30, on=1, off=2), event(31, on=2.5, off=3, energy=-5),
                            event(30, on=8, off=9)])
    assert [(b["onset_s"], b["offset_s"]) for b in blocks] == [(1, 3), (8, 9)]
    assert blocks[0]["azimuth_deg"] == 31  # the strongest event's direction
    ev, _ = select_event(blocks, parse_question("When does the sound from the front-left "
                                                "start?"))
    assert ev["onset_s"] == 1
    ev, _ = select_event(blocks, parse_question("Where is the sound heard at 8.5 s?"))
    assert ev["onset_s"] == 8


def test_dsp_answers_from_clip_records():
    c = clip(event(60, 20, on=1.0, off=3.0, src=0, dist=1.2),
             event(-45, -10, on=4.0, off=6.5, src=1, energy=-10, dist=3.5,
                   motion="right_to_left", azimuth_start_deg=-80, azimuth_end_deg=-10))
    items = [
        item("estimate_azimuth", qa_id="az", question="What is the azimuth of the sound "
             "coming from the front-left?"),
        item("estimate_elevation", qa_id="el", question="What is the elevation of the first "
             "sound?"),
        item("onset_from_location", qa_id="on", question="When does the sound coming from the "
             "front-right begin?"),
        item("detect_time", qa_id="dt", question="During which time interval can the sound "
             "of the gong be heard?"),
        item("count_sources", qa_id="n"),
        item("count_sources", qa_id="nw", question="How many sources are active at 2 s?"),
        item("classify_motion", qa_id="mo", question="Is the sound of the car stationary or "
             "moving?"),
        item("estimate_distance", qa_id="di", question="How far away is the last sound?"),
        item("relative_left_right", qa_id="lr", question="Is the sound at 2 s to the left or "
             "to the right of the sound at 5 s?"),
        item("compare_distance", qa_id="cd", question="Which is closer, the sound at 2 s or "
             "the sound at 5 s?"),
        item("compare_distance", qa_id="cd2", question="Which is farther, the sound at 2 s "
             "or the sound at 5 s?"),
        item("compare_elevation", qa_id="ce", question="Is the sound at 5 s higher or lower "
             "than the sound at 2 s?"),
        item("relative_left_right", qa_id="lr2", question="Is the dog to the left or right of "
             "the car?"),
        item("identify_source_by_doa", qa_id="id"),
        item("speech_content", qa_id="sp"),
    ]
    rows = {r["qa_id"]: r for r in dsp_predictions(items, {PATH: c})}
    assert rows["az"]["prediction"].startswith("60 degrees azimuth")
    assert rows["el"]["foakit"]["values"] == {"elevation_deg": 20.0}
    for row in rows.values():  # the object holds what the sentence says
        read = extract_text_values(row["prediction"])
        for key, value in row["foakit"]["values"].items():
            if key in ("angle_deg", "elevation_deg", "distance_m", "onset_time_s", "count"):
                assert read[key] == pytest.approx(value), (row["qa_id"], key)
    assert rows["on"]["foakit"]["values"] == {"onset_time_s": 4.0}
    assert rows["dt"]["foakit"]["values"] == {"time_span": [4.0, 6.5]}  # most salient
    assert "most salient" in rows["dt"]["foakit"]["why"]
    assert rows["n"]["prediction"] == "2 sources are active."
    assert rows["nw"]["foakit"]["values"] == {"count": 1}
    assert rows["mo"]["foakit"]["values"] == {"motion_label": "moving_left"}
    assert rows["mo"]["prediction"].startswith("Moving left")
    # the last event (analysis proxy 3.5 m) answered by the calibrated blind distance
    assert rows["di"]["foakit"]["event"]["distance_m"] == 3.5
    assert rows["di"]["foakit"]["values"] == {
        "distance_m": round(DISTANCE_CALIBRATION.answer(0.9), 2)}
    assert rows["di"]["foakit"]["calibration"]["method"] == "calibrated"
    assert rows["lr"]["foakit"]["values"] == {"left_right": "left"}
    assert "right" not in rows["lr"]["prediction"].lower()
    assert rows["cd"]["prediction"].startswith("The sound at 2 s is closer")
    assert "5 s" not in rows["cd"]["prediction"]
    assert rows["cd2"]["prediction"].startswith("The sound at 5 s is farther")
    assert "2 s" not in rows["cd2"]["prediction"]
    assert rows["ce"]["prediction"].startswith("Lower:")
    assert "higher" not in rows["ce"]["prediction"]
    for qa_id in ("lr2", "id", "sp"):
        assert rows[qa_id]["foakit"]["abstained"], qa_id
        assert not re.search(r"\d", rows[qa_id]["prediction"])
    rightward = clip(event(-30, motion="left_to_right", azimuth_start_deg=40,
                           azimuth_end_deg=-30))
    mo = dsp_predictions([item("classify_motion", qa_id="m")], {PATH: rightward})[0]
    assert mo["foakit"]["values"] == {"motion_label": "moving_right"}
    assert mo["prediction"] == "Moving right: its azimuth goes from 40 to -30 degrees."
    ev = rows["az"]["foakit"]["event"]
    assert ev["azimuth_deg"] == 60 and rows["az"]["foakit"]["evidence"].startswith("event 1.00")


def test_dsp_abstains_for_missing_broken_or_empty_audio():
    items = [item("estimate_azimuth", qa_id="a", audio_path="x.wav"),
             item("estimate_azimuth", qa_id="b", audio_path="y.wav"),
             item("estimate_azimuth", qa_id="c", audio_path="z.wav"),
             item("count_sources", qa_id="d", audio_path="z.wav"),
             item("estimate_azimuth", qa_id="e", audio_path="w.wav"),
             item("estimate_azimuth", qa_id="f", audio_path="v.wav")]
    stereo = dict(clip(event(None, None)), channels=2)
    clips = {"v.wav": stereo, "x.wav": "audio file missing",
             "y.wav": {"status": "error", "error": "truncated", "events": []},
             "z.wav": clip()}
    rows = dsp_predictions(items, clips)
    assert [r["qa_id"] for r in rows] == ["a", "b", "c", "d", "e", "f"]
    assert [r["foakit"]["abstained"] for r in rows] == [True, True, True, False, True, True]
    assert "four-channel" in rows[5]["prediction"]
    assert "missing" in rows[0]["prediction"] and "could not be read" in rows[1]["prediction"]
    assert "truncated" in rows[1]["foakit"]["evidence"]
    assert rows[3]["prediction"] == "0 sources are active."


# ---- on files -------------------------------------------------------------------------

def _cli(*args):
    return subprocess.run([sys.executable, "-m", "foakit", *map(str, args)],
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    synth = pytest.importorskip("foakit.synth.layouts")
    root = tmp_path_factory.mktemp("sob") / "SO-Bench"
    # 16 clips: the >= 90 % bars below then allow one miss (with 8 they asked for all)
    synth.write_sobench_corpus(root, n_clips=16, seed=11, n_sources=1, engine="ism",
                               rt60_s=None, snr_db=(25.0, 30.0), allow_motion=False)
    return root


def test_dsp_beats_prior_and_oracle_is_perfect_on_synthetic_scenes(corpus, tmp_path):
    items = load_qa(corpus).items
    reports = {}
    for kind in ("oracle", "prior", "dsp"):
        run = run_baseline(corpus, kind, analysis_dir=tmp_path / "an", workers=1)
        assert len(run.predictions) == len(items) and not run.problems
        reports[kind] = score_predictions(items, run.predictions)["per_task"]
    for task, entry in reports["oracle"].items():
        assert entry["accuracy"] is None or entry["accuracy"] >= 0.99, task
    for task in ("estimate_azimuth", "estimate_elevation", "onset_from_location"):
        assert reports["dsp"][task]["accuracy"] >= 0.9, task
        assert reports["dsp"][task]["accuracy"] > reports["prior"][task]["accuracy"], task
    assert reports["dsp"]["detect_time"]["mean_iou"] > reports["prior"]["detect_time"]["mean_iou"]
    assert reports["dsp"]["count_sources"]["accuracy"] >= 0.85


def test_paths_escaping_the_root_are_refused(corpus, tmp_path):
    root = tmp_path / "root"
    (root / "qa").mkdir(parents=True)
    (root / "audio").mkdir()
    real = sorted((corpus / "audio" / "test").glob("*.wav"))[0]
    outside = tmp_path / "outside.wav"
    outside.write_bytes(real.read_bytes())
    (root / "audio" / "ok.wav").write_bytes(real.read_bytes())
    (root / "audio" / "link.wav").symlink_to(outside)
    q = "What is the azimuth of the sound?"
    recs = [{"qa_id": f"q{i}", "audio_path": p, "task_name": "estimate_azimuth", "question": q,
             "answer_meta": {"azimuth_deg": 0}}
            for i, p in enumerate(["audio/ok.wav", "../outside.wav", str(outside),
                                   "audio/link.wav", "audio/missing.wav"])]
    (root / "qa" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    run = run_baseline(root, "dsp", analysis_dir=tmp_path / "an", workers=1)
    # a symlink is followed; absolute and '..' paths are refused lexically
    assert [r["foakit"]["abstained"] for r in run.predictions] == [False, True, True, False, True]
    text = "\n".join(run.problems)
    assert text.count("refused") == 2 and "missing" in text
    analysed = (tmp_path / "an" / "clips.jsonl").read_text()
    assert "outside" not in analysed and "link.wav" in analysed

    out = tmp_path / "p.jsonl"
    res = _cli("baseline", "sobench", root, "--kind", "dsp", "-o", out, "--analysis",
               tmp_path / "an", "--no-progress", "--workers", "1")
    assert res.returncode == 1 and "refused" in res.stderr
    assert len(read_predictions(out)) == len(recs)


def test_cli_baseline_then_score(corpus, tmp_path):
    n = len(load_qa(corpus))
    for kind in ("oracle", "prior", "dsp"):
        out = tmp_path / f"{kind}.jsonl"
        res = _cli("baseline", "sobench", corpus, "--kind", kind, "-o", out, "--no-progress",
                   "--analysis", tmp_path / "an", "--workers", "1")
        assert res.returncode == 0, res.stderr
        if kind == "dsp":  # the run summary says how many questions were read in full
            from foakit.bench.sobench.format import parse_question
            ok = sum(not parse_question(it.question).unparsed for it in load_qa(corpus).items)
            assert f"questions with every cue read {ok}/{n} " in res.stderr
        rows = read_predictions(out)
        assert len(rows) == n and all(r["prediction"] for r in rows)
        assert {"qa_id", "audio_path", "task_name", "prediction", "foakit"} <= set(rows[0])
    res = _cli("score", "sobench", corpus, tmp_path / "oracle.jsonl", "-o", tmp_path / "r.json",
               "--values", "text")
    assert res.returncode == 0, res.stderr
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["overall"]["task_aware_accuracy_judged"] >= 0.99
    assert _cli("baseline").returncode == 2
    assert _cli("baseline", "sobench", corpus, "--kind", "guess", "-o", "x").returncode == 2
    assert _cli("baseline", "sobench", tmp_path / "none", "--kind", "oracle", "-o",
                tmp_path / "y.jsonl").returncode == 2
