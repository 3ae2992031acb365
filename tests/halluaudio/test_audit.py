"""HalluAudio label audit: each rule on hand-made measures, and the audit end to end on
synthetic corpora with deliberately wrong labels (real parquet, real CLI runs)."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf

from foakit.bench.halluaudio.audit import THRESHOLDS, audit, judge_audio, write_report
from foakit.bench.halluaudio.synth import write_corpus

from .rows import case, row, write_rows


def M(**kw):
    base = {"duration_s": 4.0, "speech_share": 0.6, "speech_segments": [[0.5, 3.0]],
            "snr_db": 35.0, "noise_floor_dbfs": -55.0, "active_share": 0.5,
            "loudness_lufs": -20.0, "clipped_share": 0.0}
    base.update(kw)
    return base


def verdict(vs, label):
    (v,) = [x for x in vs if x["label"] == label]
    return v


NO_SPEECH = dict(speech_share=0.0, speech_segments=[], snr_db=None, active_share=0.0)


def test_presence_rules():
    v = verdict(judge_audio(M(), {"presence": False}), "speech_presence")
    assert v["verdict"] == "suspicious" and 0.5 <= v["confidence"] <= 0.99
    assert "labelled no speech" in v["reason"]
    assert verdict(judge_audio(M(**NO_SPEECH), {"presence": False}),
                   "speech_presence")["verdict"] == "consistent"
    few = M(speech_share=0.05, speech_segments=[[1.0, 1.2]])
    assert verdict(judge_audio(few, {"presence": False}),
                   "speech_presence")["verdict"] == "unverifiable"
    assert verdict(judge_audio(M(), {"presence": True}),
                   "speech_presence")["verdict"] == "consistent"
    v = verdict(judge_audio(M(**NO_SPEECH), {"presence": True}, speech_prob_max=0.01),
                "speech_presence")
    assert v["verdict"] == "suspicious"
    assert verdict(judge_audio(M(**NO_SPEECH), {"presence": True}, speech_prob_max=0.6),
                   "speech_presence")["verdict"] == "unverifiable"
    assert verdict(judge_audio(M(**NO_SPEECH), {"presence": True}),
                   "speech_presence")["verdict"] == "unverifiable"
    assert verdict(judge_audio(M(), {"presence": None}),
                   "speech_presence")["verdict"] == "unverifiable"
    # without a presence, every case expecting no_speech stands for "no speech"
    vs = judge_audio(M(), {"presence": None, "no_speech_cases": 2, "cases": 2})
    assert verdict(vs, "speech_presence")["verdict"] == "suspicious"
    assert verdict(vs, "no_speech_cases")["verdict"] == "suspicious"
    vs = judge_audio(M(), {"presence": None, "no_speech_cases": 1, "cases": 3})
    assert verdict(vs, "speech_presence")["verdict"] == "unverifiable"


@pytest.mark.parametrize("level,measures,expected", [
    ("L1", M(snr_db=5.0), "suspicious"), ("L1", M(snr_db=22.0), "unverifiable"),
    ("L1", M(snr_db=26.0), "consistent"), ("L1", M(snr_db=None), "consistent"),
    ("L1", M(snr_db=None, noise_floor_dbfs=-30.0), "unverifiable"),
    ("L2", M(snr_db=40.0, loudness_lufs=-18.0), "suspicious"),
    ("L2", M(snr_db=40.0, loudness_lufs=-35.0), "consistent"),
    ("L2", M(snr_db=10.0), "consistent"),
    ("L3", M(snr_db=30.0), "suspicious"), ("L3", M(snr_db=8.0), "consistent"),
    ("L3", M(snr_db=None), "suspicious"),
    ("L3", M(snr_db=None, noise_floor_dbfs=-30.0), "unverifiable"),
    ("L4", M(), "unverifiable"), ("L5", M(), "unverifiable"), ("L6", M(), "unverifiable"),
    (None, M(), "unverifiable"),
])
def test_level_rules(level, measures, expected):
    v = verdict(judge_audio(measures, {"presence": True, "level": level}), "level")
    assert v["verdict"] == expected, v


def test_level_confidence_grows_with_the_contradiction():
    c = [verdict(judge_audio(M(snr_db=s), {"level": "L1"}), "level")["confidence"]
         for s in (18.0, 12.0, 6.0)]
    assert c[0] < c[1] < c[2] <= 0.99


def test_span_rules():
    spans = [{"start_s": 5.0, "end_s": 6.0, "in_audio": False, "speech_share": None,
              "level_db": None},
             {"start_s": 1.0, "end_s": 2.0, "in_audio": True, "speech_share": 0.9,
              "level_db": 40.0},
             {"start_s": 1.0, "end_s": 2.0, "in_audio": True, "speech_share": 0.9,
              "level_db": 10.0},
             {"start_s": 1.0, "end_s": 2.0, "in_audio": True, "speech_share": 0.4,
              "level_db": 25.0}]
    vs = judge_audio(M(), {"level": "L2"}, spans=spans)
    got = [verdict(vs, f"uncertain_span[{i}]")["verdict"] for i in range(4)]
    assert got == ["suspicious", "suspicious", "consistent", "unverifiable"]


def test_thresholds_override():
    vs = judge_audio(M(snr_db=21.0), {"level": "L1"},
                     thresholds={"l1_snr_suspicious_db": 22.0})
    assert verdict(vs, "level")["verdict"] == "suspicious"
    assert verdict(judge_audio(M(snr_db=21.0), {"level": "L1"}), "level")["verdict"] == \
        "unverifiable"
    assert THRESHOLDS["l1_snr_suspicious_db"] == 20.0


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("haaudit")
    root = tmp / "root"
    write_corpus(root, n_audio=30, seed=1, family="tune", wrong_share=0.34)
    res = audit(root, tmp / "out", workers=1)
    paths = write_report(res, tmp / "out", max_figures=4)
    truth = {json.loads(x)["audio_id"]: json.loads(x)
             for x in (root / "synth_truth.jsonl").read_text().splitlines()}
    return root, tmp / "out", res, paths, truth


def test_audit_flags_the_wrong_labels_and_spares_the_clean(audited):
    _, _, res, _, truth = audited
    kinds = {}
    for f in res.flags:
        kinds.setdefault(f["audio_id"], set()).add(f["kind"])
    wrong = [t for t in truth.values() if t["wrong"]]
    assert len(wrong) >= 8
    for t in wrong:
        want = {"level"} if t["wrong"].startswith("l") else {"speech_presence"}
        assert kinds.get(t["audio_id"], set()) & want, t
    clean = [t for t in truth.values() if not t["wrong"]]
    assert not [t["audio_id"] for t in clean if t["audio_id"] in kinds]


def test_audit_outputs(audited):
    _, out, res, paths, _ = audited
    for name in ("items", "verdicts", "flags", "summary", "index"):
        assert os.path.exists(paths[name])
    s = json.loads((out / "summary.json").read_text())
    assert s["audios"] == len(res.audios) and set(s["by_level"]) == {f"L{i}" for i in
                                                                      range(1, 7)}
    assert s["by_level"]["L1"]["measures"]["snr_db"]["median"] > 20
    assert s["rules"] and s["verdicts"]["suspicious"] == sum(
        1 for a in res.audios.values() for v in a["verdicts"] if v["verdict"] == "suspicious")
    figs = sorted(p.name for p in (out / "figures").iterdir())
    assert "level_snr_db.png" in figs and "level_speech_share.png" in figs
    assert sum(n.startswith("activity_") for n in figs) == 4
    flags = [json.loads(x) for x in (out / "flags.jsonl").read_text().splitlines()]
    assert sum(1 for f in flags if f.get("figure")) >= 4
    for f in flags:
        assert {"audio_id", "level", "kind", "value", "confidence", "reason"} <= set(f)
    index = (out / "index.md").read_text()
    assert "## Rules" in index and "Measures per level" in index
    v = [json.loads(x) for x in (out / "verdicts.jsonl").read_text().splitlines()]
    assert {x["verdict"] for x in v} == {"consistent", "suspicious", "unverifiable"}
    assert all("confidence" in x for x in v if x["verdict"] == "suspicious")


def wav(seconds=2.0, sr=16000, speech=True):
    from foakit.bench.halluaudio.speech import formant_speech

    rng = np.random.default_rng(0)
    x = formant_speech(rng, sr, seconds) * 0.3 if speech else rng.normal(size=int(
        seconds * sr)) * 0.01
    buf = io.BytesIO()
    sf.write(buf, x.astype(np.float32), sr, format="WAV")
    return buf.getvalue()


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "foakit", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_cli_audit_bad_rows_resume_and_paths(tmp_path):
    root = tmp_path / "root"
    audio_dir = tmp_path / "real_audio"
    audio_dir.mkdir()
    (audio_dir / "byname.wav").write_bytes(wav())
    root.mkdir()
    os.symlink(audio_dir, root / "audio")  # rows naming files reach them through a symlink
    rows = [row("ok", [case()], audio=wav()),
            row("notaudio", [case()], audio=b"this is not audio"),
            {**row("byname", [case()]), "audio": {"bytes": None, "path": "audio/byname.wav"}},
            {**row("escape", [case()]), "audio": {"bytes": None, "path": "../x.wav"}},
            row("badjson", "[{", audio=wav())]
    write_rows(root / "multiple_choice" / "test-00000.parquet", rows)
    out = tmp_path / "out"
    r = run_cli("audit", "halluaudio", root, "-o", out, "--workers", "1", "--no-progress")
    assert r.returncode == 1, r.stderr
    for name in ("notaudio", "escape", "badjson"):
        assert name in r.stderr
    items = {json.loads(x)["audio_id"]: json.loads(x)
             for x in (out / "items.jsonl").read_text().splitlines()}
    assert items["ok"]["status"] == "ok" and items["byname"]["status"] == "ok"
    assert items["notaudio"]["status"] == "error" and items["escape"]["status"] == "error"
    s = json.loads((out / "summary.json").read_text())
    assert s["checkpoint"]["analysed"] == 3
    r = run_cli("audit", "halluaudio", root, "-o", out, "--workers", "1", "--no-progress")
    s = json.loads((out / "summary.json").read_text())
    assert r.returncode == 1 and s["checkpoint"] == {**s["checkpoint"], "analysed": 0,
                                                     "loaded": 3}
    r = run_cli("audit", "halluaudio", root, "-o", out, "--workers", "0")
    assert r.returncode == 2 and "--workers 0" in r.stderr
    r = run_cli("audit", "halluaudio", tmp_path / "none", "-o", out)
    assert r.returncode == 2 and "not a folder" in r.stderr


@pytest.mark.slow
def test_cli_audit_hf_cache_layout_workers(tmp_path):
    root = tmp_path / "hub"
    write_corpus(root, n_audio=16, seed=9, family="report", layout="hf_cache")
    out = tmp_path / "out"
    r = run_cli("audit", "halluaudio", root, "-o", out, "--workers", "2", "--no-progress",
                "--no-figures")
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["audios"] == 16 and not s["failures"]
    assert not (out / "figures").exists()
