"""Synthetic RMS-AQA-layout corpora with exact truth.

Layout under ``root``::

    <split>.json               {"records": [...]} (RMS-AQA QA JSON)
    audio/<split>/<segment_id>.wav   10 s, 24 kHz, 4-channel FOA
    truth/scenes.jsonl         one line per clip: segment_id, audio_path, wav_gain,
                               channel_order and the scene (foakit.synth.Scene.to_dict)
    truth/items.jsonl          one line per two-stage item: segment_id, item, category and
                               the value its right answer states

Scenes come from :func:`foakit.synth.random_scene` (1-4 sources, a third moving, distances
up to 6 m, shoebox rooms with reverberation and diffuse noise) and are rendered by
:func:`foakit.synth.render_scene` (built-in image sources, or pyroomacoustics).  Records
hold one or two two-stage items (:mod:`.synth_qa`), categories drawn in balance over the
corpus.  ``audio_path`` is relative to the QA file's folder (the loader's default root).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...conventions import check_channel_order
from ...errors import ParameterError
from ...synth.layouts import write_wav
from ...synth.render import render_scene
from ...synth.scene import LABELS, Scene, random_scene
from .format import CATEGORIES
from .synth_qa import make_items

__all__ = ["write_rmsaqa_corpus", "qa_path"]


def qa_path(root: str | os.PathLike, split: str = "val") -> Path:
    """The QA file :func:`write_rmsaqa_corpus` writes under ``root``."""
    return Path(root) / f"{split}.json"


def _categories(rng: np.random.Generator, n: int, weights: Sequence[float] | None) -> list[int]:
    ids = list(CATEGORIES)
    if weights is None:
        reps = -(-n // len(ids))
        out = [c for _ in range(reps) for c in rng.permutation(ids).tolist()]
        return out[:n]
    w = np.asarray(weights, dtype=float)
    if w.shape != (6,) or np.any(w < 0) or w.sum() <= 0:
        raise ParameterError(f"category_weights={weights!r} needs six non-negative weights")
    return rng.choice(ids, size=n, p=w / w.sum()).tolist()


def _scene(seed: int, i: int, *, n_sources, **kw) -> Scene:
    """Clip ``i``'s scene; a draw that cannot place its sources is drawn again."""
    for attempt in range(20):
        rng = np.random.default_rng([seed, i, 3, attempt])
        if np.isscalar(n_sources):
            n = int(n_sources)
        elif len(n_sources) == 2:
            n = int(rng.integers(int(n_sources[0]), int(n_sources[1]) + 1))
        else:  # weights of 1, 2, ... sources
            w = np.asarray(n_sources, dtype=float)
            n = 1 + int(rng.choice(len(w), p=w / w.sum()))
        try:
            return random_scene(rng, n_sources=n, elevation_deg=(-20.0, 30.0),
                                allow_motion=True, min_separation_deg=40.0, **kw)
        except ParameterError:
            continue
    raise ParameterError(f"cannot draw scene {i} of seed {seed} with {n_sources=}")


def write_rmsaqa_corpus(
    root: str | os.PathLike,
    *,
    n_clips: int = 24,
    seed: int = 0,
    split: str = "val",
    sample_rate: int = 24000,
    duration_s: float = 10.0,
    n_sources: int | tuple[int, int] | Sequence[float] = (1, 4),
    motion_probability: float = 0.34,
    distance_m: tuple[float, float] = (0.8, 6.0),
    rt60_s: float | tuple[float, float] | None = (0.3, 0.7),
    snr_db: float | tuple[float, float] | None = (15.0, 30.0),
    channel_order: str = "ambix",
    mirror_labels: bool = False,
    category_weights: Sequence[float] | None = None,
    two_item_probability: float = 0.5,
    engine: str = "ism",
    render: bool = True,
) -> Path:
    """Write a random RMS-AQA-layout corpus (see the module docstring for the layout).

    Parameters
    ----------
    root : str or PathLike
        Output folder.
    n_clips, seed : int
        Number of clips; master seed (ids, scenes, questions follow from it).
    split : str
        Names the QA file and the audio folder.
    sample_rate, duration_s : int, float
        24 kHz and 10 s as in RMS-AQA.
    n_sources : int, (int, int) or sequence of float
        Sources per clip: a number, an inclusive range (uniform), or the weights of 1, 2,
        3, ... sources (more than two values).
    motion_probability, distance_m, rt60_s, snr_db
        Passed to :func:`foakit.synth.random_scene` (overlapping events).
    channel_order : {"ambix", "fuma"}
        How the wav files store FOA (a FuMa copy is what a wrong-order reader sees).
    mirror_labels : bool
        Localization answers state the mirrored azimuth (az -> -az): a corpus copy whose
        labels took the wrong azimuth sign.
    category_weights : sequence of 6 floats, optional
        Draw stage-2 categories with these weights; None = balanced.
    two_item_probability : float
        Chance that a record holds two two-stage items.
    engine : {"ism", "pyroomacoustics", "pyroomacoustics-bands", "auto"}
        Room model.
    render : bool
        False writes the QA and truth files only (for scoring tests at scale).

    Returns
    -------
    Path
        The QA file.
    """
    if n_clips < 1:
        raise ParameterError(f"{n_clips=} must be >= 1")
    if not 0.0 <= two_item_probability <= 1.0:
        raise ParameterError(f"{two_item_probability=} must be in [0, 1]")
    order = check_channel_order(channel_order)
    rootp = Path(root)
    rootp.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, 14])
    n_items = [1 + int(rng.random() < two_item_probability) for _ in range(n_clips)]
    queue = _categories(rng, sum(n_items), category_weights)
    records, scenes, truths = [], [], []
    for i in range(n_clips):
        scene = _scene(seed, i, n_sources=n_sources, duration_s=duration_s,
                       sample_rate=sample_rate, rt60_s=rt60_s, snr_db=snr_db,
                       distance_m=distance_m, motion_probability=motion_probability)
        sid = f"{split}_{seed:04d}_{i:05d}"
        rel = f"audio/{split}/{sid}.wav"
        qrng = np.random.default_rng([seed, i, 11])
        pairs: list = []
        # categories the scene cannot carry (relations need two sources) wait in the queue
        # for a later clip, so the corpus stays balanced; the last clips take what is left
        for k in range(len(queue)):
            if len(pairs) == n_items[i]:
                break
            got = make_items(scene, qrng, [queue[k]], list(LABELS), mirror=mirror_labels)
            if got:
                pairs += got
                queue[k] = 0
        queue = [c for c in queue if c]
        while len(pairs) < n_items[i]:
            pairs += make_items(scene, qrng, [int(qrng.choice([1, 2, 3, 6]))], list(LABELS),
                                mirror=mirror_labels)
        qa_pairs = []
        for k, (s1, s2) in enumerate(pairs):
            truths.append({"segment_id": sid, "item": k, "stage1": s1.pop("truth"),
                           "stage2": s2.pop("truth")})
            qa_pairs += [s1, s2]
        records.append({"segment_id": sid, "audio_path": rel, "qa_pairs": qa_pairs})
        gain = None
        if render:
            gain = write_wav(rootp / rel, render_scene(scene, engine=engine), sample_rate,
                             channel_order=order)
        scenes.append({"segment_id": sid, "audio_path": rel, "wav_gain": gain,
                       "channel_order": order, "mirror_labels": mirror_labels,
                       **scene.to_dict()})
    path = qa_path(rootp, split)
    path.write_text(json.dumps({"records": records}, indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    tdir = rootp / "truth"
    tdir.mkdir(exist_ok=True)
    for name, rows in (("scenes.jsonl", scenes), ("items.jsonl", truths)):
        with open(tdir / name, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
