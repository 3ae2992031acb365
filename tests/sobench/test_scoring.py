"""SO-Bench local scoring: the official rules on hand-made cases, the report, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from foakit.bench.sobench.format import QAItem, load_qa
from foakit.bench.sobench.scoring import (
    ScoreConfig,
    angle_error_deg,
    extract_text_values,
    format_report,
    interval_iou,
    judge_record,
    motion_label,
    motion_right,
    question_options,
    score_predictions,
    word_error_rate,
)
from foakit.errors import ParameterError


def qa(task, meta=None, *, qa_id="q1", question="?", canonical="", answer=""):
    return QAItem(qa_id=qa_id, audio_path="audio/test/a.wav", task_name=task,
                  question=question, answer=answer, canonical_answer=canonical,
                  answer_meta=meta or {})


def pred(text, values=None, qa_id="q1", **extra):
    row = {"qa_id": qa_id, "prediction": text, **extra}
    if values is not None:
        row["foakit"] = {"values": values, "abstained": False}
    return row


# ---- the official rules ---------------------------------------------------------------

def test_azimuth_wraps_350_vs_10_is_20_degrees_and_correct():
    assert angle_error_deg(10, 350) == pytest.approx(20.0)
    assert angle_error_deg(350, 10) == pytest.approx(20.0)
    assert angle_error_deg(-179, 179) == pytest.approx(2.0)
    r = judge_record(qa("estimate_azimuth", {"azimuth_deg": 350}), pred("10 degrees azimuth."))
    assert r["error"] == pytest.approx(20.0) and r["correct"] == 1.0
    r = judge_record(qa("estimate_azimuth", {"azimuth_deg": 350}), pred("11 degrees"))
    assert r["error"] == pytest.approx(21.0) and r["correct"] == 0.0
    r = judge_record(qa("estimate_azimuth", {"azimuth_deg": 10}), pred("10 degrees"),
                     ScoreConfig(angle_threshold_deg=0.5))
    assert r["correct"] == 1.0


@pytest.mark.parametrize("task,meta,text,correct", [
    ("estimate_elevation", {"elevation_deg": 0}, "11 degrees elevation", 0.0),
    ("estimate_elevation", {"elevation_deg": 0}, "-10 degrees elevation", 1.0),
    ("estimate_distance", {"distance_m": 1}, "1.9 m away", 1.0),
    ("estimate_distance", {"distance_m": 10}, "11.1 m away", 0.0),
    ("onset_from_location", {"onset_time": 1}, "1.2 s: it starts", 1.0),
    ("onset_from_location", {"onset_time": 1}, "1.201 s: it starts", 0.0),
    ("count_sources", {"active_count": 3}, "3 sources are active.", 1.0),
    ("count_sources", {"active_count": 3}, "2 sources are active.", 0.0),
])
def test_numeric_thresholds(task, meta, text, correct):
    r = judge_record(qa(task, meta), pred(text))
    assert r["status"] == "scored"
    assert r["correct"] == correct


def test_detect_time_scores_iou_and_reads_reversed_spans():
    assert interval_iou([1, 3], [0, 2]) == pytest.approx(1 / 3)
    assert interval_iou([3, 1], [2, 0]) == pytest.approx(1 / 3)
    assert interval_iou([5, 6], [0, 2]) == 0.0
    item = qa("detect_time", {"time_span": [0, 2]})
    fwd = judge_record(item, pred("1 s to 3 s: audible."))
    rev = judge_record(item, pred("3 s back to 1 s."))
    assert fwd["correct"] == pytest.approx(1 / 3) and rev["correct"] == pytest.approx(1 / 3)
    assert rev["value"] == [1.0, 3.0]
    assert judge_record(item, pred("0 s to 2 s"))["correct"] == pytest.approx(1.0)
    one = judge_record(item, pred("at 1 s"))  # one number: no span
    assert one["status"] == "unparsed" and one["correct"] == 0.0


def test_a_time_before_the_angle_is_misread_by_the_fallback_but_read_from_foakit():
    item = qa("estimate_azimuth", {"azimuth_deg": 67})
    text = "At 3.2 s the sound comes from 67 degrees azimuth."
    assert extract_text_values(text)["angle_deg"] == 3.2  # the official fallback's reading
    by_text = judge_record(item, pred(text, {"angle_deg": 67}), ScoreConfig(values="text"))
    assert by_text["value"] == 3.2 and by_text["correct"] == 0.0
    auto = judge_record(item, pred(text, {"angle_deg": 67}))
    assert auto["value"] == 67 and auto["correct"] == 1.0 and auto["values_from"] == "foakit"
    # the object only: a row without one reads nothing
    bare = judge_record(item, pred("67 degrees"), ScoreConfig(values="foakit"))
    assert bare["status"] == "unparsed"


def test_missing_empty_and_unparsable_predictions():
    item = qa("estimate_elevation", {"elevation_deg": 5})
    missing = judge_record(item, None)
    assert missing["status"] == "missing" and missing["correct"] == 0.0
    for text in ("", "   ", "No answer: cannot tell."):
        r = judge_record(item, pred(text))
        assert r["status"] == "unparsed" and r["correct"] == 0.0 and not r["parsed"]
    no_target = judge_record(qa("estimate_elevation", {}), pred("5 degrees"))
    assert no_target["status"] == "no_target" and no_target["correct"] == 0.0


def test_prediction_text_order_is_the_official_codes_unless_told_otherwise():
    item = qa("estimate_distance", {"distance_m": 2.0})
    row = {"qa_id": "q1", "prediction": "2 m", "prediction_cleaned": "9 m",
           "prediction_raw": "7 m"}
    assert judge_record(item, row)["value"] == 9.0  # prediction_cleaned first, as the code
    readme = ScoreConfig(text_order="readme")
    assert judge_record(item, row, readme)["value"] == 2.0
    row = {"qa_id": "q1", "prediction": "", "prediction_raw": "2.5 m"}
    assert judge_record(item, row)["value"] == 2.5
    assert judge_record(item, row, readme)["value"] == 2.5
    with pytest.raises(ParameterError, match="text_order"):
        ScoreConfig(text_order="prediction")


def test_relations_are_judged_locally():
    lr = qa("relative_left_right", canonical="crackle is to the right of vehicle.",
            question="Is the crackle to the left or right of the vehicle?")
    assert judge_record(lr, pred("Right: the crackle is to the right."))["correct"] == 1.0
    assert judge_record(lr, pred("Left: the crackle is on that side."))["correct"] == 0.0
    assert judge_record(lr, pred("Cannot tell."))["status"] == "unparsed"
    assert judge_record(lr, pred("x", {"left_right": "right"}))["correct"] == 1.0

    q = "Which sound source is closer to the listener, the dog or the car?"
    assert question_options(q) == ("dog", "car")
    cd = qa("compare_distance", canonical="dog", question=q)
    assert judge_record(cd, pred("The dog is closer."))["correct"] == 1.0
    assert judge_record(cd, pred("The car is closer."))["correct"] == 0.0
    assert judge_record(cd, pred("The dog is closer than the car."))["correct"] == 0.0
    assert judge_record(cd, pred("Hard to say."))["status"] == "unparsed"

    el = qa("compare_elevation", canonical="The bell is higher.", question="Is the bell higher "
            "or lower than the dog?")
    assert judge_record(el, pred("Higher: it is above."))["correct"] == 1.0
    assert judge_record(el, pred("Lower: it is beneath."))["correct"] == 0.0
    # a canonical label that contains the other option's label
    bell = qa("compare_elevation", canonical="church bell",
              question="Which is higher, the church bell or the bell?")
    assert judge_record(bell, pred("The church bell is higher."))["correct"] == 1.0
    assert judge_record(bell, pred("The bell is higher."))["correct"] == 0.0


def test_motion_labels():
    assert motion_label("Moving left: it travels leftwards.") == "moving_left"
    assert motion_label("It moves from left to right.") == "moving_right"
    assert motion_label("The laughter remains stationary throughout.") == "stationary"
    assert motion_label("The sound is not moving.") == "stationary"
    assert motion_label("approaching the listener") == "moving_toward"
    assert motion_label("no idea") is None
    item = qa("classify_motion", canonical="moving left")
    assert judge_record(item, pred("Moving left."))["correct"] == 1.0
    assert judge_record(item, pred("Stationary."))["correct"] == 0.0
    generic = qa("classify_motion", canonical="It is moving.")
    assert judge_record(generic, pred("Moving right."))["correct"] == 1.0
    assert judge_record(generic, pred("Stationary."))["correct"] == 0.0


def test_motion_right_takes_either_way_only_for_a_generic_label():
    assert motion_right("moving_left", "moving_left")
    assert not motion_right("moving_right", "moving_left")
    assert motion_right("moving_right", "moving") and motion_right("moving_toward", "moving")
    assert not motion_right("stationary", "moving")
    assert not motion_right("moving", "stationary")
    generic = qa("classify_motion", canonical="moving")
    assert judge_record(generic, pred("Moving right."))["correct"] == 1.0
    still = qa("classify_motion", canonical="stationary")
    assert judge_record(still, pred("Moving."))["correct"] == 0.0


def test_speech_content_wer_is_local():
    assert word_error_rate("a dog barks", "a cat barks") == pytest.approx(1 / 3)
    assert word_error_rate("Hello, World!", "hello world") == 0.0
    item = qa("speech_content", canonical="turn left at the next corner")
    ok = judge_record(item, pred('The speaker says: "Turn left at the next corner."'))
    assert ok["correct"] == 1.0 and ok["error"] == 0.0
    assert judge_record(item, pred("turn right at a corner"))["error"] == pytest.approx(0.5)
    assert judge_record(item, pred("turn right at a corner"))["correct"] == 1.0  # WER <= 0.5
    assert judge_record(item, pred("go right by a wall"))["correct"] == 0.0
    assert judge_record(item, pred(""))["status"] == "unparsed"


def test_source_tasks_need_the_judge_unless_exact_matching_is_asked():
    item = qa("identify_source_by_doa", canonical="dog barking")
    r = judge_record(item, pred("A dog barking."))
    assert r["status"] == "needs_judge" and r["correct"] is None
    exact = ScoreConfig(source_match="exact")
    assert judge_record(item, pred("A dog barking."), exact)["correct"] == 1.0
    assert judge_record(item, pred("A cat."), exact)["correct"] == 0.0
    st = qa("spatial_temporal", {"time_span": [0, 2]}, canonical="dog from the left")
    r = judge_record(st, pred("1 s to 3 s: dog from the left"), exact)
    assert r["correct"] == pytest.approx(1 / 3)
    assert judge_record(st, pred("1 s to 3 s: dog"))["iou"] == pytest.approx(1 / 3)


def test_score_config_is_checked():
    with pytest.raises(ParameterError):
        ScoreConfig(values="llm")
    with pytest.raises(ParameterError):
        ScoreConfig(angle_threshold_deg=-1)


# ---- the report -----------------------------------------------------------------------

def _items():
    return [qa("estimate_azimuth", {"azimuth_deg": 30}, qa_id="a"),
            qa("estimate_azimuth", {"azimuth_deg": -90}, qa_id="b"),
            qa("detect_time", {"time_span": [1, 3]}, qa_id="c"),
            qa("detect_source", canonical="dog", qa_id="d"),
            qa("count_sources", {"active_count": 2}, qa_id="e")]


def test_report_micro_macro_missing_duplicates_unmatched():
    rows = [pred("35 degrees", qa_id="a"), pred("90 degrees", qa_id="b"),
            pred("1 s to 2 s", qa_id="c"), pred("A dog.", qa_id="d"),
            pred("40 degrees", qa_id="a"), pred("2 sources", qa_id="zzz")]
    rep = score_predictions(_items(), rows)
    o, pt, pr = rep["overall"], rep["per_task"], rep["problems"]
    assert pr["missing_predictions"] == ["e"]
    assert pr["duplicate_prediction_ids"] == {"a": 1}
    assert len(pr["unmatched_predictions"]) == 1 and "zzz" in pr["unmatched_predictions"][0]
    # the first row of a duplicated id is the one scored
    assert rep["records"][0]["value"] == 35.0
    assert pt["estimate_azimuth"]["accuracy"] == 0.5
    assert pt["estimate_azimuth"]["median_abs_error"] == pytest.approx((5 + 180) / 2)
    assert pt["detect_time"]["mean_iou"] == pytest.approx(0.5)
    assert pt["detect_source"]["accuracy"] is None and pt["detect_source"]["n_needs_judge"] == 1
    assert pt["count_sources"]["n_missing"] == 1 and pt["count_sources"]["parse_rate"] == 0.0
    # micro over all 5 records (judge-needing one counts 0), judged-only over 4
    assert o["task_aware_accuracy"] == pytest.approx((1 + 0 + 0.5 + 0 + 0) / 5)
    assert o["task_aware_accuracy_judged"] == pytest.approx(1.5 / 4)
    assert o["macro_accuracy"] == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    table = format_report(rep)
    assert "estimate_azimuth" in table and "judge" in table and "without a prediction: 1" in table


def test_rows_without_qa_id_match_by_position():
    items = _items()[:2]
    rows = [{"audio_path": "audio/test/a.wav", "task_name": "estimate_azimuth",
             "prediction": "30 degrees"},
            {"audio_path": "audio/test/other.wav", "task_name": "estimate_azimuth",
             "prediction": "-90 degrees"}]
    rep = score_predictions(items, rows)
    assert rep["records"][0]["correct"] == 1.0
    assert rep["problems"]["missing_predictions"] == ["b"]
    assert len(rep["problems"]["unmatched_predictions"]) == 1


def test_duplicate_qa_ids_in_the_qa_file_pair_in_order():
    items = [qa("estimate_azimuth", {"azimuth_deg": 0}, qa_id="x"),
             qa("estimate_azimuth", {"azimuth_deg": 90}, qa_id="x")]
    rep = score_predictions(items, [pred("0 degrees", qa_id="x"), pred("90 degrees", qa_id="x")])
    assert rep["overall"]["task_aware_accuracy"] == 1.0
    assert rep["problems"]["duplicate_qa_ids"] == ["x"]


# ---- the CLI --------------------------------------------------------------------------

def _write_root(root: Path) -> list[dict]:
    rows = [
        {"qa_id": "a", "audio_path": "audio/test/a.wav", "task_name": "estimate_azimuth",
         "question": "Where?", "answer_meta": {"azimuth_deg": 350.0}},
        {"qa_id": "b", "audio_path": "audio/test/a.wav", "task_name": "detect_time",
         "question": "When?", "answer_meta": {"time_span": [0.0, 2.0]}},
    ]
    (root / "qa").mkdir(parents=True)
    (root / "qa" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "foakit", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_cli_score_exit_codes_and_report(tmp_path):
    _write_root(tmp_path / "sob")
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"qa_id": "a", "prediction": "10 degrees azimuth"}) + "\n"
                     + json.dumps({"qa_id": "b", "prediction": "1 s to 3 s"}) + "\n")
    out = tmp_path / "rep" / "report.json"
    res = _cli("score", "sobench", tmp_path / "sob", preds, "-o", out)
    assert res.returncode == 0, res.stderr
    assert "estimate_azimuth" in res.stdout
    rep = json.loads(out.read_text())
    assert rep["per_task"]["estimate_azimuth"]["accuracy"] == 1.0
    assert rep["overall"]["task_aware_accuracy"] == pytest.approx((1 + 1 / 3) / 2)
    res = _cli("score", "sobench", tmp_path / "sob", preds, "--angle-threshold-deg", "10",
               "--json")
    assert res.returncode == 0
    assert json.loads(res.stdout)["per_task"]["estimate_azimuth"]["accuracy"] == 0.0

    preds.write_text(json.dumps({"qa_id": "a", "prediction": "10 degrees"}) + "\n")
    res = _cli("score", "sobench", tmp_path / "sob", preds)
    assert res.returncode == 1 and "no prediction" in res.stderr

    preds.write_text('{"qa_id": "a", "prediction": "10 degrees"}\n{not json\n')
    res = _cli("score", "sobench", tmp_path / "sob", preds)
    assert res.returncode == 2 and "p.jsonl:2" in res.stderr

    res = _cli("score", "sobench", tmp_path / "nowhere", preds)
    assert res.returncode == 2 and "qa/test.jsonl" in res.stderr
    assert _cli("score").returncode == 2


def test_qa_file_used_by_the_cli_is_the_loader_s(tmp_path):
    rows = _write_root(tmp_path)
    assert [it.qa_id for it in load_qa(tmp_path)] == [r["qa_id"] for r in rows]


def test_cli_side_by_side_table_of_several_prediction_files(tmp_path):
    _write_root(tmp_path / "sob")
    good, bad = tmp_path / "oracle.jsonl", tmp_path / "prior.jsonl"
    good.write_text(json.dumps({"qa_id": "a", "prediction": "350 degrees"}) + "\n"
                    + json.dumps({"qa_id": "b", "prediction": "0 s to 2 s"}) + "\n")
    bad.write_text(json.dumps({"qa_id": "a", "prediction": "90 degrees"}) + "\n"
                   + json.dumps({"qa_id": "b", "prediction": "0 s to 8 s"}) + "\n")
    res = _cli("score", "sobench", tmp_path / "sob", good, bad, "-o", tmp_path / "all.json")
    assert res.returncode == 0, res.stderr
    header, azimuth = res.stdout.splitlines()[0], res.stdout.splitlines()[1]
    assert header.split()[-2:] == ["oracle", "prior"]
    assert azimuth.split()[-2:] == ["100.0%", "0.0%"]
    both = json.loads((tmp_path / "all.json").read_text())
    assert both["prior"]["per_task"]["detect_time"]["mean_iou"] == pytest.approx(0.25)
