"""Synthetic FOA scenes with known truth, and writers for benchmark-shaped corpora.

* :mod:`~foakit.synth.scene`: :class:`Source`, :class:`Scene`, :func:`random_scene`.
* :mod:`~foakit.synth.signals`: :func:`source_signal` (event-like mono signals),
  :func:`fit_dry_signal` (a recording placed as a source).
* :mod:`~foakit.synth.render`: :func:`render_scene` (anechoic, built-in image sources +
  diffuse tail, or pyroomacoustics), :func:`diffuse_noise`.
* :mod:`~foakit.synth.layouts`: wav writing and what every corpus writer shares.

Each benchmark's corpus writer lives in its package (``foakit.bench.sobench.synth``,
``foakit.bench.starss.synth``, ...); the names below that moved there stay importable
from here for one release.
"""

from __future__ import annotations

from .._moved import moved_names
from .layouts import write_wav
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
from .signals import apply_fades, fit_dry_signal, source_signal

__all__ = [
    "ENGINES",
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
    "fit_dry_signal",
]

_MOVED = {
    "make_demo_corpus": "foakit.bench.sobench.synth",
    "write_sobench_corpus": "foakit.bench.sobench.synth",
    "make_qa_items": "foakit.bench.sobench.questions_synth",
    "sector_of": "foakit.bench.sobench.questions_synth",
    "TASKS": "foakit.bench.sobench.questions_synth",
    "write_starss_corpus": "foakit.bench.starss.synth",
    "starss_rows": "foakit.bench.starss.synth",
    "STARSS_CLASSES": "foakit.bench.starss.synth",
    "STARSS_FRAME_S": "foakit.bench.starss.format",
}
_RENAMED = {"TASKS": "GENERATED_TASKS", "STARSS_FRAME_S": "LABEL_HOP_S"}


__getattr__ = moved_names(__name__, _MOVED, renamed=_RENAMED)
