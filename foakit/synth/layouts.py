"""Write synthetic scenes as real wav files and benchmark-shaped corpora with truth.

* :func:`write_wav`: one FOA wav (ambiX or FuMa, 16-bit PCM or float), peak-normalised.
* :func:`write_sobench_corpus`: SO-Bench layout (``audio/test/*.wav``, ``qa/test.jsonl``).
* :func:`write_starss_corpus`: STARSS / DCASE layout (``foa_dev/*.wav``,
  ``metadata_dev/*.csv``).
* :func:`make_demo_corpus`: the small SO-Bench-layout corpus ``foakit demo`` analyses.

Each corpus also gets ``truth/scenes.jsonl``: one line per clip with ``audio_id``,
``audio_path`` (relative to the root), ``wav_gain`` (the factor the rendered ambiX signal
was multiplied by before writing), ``channel_order``, ``subtype`` and every key of
:meth:`Scene.to_dict`; :meth:`Scene.from_dict` reads such a line back directly.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from ..conventions import check_channel_order, from_internal
from ..errors import ParameterError
from .qa import check_tasks, make_qa_items
from .render import render_scene
from .scene import LABELS, Scene, random_scene

__all__ = [
    "STARSS_CLASSES",
    "STARSS_FRAME_S",
    "write_wav",
    "starss_rows",
    "write_sobench_corpus",
    "write_starss_corpus",
    "make_demo_corpus",
]

#: Class list of the STARSS-layout writer: ``class`` column = index in this tuple.
STARSS_CLASSES: tuple[str, ...] = LABELS
#: Label frame length of the STARSS / DCASE CSVs (s).
STARSS_FRAME_S = 0.1
_SUBTYPES = ("PCM_16", "PCM_24", "PCM_32", "FLOAT")


def write_wav(
    path: str | os.PathLike,
    x_ambix: np.ndarray,
    sample_rate: int,
    *,
    channel_order: str = "ambix",
    subtype: str = "PCM_16",
    peak: float | None = None,
) -> float:
    """Write 4-channel FOA to a wav file.

    Parameters
    ----------
    path : str or PathLike
        Output file (parent folders are created).
    x_ambix : ndarray [shape=(4, n)]
        Signal in ambiX (W, Y, Z, X; SN3D).
    sample_rate : int
        Rate (Hz).
    channel_order : {"ambix", "fuma"}
        Stored order: ``"fuma"`` writes W/sqrt(2), X, Y, Z.
    subtype : {"PCM_16", "PCM_24", "PCM_32", "FLOAT"}
        Sample format.
    peak : float or None
        The stored signal is scaled so its largest absolute sample is ``peak``.  None: 0.9
        for PCM subtypes (avoids clipping), no scaling (gain 1) for ``"FLOAT"``.

    Returns
    -------
    float
        The gain applied: file content = ``gain * from_internal(x_ambix, channel_order)``.
    """
    order = check_channel_order(channel_order)
    if subtype not in _SUBTYPES:
        raise ParameterError(f"{subtype=!r} must be one of {_SUBTYPES}")
    x = np.asarray(x_ambix, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] != 4:
        raise ParameterError(f"x_ambix must have shape (4, n), got {x.shape}")
    if peak is None:
        peak = None if subtype == "FLOAT" else 0.9
    if peak is not None and not 0 < peak <= 1.0:
        raise ParameterError(f"{peak=!r} must be in (0, 1]")
    y = from_internal(x, order)
    gain = 1.0
    if peak is not None:
        m = float(np.max(np.abs(y))) if y.size else 0.0
        gain = peak / m if m > 0 else 1.0
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), (gain * y).T.astype(np.float32), int(sample_rate), subtype=subtype)
    return gain


def _hex_id(*parts: Any) -> str:
    return hashlib.sha1(":".join(str(p) for p in parts).encode()).hexdigest()[:20]


def _truth_line(scene: Scene, audio_id: str, audio_path: str, gain: float, order: str,
                subtype: str) -> dict[str, Any]:
    return {"audio_id": audio_id, "audio_path": audio_path, "wav_gain": gain,
            "channel_order": order, "subtype": subtype, **scene.to_dict()}


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_sobench(root: Path, scenes: Sequence[Scene], *, seed: int, channel_order: str,
                   engine: str, tasks: Sequence[str] | None, subtype: str) -> None:
    order = check_channel_order(channel_order)
    qa_rows, truth = [], []
    for i, scene in enumerate(scenes):
        audio_id = "foa_" + _hex_id("foakit-synth-sobench", seed, i)
        rel = f"audio/test/{audio_id}.wav"
        gain = write_wav(root / rel, render_scene(scene, engine=engine), scene.sample_rate,
                         channel_order=order, subtype=subtype)
        truth.append(_truth_line(scene, audio_id, rel, gain, order, subtype))
        items = make_qa_items(scene, np.random.default_rng([seed, i, 17]), tasks=tasks)
        for item in items:
            qa_rows.append({
                "qa_id": "qa_" + _hex_id(audio_id, item["task_name"], item["question"]),
                "split": "test",
                "audio_id": audio_id,
                "audio_path": rel,
                "task_name": item["task_name"],
                "question_class": item["question_class"],
                "answer_format": item["answer_format"],
                "question": item["question"],
                "answer": item["answer"],
                "canonical_answer": item["canonical_answer"],
                "answer_meta": item["answer_meta"],
                "dataset": "foakit-synth",
                "source_refs": item["source_refs"],
            })
    _write_jsonl(root / "qa" / "test.jsonl", qa_rows)
    _write_jsonl(root / "truth" / "scenes.jsonl", truth)


def write_sobench_corpus(
    root: str | os.PathLike,
    *,
    n_clips: int = 20,
    seed: int = 0,
    sample_rate: int = 16000,
    duration_s: float = 10.0,
    rt60_s: float | tuple[float, float] | None = (0.3, 0.8),
    snr_db: float | tuple[float, float] | None = (15.0, 30.0),
    n_sources: int | tuple[int, int] = (1, 3),
    allow_motion: bool = True,
    channel_order: str = "ambix",
    engine: str = "auto",
    tasks: Sequence[str] | None = None,
    subtype: str = "PCM_16",
) -> list[Scene]:
    """Write a random SO-Bench-layout corpus with exact truth.

    Layout under ``root``: ``audio/test/foa_<20 hex>.wav``, ``qa/test.jsonl`` (SO-Bench
    records plus ``dataset`` = ``"foakit-synth"`` and ``source_refs``, the indices of the
    scene sources an item is about) and ``truth/scenes.jsonl``.  Ids are deterministic
    from ``seed``.  Each clip gets at most one item per task in ``tasks`` (None = all of
    :data:`foakit.synth.qa.TASKS`), when the scene allows an unambiguous question.

    Parameters
    ----------
    root : str or PathLike
        Output folder.
    n_clips, seed : int
        Number of clips; master seed.
    sample_rate, duration_s, rt60_s, snr_db, n_sources, allow_motion
        Passed to :func:`foakit.synth.random_scene`.
    channel_order : {"ambix", "fuma"}
        Order of the written wav files.
    engine : {"auto", "ism", "pyroomacoustics"}
        Room engine (``"auto"`` depends on what is installed: pass ``"ism"`` for a corpus
        that is identical everywhere).
    tasks : sequence of str or None
        Tasks to generate.
    subtype : str
        Wav sample format.

    Returns
    -------
    list of Scene
        The scenes, in clip order.
    """
    check_tasks(tasks)
    scenes = _draw_scenes(n_clips, [int(seed), 1], n_sources=n_sources, duration_s=duration_s,
                          sample_rate=sample_rate, rt60_s=rt60_s, snr_db=snr_db,
                          allow_motion=allow_motion)
    _write_sobench(Path(root), scenes, seed=int(seed), channel_order=channel_order,
                   engine=engine, tasks=tasks, subtype=subtype)
    return scenes


def starss_rows(scene: Scene, *, frame_s: float = STARSS_FRAME_S) -> list[tuple[int, ...]]:
    """STARSS / DCASE label rows of a scene.

    A source is in frame ``f`` when the frame centre ``(f + 0.5) * frame_s`` lies in
    ``[onset_s, offset_s)``; moving sources get their azimuth at the frame centre.

    Returns
    -------
    list of (frame, class, source, azimuth, elevation, distance_cm)
        Integers, sorted by frame, class, source.  ``class`` indexes
        :data:`STARSS_CLASSES`; ``source`` numbers the events of one class in onset order.
    """
    rows = []
    n_frames = int(round(scene.duration_s / frame_s))
    instance: dict[str, int] = {}
    for s in sorted(scene.sources, key=lambda s: s.onset_s):
        if s.label not in STARSS_CLASSES:
            raise ParameterError(f"label={s.label!r} is not in STARSS_CLASSES {STARSS_CLASSES}")
        cls = STARSS_CLASSES.index(s.label)
        src_idx = instance.get(s.label, 0)
        instance[s.label] = src_idx + 1
        centres = (np.arange(n_frames) + 0.5) * frame_s
        for f in np.flatnonzero((centres >= s.onset_s) & (centres < s.offset_s)):
            az = int(np.round(s.azimuth_at(centres[f])))
            az = az - 360 if az >= 180 else az
            rows.append((int(f), cls, src_idx, az, int(round(s.elevation_deg)),
                         int(round(s.distance_m * 100))))
    return sorted(rows)


def write_starss_corpus(
    root: str | os.PathLike,
    *,
    n_clips: int = 10,
    seed: int = 0,
    sample_rate: int = 24000,
    duration_s: float = 10.0,
    rt60_s: float | tuple[float, float] | None = (0.3, 0.8),
    snr_db: float | tuple[float, float] | None = (15.0, 30.0),
    n_sources: int | tuple[int, int] = (1, 3),
    allow_motion: bool = True,
    channel_order: str = "ambix",
    engine: str = "auto",
    subtype: str = "PCM_16",
) -> list[Scene]:
    """Write a random STARSS / DCASE-layout corpus with exact truth.

    Layout under ``root``: ``foa_dev/<name>.wav``, ``metadata_dev/<name>.csv`` (headerless
    ``frame,class,source,azimuth,elevation,distance_cm`` rows of :func:`starss_rows`) and
    ``truth/scenes.jsonl``.  Names are ``fold1_room1_mix001``, ``fold1_room1_mix002``, ...

    Parameters are those of :func:`write_sobench_corpus` (no ``tasks``).

    Returns
    -------
    list of Scene
        The scenes, in clip order.
    """
    scenes = _draw_scenes(n_clips, [int(seed), 2], n_sources=n_sources, duration_s=duration_s,
                          sample_rate=sample_rate, rt60_s=rt60_s, snr_db=snr_db,
                          allow_motion=allow_motion)
    order = check_channel_order(channel_order)
    root = Path(root)
    truth = []
    for i, scene in enumerate(scenes):
        name = f"fold1_room1_mix{i + 1:03d}"
        rel = f"foa_dev/{name}.wav"
        gain = write_wav(root / rel, render_scene(scene, engine=engine), sample_rate,
                         channel_order=order, subtype=subtype)
        csv_path = root / "metadata_dev" / f"{name}.csv"
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        with csv_path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh, lineterminator="\n").writerows(starss_rows(scene))
        truth.append(_truth_line(scene, name, rel, gain, order, subtype))
    _write_jsonl(root / "truth" / "scenes.jsonl", truth)
    return scenes


def _draw_scenes(n_clips: int, seed: list[int], **kw: Any) -> list[Scene]:
    """``n_clips`` random scenes from one seeded stream (the corpus writers' shared start)."""
    if int(n_clips) != n_clips or n_clips < 0:
        raise ParameterError(f"{n_clips=!r} must be a non-negative integer")
    rng = np.random.default_rng(seed)
    return [random_scene(rng, **kw) for _ in range(int(n_clips))]


def make_demo_corpus(root: str | os.PathLike, *, n_clips: int = 8, seed: int = 0) -> list[Scene]:
    """Small SO-Bench-layout corpus for ``foakit demo`` (a second or two to write).

    ``n_clips`` 10 s, 16 kHz clips with 1-3 sources; even clips anechoic, odd clips
    reverberant (RT60 0.3-0.7 s, built-in ``"ism"`` engine so the corpus is the same
    whether or not pyroomacoustics is installed), SNR 20-30 dB; clip 1 (when
    ``n_clips >= 2``) holds exactly one moving source and no other clip moves.  Layout
    and truth as :func:`write_sobench_corpus`.

    Returns
    -------
    list of Scene
        The scenes, in clip order.
    """
    if int(n_clips) != n_clips or n_clips < 1:
        raise ParameterError(f"{n_clips=!r} must be a positive integer")
    scenes = []
    for i in range(int(n_clips)):
        kw: dict[str, Any] = {
            "n_sources": 1 + i % 3,
            "rt60_s": (0.3, 0.7) if i % 2 else None,
            "snr_db": (20.0, 30.0),
        }
        base = int(seed) * 1000 + i * 37
        if i == 1:
            kw["n_sources"] = 2
            for k in range(200):
                scene = random_scene(base + k, allow_motion=True, motion_probability=0.5, **kw)
                if sum(s.is_moving for s in scene.sources) == 1:
                    break
        else:
            scene = random_scene(base, **kw)
        scenes.append(scene)
    _write_sobench(Path(root), scenes, seed=int(seed), channel_order="ambix", engine="ism",
                   tasks=None, subtype="PCM_16")
    return scenes
