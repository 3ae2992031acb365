"""AIR-Bench Chat loading (Chat_meta.json and evalscope records) and judge requests."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.airbench import (
    CATEGORY_OF,
    PROMPT_TEMPLATE,
    build_prompt,
    build_requests,
    load_chat,
    parse_meta_info,
    transcription_of,
)
from foakit.bench.airbench.format import item_key, speaking_times
from foakit.errors import FormatError, ParameterError

SEED_META = ("{'emotion': 'neutral', 'gender': 'male', 'transcription': \"And then we'll "
             "thrash it out with father. Okay Mom? Don't avoid me.\"}")
DIALOGUE = json.dumps([{"speaker": "speaker 1", "speaking time": "(0.00,13.39)",
                        "transcription": "so it's a lot more"},
                       {"speaker": "speaker 2", "speaking time": "(5.33,6.88)",
                        "transcription": "right right"}])


def _write(root, items):
    (root / "Chat").mkdir(parents=True, exist_ok=True)
    (root / "Chat" / "Chat_meta.json").write_text(json.dumps(items))


def _item(i, task="speech_QA", ds="iemocap", path=None, meta=SEED_META):
    return {"meta_info": meta, "question": f"q{i}", "answer_gt": f"a{i}",
            "path": path or f"clip{i}.wav", "task_name": task, "dataset_name": ds,
            "uniq_id": i}


def test_meta_info_forms():
    meta, ok = parse_meta_info(SEED_META)
    assert ok and meta["emotion"] == "neutral"
    assert transcription_of(meta).startswith("And then")
    d, ok = parse_meta_info(DIALOGUE)
    assert ok and transcription_of(d) == "so it's a lot more right right"
    assert speaking_times(d) == [(0.0, 13.39), (5.33, 6.88)]
    assert parse_meta_info("A dog barks twice.") == ("A dog barks twice.", True)
    assert transcription_of("A dog barks twice.") is None
    assert parse_meta_info("{'emotion': 'neutral', 'transcription': \"cut")[1] is False
    assert parse_meta_info(None) == (None, False)
    assert parse_meta_info("  ")[1] is False


@given(st.text(max_size=60))
def test_parse_meta_info_never_raises(text):
    value, ok = parse_meta_info(text)
    assert isinstance(ok, bool)
    transcription_of(value)
    speaking_times(value)


def test_load_chat_layout_categories_and_item_problems(tmp_path):
    items = [_item(0), _item(1, "music_generation_analysis_QA", "musiccaps", "sub/x.mp3"),
             _item(2, "karaoke_QA"), _item(1, "sound_QA", "clotho"),
             _item(4, path="../../etc/passwd"), {**_item(5), "uniq_id": None}]
    _write(tmp_path, items)
    c = load_chat(tmp_path)
    assert c.form == "chat_meta" and len(c) == 6
    a, b, unk, rep, esc, noid = c.items
    assert a.audio == tmp_path / "Chat" / "speech_QA_iemocap" / "clip0.wav"
    assert a.category == "speech" and b.category == "music"
    assert b.audio == tmp_path / "Chat" / "music_generation_analysis_QA_musiccaps" / "sub" / \
        "x.mp3"
    assert unk.category is None and "unknown task_name" in unk.problems[0]
    assert rep.key == "1#2" and "repeats" in rep.problems[0]
    assert esc.audio is None and ".." in esc.problems[0]
    assert noid.key == "speech_QA/iemocap/clip5.wav"
    assert load_chat(tmp_path / "Chat").source == c.source  # ROOT may be the Chat folder


def test_load_chat_errors_name_the_file_and_item(tmp_path):
    with pytest.raises(FormatError, match="Chat_meta.json: no such file"):
        load_chat(tmp_path)
    (tmp_path / "Chat").mkdir()
    meta = tmp_path / "Chat" / "Chat_meta.json"
    meta.write_text("[{")
    with pytest.raises(FormatError, match="not valid JSON"):
        load_chat(tmp_path)
    meta.write_text(json.dumps([_item(0), 7]))
    with pytest.raises(FormatError, match="item 2 is int"):
        load_chat(tmp_path)
    meta.write_text(json.dumps([{"path": "a.wav"}]))
    with pytest.raises(FormatError, match="no 'task_name'"):
        load_chat(tmp_path)


def test_evalscope_record_form_is_rerooted(tmp_path):
    (tmp_path / "Chat").mkdir()
    rec = {"input": [{"id": "5781ee73", "content": [
        {"audio": "/root/.cache/modelscope/hub/datasets/evalscope/AIR-Bench-Dataset/Chat/"
                  "speech_QA_iemocap/Ses01F_script01_1_M025.wav", "format": "wav"},
        {"text": "Who is the speaker addressing at the end of the speech?"}]}],
        "target": "The speaker is addressing Mom at the end of the speech.", "id": 0,
        "group_id": 0, "subset_key": "speech_QA",
        "metadata": {"uniq_id": 400, "task_name": "speech_QA", "dataset_name": "iemocap",
                     "category": "speech", "meta_info": SEED_META,
                     "question": "Who is the speaker addressing at the end of the speech?"}}
    f = tmp_path / "records.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    c = load_chat(tmp_path, records=f)
    it = c.items[0]
    assert c.form == "evalscope" and it.key == "400" and it.category == "speech"
    assert it.audio == tmp_path / "Chat" / "speech_QA_iemocap" / "Ses01F_script01_1_M025.wav"
    assert it.answer_gt.startswith("The speaker") and it.question.startswith("Who")


def _data_uri_record(uri, uid):
    return {"input": [{"content": [{"audio": uri, "format": "wav"},
                                   {"text": "What is said?"}]}],
            "target": "hello", "metadata": {"uniq_id": uid, "task_name": "speech_QA",
                                            "dataset_name": "iemocap", "meta_info": SEED_META,
                                            "question": "What is said?"}}


def test_evalscope_data_uri_audio_is_decoded_not_missing(tmp_path):
    import base64

    import numpy as np
    import soundfile as sf

    from foakit.bench.airbench.audit import audit_airbench
    from foakit.signal import read_any

    rng = np.random.default_rng(0)
    t = np.arange(16000) / 16000
    x = (0.3 * np.sin(2 * np.pi * 220 * t) + 0.01 * rng.standard_normal(t.size))
    wav = tmp_path / "clip.wav"
    sf.write(wav, x.astype(np.float32), 16000, subtype="PCM_16")
    uri = "data:audio/wav;base64," + base64.b64encode(wav.read_bytes()).decode("ascii")
    f = tmp_path / "records.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in (
        _data_uri_record(uri, 1), _data_uri_record(uri, 2),
        _data_uri_record("data:audio/wav;base64,@@not base64@@", 3))))
    (tmp_path / "Chat").mkdir()
    c = load_chat(tmp_path, records=f, audio_cache=tmp_path / "cache")
    a, b, bad = c.items
    assert a.audio == b.audio and a.audio.parent == tmp_path / "cache"
    assert a.audio.read_bytes() == wav.read_bytes() and not a.problems
    got, sr = read_any(a.audio)
    want, _ = read_any(wav)
    assert sr == 16000 and np.array_equal(got, want)
    assert bad.audio is None and "not base64" in bad.problems[0]
    res = audit_airbench(tmp_path, tmp_path / "audit", records=f, workers=1, figures=False)
    kinds = {(fl["key"], fl["kind"]) for fl in res.flags}
    assert not any(k in ("missing_file", "bad_path") for _, k in kinds)
    assert ("3", "undecodable") in kinds
    items = [json.loads(x) for x in (tmp_path / "audit" / "items.jsonl").read_text()
             .splitlines()]
    assert [i["status"] for i in items] == ["ok", "ok", "error"]
    assert items[0]["measures"]["duration_s"] == pytest.approx(1.0)


def test_judge_prompt_is_the_official_template_filled_once():
    p = build_prompt("desc XQuestionX", "what?", "ref", "model")
    assert p.startswith("You are a helpful and precise assistant")
    assert "[Detailed Audio Description]\ndesc XQuestionX\n[Question]\nwhat?\n" in p
    assert "[The Start of Assistant 1s Answer]\nref\n[The End of Assistant 1s Answer]" in p
    assert "[The Start of Assistant 2s Answer]\nmodel\n[The End of Assistant 2s Answer]" in p
    assert p.endswith("The two scores are separated by a space.")
    slots = len("XAudioX") + len("XQuestionX") + 2 * len("XAssistant1X")
    assert len(p) == len(PROMPT_TEMPLATE) - slots + len("desc XQuestionX") + 5 + 3 + 5


def test_build_requests_orders_pairs_and_skips():
    rows = [(1, {"path": "a.wav", "question": "q", "answer_gt": "ref", "task_name":
                 "speech_QA", "dataset_name": "d", "response": "resp", "meta_info": "m",
                 "uniq_id": 0}),
            (2, {"path": "b.wav", "question": "q", "answer_gt": "ref", "task_name":
                 "sound_QA", "dataset_name": "d", "response": None, "meta_info": "m"}),
            (3, {"path": "c.wav", "question": "q", "answer_gt": "ref", "task_name":
                 "sound_QA", "dataset_name": "d", "response": "r"}),
            (4, "not an object")]
    reqs, skipped = build_requests(rows)
    assert [r["order"] for r in reqs] == ["reference-first", "model-first"]
    assert reqs[0]["pair_id"] == reqs[1]["pair_id"]
    assert reqs[0]["request_id"] != reqs[1]["request_id"]
    c0, c1 = (r["messages"][0]["content"] for r in reqs)
    assert "Assistant 1s Answer]\nref\n" in c0 and "Assistant 1s Answer]\nresp\n" in c1
    assert [s["reason"] for s in skipped] == ["no response", "no meta_info", "not an object"]
    only, _ = build_requests(rows[:1], order="model-first")
    assert [r["order"] for r in only] == ["model-first"]
    with pytest.raises(ParameterError):
        build_requests(rows, order="random")
    assert item_key(rows[0][1]) == "0"
    assert set(CATEGORY_OF.values()) == {"speech", "sound", "music", "speech_and_sound",
                                         "speech_and_music"}


def test_foakit_info_says_whether_mp3_decodes():
    import subprocess
    import sys

    from foakit.signal import mp3_support

    r = subprocess.run([sys.executable, "-m", "foakit", "info", "--json"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["audio"] == mp3_support()
