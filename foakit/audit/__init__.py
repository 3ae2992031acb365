"""Label audits: check benchmark labels against the rest of the corpus and the signal.

* :func:`audit_sobench` (:mod:`foakit.audit.sobench`): SO-Bench QA labels.
* :func:`audit_starss` (:mod:`foakit.audit.starss`): STARSS / DCASE label CSVs.
* :mod:`foakit.audit.conventions`: the corpus-wide convention audit (FuMa read as ambiX,
  mirrored azimuth, front-back flip, Y/X swap, elevation sign).
* :func:`write_report` (:mod:`foakit.audit.report`): flags.jsonl, verdicts.jsonl,
  summary.json, figures, index.md.
* :mod:`foakit.audit.inject`: known label errors injected into a corpus, to measure an audit.
* :mod:`foakit.audit.checkpoint`: per-clip checkpoints of the signal evidence, so that a
  re-run resumes (``estimates_dir``).
"""

from __future__ import annotations

from .common import ANGLE_HYPOTHESES, VERDICTS, AuditResult, LabelVerdict
from .report import write_report
from .sobench import SobenchAuditConfig, audit_sobench
from .starss import StarssAuditConfig, audit_starss

__all__ = [
    "ANGLE_HYPOTHESES",
    "VERDICTS",
    "AuditResult",
    "LabelVerdict",
    "SobenchAuditConfig",
    "StarssAuditConfig",
    "audit_sobench",
    "audit_starss",
    "write_report",
]
