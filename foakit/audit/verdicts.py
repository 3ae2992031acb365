"""Verdicts on labels and what an audit returns.

Each label gets one :class:`LabelVerdict`: ``consistent`` (the evidence agrees),
``suspicious`` (the evidence disagrees; ``confidence`` in 0-1 and a ``reason``) or
``unverifiable`` (no usable evidence; ``reason`` says why: no time window, overlap, diffuse
field, no DOA peak, unreadable audio ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .estimates import ClipEstimate

__all__ = [
    "VERDICTS",
    "AuditResult",
    "LabelVerdict",
    "count_verdicts",
    "flip_confidence",
    "jsonable",
    "shift_confidence",
    "weak_support_confidence",
]

VERDICTS = ("consistent", "suspicious", "unverifiable")


@dataclass
class LabelVerdict:
    """The verdict on one label.

    Attributes
    ----------
    key : dict
        What identifies the label: ``qa_id`` (SO-Bench) or ``audio_id``, ``class``,
        ``source`` (STARSS), plus ``audio_id`` and ``task_name`` where known.
    field : str
        ``azimuth``, ``elevation``, ``distance``, ``onset``, ``time_span``, ``count``,
        ``relation``, ``direction`` (both angles) or ``time`` (STARSS frames).
    verdict : str
        One of :data:`VERDICTS`.
    label : Any
        The labelled value.
    estimate : Any
        What the evidence says (None when unverifiable).
    confidence : float
        0-1, how sure the audit is that a suspicious label is wrong (0 otherwise).
    reason : str
        One sentence: why suspicious, or why unverifiable ("" when consistent).
    evidence : dict
        Numbers behind the verdict (errors, supports, the checks that ran).
    """

    key: dict
    field: str
    verdict: str
    label: Any = None
    estimate: Any = None
    confidence: float = 0.0
    reason: str = ""
    evidence: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = dict(self.key)
        d.update(field=self.field, verdict=self.verdict, label=jsonable(self.label),
                 estimate=jsonable(self.estimate), confidence=round(float(self.confidence), 3),
                 reason=self.reason, evidence=jsonable(self.evidence))
        return d



def jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, float | np.floating):
        v = float(x)
        return round(v, 4) if np.isfinite(v) else None
    return x



@dataclass
class AuditResult:
    """What an audit found.

    Attributes
    ----------
    kind : str
        ``"starss"`` or ``"sobench"``.
    verdicts : list of LabelVerdict
    summary : dict
        Counts by verdict and field, the convention block, metrics.
    failures : list of (str, str)
        Files that could not be audited and why.
    clips : mapping
        ``audio_id`` -> :class:`~foakit.audit.common.ClipEstimate` of the clips analysed
        without error (read from the checkpoints on access when the audit had a store).
    draw : dict
        Per verdict index, what plots draw as the label (times and directions).
    checkpoints : dict
        With a checkpoint store: its folder and how many clips were ``loaded`` from it and
        ``analysed`` (written to it) by this run; empty without one.
    """

    kind: str
    verdicts: list[LabelVerdict]
    summary: dict
    failures: list[tuple[str, str]] = field(default_factory=list)
    clips: Mapping[str, ClipEstimate] = field(default_factory=dict)
    draw: dict[int, dict] = field(default_factory=dict)
    checkpoints: dict = field(default_factory=dict)

    @property
    def flagged(self) -> list[LabelVerdict]:
        return [v for v in self.verdicts if v.verdict == "suspicious"]


def count_verdicts(verdicts: list[LabelVerdict]) -> dict:
    """``{"by_verdict": {...}, "by_field": {field: {verdict: n}}}``."""
    by_v = {v: 0 for v in ("consistent", "suspicious", "unverifiable")}
    by_f: dict[str, dict[str, int]] = {}
    for v in verdicts:
        by_v[v.verdict] += 1
        f = by_f.setdefault(v.field, {k: 0 for k in by_v})
        f[v.verdict] += 1
    return {"total": len(verdicts), "by_verdict": by_v, "by_field": by_f}


# How sure a suspicious verdict is, by the kind of evidence against the label.  Each maps the
# strength of that evidence to a confidence in 0-1; the audits of every benchmark use them.

def shift_confidence(gain: float) -> float:
    """A time label that fits the signal better when moved: 0.45 plus the gain in fit (in
    IoU or presence share), within [0.3, 0.95]."""
    return float(np.clip(0.45 + gain, 0.3, 0.95))


def flip_confidence(gain: float) -> float:
    """A direction that the signal shows mirrored (the opposite elevation): 0.5 plus the
    prominence gained by the flip, within [0.5, 0.95]."""
    return float(np.clip(0.5 + gain, 0.5, 0.95))


def weak_support_confidence(prominence: float, doubt: float, *, base: float, floor: float,
                            corroborated: bool) -> float:
    """A label whose direction holds little of the signal's energy: ``base`` plus 0.45 x how
    far its prominence lies below the ``doubt`` threshold (as a share of it), 0.1 more when
    other evidence points the same way, within [``floor``, 0.95]."""
    below = (doubt - prominence) / max(doubt, 1e-9)
    return float(np.clip(base + 0.45 * below + (0.1 if corroborated else 0.0), floor, 0.95))

