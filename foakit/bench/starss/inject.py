"""Known label errors injected into a STARSS metadata folder, to measure the audit.

* :func:`inject_starss_errors`: a copy of a metadata folder with errors in some sources'
  rows (rotated, mirrored, front-back flipped, elevation flipped, time-shifted).
* :func:`transform_starss_labels`: every direction label through one convention hypothesis
  (for the convention audit).
* :func:`label_frames`: the label frames each recording of an audio folder spans (what
  :func:`inject_starss_errors` keeps a shifted track inside).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ...audit.hypotheses import apply_hypothesis
from ...conventions import azimuth_difference, wrap_azimuth
from ...errors import ParameterError
from .format import (
    LABEL_HOP_S,
    SourceTrack,
    metadata_files,
    read_label_csv,
    rows_to_tracks,
    tracks_to_rows,
    write_label_csv,
)

__all__ = ["inject_starss_errors", "label_frames", "transform_starss_labels"]


def label_frames(audio_dir: str | os.PathLike) -> dict[str, int]:
    """Label frames (``LABEL_HOP_S`` each) every WAV file under ``audio_dir`` spans, by file
    stem: the ``n_frames`` of :func:`inject_starss_errors`.

    Each count is the file's duration over the hop, rounded down (the frame a recording's
    last sample falls in is only partly covered); a rounding margin keeps a 10.0 s file at
    100 frames.

    Raises
    ------
    ParameterError
        ``audio_dir`` is not a folder.
    AudioError
        A WAV file's header cannot be read (the error names the file).
    """
    import soundfile as sf

    from ...errors import AudioError

    if not Path(audio_dir).is_dir():
        raise ParameterError(f"audio_dir={os.fspath(audio_dir)!r} is not a folder")
    out = {}
    for path in sorted(Path(audio_dir).rglob("*.wav")):
        try:
            info = sf.info(str(path))
        except (sf.LibsndfileError, RuntimeError) as exc:
            raise AudioError(path, f"cannot read its length: {exc}") from exc
        out[path.stem] = int(info.frames / info.samplerate / LABEL_HOP_S + 1e-6)
    return out


def inject_starss_errors(
    metadata_in: str | os.PathLike,
    metadata_out: str | os.PathLike,
    *,
    rate: float = 0.2,
    seed: int = 0,
    kinds: tuple[str, ...] = ("rotate", "mirror", "front_back", "elevation_sign", "time_shift"),
    min_az_change_deg: float = 40.0,
    min_abs_el_deg: float = 15.0,
    shift_s: tuple[float, float] = (1.5, 3.0),
    n_frames: dict[str, int] | None = None,
) -> list[dict]:
    """Write a copy of a STARSS metadata folder with errors in about ``rate`` of the sources.

    A source is one ``(class, source)`` track of one CSV.  ``rotate`` adds one offset of
    50-120 deg to all its azimuths (the issue's "one source's CSV azimuths rotated");
    ``mirror`` / ``front_back`` map them; ``elevation_sign`` flips its elevations (sources
    with a mean |elevation| >= ``min_abs_el_deg`` only); ``time_shift`` moves its frames.

    Returns
    -------
    list of dict
        ``audio_id``, ``class``, ``source``, ``kind`` per changed track.
    """
    files = metadata_files(metadata_in)
    out_dir = Path(metadata_out)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    tracks = {stem: rows_to_tracks(read_label_csv(p)) for stem, p in files.items()}
    all_keys = [(stem, k) for stem in sorted(tracks) for k in tracks[stem]]
    n = int(round(rate * len(all_keys)))
    picks = set(rng.choice(len(all_keys), size=n, replace=False).tolist()) if n else set()
    changes = []
    for idx, (stem, key) in enumerate(all_keys):
        if idx not in picks:
            continue
        tr = tracks[stem][key]
        order = list(kinds)
        rng.shuffle(order)
        for kind in order:
            new = _track_error(rng, tr, kind, min_az_change_deg, min_abs_el_deg, shift_s,
                               (n_frames or {}).get(stem))
            if new is not None:
                tracks[stem][key] = new
                changes.append({"audio_id": stem, "class": key[0], "source": key[1],
                                "kind": kind})
                break
    for stem, p in files.items():
        rel = p.relative_to(Path(metadata_in))
        write_label_csv(out_dir / rel, tracks_to_rows(tracks[stem]),
                        distance=_has_distance(p))
    return changes


def _has_distance(path: Path) -> bool:
    first = next((ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()), "")
    return len(first.split(",")) == 6


def _track_error(rng, tr: SourceTrack, kind: str, min_az: float, min_el: float,
                 shift_s: tuple[float, float], n_frames: int | None) -> SourceTrack | None:
    az, el = tr.azimuth_deg.copy(), tr.elevation_deg.copy()
    frames = tr.frames.copy()
    if kind in ("rotate", "mirror", "front_back"):
        if kind == "rotate":
            new = az + rng.choice([-1.0, 1.0]) * rng.uniform(max(50.0, min_az), 120.0)
        elif kind == "mirror":
            new = -az
        else:
            new = 180.0 - az
        new = np.round(wrap_azimuth(new))
        new = np.where(new >= 180, new - 360, new)
        if np.median(np.abs(azimuth_difference(new, az))) < min_az:
            return None
        az = new
    elif kind == "elevation_sign":
        if np.mean(np.abs(el)) < min_el:
            return None
        el = -el
    elif kind == "time_shift":
        d = int(round(rng.uniform(*shift_s) / LABEL_HOP_S)) * int(rng.choice([-1, 1]))
        last = n_frames - 1 if n_frames else int(frames.max() + abs(d))
        if frames.min() + d < 0 or frames.max() + d > last:
            d = -d
        if frames.min() + d < 0 or frames.max() + d > last:
            return None
        frames = frames + d
    else:
        raise ParameterError(f"unknown error kind {kind!r}")
    return SourceTrack(tr.class_idx, tr.source, frames, az, el, tr.distance_cm.copy(),
                       tr.lines.copy())


def transform_starss_labels(metadata_in: str | os.PathLike, metadata_out: str | os.PathLike,
                            hypothesis: str) -> int:
    """Copy a metadata folder with every row's direction mapped through ``hypothesis``.

    Returns the number of rows written.
    """
    files = metadata_files(metadata_in)
    n = 0
    for p in files.values():
        rows = read_label_csv(p)
        out = []
        for r in rows:
            az, el = apply_hypothesis(hypothesis, r.azimuth_deg, r.elevation_deg)
            a = float(np.round(az))
            out.append(type(r)(r.frame, r.class_idx, r.source, a - 360 if a >= 180 else a,
                               float(el), r.distance_cm))
        write_label_csv(Path(metadata_out) / p.relative_to(Path(metadata_in)), out,
                        distance=_has_distance(p))
        n += len(out)
    return n
