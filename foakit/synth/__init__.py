"""Synthetic FOA scenes with known truth, and writers for benchmark-shaped corpora.

* :mod:`~foakit.synth.scene`: :class:`Source`, :class:`Scene`, :func:`random_scene`.
* :mod:`~foakit.synth.signals`: :func:`source_signal` (event-like mono signals).
* :mod:`~foakit.synth.render`: :func:`render_scene` (anechoic, built-in image sources +
  diffuse tail, or pyroomacoustics), :func:`diffuse_noise`.
* :mod:`~foakit.synth.qa`: SO-Bench style questions (templates in its constants).
* :mod:`~foakit.synth.layouts`: wav writing and SO-Bench / STARSS shaped corpora.
"""

from __future__ import annotations

from .layouts import (
    STARSS_CLASSES,
    STARSS_FRAME_S,
    make_demo_corpus,
    starss_rows,
    write_sobench_corpus,
    write_starss_corpus,
    write_wav,
)
from .qa import TASKS, make_qa_items, sector_of
from .render import (
    ENGINES,
    ISM_MAX_ORDER,
    PRA_MAX_ORDER,
    diffuse_noise,
    direct_snr_db,
    render_scene,
    resolve_engine,
    room_impulse_response,
)
from .scene import (
    KINDS,
    LABEL_KINDS,
    LABELS,
    MOTION_MIN_DEG,
    SPEED_OF_SOUND,
    Scene,
    Source,
    random_scene,
    room_geometry,
    sabine_absorption,
)
from .signals import apply_fades, source_signal

__all__ = [
    "ENGINES",
    "STARSS_CLASSES",
    "STARSS_FRAME_S",
    "TASKS",
    "make_demo_corpus",
    "make_qa_items",
    "sector_of",
    "starss_rows",
    "write_sobench_corpus",
    "write_starss_corpus",
    "write_wav",
    "ISM_MAX_ORDER",
    "KINDS",
    "LABEL_KINDS",
    "LABELS",
    "MOTION_MIN_DEG",
    "PRA_MAX_ORDER",
    "SPEED_OF_SOUND",
    "Scene",
    "Source",
    "apply_fades",
    "diffuse_noise",
    "direct_snr_db",
    "random_scene",
    "render_scene",
    "resolve_engine",
    "room_geometry",
    "room_impulse_response",
    "sabine_absorption",
    "source_signal",
]
