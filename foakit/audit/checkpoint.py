"""Per-clip checkpoints of an audit's signal evidence, so that re-running an audit resumes it.

Layout of the folder (``DIR/estimates/`` for ``foakit audit ... -o DIR``):

``index.jsonl``
    One line per finished clip, the latest line for a path wins: ``path`` (of the audio file,
    relative to the corpus root), ``key``, ``file``, ``audio_id``, ``status``, ``error`` and
    ``alt`` (whether the clip was also decoded in the other channel order).
``<hex>.npz``
    The clip's :class:`~foakit.audit.common.ClipEstimate`: its arrays (frames, DOA peaks, DOA
    maps) and one JSON header; no pickle.

**Key.**  A checkpoint is reused only when its ``key`` matches: a hash of the audio file's
relative path, size and modification time, the declared channel order and normalisation,
every analysis parameter, the foakit version and the checkpoint format.  A clip whose file
was replaced, or a run with other settings, is analysed again (and its new line supersedes
the old one).  The
audit's own thresholds are not part of the key: they only change the verdicts, which are
recomputed from the estimates on every run.

**Crash safety** (as :mod:`foakit.corpus`).  A clip's ``.npz`` is written to a temporary name
and renamed, *then* its batch's index lines are appended in one ``write``.  A run killed at
any moment loses only the clips in flight: on opening, a torn last line is cut off and files
that no latest line references (orphans, temporary files, superseded checkpoints) are
deleted.  A checkpoint that cannot be read back is analysed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import numpy as np

from .. import __version__
from ..conventions import check_channel_order, resolve_normalisation
from ..errors import FoakitError
from ..jsonl import append_records, read_records
from ..params import AnalysisParams
from .doamap import DoaMap
from .estimates import ClipEstimate, DoaEstimate, drop_doa_maps
from .preset import AUDIT_PARAMS

__all__ = ["ESTIMATES_DIR", "INDEX_FILE", "EstimateStore", "StoredClips", "save_estimate",
           "load_estimate", "checkpoint_record"]

ESTIMATES_DIR = "estimates"
INDEX_FILE = "index.jsonl"
#: Bump when what a checkpoint holds, or how it is computed, changes.
FORMAT = 3


def _doa_header(d: DoaEstimate | None, tag: str, arrays: dict[str, np.ndarray]) -> dict | None:
    if d is None:
        return None
    arrays[f"{tag}.peaks"] = np.asarray(d.peaks)
    if d.onsets is not None:
        arrays[f"{tag}.onsets"] = np.asarray(d.onsets)
    head: dict = {"channel_order": d.channel_order, "window_s": d.window_s,
                  "events": d.events, "map": None}
    if d.dmap is not None:
        arrays[f"{tag}.energy"] = d.dmap.energy
        arrays[f"{tag}.total"] = d.dmap.total
        head["map"] = {"block_s": d.dmap.block_s, "az_step_deg": d.dmap.az_step_deg,
                       "el_step_deg": d.dmap.el_step_deg}
    return head


def save_estimate(folder: str | os.PathLike, est: ClipEstimate) -> str:
    """Write a clip's estimate to a new file in ``folder``, atomically.

    Parameters
    ----------
    folder : str or PathLike
    est : ClipEstimate

    Returns
    -------
    str
        The file's name (unique: a new file per call).

    Raises
    ------
    FoakitError
        The file cannot be written (disk full, no permission).
    """
    arrays: dict[str, np.ndarray] = {}
    for name, col in est.frames.items():
        arrays[f"frames.{name}"] = np.asarray(col)
    header = {"format": FORMAT, "status": est.status, "error": est.error,
              "sample_rate": est.sample_rate, "duration_s": est.duration_s,
              "frames": list(est.frames),
              "doa": _doa_header(est.doa, "doa", arrays),
              "alt": _doa_header(est.alt, "alt", arrays),
              "norm_stats": None if est.norm_stats is None
              else [float(v) for v in est.norm_stats]}
    # JSON keeps Python floats exact (repr round-trips), so a loaded clip audits identically
    arrays["header"] = np.array(json.dumps(header))
    name = f"{uuid.uuid4().hex}.npz"
    final = Path(folder) / name
    tmp = final.with_name(f".{name}.tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)
        os.replace(tmp, final)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise FoakitError(f"{final}: cannot write an audit checkpoint: {exc}") from exc
    return name


def _doa_from(head: dict | None, tag: str, z) -> DoaEstimate | None:
    if head is None:
        return None
    dmap = None
    if head["map"] is not None:
        m = head["map"]
        dmap = DoaMap(block_s=m["block_s"], az_step_deg=m["az_step_deg"],
                      el_step_deg=m["el_step_deg"], energy=z[f"{tag}.energy"],
                      total=z[f"{tag}.total"])
    return DoaEstimate(channel_order=head["channel_order"], window_s=head["window_s"],
                       peaks=z[f"{tag}.peaks"], events=head["events"], dmap=dmap,
                       onsets=z[f"{tag}.onsets"] if f"{tag}.onsets" in z else None)


def load_estimate(path: str | os.PathLike, audio_id: str, audio_path: str) -> ClipEstimate:
    """Read a clip's estimate written by :func:`save_estimate`.

    Parameters
    ----------
    path : str or PathLike
        The ``.npz`` file.
    audio_id, audio_path : str
        Set on the estimate (the corpus may have moved since it was written).

    Returns
    -------
    ClipEstimate

    Raises
    ------
    Exception
        Whatever a torn or foreign file raises (``OSError``, ``ValueError``,
        ``zipfile.BadZipFile``, ``KeyError``); callers analyse the clip again.
    """
    with np.load(path, allow_pickle=False) as z:
        head = json.loads(str(z["header"][()]))
        if head.get("format") != FORMAT:
            raise ValueError(f"checkpoint format {head.get('format')!r}, expected {FORMAT}")
        return ClipEstimate(
            audio_id=audio_id, path=audio_path, status=head["status"], error=head["error"],
            sample_rate=head["sample_rate"], duration_s=head["duration_s"],
            frames={name: z[f"frames.{name}"] for name in head["frames"]},
            doa=_doa_from(head["doa"], "doa", z), alt=_doa_from(head["alt"], "alt", z),
            norm_stats=None if head.get("norm_stats") is None
            else np.asarray(head["norm_stats"], dtype=float))


class EstimateStore:
    """The checkpoints of one audit output folder (see the module docstring).

    Opening the store repairs what a killed run left: a torn last index line is cut off and
    files no latest line references are deleted.

    Parameters
    ----------
    folder : str or PathLike
        Created if needed.
    base_dir : str or PathLike
        The corpus root; checkpoints are keyed by paths relative to it.
    channel_order : {"ambix", "fuma"}
        Declared order of the audio.
    params : AnalysisParams, optional
        Default :data:`foakit.audit.preset.AUDIT_PARAMS` (what the audits are calibrated on).
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        Declared normalisation of the audio (None: the order's own).

    Attributes
    ----------
    n_loaded, n_written : int
        Clips read back from, and written to, the store by this process.
    n_failed : int
        Of the clips written, those whose audio could not be analysed (status not "ok").
    """

    def __init__(self, folder: str | os.PathLike, *, base_dir: str | os.PathLike,
                 channel_order: str = "ambix", params: AnalysisParams | None = None,
                 normalisation: str | None = None) -> None:
        self.folder = Path(folder)
        self.base_dir = os.path.abspath(base_dir)
        self.channel_order = check_channel_order(channel_order)
        self.normalisation = resolve_normalisation(self.channel_order, normalisation)
        self.params = params or AUDIT_PARAMS
        self._params_d = json.loads(json.dumps(self.params.to_dict()))
        self.n_loaded = 0
        self.n_written = 0
        self.n_failed = 0
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FoakitError(f"{self.folder}: cannot create the checkpoint folder: "
                              f"{exc.strerror or exc}") from exc
        self._records = self._repair()

    # -- reading --------------------------------------------------------------------------

    def _repair(self) -> dict[str, dict]:
        records = read_records(self.folder / INDEX_FILE)
        self._prune(records)
        return records

    def _prune(self, records: dict[str, dict]) -> None:
        used = {r.get("file") for r in records.values()}
        for p in self.folder.iterdir():
            # only what the store writes: never a file someone else put there
            mine = p.suffix == ".npz" or (p.name.startswith(".") and p.name.endswith(".tmp"))
            if mine and p.name not in used and p.is_file():
                p.unlink(missing_ok=True)

    def ref(self, audio_path: str | os.PathLike) -> tuple[str, str] | None:
        """``(relative path, key)`` of an audio file as it is now; None if it cannot be
        stat'ed (it is then analysed, and fails there with a clear error)."""
        try:
            st = os.stat(audio_path)
        except OSError:
            return None
        rel = Path(os.path.relpath(os.path.abspath(audio_path), self.base_dir)).as_posix()
        ident = {"format": FORMAT, "foakit": __version__, "path": rel, "size": st.st_size,
                 "mtime_ns": st.st_mtime_ns, "channel_order": self.channel_order,
                 "normalisation": self.normalisation,
                 "params": self._params_d}
        key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:32]
        return rel, key

    def lookup(self, ref: tuple[str, str] | None, *, alternative: bool = False,
               retry_errors: bool = False) -> dict | None:
        """The index record that can stand in for analysing a clip, or None.

        Parameters
        ----------
        ref : (str, str) or None
            From :meth:`ref`.
        alternative : bool
            The clip must also be decoded in the other channel order.
        retry_errors : bool
            Do not reuse a recorded failure.
        """
        if ref is None:
            return None
        rec = self._records.get(ref[0])
        if rec is None or rec.get("key") != ref[1] or not rec.get("file"):
            return None
        if rec.get("status") != "ok":
            return None if retry_errors else rec
        return rec if rec.get("alt") or not alternative else None

    def record(self, audio_path: str | os.PathLike) -> dict | None:
        """The latest record of an audio file (whatever its key)."""
        ref = self.ref(audio_path)
        return self._records.get(ref[0]) if ref is not None else None

    def load(self, rec: dict, audio_id: str, audio_path: str, *,
             alternative: bool = True) -> ClipEstimate | None:
        """Read a record's estimate; None when the file is missing or unreadable.

        ``alternative=False`` drops a re-decoding the record holds, so the clip audits as if
        it had been analysed for this job.
        """
        try:
            est = load_estimate(self.folder / rec["file"], audio_id, os.fspath(audio_path))
        except Exception:  # torn, truncated or foreign: analyse the clip again
            return None
        if not alternative:
            est.alt = None
        self.n_loaded += 1
        return est

    # -- writing --------------------------------------------------------------------------

    def commit(self, records: Iterable[dict]) -> None:
        """Append index lines for estimates already saved, in one ``write``."""
        records = list(records)
        if not records:
            return
        try:
            append_records(self.folder / INDEX_FILE, records, allow_nan=True)
        except OSError as exc:
            raise FoakitError(f"{self.folder / INDEX_FILE}: cannot append: "
                              f"{exc.strerror or exc}") from exc
        for r in records:
            self._records[r["path"]] = r
        self.n_written += len(records)
        self.n_failed += sum(1 for r in records if r.get("status") != "ok")

    def stats(self) -> dict:
        """``{"dir": folder, "loaded": n, "analysed": n, "failed": n}``: clips read back,
        clips written, and of those the ones whose audio could not be analysed."""
        return {"dir": str(self.folder), "loaded": self.n_loaded, "analysed": self.n_written,
                "failed": self.n_failed}

    def prune(self) -> None:
        """Delete files no latest record references (left by a crashed worker)."""
        self._prune(self._records)


def checkpoint_record(folder: str | os.PathLike, est: ClipEstimate, ref: tuple[str, str],
                      alternative: bool) -> dict:
    """Save an estimate (:func:`save_estimate`) and return its index record."""
    return {"path": ref[0], "key": ref[1], "file": save_estimate(folder, est),
            "audio_id": est.audio_id, "status": est.status, "error": est.error,
            "alt": bool(alternative and est.alt is not None)}


class StoredClips(Mapping):
    """``audio_id`` -> :class:`~foakit.audit.common.ClipEstimate`, read from a store on
    access, so that an audit's result does not hold every clip in memory.

    Each clip is the checkpoint recorded when the view was made; one that a later run in the
    same folder has replaced (and deleted) reads as missing.

    Parameters
    ----------
    store : EstimateStore
    paths : dict
        ``audio_id`` -> audio path of the clips to expose.
    keep_maps : bool
        Keep the DOA maps of the clips read (dropped by default, as the audits do).
    """

    def __init__(self, store: EstimateStore, paths: dict[str, str], *,
                 keep_maps: bool = False) -> None:
        self._store = store
        self._paths = dict(paths)
        self._recs = {aid: store.record(p) for aid, p in self._paths.items()}
        self._keep_maps = keep_maps

    def __getitem__(self, audio_id: str) -> ClipEstimate:
        path, rec = self._paths[audio_id], self._recs[audio_id]
        est = self._store.load(rec, audio_id, path) if rec is not None else None
        if est is None:
            raise KeyError(audio_id)
        if not self._keep_maps:
            drop_doa_maps(est)
        return est

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)
