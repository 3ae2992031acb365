"""Synthetic HalluAudio corpora in the dataset's parquet layout, with known truth.

:func:`write_corpus` writes ``ROOT/multiple_choice/*.parquet`` and ``ROOT/open_freeform/
*.parquet`` (or the other layouts :func:`find_config_files` reads), one row per audio with
the embedded audio struct, ``ground_truth`` (JSON string) and ``eval_cases`` (JSON array),
and ``ROOT/synth_truth.jsonl``: per audio what was really generated and which of its labels
is deliberately wrong.  Scenes per level: L1 near and quiet; L2 far (reverberant, weak);
L3 speech in fan / HVAC / motor / machine noise at 0-12 dB SNR; L4 a dominant voice over a
competing voice 6-12 dB below; L5 two voices taking turns; L6 speech fragments or
unintelligible near speech, or no speech at all.

Families (:data:`FAMILIES`) vary sample rates, codecs, durations, speaking rates, noise kinds
and SNR ranges, so the audit's thresholds are tuned on some and reported on others.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import signal as sps

from ...errors import ParameterError
from .speech import espeak, formant_speech, noise, room_impulse

__all__ = ["FAMILIES", "Family", "WRONG_KINDS", "write_corpus", "render_scene"]


@dataclass(frozen=True)
class Family:
    """The ranges one corpus family draws from."""

    sample_rates: tuple[int, ...]
    codecs: tuple[str, ...]
    duration_s: tuple[float, float]
    rate_hz: tuple[float, float]
    noises: tuple[str, ...]
    l1_snr_db: tuple[float, float]
    l3_snr_db: tuple[float, float]
    far_rt60_s: tuple[float, float]
    far_gain_db: tuple[float, float]


#: "tune": the family the audit's thresholds were set on; "report" and "wide": held out.
FAMILIES = {
    "tune": Family((16000,), ("wav", "flac"), (3.0, 6.0), (4.0, 5.0), ("fan", "hvac", "pink"),
                   (32.0, 45.0), (0.0, 10.0), (0.5, 0.9), (-26.0, -20.0)),
    "report": Family((22050, 24000, 44100), ("mp3", "ogg", "flac", "wav"), (2.5, 9.0),
                     (3.0, 6.0), ("motor", "machine", "fan", "hvac"), (28.0, 50.0),
                     (-2.0, 12.0), (0.4, 1.2), (-30.0, -18.0)),
    "wide": Family((8000, 16000, 48000), ("wav", "ogg", "mp3"), (1.5, 12.0), (2.5, 7.0),
                   ("pink", "motor", "machine", "hvac", "fan"), (25.0, 55.0), (-3.0, 14.0),
                   (0.3, 1.5), (-34.0, -16.0)),
}

#: Deliberately wrong labels: kind -> (the label given, what the audio really is).
WRONG_KINDS = {
    "presence_missed": "labelled no speech (L6, no_speech cases) but holds clear speech",
    "presence_invented": "labelled speech present (L3) but holds only non-speech noise",
    "l1_noisy": "labelled L1 clear speech but the speech is at -3..5 dB SNR in noise",
    "l1_far": "labelled L1 clear speech but the voice is far, reverberant and in noise",
    "l3_clean": "labelled L3 speech + noise but the recording is clean (no noise)",
    "l2_clean": "labelled L2 degraded / far speech but the voice is near, loud and clean",
}

_INTENTS = [
    ("turn on the living room light", "bật đèn phòng khách"),
    ("set the air conditioner to twenty four degrees", "đặt điều hòa 24 độ"),
    ("open the bedroom curtains", "mở rèm phòng ngủ"),
    ("play music in the kitchen", "mở nhạc ở bếp"),
    ("lock the front door", "khóa cửa trước"),
    ("turn off the fan", "tắt quạt"),
]
_DECLINE = "Cannot be determined from the audio"
_NAT_MC = ["What does the speaker want the assistant to do?",
           "Which request is made in this recording?",
           "What is the user asking for?"]
_NAT_BIN = ["Is anyone speaking in this recording?", "Does this audio contain human speech?"]
_CONSTRAINT = " Answer with the letter of one option only."


def _rms(x):
    return float(np.sqrt(np.mean(x ** 2)) + 1e-12)


def _active_rms(x, sr):
    """RMS over the 20 ms frames within 30 dB of the loudest (the talking)."""
    hop = max(1, int(0.02 * sr))
    n = len(x) // hop
    if n == 0:
        return _rms(x)
    e = (x[: n * hop].reshape(n, hop) ** 2).mean(axis=1)
    keep = e > e.max() * 1e-3
    return float(np.sqrt(e[keep].mean()) + 1e-12)


def _voice(rng, sr, dur, *, engine, f0, rate, text):
    if engine == "espeak":
        v = espeak(text, sr, wpm=int(40 * rate))
        reps = int(np.ceil(dur * sr / max(1, len(v))))
        return np.tile(np.concatenate([v, np.zeros(int(0.2 * sr))]), reps)[: int(dur * sr)]
    return formant_speech(rng, sr, dur, f0=f0, rate=rate)


def render_scene(rng: np.random.Generator, fam: Family, scene: str, *, sr: int, dur: float,
                 engine: str = "formant", text: str = "") -> tuple[np.ndarray, dict]:
    """One clip of ``scene`` (clean, far, noisy, competing, turns, fragments, unintelligible,
    no_speech): float32 samples, shape (n,), and what was made (SNR, speech span, noise)."""
    n = int(dur * sr)
    f0 = float(rng.choice([rng.uniform(95, 135), rng.uniform(185, 240)]))
    rate = float(rng.uniform(*fam.rate_hz))
    lead, tail = rng.uniform(0.2, 0.6), rng.uniform(0.2, 0.6)
    span = (lead, max(lead + 0.8, dur - tail))
    x = np.zeros(n)
    a, b = int(span[0] * sr), int(span[1] * sr)
    info = {"scene": scene, "speech_span_s": [round(span[0], 3), round(span[1], 3)],
            "noise": None, "snr_db": None, "competing": False}
    if scene != "no_speech":
        if scene == "fragments":
            for _ in range(int(rng.integers(2, 4))):
                fl = rng.uniform(0.25, 0.5)
                s = rng.uniform(span[0], max(span[0], span[1] - fl))
                i = int(s * sr)
                v = formant_speech(rng, sr, fl, f0=f0, rate=rate)
                x[i:i + len(v)] += v[: n - i]
        else:
            x[a:b] = _voice(rng, sr, (b - a) / sr, engine=engine, f0=f0, rate=rate,
                            text=text)[: b - a]
        if scene == "turns":
            other = np.zeros(n)
            f1 = f0 * rng.uniform(1.5, 1.9) if f0 < 150 else f0 / rng.uniform(1.5, 1.9)
            turns = np.linspace(span[0], span[1], int(rng.integers(3, 5)) + 1)
            for k in range(len(turns) - 1):
                i, j = int(turns[k] * sr), int(turns[k + 1] * sr)
                if k % 2:
                    x[i:j] = 0
                    other[i:j] = formant_speech(rng, sr, (j - i) / sr, f0=f1, rate=rate)
                x[i:min(n, i + int(0.15 * sr))] = 0  # a pause between turns
            x += other * 0.8
            info["speakers"] = 2
    speech = x.copy()
    level_db = rng.uniform(-22, -14)  # active speech level of a near talker
    if scene in ("far", "fragments_far"):
        h = room_impulse(rng, sr, rt60=rng.uniform(*fam.far_rt60_s), drr_db=rng.uniform(-8, -3))
        speech = sps.fftconvolve(speech, h)[:n]
        level_db = rng.uniform(*fam.far_gain_db)
    if scene != "no_speech":
        speech *= 10 ** (level_db / 20) / _active_rms(speech, sr)
    if scene == "competing":
        f1 = f0 * rng.uniform(1.2, 1.6)
        comp = formant_speech(rng, sr, n / sr, f0=f1, rate=rate * rng.uniform(0.8, 1.2))[:n]
        sos_tv = sps.butter(2, [min(0.5, 200 / (sr / 2)), min(0.95, 3400 / (sr / 2))],
                            "band", output="sos")
        comp = sps.sosfilt(sos_tv, comp)  # a TV / radio's band
        rel = rng.uniform(-12, -6)
        comp *= _active_rms(speech, sr) * 10 ** (rel / 20) / _active_rms(comp, sr)
        speech = speech + comp
        info.update(competing=True, competing_rel_db=round(rel, 2))
    kind = str(rng.choice(fam.noises))
    if scene in ("noisy", "noisy_wrong_l1"):
        snr = (rng.uniform(*fam.l3_snr_db) if scene == "noisy" else rng.uniform(-3, 5))
    elif scene == "far":
        snr = rng.uniform(8, 16)
    elif scene == "no_speech":
        snr = None
    else:
        snr = rng.uniform(*fam.l1_snr_db)
        kind = "pink"  # room tone
    if scene == "no_speech":
        kind = str(rng.choice(fam.noises))
        nz = noise(rng, kind, sr, n) * 10 ** (rng.uniform(-40, -22) / 20)
    else:
        ref = _active_rms(speech, sr)
        nz = noise(rng, kind, sr, n) * ref * 10 ** (-snr / 20)
        info["snr_db"] = round(float(snr), 2)
    info["noise"] = kind
    y = speech + nz
    peak = np.abs(y).max()
    if peak > 0.99:
        y *= 0.99 / peak
    return y.astype(np.float32), info


_SUBTYPE = {"wav": ("WAV", "PCM_16"), "flac": ("FLAC", "PCM_16"), "ogg": ("OGG", "VORBIS"),
            "mp3": ("MP3", "MPEG_LAYER_III")}


def encode(x: np.ndarray, sr: int, codec: str) -> bytes:
    """``x`` (mono float) encoded as ``codec`` (wav, flac, ogg, mp3) in memory."""
    import soundfile as sf

    fmt, sub = _SUBTYPE[codec]
    buf = io.BytesIO()
    sf.write(buf, x, sr, format=fmt, subtype=sub)
    return buf.getvalue()


# level -> scene of a correctly labelled audio
_SCENES = {"L1": ("clean",), "L2": ("far",), "L3": ("noisy",), "L4": ("competing",),
           "L5": ("turns",), "L6": ("fragments", "unintelligible", "no_speech")}
# wrong kind -> (scene really made, level given, presence given)
_WRONG = {"presence_missed": ("clean", "L6", False), "presence_invented": ("no_speech", "L3",
          True), "l1_noisy": ("noisy_wrong_l1", "L1", True), "l1_far": ("far", "L1", True),
          "l3_clean": ("clean", "L3", True), "l2_clean": ("clean", "L2", True)}


def _shuffled_options(rng, texts, correct):
    order = rng.permutation(len(texts))
    keys = [chr(65 + i) for i in range(len(texts))]
    options = {keys[i]: texts[j] for i, j in enumerate(order)}
    return options, next(k for k, v in options.items() if v == correct)


def _cases(rng, *, level, present, semantic, intent_en, transcript_ok, audio_id):
    """(multiple_choice cases, open_freeform cases) for one audio."""
    mc, op = [], []
    yes, no = "Yes, someone is speaking", "No, there is no human speech"
    forbid_content = [intent_en] if not semantic else []
    for mode in ("natural", "constrained"):
        opts, key = _shuffled_options(rng, [yes, no], yes if present else no)
        p = str(rng.choice(_NAT_BIN)) + " " + " ".join(f"{k}. {v}" for k, v in opts.items())
        mc.append({"case_id": f"{audio_id}-bin-{mode}", "prompt": p + (
            _CONSTRAINT if mode == "constrained" else ""), "prompt_mode": mode,
            "scoring": "multiple_choice", "choice_options": opts, "expected_result": key,
            "expected_result_class": "supported" if present else "no_speech",
            "forbidden_claims": [] if present else ["the speaker says"]})
        wrong = [i[0] for i in _INTENTS if i[0] != intent_en]
        texts = [str(t) for t in rng.choice(wrong, 2, replace=False)] + [intent_en, _DECLINE]
        truth = intent_en if semantic else _DECLINE
        opts, key = _shuffled_options(rng, [t.capitalize() if t != _DECLINE else t
                                            for t in texts], truth.capitalize()
                                      if truth != _DECLINE else truth)
        mc.append({"case_id": f"{audio_id}-intent-{mode}",
                   "prompt": str(rng.choice(_NAT_MC)) + " " + " ".join(
                       f"{k}) {v}" for k, v in opts.items()) + (
                       _CONSTRAINT + " Then give a short reason." if mode == "constrained"
                       else ""),
                   "prompt_mode": mode, "scoring": "multiple_choice", "choice_options": opts,
                   "expected_result": key, "asks_reason": mode == "constrained",
                   "expected_result_class": ("supported" if semantic else
                                             "insufficient" if present else "no_speech"),
                   "forbidden_claims": forbid_content})
        op.append({"case_id": f"{audio_id}-open-{mode}", "prompt": (
            "What did the user say, and what do they want?" if mode == "natural" else
            "Transcribe the user's request. If it cannot be understood, say so."),
            "prompt_mode": mode, "scoring": "llm_judge",
            "expected_result": intent_en if semantic else "",
            "expected_result_class": ("supported" if semantic and level == "L1" else
                                      "partial" if semantic else
                                      "insufficient" if present else "no_speech"),
            "expected_intent": intent_en if semantic else "none supported by the audio",
            "rubric": "Correct only if the answer is supported by the audio and calibrated.",
            "forbidden_claims": forbid_content,
            "hallucination_if": "names a device, room or action not audible in the audio"})
    if transcript_ok:
        mc.append({"case_id": f"{audio_id}-asr", "prompt": "Write exactly what the user says.",
                   "prompt_mode": "constrained", "scoring": "normalized_match",
                   "expected_result": intent_en.capitalize() + ".",
                   "approved_aliases": [intent_en.replace("twenty four", "24")],
                   "expected_result_class": "supported", "forbidden_claims": []})
    if level in ("L4", "L5") or rng.random() < 0.1:
        count = "2" if level == "L5" else "1"
        mc.append({"case_id": f"{audio_id}-count", "prompt": "How many people speak to the "
                   "assistant? Answer with a digit.", "prompt_mode": "constrained",
                   "scoring": "exact_match", "expected_result": count if present else "0",
                   "expected_result_class": "supported", "forbidden_claims": []})
    if rng.random() < 0.05:  # an incomplete closed case: no expected key yet
        mc.append({"case_id": f"{audio_id}-draft", "prompt": "Is the speaker male or female? "
                   "A. Male B. Female", "prompt_mode": "natural", "scoring": "multiple_choice",
                   "choice_options": {"A": "Male", "B": "Female"}, "expected_result": None,
                   "expected_result_class": "supported"})
    return mc, op


def write_corpus(root: str | os.PathLike, *, n_audio: int = 60, seed: int = 0,
                 family: str = "tune", wrong_share: float = 0.15, layout: str = "folders",
                 engine: str = "formant", both_share: float = 0.7, unique_audio: int | None
                 = None, rows_per_group: int = 32) -> dict:
    """Write a synthetic HalluAudio root; returns counts and the truth file's path.

    Parameters
    ----------
    root : str or PathLike
        Folder to create (may exist).
    n_audio : int
        Audios (rows of the larger config).
    seed : int
        Random seed; the same arguments give the same corpus.
    family : str
        One of :data:`FAMILIES`.
    wrong_share : float
        Share of audios given one deliberately wrong label (:data:`WRONG_KINDS`, in turn).
    layout : str
        ``folders`` (``ROOT/<config>/test-00000-of-00001.parquet``), ``files``
        (``ROOT/data/<config>-00000-of-00001.parquet``) or ``hf_cache`` (a hub snapshot:
        ``ROOT/snapshots/<rev>/<config>/...`` symlinks into ``ROOT/blobs/``).
    engine : str
        ``formant`` (NumPy, default) or ``espeak`` (needs espeak-ng).
    both_share : float
        Share of audios present in both configs.
    unique_audio : int, optional
        Render only this many distinct clips and reuse them in turn (large corpora for
        memory checks); labels and cases stay per row.
    rows_per_group : int
        Parquet row-group size.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if family not in FAMILIES:
        raise ParameterError(f"{family=} is not one of {sorted(FAMILIES)}")
    if layout not in ("folders", "files", "hf_cache"):
        raise ParameterError(f"{layout=} must be folders, files or hf_cache")
    if n_audio < 1:
        raise ParameterError(f"{n_audio=} must be >= 1")
    if not 0 <= wrong_share <= 1:
        raise ParameterError(f"{wrong_share=} must be in [0, 1]")
    fam = FAMILIES[family]
    rng = np.random.default_rng(seed)
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    base = root / "snapshots" / f"{seed:08x}synth" if layout == "hf_cache" else root
    schema = pa.schema([("audio_id", pa.string()), ("level", pa.string()),
                        ("audio", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
                        ("ground_truth", pa.string()), ("eval_cases", pa.string())],
                       metadata={"huggingface": json.dumps({"info": {"features": {
                           "audio": {"_type": "Audio"}}}})})
    paths = {}
    for config in ("multiple_choice", "open_freeform"):
        if layout == "files":
            p = base / "data" / f"{config}-00000-of-00001.parquet"
        else:
            p = base / config / "test-00000-of-00001.parquet"
        p.parent.mkdir(parents=True, exist_ok=True)
        paths[config] = p
    writers = {c: pq.ParquetWriter(p, schema) for c, p in paths.items()}
    buffers = {c: [] for c in paths}
    wrong_cycle = list(_WRONG)
    n_wrong = int(round(wrong_share * n_audio))
    wrong_at = set(rng.choice(n_audio, n_wrong, replace=False).tolist()) if n_wrong else set()
    cache: list[tuple[bytes, str, dict]] = []
    truth_lines = []
    counts = {"audios": 0, "rows": {c: 0 for c in paths}, "wrong": {}}
    levels = ("L1", "L2", "L3", "L4", "L5", "L6")
    for i in range(n_audio):
        audio_id = f"ha{seed:03d}_{i:05d}"
        wrong = wrong_cycle[len([w for w in wrong_at if w < i]) % len(wrong_cycle)] \
            if i in wrong_at else None
        if wrong:
            scene, level, present = _WRONG[wrong]
            true_level = {"clean": "L1", "no_speech": "L6", "noisy_wrong_l1": "L3",
                          "far": "L2"}[scene]
        else:
            level = levels[i % 6]
            scene = str(rng.choice(_SCENES[level]))
            present, true_level = scene != "no_speech", level
        intent_en, intent_vi = _INTENTS[int(rng.integers(len(_INTENTS)))]
        if unique_audio and len(cache) >= unique_audio:
            data, codec, info = cache[i % unique_audio]
        else:
            sr = int(rng.choice(fam.sample_rates))
            dur = float(rng.uniform(*fam.duration_s))
            codec = str(rng.choice(fam.codecs))
            x, info = render_scene(rng, fam, scene, sr=sr, dur=dur, engine=engine,
                                   text=intent_en)
            data = encode(x, sr, codec)
            info.update(sample_rate=sr, duration_s=round(dur, 3))
            if unique_audio:
                cache.append((data, codec, info))
        really_speech = info["scene"] != "no_speech"
        semantic = present and level in ("L1", "L3", "L4") and scene not in (
            "fragments", "unintelligible")
        spans = []
        if level == "L2" and scene == "far":  # the far voice's middle is marked uncertain
            s0, s1 = info["speech_span_s"]
            spans = [[round(s0 + 0.3 * (s1 - s0), 2), round(s0 + 0.6 * (s1 - s0), 2)]]
        gt = {"audio_id": audio_id, "level": level,
              "speech_presence": "present" if present else "absent",
              "transcript_status": ("reliable" if semantic and level == "L1" else
                                    "partial" if semantic else "unavailable"),
              "semantic_content": intent_vi if semantic else None,
              "intent_confidence": "high" if semantic else "none",
              "uncertain_spans": spans, "speaker_count": 2 if level == "L5" else int(present),
              "label_notes": f"synthetic {scene}"}
        mc, op = _cases(rng, level=level, present=present, semantic=semantic,
                        intent_en=intent_en, transcript_ok=gt["transcript_status"] ==
                        "reliable", audio_id=audio_id)
        r = rng.random()
        configs = (["multiple_choice", "open_freeform"] if r < both_share else
                   ["multiple_choice"] if r < (1 + both_share) / 2 else ["open_freeform"])
        for config in configs:
            cases = mc if config == "multiple_choice" else op
            buffers[config].append({
                "audio_id": audio_id, "level": level,
                "audio": {"bytes": data, "path": f"{audio_id}.{codec}"},
                "ground_truth": json.dumps(gt, ensure_ascii=False),
                "eval_cases": json.dumps(cases, ensure_ascii=False)})
            counts["rows"][config] += 1
            if len(buffers[config]) >= rows_per_group:
                writers[config].write_table(pa.Table.from_pylist(buffers[config], schema))
                buffers[config] = []
        counts["audios"] += 1
        if wrong:
            counts["wrong"][wrong] = counts["wrong"].get(wrong, 0) + 1
        truth_lines.append(json.dumps({
            "audio_id": audio_id, "level_label": level, "level_true": true_level,
            "presence_label": present, "presence_true": really_speech, "wrong": wrong,
            "configs": configs, "codec": codec, **info}) + "\n")
    for config, w in writers.items():
        if buffers[config]:
            w.write_table(pa.Table.from_pylist(buffers[config], schema))
        w.close()
    if layout == "hf_cache":
        blobs = root / "blobs"
        blobs.mkdir(exist_ok=True)
        for config, p in paths.items():
            blob = blobs / f"{seed:08x}{config}"
            os.replace(p, blob)
            os.symlink(os.path.relpath(blob, p.parent), p)
    truth = root / "synth_truth.jsonl"
    truth.write_text("".join(truth_lines), encoding="utf-8")
    return {**counts, "truth": str(truth), "files": {c: str(p) for c, p in paths.items()}}
