"""SO-Bench-layout synthetic corpora with exact truth.

* :func:`write_sobench_corpus`: ``audio/test/*.wav``, ``qa/test.jsonl``, ``truth/scenes.jsonl``.
* :func:`make_demo_corpus`: the small corpus ``foakit demo`` analyses.

The truth lines are those of :mod:`foakit.synth.layouts`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...conventions import check_channel_order
from ...errors import ParameterError
from ...synth.layouts import (
    Recordings,
    draw_scenes,
    hex_id,
    render_labelled,
    truth_line,
    with_recordings,
    write_jsonl,
    write_wav,
)
from ...synth.scene import Scene, random_scene
from .questions_synth import check_tasks, check_wording, make_qa_items

__all__ = ["make_demo_corpus", "write_sobench_corpus"]


def _write_sobench(root: Path, scenes: Sequence[Scene], *, seed: int, channel_order: str,
                   engine: str, tasks: Sequence[str] | None, subtype: str,
                   wording: str = "house", fan: float = 0.0, mic_yaw: bool = False,
                   recordings: Recordings | None = None) -> list[Scene]:
    order = check_channel_order(channel_order)
    qa_rows, truth, written = [], [], []
    for i, scene in enumerate(scenes):
        audio_id = "foa_" + hex_id("foakit-synth-sobench", seed, i)
        rel = f"audio/test/{audio_id}.wav"
        scene, signals = with_recordings(scene, recordings, [seed, i, 29])
        written.append(scene)
        x, labelled, extra = render_labelled(scene, engine=engine, seed=[seed, i, 28],
                                             fan=fan, mic_yaw=mic_yaw, signals=signals)
        gain = write_wav(root / rel, x, scene.sample_rate, channel_order=order,
                         subtype=subtype)
        truth.append(truth_line(scene, audio_id, rel, gain, order, subtype, extra))
        items = make_qa_items(labelled, np.random.default_rng([seed, i, 17]), tasks=tasks,
                              wording=wording)
        for item in items:
            qa_rows.append({
                "qa_id": "qa_" + hex_id(audio_id, item["task_name"], item["question"]),
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
    write_jsonl(root / "qa" / "test.jsonl", qa_rows)
    write_jsonl(root / "truth" / "scenes.jsonl", truth)
    return written


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
    wording: str = "house",
    motion_probability: float = 0.35,
    fan: float = 0.0,
    mic_yaw: bool = False,
    recordings: Recordings | None = None,
) -> list[Scene]:
    """Write a random SO-Bench-layout corpus with exact truth.

    Layout under ``root``: ``audio/test/foa_<20 hex>.wav``, ``qa/test.jsonl`` (SO-Bench
    records plus ``dataset`` = ``"foakit-synth"`` and ``source_refs``, the indices of the
    scene sources an item is about) and ``truth/scenes.jsonl``.  Ids are deterministic
    from ``seed``.  Each clip gets at most one item per task in ``tasks`` (None = all of
    :data:`~foakit.bench.sobench.questions_synth.GENERATED_TASKS`), when the scene allows an
    unambiguous question.

    Parameters
    ----------
    root : str or PathLike
        Output folder.
    n_clips, seed : int
        Number of clips; master seed.
    sample_rate, duration_s, rt60_s, snr_db, n_sources, allow_motion, motion_probability
        Passed to :func:`foakit.synth.random_scene`.
    channel_order : {"ambix", "fuma"}
        Order of the written wav files.
    engine : {"auto", "ism", "pyroomacoustics", "pyroomacoustics-bands"}
        Room engine (``"auto"`` depends on what is installed: pass ``"ism"`` for a corpus
        that is identical everywhere).
    tasks : sequence of str or None
        Tasks to generate.
    subtype : str
        Wav sample format.
    wording : {"house", "varied"}
        Question wording (:data:`~foakit.bench.sobench.questions_synth.WORDINGS`).
    fan : float
        Share of the clips with a steady directional interferer that no label names (a fan,
        :func:`foakit.synth.render.draw_interferer_and_yaw`).
    mic_yaw : bool
        Turn the microphone to a random yaw in each clip; the labels give the directions
        it hears, so reflections no longer come from the room's axes.
    recordings : callable, optional
        ``recordings(scene, rng) -> (scene, signals)``: recorded dry signals for a clip's
        sources (:func:`foakit.synth.layouts.with_recordings`); the scene it returns, with
        the spans where the recordings sound, is the one rendered and labelled.

    Returns
    -------
    list of Scene
        The scenes, in clip order, in the room's frame (the labels are turned by the truth
        line's ``mic_yaw_deg``).
    """
    check_tasks(tasks)
    check_wording(wording)
    scenes = draw_scenes(n_clips, [int(seed), 1], n_sources=n_sources, duration_s=duration_s,
                          sample_rate=sample_rate, rt60_s=rt60_s, snr_db=snr_db,
                          allow_motion=allow_motion, motion_probability=motion_probability)
    return _write_sobench(Path(root), scenes, seed=int(seed), channel_order=channel_order,
                          engine=engine, tasks=tasks, subtype=subtype, wording=wording,
                          fan=fan, mic_yaw=mic_yaw, recordings=recordings)


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
    return _write_sobench(Path(root), scenes, seed=int(seed), channel_order="ambix",
                          engine="ism", tasks=None, subtype="PCM_16")
