"""STARSS / DCASE SELD label CSVs: reading, writing, and per-source frame tracks.

Format (docs/formats.md)
-----------------------------
Headerless rows ``frame, class, source, azimuth, elevation[, distance_cm]``:

* ``frame``: integer index of a :data:`LABEL_HOP_S` (100 ms) label frame, from 0;
* ``class``: integer sound-class index; ``source``: integer instance index within the class;
* ``azimuth``: degrees in [-180, 180], 0 = front, counter-clockwise positive (+90 = left);
* ``elevation``: degrees in [-90, 90], up positive;
* ``distance_cm`` (STARSS23 and later, SO-Bench annotations): centimetres, ``-1`` = unknown.

Overlapping events repeat the frame number; silent frames are omitted.  STARSS22 and
TAU-NIGENS files have 5 columns.  This module reads and writes those files and nothing else:
it knows nothing of signals or kernels.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import FormatError
from ...files import read_text, write_atomic

__all__ = [
    "LABEL_HOP_S",
    "LabelRow",
    "SourceTrack",
    "read_label_csv",
    "write_label_csv",
    "rows_to_tracks",
    "tracks_to_rows",
    "metadata_files",
    "frame_times",
]

#: Duration of one label frame (seconds).
LABEL_HOP_S = 0.1


@dataclass(frozen=True)
class LabelRow:
    """One CSV row.

    Attributes
    ----------
    frame, class_idx, source : int
        Label frame index (100 ms), class index, source (instance) index.
    azimuth_deg, elevation_deg : float
    distance_cm : float or None
        None for 5-column files and for ``-1`` (unknown).
    line : int
        1-based line in the file it came from (0 for rows made in code).
    """

    frame: int
    class_idx: int
    source: int
    azimuth_deg: float
    elevation_deg: float
    distance_cm: float | None = None
    line: int = 0


@dataclass
class SourceTrack:
    """The labelled frames of one (class, source) pair of one clip.

    Attributes
    ----------
    class_idx, source : int
    frames : ndarray [shape=(n,), dtype=int64]
        Sorted label-frame indices.
    azimuth_deg, elevation_deg : ndarray [shape=(n,)]
    distance_cm : ndarray [shape=(n,)]
        NaN where unknown.
    lines : ndarray [shape=(n,), dtype=int64]
        CSV line of each frame's row.
    """

    class_idx: int
    source: int
    frames: np.ndarray
    azimuth_deg: np.ndarray
    elevation_deg: np.ndarray
    distance_cm: np.ndarray = field(default_factory=lambda: np.zeros(0))
    lines: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def key(self) -> tuple[int, int]:
        return (self.class_idx, self.source)

    def __len__(self) -> int:
        return int(self.frames.shape[0])

    def spans(self) -> list[tuple[int, int]]:
        """Runs of consecutive frames as ``(first, last)`` pairs (inclusive)."""
        if len(self) == 0:
            return []
        f = self.frames
        breaks = np.flatnonzero(np.diff(f) > 1)
        starts = np.concatenate([[0], breaks + 1])
        stops = np.concatenate([breaks, [len(f) - 1]])
        return [(int(f[a]), int(f[b])) for a, b in zip(starts, stops, strict=True)]


def _int_field(path: Path, line: int, name: str, text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise FormatError(path, f"{name} {text!r} is not a number", line=line) from None
    if not math.isfinite(value) or value != int(value):
        raise FormatError(path, f"{name} {text!r} must be an integer", line=line)
    return int(value)


def _float_field(path: Path, line: int, name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise FormatError(path, f"{name} {text!r} is not a number", line=line) from None
    if not math.isfinite(value):
        raise FormatError(path, f"{name} {text!r} is not finite", line=line)
    return value


def _looks_like_header(cells: list[str]) -> bool:
    try:
        float(cells[0])
    except ValueError:
        return cells[0].strip().lower() in ("frame", "frame_idx", "frame_number", "#frame")
    return False


def read_label_csv(path: str | os.PathLike) -> list[LabelRow]:
    """Read one STARSS / DCASE label CSV.

    Parameters
    ----------
    path : str or PathLike
        A headerless CSV of 5 or 6 columns (see the module docstring).  Blank lines are
        skipped; a first line naming the columns (``frame,...``) is tolerated and skipped.

    Returns
    -------
    list of LabelRow
        In file order.

    Raises
    ------
    FormatError
        The file cannot be read, a row has a column count other than 5 or 6 (or differs
        from the first row's), a field is not a number, ``frame`` / ``class`` / ``source``
        are not non-negative integers, an angle is out of range, or one ``(frame, class,
        source)`` appears twice.  The message names ``file:line``.
    """
    p = Path(path)
    text = read_text(p, encoding="utf-8-sig")
    rows: list[LabelRow] = []
    n_cols: int | None = None
    seen: dict[tuple[int, int, int], int] = {}
    for lineno, cells in enumerate(csv.reader(text.splitlines()), start=1):
        cells = [c.strip() for c in cells]
        if not cells or all(c == "" for c in cells):
            continue
        if not rows and n_cols is None and _looks_like_header(cells):
            continue
        if len(cells) not in (5, 6):
            raise FormatError(p, f"{len(cells)} columns; expected 5 (frame, class, source, "
                              "azimuth, elevation) or 6 (+ distance_cm)", line=lineno)
        if n_cols is None:
            n_cols = len(cells)
        elif len(cells) != n_cols:
            raise FormatError(p, f"{len(cells)} columns where earlier rows have {n_cols}",
                              line=lineno)
        frame = _int_field(p, lineno, "frame", cells[0])
        cls = _int_field(p, lineno, "class", cells[1])
        src = _int_field(p, lineno, "source", cells[2])
        az = _float_field(p, lineno, "azimuth", cells[3])
        el = _float_field(p, lineno, "elevation", cells[4])
        dist = None
        if n_cols == 6:
            d = _float_field(p, lineno, "distance_cm", cells[5])
            if d < 0 and d != -1:
                raise FormatError(p, f"distance_cm {cells[5]!r} must be >= 0 or -1 (unknown)",
                                  line=lineno)
            dist = None if d == -1 else d
        if frame < 0 or cls < 0 or src < 0:
            raise FormatError(p, "frame, class and source must be >= 0", line=lineno)
        if not -180.0 <= az <= 180.0:
            raise FormatError(p, f"azimuth {az:g} outside [-180, 180]", line=lineno)
        if not -90.0 <= el <= 90.0:
            raise FormatError(p, f"elevation {el:g} outside [-90, 90]", line=lineno)
        key = (frame, cls, src)
        if key in seen:
            raise FormatError(p, f"frame {frame}, class {cls}, source {src} repeats line "
                              f"{seen[key]}", line=lineno)
        seen[key] = lineno
        rows.append(LabelRow(frame, cls, src, az, el, dist, lineno))
    return rows


def _fmt(value: float) -> str:
    return str(int(round(value))) if abs(value - round(value)) < 1e-9 else f"{value:.2f}"


def write_label_csv(
    path: str | os.PathLike, rows: Iterable[LabelRow], *, distance: bool | None = None,
    integer_angles: bool = True,
) -> Path:
    """Write rows as a headerless label CSV, sorted by frame, class, source (atomically).

    Parameters
    ----------
    path : str or PathLike
    rows : iterable of LabelRow
    distance : bool, optional
        Write the 6th column (``-1`` where unknown).  Default: when any row has a distance.
    integer_angles : bool
        Round angles to integer degrees, as the DCASE files do.

    Returns
    -------
    Path
    """
    rows = sorted(rows, key=lambda r: (r.frame, r.class_idx, r.source))
    if distance is None:
        distance = any(r.distance_cm is not None for r in rows)
    lines = []
    for r in rows:
        az, el = r.azimuth_deg, r.elevation_deg
        if integer_angles:
            az, el = float(round(az)), float(round(el))
        cells = [str(int(r.frame)), str(int(r.class_idx)), str(int(r.source)), _fmt(az), _fmt(el)]
        if distance:
            cells.append("-1" if r.distance_cm is None else _fmt(float(r.distance_cm)))
        lines.append(",".join(cells) + "\n")
    return write_atomic(path, lines)


def rows_to_tracks(rows: Iterable[LabelRow]) -> dict[tuple[int, int], SourceTrack]:
    """Group rows into one :class:`SourceTrack` per ``(class, source)``, frames sorted."""
    groups: dict[tuple[int, int], list[LabelRow]] = {}
    for r in rows:
        groups.setdefault((r.class_idx, r.source), []).append(r)
    out: dict[tuple[int, int], SourceTrack] = {}
    for key in sorted(groups):
        g = sorted(groups[key], key=lambda r: r.frame)
        out[key] = SourceTrack(
            class_idx=key[0], source=key[1],
            frames=np.array([r.frame for r in g], dtype=np.int64),
            azimuth_deg=np.array([r.azimuth_deg for r in g], dtype=float),
            elevation_deg=np.array([r.elevation_deg for r in g], dtype=float),
            distance_cm=np.array([np.nan if r.distance_cm is None else r.distance_cm
                                  for r in g], dtype=float),
            lines=np.array([r.line for r in g], dtype=np.int64),
        )
    return out


def tracks_to_rows(tracks: Iterable[SourceTrack] | Mapping[tuple[int, int], SourceTrack]
                   ) -> list[LabelRow]:
    """Inverse of :func:`rows_to_tracks` (rows sorted by frame, class, source)."""
    if isinstance(tracks, Mapping):
        tracks = tracks.values()
    rows = []
    for tr in tracks:
        dist = tr.distance_cm if len(tr.distance_cm) == len(tr) else np.full(len(tr), np.nan)
        for i in range(len(tr)):
            d = float(dist[i])
            rows.append(LabelRow(int(tr.frames[i]), tr.class_idx, tr.source,
                                 float(tr.azimuth_deg[i]), float(tr.elevation_deg[i]),
                                 None if not np.isfinite(d) else d))
    rows.sort(key=lambda r: (r.frame, r.class_idx, r.source))
    return rows


def frame_times(frames: np.ndarray | Iterable[int]) -> np.ndarray:
    """Start times (s) of label frames."""
    return np.asarray(frames, dtype=float) * LABEL_HOP_S


def metadata_files(metadata_dir: str | os.PathLike) -> dict[str, Path]:
    """Label CSVs under ``metadata_dir`` (recursive), keyed by file stem (the audio id).

    Raises
    ------
    FormatError
        The folder does not exist, or two CSVs share a stem.
    """
    root = Path(metadata_dir)
    if not root.is_dir():
        raise FormatError(root, "no such metadata folder")
    out: dict[str, Path] = {}
    for p in sorted(root.rglob("*.csv")):
        if p.name.startswith("."):
            continue
        if p.stem in out:
            raise FormatError(p, f"label file name repeats {out[p.stem]} (ids must be unique)")
        out[p.stem] = p
    return out
