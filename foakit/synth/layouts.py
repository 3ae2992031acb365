"""Write synthetic scenes as real wav files and benchmark-shaped corpora with truth.

* :func:`write_wav`: one FOA wav (ambiX or FuMa, 16-bit PCM or float), peak-normalised.
* :func:`draw_scenes`, :func:`render_labelled`, :func:`with_recordings`,
  :func:`truth_line`, :func:`write_jsonl`, :func:`hex_id`: what every benchmark's corpus
  writer (``foakit.bench.<name>.synth``) shares.

Each corpus gets ``truth/scenes.jsonl``: one line per clip with ``audio_id``,
``audio_path`` (relative to the root), ``wav_gain`` (the factor the rendered ambiX signal
was multiplied by before writing), ``channel_order``, ``subtype`` and every key of
:meth:`Scene.to_dict`; :meth:`Scene.from_dict` reads such a line back directly.  Writers
given a fan share or a microphone yaw add ``interferer`` (its direction, SNR and distance,
or None) and ``mic_yaw_deg``; the sources are then those the turned microphone hears, and
the room keys stay in the room's own frame.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from .._moved import moved_names
from ..conventions import check_channel_order, from_internal
from ..errors import ParameterError
from .render import draw_interferer_and_yaw, render_scene, yawed_scene, yawed_truth
from .scene import Scene, random_scene

__all__ = ["Recordings", "draw_scenes", "hex_id", "render_labelled", "truth_line",
           "with_recordings", "write_jsonl", "write_wav"]

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


def hex_id(*parts: Any) -> str:
    return hashlib.sha1(":".join(str(p) for p in parts).encode()).hexdigest()[:20]


def truth_line(scene: Scene, audio_id: str, audio_path: str, gain: float, order: str,
                subtype: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """One line of ``truth/scenes.jsonl``; ``extra`` is :func:`render_labelled`'s, whose
    ``mic_yaw_deg`` turns the sources (the room keys stay in the room's frame)."""
    d = scene.to_dict()
    yaw = (extra or {}).get("mic_yaw_deg")
    if yaw:
        d["sources"] = [yawed_truth(s, yaw) for s in d["sources"]]
    return {"audio_id": audio_id, "audio_path": audio_path, "wav_gain": gain,
            "channel_order": order, "subtype": subtype, **d, **(extra or {})}


def render_labelled(scene: Scene, *, engine: str, seed: list[int], fan: float = 0.0,
                    mic_yaw: bool = False, signals: Sequence[Any] | None = None
                    ) -> tuple[np.ndarray, Scene, dict[str, Any]]:
    """Render one clip of a corpus, with a steady directional interferer in a share ``fan``
    of the clips and the microphone at a random yaw when ``mic_yaw``
    (:func:`~foakit.synth.render.draw_interferer_and_yaw`, drawn from ``seed``), and the
    sources' dry ``signals`` where given (:func:`~foakit.synth.render_scene`).

    Returns
    -------
    x : ndarray [shape=(4, n)]
        The ambiX signal.
    labelled : Scene
        The scene its labels describe (the sources as the turned microphone hears them; give
        :func:`truth_line` the drawn scene and ``extra``, as the turned sources need not fit
        the unturned room).
    extra : dict
        ``interferer`` and ``mic_yaw_deg`` for the truth line; empty without a fan share or
        a yaw, so such corpora are those of earlier releases.
    """
    if not fan and not mic_yaw:
        return render_scene(scene, engine=engine, signals=signals), scene, {}
    itf, yaw = draw_interferer_and_yaw(np.random.default_rng(seed), fan=fan, yaw=mic_yaw)
    x = render_scene(scene, engine=engine, interferer=itf, mic_yaw_deg=yaw, signals=signals)
    extra = {"interferer": itf.to_dict() if itf is not None else None, "mic_yaw_deg": yaw}
    return x, yawed_scene(scene, yaw), extra


#: ``recordings(scene, rng) -> (scene, signals)``: a clip's scene with its sources' spans
#: where their recorded dry signals sound, and those signals (one per source, None keeps the
#: synthetic family); the writers' ``recordings`` option
Recordings = Callable[[Scene, np.random.Generator], tuple[Scene, Sequence[Any]]]


def with_recordings(scene: Scene, recordings: Recordings | None, seed: list[int]
                    ) -> tuple[Scene, Sequence[Any] | None]:
    """The scene to render and label and the dry signals to render it with: ``scene`` and
    None without ``recordings``, else what ``recordings(scene, rng)`` returns (``rng``
    drawn from ``seed``), checked."""
    if recordings is None:
        return scene, None
    new, signals = recordings(scene, np.random.default_rng(seed))
    n = len(signals) if isinstance(signals, Sequence) else None
    if not isinstance(new, Scene) or n != len(new.sources):
        raise ParameterError("recordings must return a Scene and one signal (or None) per "
                             f"source, got {type(new).__name__} and {n} signals")
    return new, signals


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def draw_scenes(n_clips: int, seed: list[int], **kw: Any) -> list[Scene]:
    """``n_clips`` random scenes from one seeded stream (the corpus writers' shared start)."""
    if int(n_clips) != n_clips or n_clips < 0:
        raise ParameterError(f"{n_clips=!r} must be a non-negative integer")
    rng = np.random.default_rng(seed)
    return [random_scene(rng, **kw) for _ in range(int(n_clips))]


# Names that moved to the benchmark packages, importable from here for one release.
_MOVED = {
    "write_sobench_corpus": "foakit.bench.sobench.synth",
    "make_demo_corpus": "foakit.bench.sobench.synth",
    "write_starss_corpus": "foakit.bench.starss.synth",
    "starss_rows": "foakit.bench.starss.synth",
    "STARSS_CLASSES": "foakit.bench.starss.synth",
}

_RENAMED = {"STARSS_FRAME_S": "LABEL_HOP_S"}
__getattr__ = moved_names(__name__, {**_MOVED, "STARSS_FRAME_S": "foakit.bench.starss.format"},
                          renamed=_RENAMED)
