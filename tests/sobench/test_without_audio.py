"""Answers and verdicts made without their audio say so, item by item and in the run."""

from __future__ import annotations

import json

from foakit.bench.sobench.audit import audit_sobench
from foakit.bench.sobench.baselines import run_baseline


def _root(tmp_path):
    root = tmp_path / "root"
    (root / "qa").mkdir(parents=True)
    recs = [
        {"qa_id": "q1", "audio_path": "audio/missing.wav", "task_name": "detect_time",
         "question": "When does the sound occur?", "answer_meta": {"time_span": [1.0, 3.0]}},
        {"qa_id": "q2", "audio_path": "../escape.wav", "task_name": "estimate_azimuth",
         "question": "What is the azimuth of the sound?", "answer_meta": {"azimuth_deg": 30}},
        {"qa_id": "q3", "audio_path": "audio/missing.wav", "task_name": "estimate_azimuth",
         "question": "What is the azimuth of the sound?", "answer_meta": {"azimuth_deg": 40}},
    ]
    (root / "qa" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return root


def test_the_prior_says_which_answers_lacked_their_audio(tmp_path):
    run = run_baseline(_root(tmp_path), "prior")
    by_id = {r["qa_id"]: r for r in run.predictions}
    dt = by_id["q1"]["foakit"]
    assert "without its audio" in dt["evidence"] and "missing.wav" in dt["without_audio"]
    assert dt["values"]["time_span"] == [0.0, 3.0]  # the QA file's median span end
    assert run.problems == [
        f"audio/missing.wav: answered without its audio ({dt['without_audio']})"]
    # answers that never read the audio (a constant azimuth) need no such note
    assert "without_audio" not in by_id["q3"]["foakit"]


def test_audit_verdicts_without_audio_say_so_and_are_counted(tmp_path):
    result = audit_sobench(_root(tmp_path), workers=1)
    s = result.summary["without_audio"]
    assert s["n_audio"] == 2 and s["n_labels"] == len(result.verdicts) > 0
    for v in result.verdicts:
        assert v.evidence["audio"].startswith("not used: ")
    assert {p for p, _ in result.failures} == {"audio/missing.wav", "../escape.wav"}
