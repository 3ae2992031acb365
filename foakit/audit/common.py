"""Re-exports of the audit core under its former name (kept for one release).

The code lives in :mod:`foakit.audit.verdicts` (verdicts, :class:`AuditResult`),
:mod:`foakit.audit.hypotheses` (convention hypotheses), :mod:`foakit.audit.estimates`
(per-clip evidence), :mod:`foakit.audit.runner` (:func:`estimate_clips`) and
:mod:`foakit.audit.config` (configuration checks).
"""

from __future__ import annotations

from .config import require_positive, require_prominence_order
from .estimates import (
    ClipEstimate,
    DoaEstimate,
    directional_blocks,
    drop_doa_maps,
    estimate_clip,
    mean_diffuseness,
)
from .hypotheses import (
    ANGLE_HYPOTHESES,
    apply_hypothesis,
    best_hypothesis,
    other_order,
    redecode_hypothesis,
)
from .runner import estimate_clips
from .verdicts import VERDICTS, AuditResult, LabelVerdict, count_verdicts

__all__ = [
    "VERDICTS",
    "ANGLE_HYPOTHESES",
    "LabelVerdict",
    "ClipEstimate",
    "DoaEstimate",
    "apply_hypothesis",
    "redecode_hypothesis",
    "other_order",
    "estimate_clip",
    "estimate_clips",
    "AuditResult",
    "count_verdicts",
    "best_hypothesis",
    "directional_blocks",
    "mean_diffuseness",
    "drop_doa_maps",
    "require_positive",
    "require_prominence_order",
]
