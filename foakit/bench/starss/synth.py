"""STARSS / DCASE-layout synthetic corpora with exact truth.

:func:`write_starss_corpus` writes ``foa_dev/*.wav``, ``metadata_dev/*.csv`` (the label
CSVs of :func:`starss_rows`, written by :func:`foakit.bench.starss.format.write_label_csv`)
and ``truth/scenes.jsonl`` (the truth lines of :mod:`foakit.synth.layouts`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ...conventions import check_channel_order
from ...errors import ParameterError
from ...synth.layouts import (
    Recordings,
    draw_scenes,
    render_labelled,
    truth_line,
    with_recordings,
    write_jsonl,
    write_wav,
)
from ...synth.scene import LABELS, Scene
from .format import LABEL_HOP_S, LabelRow, write_label_csv

__all__ = ["STARSS_CLASSES", "starss_rows", "write_starss_corpus"]

#: Class list of the STARSS-layout writer: ``class`` column = index in this tuple.
STARSS_CLASSES: tuple[str, ...] = LABELS


def starss_rows(scene: Scene, *, frame_s: float = LABEL_HOP_S) -> list[tuple[int, ...]]:
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
    motion_probability: float = 0.35,
    fan: float = 0.0,
    mic_yaw: bool = False,
    recordings: Recordings | None = None,
) -> list[Scene]:
    """Write a random STARSS / DCASE-layout corpus with exact truth.

    Layout under ``root``: ``foa_dev/<name>.wav``, ``metadata_dev/<name>.csv`` (headerless
    ``frame,class,source,azimuth,elevation,distance_cm`` rows of :func:`starss_rows`) and
    ``truth/scenes.jsonl``.  Names are ``fold1_room1_mix001``, ``fold1_room1_mix002``, ...

    Parameters are those of :func:`~foakit.bench.sobench.synth.write_sobench_corpus` (no
    ``tasks`` or ``wording``).

    Returns
    -------
    list of Scene
        The scenes, in clip order.
    """
    scenes = draw_scenes(n_clips, [int(seed), 2], n_sources=n_sources, duration_s=duration_s,
                          sample_rate=sample_rate, rt60_s=rt60_s, snr_db=snr_db,
                          allow_motion=allow_motion, motion_probability=motion_probability)
    order = check_channel_order(channel_order)
    root = Path(root)
    truth, written = [], []
    for i, scene in enumerate(scenes):
        name = f"fold1_room1_mix{i + 1:03d}"
        rel = f"foa_dev/{name}.wav"
        scene, signals = with_recordings(scene, recordings, [int(seed), i, 29])
        written.append(scene)
        x, labelled, extra = render_labelled(scene, engine=engine, seed=[int(seed), i, 28],
                                             fan=fan, mic_yaw=mic_yaw, signals=signals)
        gain = write_wav(root / rel, x, sample_rate, channel_order=order, subtype=subtype)
        write_label_csv(root / "metadata_dev" / f"{name}.csv",
                        [LabelRow(*row) for row in starss_rows(labelled)], distance=True)
        truth.append(truth_line(scene, name, rel, gain, order, subtype, extra))
    write_jsonl(root / "truth" / "scenes.jsonl", truth)
    return written
