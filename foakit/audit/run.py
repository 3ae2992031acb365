"""The run skeleton every FOA label audit calls: clips through the workers, checkpoints,
resume, and the result's bookkeeping.

A benchmark's audit turns its label files into jobs and a ``consume`` function that takes
everything it needs from one analysed clip; :func:`run_audit` does the rest the same way for
every benchmark: worker processes, checkpoints under ``estimates_dir`` (so a re-run resumes
and a run killed at any moment loses only the clips in flight), failures recorded per clip,
DOA maps let go once a clip is consumed, and the result's ``clips`` read back from the
checkpoints on access so that memory stays flat.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..params import AnalysisParams
from .checkpoint import EstimateStore, StoredClips
from .estimates import ClipEstimate, drop_doa_maps
from .runner import estimate_clips
from .verdicts import AuditResult, LabelVerdict

__all__ = ["AuditRun", "run_audit"]


@dataclass
class AuditRun:
    """What :func:`run_audit` gathered.

    Attributes
    ----------
    paths : dict
        ``audio_id`` -> the audio path of every clip that came back (analysed or failed).
    broken : dict
        ``audio_id`` -> ``(path, error)`` of the clips whose analysis failed.
    store : EstimateStore or None
        The checkpoint store, when the run had one.
    kept : dict
        ``audio_id`` -> :class:`ClipEstimate` of the clips analysed without error, when the
        run had no store (with one, they are read back from it).
    """

    paths: dict[str, str] = field(default_factory=dict)
    broken: dict[str, tuple[str, str]] = field(default_factory=dict)
    store: EstimateStore | None = None
    kept: dict[str, ClipEstimate] = field(default_factory=dict)
    keep_maps: bool = False

    def clips(self, ok_ids: Sequence[str]) -> Mapping[str, ClipEstimate]:
        """The analysed clips of ``ok_ids``, read from the checkpoints on access."""
        if self.store is not None:
            return StoredClips(self.store, {a: self.paths[a] for a in ok_ids},
                               keep_maps=self.keep_maps)
        return {a: self.kept[a] for a in ok_ids if a in self.kept}

    def result(self, kind: str, verdicts: list[LabelVerdict], summary: dict,
               failures: list[tuple[str, str]], draw: dict[int, dict],
               ok_ids: Sequence[str]) -> AuditResult:
        """The :class:`AuditResult` of the run."""
        return AuditResult(kind, verdicts, summary, failures, self.clips(ok_ids), draw,
                           checkpoints=self.store.stats() if self.store is not None else {})


def run_audit(
    jobs: Iterable[tuple[str, str, bool]],
    consume: Callable[[ClipEstimate], None],
    *,
    kind: str,
    base_dir: str | os.PathLike,
    channel_order: str,
    normalisation: str | None = None,
    workers: int | None = None,
    progress: bool = False,
    params: AnalysisParams | None = None,
    estimates_dir: str | os.PathLike | None = None,
    retry_errors: bool = False,
    keep_maps: bool = False,
    dask: Any = None,
) -> AuditRun:
    """Analyse the clips of ``jobs`` and hand each to ``consume`` as it finishes.

    Parameters
    ----------
    jobs : iterable of (audio_id, path, alternative)
        ``alternative``: also decode the clip as the other channel order (the convention
        audit's re-decoding).
    consume : callable
        Called once per clip, in no particular order (resumed clips first), with its
        :class:`ClipEstimate` (``clip.ok`` False when its analysis failed); it takes what the
        audit needs, since the clip's DOA map is let go afterwards unless ``keep_maps``.
    kind : str
        The benchmark's name (progress-bar label).
    base_dir : str or PathLike
        The folder checkpoints name their audio relative to.
    channel_order : {"ambix", "fuma"}
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        Declared normalisation (None: the order's own).
    workers, progress, params, retry_errors
        As :func:`foakit.audit.runner.estimate_clips`.
    estimates_dir : str or PathLike, optional
        Checkpoint folder; None writes nothing and keeps the clips in memory.
    keep_maps : bool
        Keep each clip's DOA map.
    dask : str, DaskCluster or distributed.Client, optional
        Analyse on this Dask cluster (:func:`~foakit.audit.runner.estimate_clips`).

    Returns
    -------
    AuditRun
    """
    run = AuditRun(keep_maps=keep_maps)
    if estimates_dir is not None:
        run.store = EstimateStore(estimates_dir, base_dir=base_dir, channel_order=channel_order,
                                  params=params, normalisation=normalisation)

    def on_result(clip: ClipEstimate) -> None:
        consume(clip)
        run.paths[clip.audio_id] = clip.path
        if clip.ok:
            if run.store is None:
                run.kept[clip.audio_id] = clip
        else:
            run.broken[clip.audio_id] = (clip.path, clip.error or "analysis failed")
        if not keep_maps:
            drop_doa_maps(clip)

    estimate_clips(jobs, channel_order=channel_order, normalisation=normalisation,
                   workers=workers, progress=progress,
                   params=params, desc=f"foakit audit {kind}", on_result=on_result,
                   store=run.store, retry_errors=retry_errors, keep=False, dask=dask)
    return run
