"""Inject known label errors into a corpus, to measure an audit (and to test one).

The errors are those real pipelines make (FORMATS.md section 1): azimuth mirrored
(``az -> -az``), front and back exchanged (``az -> 180 - az``), an azimuth offset, the
elevation sign flipped, onsets and time spans shifted, one source's azimuths rotated.  An
error is only injected where it changes the label beyond what the benchmark's scorer
tolerates (azimuth by >= ``min_az_change_deg``, elevation by >= 2 x ``min_abs_el_deg``):
mirroring an azimuth of 5 deg is no error.

* :func:`inject_sobench_errors`: a copy of an SO-Bench root (audio hard-linked where possible) with
  errors in ``answer_meta``; returns what was changed.
* :func:`inject_starss_errors`: a copy of a STARSS metadata folder with errors in some
  sources' rows.
* :func:`mirror_sobench_labels`, :func:`transform_starss_labels`: every direction label of a
  corpus through one convention hypothesis (for the convention audit).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np

from ..bench.sobench import load_qa
from ..bench.starss import (
    LABEL_HOP_S,
    SourceTrack,
    metadata_files,
    read_label_csv,
    rows_to_tracks,
    tracks_to_rows,
    write_label_csv,
)
from ..conventions import azimuth_difference, wrap_azimuth
from ..errors import ParameterError
from .common import apply_hypothesis

__all__ = [
    "AZIMUTH_ERRORS",
    "inject_sobench_errors",
    "inject_starss_errors",
    "mirror_sobench_labels",
    "transform_starss_labels",
]

#: Azimuth error kinds.
AZIMUTH_ERRORS = ("mirror", "front_back", "offset")


def _az_error(rng: np.random.Generator, az: float, min_change: float) -> tuple[float, str]:
    kinds = list(AZIMUTH_ERRORS)
    rng.shuffle(kinds)
    for kind in kinds:
        if kind == "mirror":
            new = -az
        elif kind == "front_back":
            new = 180.0 - az
        else:
            new = az + float(rng.choice([-1.0, 1.0])) * rng.uniform(max(50.0, min_change), 120.0)
        new = float(wrap_azimuth(new))
        if abs(float(azimuth_difference(new, az))) >= min_change:
            return round(new, 1), kind
    raise AssertionError("an offset always changes the azimuth")  # pragma: no cover


def _link_tree(src: Path, dst: Path) -> None:
    """Recreate ``src`` under ``dst`` with hard links to its files (copies where links fail).

    Hard links, not symlinks: SO-Bench readers refuse audio paths that resolve outside the
    root.
    """
    for dirpath, _, files in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for f in files:
            target = dst / rel / f
            if target.exists() or target.is_symlink():
                target.unlink()
            try:
                os.link(Path(dirpath) / f, target)
            except OSError:
                shutil.copy2(Path(dirpath) / f, target)


def _replace_number(text: str, old: float, new: float, fmt: str) -> str:
    o, n = fmt.format(old), fmt.format(new)
    return re.sub(rf"(?<![\d.]){re.escape(o)}(?![\d])", n, text, count=1) if o in text else text


def _write_qa(root_out: Path, rows: list[dict], name: str) -> None:
    p = root_out / "qa" / name
    if p.is_symlink() or p.exists():
        p.unlink()
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def inject_sobench_errors(
    root_in: str | os.PathLike,
    root_out: str | os.PathLike,
    *,
    rate: float = 0.2,
    seed: int = 0,
    fields: tuple[str, ...] = ("azimuth", "elevation", "onset", "time_span"),
    min_az_change_deg: float = 40.0,
    min_abs_el_deg: float = 15.0,
    shift_s: tuple[float, float] = (1.5, 3.0),
    split: str = "test",
) -> list[dict]:
    """Write a copy of an SO-Bench root with errors in about ``rate`` of its labels.

    Parameters
    ----------
    root_in, root_out : str or PathLike
        Source root and the new root (audio and other files are hard-linked).
    rate : float
        Fraction of the eligible labels (of ``fields``) changed.
    seed : int
    fields : tuple of str
        ``azimuth`` (mirror, front-back or offset >= 50 deg), ``elevation`` (sign flip),
        ``onset`` and ``time_span`` (shift by ``shift_s``, kept inside the clip).
    min_az_change_deg : float
        Azimuth errors change the label by at least this much.
    min_abs_el_deg : float
        Only elevations at least this far from 0 are flipped.
    shift_s : (float, float)
        Range of time shifts (s), either sign.
    split : str

    Returns
    -------
    list of dict
        ``qa_id``, ``field``, ``kind``, ``old``, ``new`` per changed label.
    """
    if not 0 <= rate <= 1:
        raise ParameterError(f"{rate=} must be in [0, 1]")
    qa = load_qa(root_in, split)
    root_in, root_out = Path(root_in), Path(root_out)
    _link_tree(root_in, root_out)
    durations = _sobench_durations(root_in)
    rng = np.random.default_rng(seed)
    eligible = []
    for i, it in enumerate(qa.items):
        m = it.answer_meta or {}
        if "azimuth" in fields and it.task_name == "estimate_azimuth" and "azimuth_deg" in m:
            eligible.append((i, "azimuth"))
        if ("elevation" in fields and it.task_name == "estimate_elevation"
                and abs(float(m.get("elevation_deg", 0.0))) >= min_abs_el_deg):
            eligible.append((i, "elevation"))
        if "onset" in fields and "onset_time" in m:
            eligible.append((i, "onset"))
        if "time_span" in fields and "time_span" in m:
            eligible.append((i, "time_span"))
    n = int(round(rate * len(eligible)))
    picks = sorted(rng.choice(len(eligible), size=n, replace=False).tolist()) if n else []
    rows = [dict(it.record) for it in qa.items]
    changes = []
    for k in picks:
        i, fld = eligible[k]
        row = rows[i]
        meta = dict(row.get("answer_meta") or {})
        dur = durations.get(str(row.get("audio_id")), None)
        if fld == "azimuth":
            old = float(meta["azimuth_deg"])
            new, kind = _az_error(rng, old, min_az_change_deg)
            meta["azimuth_deg"] = new
            for key in ("answer", "canonical_answer"):
                row[key] = _replace_number(str(row.get(key, "")), round(old), round(new), "{:d}")
        elif fld == "elevation":
            old = float(meta["elevation_deg"])
            new, kind = -old, "elevation_sign"
            meta["elevation_deg"] = new
            for key in ("answer", "canonical_answer"):
                row[key] = _replace_number(str(row.get(key, "")), int(round(old)),
                                           int(round(new)), "{:d}")
        elif fld == "onset":
            old = float(meta["onset_time"])
            new = _shifted(rng, [old, old], shift_s, dur)[0]
            kind = "onset_shift"
            meta["onset_time"] = new
            for key in ("answer", "canonical_answer"):
                row[key] = _replace_number(str(row.get(key, "")), old, new, "{:.1f}")
        else:
            old = [float(v) for v in meta["time_span"]]
            new = _shifted(rng, old, shift_s, dur)
            kind = "span_shift"
            meta["time_span"] = new
            for key in ("answer", "canonical_answer"):
                text = str(row.get(key, ""))
                text = _replace_number(text, old[0], new[0], "{:.1f}")
                row[key] = _replace_number(text, old[1], new[1], "{:.1f}")
        row["answer_meta"] = meta
        changes.append({"qa_id": str(row["qa_id"]), "field": fld, "kind": kind, "old": old,
                        "new": new})
    _write_qa(root_out, rows, qa.path.name)
    return changes


def _shifted(rng: np.random.Generator, span: list[float], shift_s: tuple[float, float],
             dur: float | None) -> list[float]:
    a, b = span
    length = b - a
    hi = (dur if dur is not None else b + shift_s[1]) - max(length, 0.5)
    for _ in range(50):
        d = rng.uniform(*shift_s) * rng.choice([-1.0, 1.0])
        if 0.0 <= a + d <= hi:
            return [round(float(a + d), 2), round(float(b + d), 2)]
    d = shift_s[0] if a - shift_s[0] < 0 else -shift_s[0]
    return [round(float(max(0.0, a + d)), 2), round(float(max(0.0, a + d) + length), 2)]


def _sobench_durations(root: Path) -> dict[str, float]:
    """Clip durations from ``truth/scenes.jsonl`` when present (synthetic corpora)."""
    p = root / "truth" / "scenes.jsonl"
    out: dict[str, float] = {}
    if p.is_file():
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                out[str(d.get("audio_id"))] = float(d.get("duration_s", 0.0))
    return out


def mirror_sobench_labels(root_in: str | os.PathLike, root_out: str | os.PathLike, *,
                          hypothesis: str = "mirror_azimuth", split: str = "test") -> int:
    """Copy an SO-Bench root with every direction label mapped through ``hypothesis``.

    Returns the number of labels changed.
    """
    qa = load_qa(root_in, split)
    root_out = Path(root_out)
    _link_tree(Path(root_in), root_out)
    rows, n = [], 0
    for it in qa.items:
        row = dict(it.record)
        meta = dict(row.get("answer_meta") or {})
        if "azimuth_deg" in meta:
            az, _ = apply_hypothesis(hypothesis, float(meta["azimuth_deg"]), 0.0)
            meta["azimuth_deg"] = round(float(az), 1)
            n += 1
        if "elevation_deg" in meta:
            _, el = apply_hypothesis(hypothesis, 0.0, float(meta["elevation_deg"]))
            meta["elevation_deg"] = round(float(el), 1)
            n += 1
        row["answer_meta"] = meta
        rows.append(row)
    _write_qa(root_out, rows, qa.path.name)
    return n


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

