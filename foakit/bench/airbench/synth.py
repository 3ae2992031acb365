"""A synthetic AIR-Bench Chat corpus with known defects, and judge outputs to score.

:func:`write_corpus` writes ``ROOT/Chat/Chat_meta.json`` and the audio of the 8 task folders
(``Chat/{task}_{dataset}/...``): mono and stereo wav and mp3 at 16, 22.05, 44.1 and 48 kHz;
speech-like clips for the speech tasks (two alternating voices for dialogues, with their
turns' speaking times), environmental sounds, music, and speech over sound or music at
5-15 dB for the mixed tasks (:mod:`foakit.signal.sounds`).  Injected defects
(:data:`DEFECTS`) land on distinct items, and the returned manifest names, per defective
item, the flag kind the audit must raise.

:func:`write_judge_files` writes what a model run and the official judge pipeline leave:
``Chat_result_modelx.jsonl`` (responses), ``chat_score.jsonl`` (reference-first judge
outputs in ``gen``, as ``score_chat.py`` writes them) and ``chat_score_cir.json`` (the
swapped order as the JSON list ``cal_score.py`` reads, in ``gpt-score``), with malformed
judge lines among them.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import ParameterError
from ...signal import sounds as S
from .format import TASKS

__all__ = ["DEFECTS", "DATASETS", "SynthCorpus", "write_corpus", "write_judge_files",
           "MALFORMED_JUDGE_LINES"]

#: Injected defect -> the flag kind the audit must raise for it.
DEFECTS = {
    "truncated": "undecodable", "not_audio": "undecodable", "empty": "undecodable",
    "missing": "missing_file", "silent": "silent", "clipped": "clipped",
    "dead_channel": "dead_channel", "inverted": "inverted_channel",
    "duplicate": "duplicate", "transcription_without_speech": "transcription_without_speech",
    "no_speech_in_speech_task": "no_speech_in_speech_task",
    "meta_info_unparseable": "meta_info_unparseable", "duration_outlier": "duration_outlier",
    "loudness_outlier": "loudness_outlier", "dc_offset": "dc_offset",
    "meta_time_beyond_clip": "meta_time_beyond_clip",
}
DATASETS = {"speech_QA": ("iemocap", "commonvoice"), "speech_dialogue_QA": ("fisher",),
            "sound_QA": ("clotho", "avqa"), "sound_generation_QA": ("audiocaps",),
            "music_QA": ("musiccaps", "medleydb"),
            "music_generation_analysis_QA": ("musiccaps",),
            "speech_and_sound_QA": ("audioset",), "speech_and_music_QA": ("audioset",)}
_RATES = (16000, 22050, 44100, 48000)
_DUR = {"speech_QA": (3.0, 7.0), "speech_dialogue_QA": (8.0, 14.0), "sound_QA": (4.0, 9.0),
        "sound_generation_QA": (4.0, 9.0), "music_QA": (6.0, 10.0),
        "music_generation_analysis_QA": (6.0, 10.0), "speech_and_sound_QA": (4.0, 8.0),
        "speech_and_music_QA": (4.0, 8.0)}
_WORDS = ("so", "we", "went", "down", "to", "the", "market", "and", "then", "it", "started",
          "raining", "I", "think", "that", "you", "should", "call", "her", "today", "really",
          "maybe", "later", "yes", "no", "okay", "father", "mom", "weekend", "music")
_CAPTIONS = ("A dog barks while rain falls on a roof.", "Birds chirp in the distance.",
             "A car passes by on a wet road.", "Wind blows through the trees.",
             "Footsteps on a wooden floor.", "Water flows in a small stream.")
_MUSIC = ("An upbeat pop song with drums and a bright synth lead.",
          "A slow piano ballad with soft strings.", "A plucked guitar arpeggio in a major key.",
          "An electronic track with a steady kick drum.")
_ENV = ("rain", "wind", "traffic", "birds", "footsteps", "water", "machine", "clapping")
_MUS = ("melody", "chords", "band", "pluck", "bowed", "bells", "drums")
#: Judge lines that the official parse fails, and why (the reason foakit reports).
MALFORMED_JUDGE_LINES = (("8, 7", "not integers"),
                         ("Assistant 1: 8 Assistant 2: 7", "not two space-separated values"),
                         ("8  7", "not two space-separated values"),
                         ("8\n7", "not two space-separated values"),
                         ("", "not two space-separated values"),
                         ("eight 7", "not integers"), ("8.5 7", "not integers"),
                         ("11 7", "score above 10"), ("7 12", "score above 10"))


@dataclass
class SynthCorpus:
    """What :func:`write_corpus` wrote.

    Attributes
    ----------
    root : Path
    items : list of dict
        The Chat_meta items.
    defects : dict
        ``uniq_id`` (str) -> list of (defect, expected flag kind).
    clean : list of str
        ``uniq_id`` of the items without a defect.
    """

    root: Path
    items: list = field(default_factory=list)
    defects: dict = field(default_factory=dict)
    clean: list = field(default_factory=list)


def _sentence(rng, n=(5, 12)) -> str:
    return " ".join(rng.choice(_WORDS, int(rng.integers(*n)))).capitalize() + "."


def _stereo(x: np.ndarray, rng) -> np.ndarray:
    """A panned stereo pair: the clip at two levels plus a little independent noise."""
    g = float(rng.uniform(0.6, 1.0))
    r = g * x + 0.05 * np.std(x) * rng.standard_normal(len(x))
    return np.stack([x, r.astype(np.float32)])


def _clip(task: str, sr: int, dur: float, rng) -> tuple[np.ndarray, object]:
    """(mono clip, meta_info string) of a clean item of ``task``."""
    voice = str(rng.choice(list(S.VOICES)))
    if task == "speech_QA":
        x, spans = S.speech_like(dur, sr, rng, voice=voice)
        x = S.mix_at_snr(x, spans, S.noise_like(dur, sr, rng, family="pink"),
                         float(rng.uniform(15, 35)), sr)
        meta = str({"emotion": str(rng.choice(["neutral", "happy", "sad"])),
                    "gender": "female" if "female" in voice else "male",
                    "transcription": _sentence(rng)})
        return x, meta
    if task == "speech_dialogue_QA":
        parts, turns, t = [], [], 0.0
        voices = rng.choice(list(S.VOICES), 2, replace=False)
        k = 0
        while t < dur - 1.0:
            seg = min(float(rng.uniform(1.5, 4.0)), dur - t)
            y, spans = S.speech_like(seg, sr, rng, voice=str(voices[k % 2]), lead_s=0.1)
            parts.append(y)
            on = t + (spans[0][0] if spans else 0.1)
            off = t + (spans[-1][1] if spans else seg)
            turns.append({"speaker": f"speaker {k % 2 + 1}",
                          "speaking time": f"({on:.2f},{off:.2f})",
                          "transcription": _sentence(rng, (3, 9))})
            t += seg
            k += 1
        x = np.concatenate(parts)
        x = x + 10 ** (-30 / 20) * np.std(x) * rng.standard_normal(len(x)).astype(np.float32)
        return x.astype(np.float32), json.dumps(turns)
    if task in ("sound_QA", "sound_generation_QA"):
        return S.environment_like(dur, sr, rng, family=str(rng.choice(_ENV))), \
            str(rng.choice(_CAPTIONS))
    if task in ("music_QA", "music_generation_analysis_QA"):
        return S.music_like(dur, sr, rng, family=str(rng.choice(_MUS))), \
            str(rng.choice(_MUSIC))
    x, spans = S.speech_like(dur, sr, rng, voice=voice)
    if task == "speech_and_sound_QA":
        bg, what = S.environment_like(dur, sr, rng, family=str(rng.choice(
            ("rain", "traffic", "water", "machine")))), str(rng.choice(_CAPTIONS))
    else:
        bg, what = S.music_like(dur, sr, rng, family=str(rng.choice(("chords", "bowed",
                                                                     "bells")))), \
            str(rng.choice(_MUSIC))
    x = S.mix_at_snr(x, spans, bg, float(rng.uniform(8, 15)), sr)
    return x, str({"transcription": _sentence(rng), "background": what})


def _encode(samples: np.ndarray, sr: int, fmt: str) -> bytes:
    import soundfile as sf

    b = io.BytesIO()
    data = samples.T if samples.ndim == 2 else samples
    if fmt == "mp3":
        sf.write(b, data, sr, format="MP3")
    else:
        sf.write(b, data, sr, format="WAV", subtype="PCM_16")
    return b.getvalue()


def write_corpus(root: str | os.PathLike, *, n_items: int = 80, seed: int = 0,
                 defects: bool | tuple[str, ...] = True, duration_scale: float = 1.0,
                 mp3: bool = True) -> SynthCorpus:
    """Write a synthetic AIR-Bench Chat root.

    Parameters
    ----------
    root : str or PathLike
        Created; ``Chat/`` goes inside.
    n_items : int
        Items over the 8 tasks (at least 40 with defects, so that every task keeps clean
        items to measure its ranges against).
    seed : int
    defects : bool or tuple of str
        True: one item per :data:`DEFECTS` entry; a tuple picks some; False: none.
    duration_scale : float
        Multiplies every clip's duration (shorter corpora for scale tests).
    mp3 : bool
        Write a third of the clips as MP3 (needs libsndfile >= 1.1).

    Returns
    -------
    SynthCorpus
    """
    chosen = tuple(DEFECTS) if defects is True else (tuple(defects) if defects else ())
    bad = [d for d in chosen if d not in DEFECTS]
    if bad:
        raise ParameterError(f"unknown defects {bad}; expected some of {tuple(DEFECTS)}")
    if n_items < (40 if chosen else 8):
        raise ParameterError(f"{n_items=} must be >= {40 if chosen else 8}")
    if not duration_scale > 0:
        raise ParameterError(f"{duration_scale=} must be > 0")
    rng = np.random.default_rng(seed)
    chat = Path(root) / "Chat"
    chat.mkdir(parents=True, exist_ok=True)
    weights = np.array([4, 4, 4, 1, 4, 1, 2, 2], float)
    tasks = list(TASKS) + list(rng.choice(TASKS, n_items - len(TASKS), p=weights / weights.sum()))
    rng.shuffle(tasks)
    # defects on distinct items of the tasks they need
    need = {"transcription_without_speech": "speech_QA", "no_speech_in_speech_task":
            "speech_and_music_QA", "meta_time_beyond_clip": "speech_dialogue_QA",
            "duration_outlier": "sound_QA", "loudness_outlier": "music_QA",
            "meta_info_unparseable": "speech_QA"}
    plan: dict[int, str] = {}
    for d in chosen:
        want = need.get(d)
        # a duplicate copies an earlier clean clip: it goes late in the corpus
        order = range(n_items - 1, -1, -1) if d == "duplicate" else range(n_items)
        idx = next(i for i in order if i not in plan and (want is None or tasks[i] == want))
        plan[idx] = d
    out = SynthCorpus(root=Path(root))
    signals: dict[int, tuple[np.ndarray, int]] = {}
    dup_src = None
    for i, task in enumerate(tasks):
        uid = i
        ds = str(rng.choice(DATASETS[task]))
        sr = int(rng.choice(_RATES))
        fmt = "mp3" if mp3 and rng.random() < 0.33 else "wav"
        lo, hi = _DUR[task]
        dur = float(rng.uniform(lo, hi)) * duration_scale
        defect = plan.get(i)
        x, meta = _clip(task, sr, dur, rng)
        x = x * float(rng.uniform(0.6, 1.6))
        samples = _stereo(x, rng) if rng.random() < 0.3 else x[None, :]
        if defect == "silent":
            samples = np.zeros_like(samples)
        elif defect == "clipped":
            samples = np.clip(samples * 8.0, -1.0, 1.0)
            fmt = "wav"
        elif defect == "dead_channel":
            samples = np.stack([samples[0], np.zeros_like(samples[0])])
        elif defect == "inverted":
            samples = np.stack([samples[0], -samples[0]])
        elif defect == "dc_offset":
            samples = samples * 0.5 + 0.2
            fmt = "wav"
        elif defect == "transcription_without_speech":
            samples = S.environment_like(dur, sr, rng, family="rain")[None, :]
        elif defect == "no_speech_in_speech_task":
            samples = S.music_like(dur, sr, rng, family="chords")[None, :]
        elif defect == "duration_outlier":
            samples = S.environment_like(dur * 8, sr, rng, family="water")[None, :]
        elif defect == "loudness_outlier":
            samples = samples / max(np.max(np.abs(samples)), 1e-9) * 0.01
            fmt = "wav"
        elif defect == "meta_info_unparseable":
            meta = str(meta)[:-12]  # the literal loses its closing quote and brace
        elif defect == "meta_time_beyond_clip":
            turns = json.loads(meta)
            turns.append({"speaker": "speaker 1", "speaking time":
                          f"({dur + 5:.2f},{2 * dur + 5:.2f})", "transcription": "bye"})
            meta = json.dumps(turns)
        elif defect == "duplicate":
            dup_src = next(j for j in signals if plan.get(j) is None)
            src, src_sr = signals[dup_src]
            from scipy.signal import resample_poly

            sr = 44100 if src_sr != 44100 else 22050
            from math import gcd

            g = gcd(sr, src_sr)
            samples = np.stack([resample_poly(c, sr // g, src_sr // g) for c in src]) * 0.7
            samples = samples.astype(np.float32)
            fmt = "mp3" if mp3 else "wav"
        name = f"{ds}_{i:05d}.{fmt}"
        if i % 7 == 3:
            name = f"sub{i % 3}/{name}"
        path = chat / f"{task}_{ds}" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        peak = float(np.max(np.abs(samples))) if samples.size else 0.0
        if defect not in ("clipped", "dc_offset", "silent") and peak > 0.99:
            samples = samples * (0.99 / peak)
        if defect is None:
            signals[i] = (samples, sr)
        data = _encode(samples.astype(np.float32), sr, fmt)
        if defect == "truncated":
            data = data[: int(len(data) * 0.6)]
        elif defect == "not_audio":
            data = b"<html><body>404 Not Found</body></html>\n" * 20
        elif defect == "empty":
            data = b""
        if defect != "missing":
            path.write_bytes(data)
        out.items.append({"meta_info": meta, "question": f"What can be heard in clip {i}?",
                          "answer_gt": f"Reference answer {i}.", "path": name,
                          "task_name": task, "dataset_name": ds, "uniq_id": uid})
        if defect is not None:
            out.defects.setdefault(str(uid), []).append((defect, DEFECTS[defect]))
            if defect == "duplicate":
                out.defects.setdefault(str(dup_src), []).append(("duplicate", "duplicate"))
    out.clean = [str(it["uniq_id"]) for it in out.items if str(it["uniq_id"]) not in
                 out.defects]
    (chat / "Chat_meta.json").write_text(json.dumps(out.items, indent=1, ensure_ascii=False),
                                         encoding="utf-8")
    return out


def write_judge_files(items: list[dict], out_dir: str | os.PathLike, *, seed: int = 0,
                      malformed: int = 9) -> dict:
    """Write a model run and its judge outputs in both orders.

    Parameters
    ----------
    items : list of dict
        Chat_meta items (``SynthCorpus.items``).
    out_dir : str or PathLike
    seed : int
    malformed : int
        How many judge lines of each file are malformed (cycling through
        :data:`MALFORMED_JUDGE_LINES`).

    Returns
    -------
    dict
        ``responses``, ``judged``, ``swapped`` (paths) and ``truth``: per order, the key ->
        (reference, model) scores or the failure reason each line was written with.
    """
    rng = np.random.default_rng(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    responses, judged, swapped = [], [], []
    truth: dict[str, dict] = {"reference-first": {}, "model-first": {}}
    bad_a = set(rng.choice(len(items), min(malformed, len(items)), replace=False).tolist())
    bad_b = set(rng.choice(len(items), min(malformed, len(items)), replace=False).tolist())
    for i, it in enumerate(items):
        resp = dict(it, response=f"Model answer {i}.")
        responses.append(resp)
        ref, mod = int(rng.integers(5, 11)), int(rng.integers(1, 11))
        row = {"meta_info": it["meta_info"], "path": it["path"], "question": it["question"],
               "answer_gt": it["answer_gt"], "task_name": it["task_name"],
               "dataset_name": it["dataset_name"], "Audio-LLM-response": resp["response"],
               "uniq_id": it["uniq_id"]}
        key = str(it["uniq_id"])
        if i in bad_a:
            line, why = MALFORMED_JUDGE_LINES[len(truth["reference-first"]) %
                                              len(MALFORMED_JUDGE_LINES)]
            truth["reference-first"][key] = why
        else:
            line = f"{ref} {mod}" if rng.random() < 0.9 else f"{ref} {mod}\n"
            truth["reference-first"][key] = (ref, mod)
        judged.append(dict(row, gen=line))
        ref2 = int(np.clip(ref + rng.integers(-1, 2), 1, 10))
        mod2 = int(np.clip(mod + rng.integers(-1, 2), 1, 10))
        if i in bad_b:
            line, why = MALFORMED_JUDGE_LINES[(len(truth["model-first"]) + 4) %
                                              len(MALFORMED_JUDGE_LINES)]
            truth["model-first"][key] = why
        else:
            line = f"{mod2} {ref2}"
            truth["model-first"][key] = (ref2, mod2)
        swapped.append({"task_name": it["task_name"], "uniq_id": it["uniq_id"],
                        "path": it["path"], "gpt-score": line})
    paths = {"responses": out / "Chat_result_modelx.jsonl", "judged": out / "chat_score.jsonl",
             "swapped": out / "chat_score_cir.json"}
    paths["responses"].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                          for r in responses), encoding="utf-8")
    paths["judged"].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                       for r in judged), encoding="utf-8")
    paths["swapped"].write_text(json.dumps(swapped, ensure_ascii=False, indent=1),
                                encoding="utf-8")
    return {**{k: str(v) for k, v in paths.items()}, "truth": truth}
