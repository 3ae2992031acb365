"""HalluAudio (LuVox): parquet loading, closed-case scoring, judge requests, baselines and
the speech-activity / SNR audit of its labels (docs/halluaudio.md)."""

from __future__ import annotations

from ..._moved import lazy_names

# Where each public name lives.  Names load on first use (PEP 562), so that
# ``foakit --help`` and every other command, which import each benchmark's cli module,
# do not pay for SciPy and the audit machinery.
_WHERE = {
    "CONFIGS": "format",
    "Audio": "format",
    "BrokenRow": "format",
    "Case": "format",
    "Corpus": "format",
    "Row": "format",
    "find_config_files": "format",
    "iter_rows": "format",
    "load_corpus": "format",
    "speech_presence": "format",
    "uncertain_spans": "format",
    "JUDGE_LABELS": "scoring",
    "SCORER_VERSION": "scoring",
    "extract_choice": "scoring",
    "format_report": "scoring",
    "normalize": "scoring",
    "read_judge_labels": "scoring",
    "read_responses": "scoring",
    "score": "scoring",
    "score_case": "scoring",
    "violated_claims": "scoring",
    "claim_matches": "scoring",
    "judge_requests": "judge",
    "leaks": "judge",
    "KINDS": "baselines",
    "baseline_responses": "baselines",
    "write_responses": "baselines",
    "RULES": "audit",
    "THRESHOLDS": "audit",
    "AuditResult": "audit",
    "audit": "audit",
    "judge_audio": "audit",
    "write_report": "audit",
    "FAMILIES": "synth",
    "WRONG_KINDS": "synth",
    "write_corpus": "synth",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_names(__name__, _WHERE)
