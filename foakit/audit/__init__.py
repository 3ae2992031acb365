"""The audit core: what every benchmark's label audit shares; it names no benchmark.

* :mod:`.verdicts`: :class:`LabelVerdict`, :class:`AuditResult`, the confidence formulas.
* :mod:`.hypotheses`: the convention hypotheses (angle maps, channel-order re-decoding).
* :mod:`.estimates`, :mod:`.runner`, :mod:`.checkpoint`: per-clip signal evidence, computed
  in worker processes and checkpointed so that a re-run resumes.
* :mod:`.run`: :func:`~.run.run_audit`, the run skeleton every FOA audit calls.
* :mod:`.doamap`, :mod:`.onsets`, :mod:`.evidence`: the time x direction energy map, onset
  directions, span and onset evidence.
* :mod:`.conventions`: the corpus-wide convention decision.
* :mod:`.report`, :mod:`.plots`: flags.jsonl, verdicts.jsonl, summary.json, figures, index.md.

The benchmark audits live with their benchmarks (:mod:`foakit.bench.sobench.audit`,
:mod:`foakit.bench.starss.audit`); ``audit_sobench`` and ``audit_starss`` stay importable
from here for one release.
"""

from __future__ import annotations

from .._moved import moved_names
from .hypotheses import ANGLE_HYPOTHESES
from .report import write_report
from .verdicts import VERDICTS, AuditResult, LabelVerdict

__all__ = [
    "ANGLE_HYPOTHESES",
    "VERDICTS",
    "AuditResult",
    "LabelVerdict",
    "write_report",
]

_MOVED = {
    "SobenchAuditConfig": "foakit.bench.sobench.audit",
    "audit_sobench": "foakit.bench.sobench.audit",
    "StarssAuditConfig": "foakit.bench.starss.audit",
    "audit_starss": "foakit.bench.starss.audit",
}


__getattr__ = moved_names(__name__, _MOVED)
